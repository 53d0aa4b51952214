/**
 * Command-line parsing of `infra-doubles` (node:util `parseArgs`, no dependency): commands, flags,
 * their validation, and the usage text.
 */
import { parseArgs } from "node:util";
import { bindsBeyondLoopback } from "../interceptors/control.js";
import { clockDurationMs } from "../simulator/kernel/clock.js";
import { parseMutateCommand, type MutateCommand } from "./mutate-args.js";
import { parseSoakCommand, type SoakCommand } from "./soak-args.js";

/** Default port of `infra-doubles serve`. */
export const DEFAULT_PORT = 8080;

/** Default interface of `infra-doubles serve`. */
export const DEFAULT_HOST = "127.0.0.1";

/** The clocks `serve --clock` accepts. */
export const SERVE_CLOCKS = ["advanceable", "manual", "system"] as const;

/** The usage text printed on `--help` and on bad arguments. */
export const USAGE = `Usage: infra-doubles serve [--port 8080] [--host 127.0.0.1] [--seed N] [--json]
                          [--scenario FILE [--with-default]] [--clock advanceable|manual|system] [--start TIME]
                          [--allowed-host NAME]... [--control-token TOKEN]
                          [--split] [--runs-port N] [--access-control-port N] [--secrets-port N]
                          [--passthrough SERVICE=URL]... [--world-idle DURATION] [--max-worlds N] [--state FILE]
                          [--mutant ID]
       infra-doubles run FILE [--seed N] [--start TIME]
       infra-doubles diagram TABLE [--format mermaid|svg] [--coverage FILE]
       infra-doubles diagram --list
       infra-doubles replay BUNDLE [--diff N] [--until N [--port 8080] [--host 127.0.0.1] [--json]
                          [--allowed-host NAME]... [--control-token TOKEN]]
       infra-doubles soak --for DURATION [--speed 10000] [--contracts LIST] [--seed N] [--start TIME]
                          [--port N] -- COMMAND [ARG]...
       infra-doubles mutate [--jobs N] [--max-mutants N [--seed N]] [--only SERVICES] [--operator OPS]
                          [--timeout DURATION] [--json FILE] [--html FILE] [--threshold P]
                          [--state FILE] [--fresh] -- COMMAND [ARG]...
       infra-doubles mutate --list [--only SERVICES] [--operator OPS]

serve: starts a local server with every simulated service on one origin (or, with --split, each
service on its own port), on the embedded default scenario (organizations, tokens, mounts ready to
use), or on a scenario document instead when given, and the /_sim/ control API.

run: loads a scenario document (JSON or YAML) on a fresh simulator with a manual clock, plays its
timeline and prints a transcript (same file and seed, same bytes). Exit status 0 when every expect
step passed, 1 when one failed, 2 for a document that is invalid or cannot be read.

diagram: prints the state diagram of a transition table (runs, configuration-versions, acl-tokens,
secrets-tokens, leases, node-states) as Mermaid stateDiagram-v2 text (the default) or as SVG, e.g.
infra-doubles diagram runs > runs.mmd; with --coverage FILE (a coverage.json written by the vitest
global setup infra-doubles/coverage, or GET /_sim/coverage), each transition taken shows how often
and each one never taken is marked. --list prints the tables.
replay: replays a bundle (written by doubles.bundle(path), or by useDoubles() when a test failed)
on a fresh world: the same seed, start and scenario on a manual clock, every control action and
request in order at its simulated time. Reports the first answer that differs from the recorded
one, byte for byte (a changed fake). Exit status 0 when every answer is identical, 1 when one
differs, 2 for a bundle that cannot be read.
      --until N    stop before request N and serve the world as it was then (serve's --port,
                   --host, --json, --allowed-host, --control-token), until Ctrl+C
      --diff N     print the state change request N made (JSON pointers, old -> new)
soak: serves the default world on a clock compressed --speed times (default 10000: 30 simulated
days in 259 s), runs COMMAND with the server in its environment (VAULT_ADDR, VAULT_TOKEN,
CONSUL_HTTP_ADDR, CONSUL_HTTP_TOKEN, TFE_ADDRESS, TFE_TOKEN, INFRA_DOUBLES_URL, and
INFRA_DOUBLES_SPEED to divide its waits by), and checks temporal contracts on every request:
renew-before=lease:2/3, renew-before=token:2/3, never-use-expired, honor-retry-after (the
default), back-off=FACTOR, poll-no-faster-than=DURATION (comma-separated). Exit status 1 at the
first broken contract (its simulated time and requests printed), 0 when --for of simulated time
passed, 3 when COMMAND ended first; COMMAND is stopped either way.
mutate: runs the test COMMAND once against the faithful fake (coverage tells which test files
reach which rule), then once per service mutant (INFRA_DOUBLES_MUTANT=<id> in its environment),
with only the test files that reached the mutated rule when COMMAND is vitest, jest or
node --test (or holds {files}); a mutant no test reached is not run. Reports each mutant killed,
survived (your suite passes when ...), timed out or not reached, per operator and service, and
the mutation score. Results go to a state file as they come (default
.infra-doubles/mutate-<hash>.jsonl): the same command again resumes. Exit status 0, 1 below
--threshold, 2 when the suite fails without any mutant, 130 when interrupted. mutate --list
prints id, operator, service and behaviour, tab-separated, one mutant a line.
      --jobs N     mutants run at once (default: the available parallelism)
      --max-mutants N, --seed N
                   a deterministic sample of N mutants (seed 1 by default)
      --only SERVICES, --operator OPS
                   runs, accessControl, secrets / operators (mutate --list), comma-separated
      --timeout D  wall time one run may take (default 3x the faithful run + 5 s, at least 10 s)
      --json FILE, --html FILE
                   write the report (the JSON has no timings: same mutants, seed and suite,
                   same bytes)
      --threshold P  exit 1 when the mutation score is below P percent
      --state FILE, --fresh
                   where the results go / ignore the ones already there

Options:
  -p, --port N     port to listen on (default ${DEFAULT_PORT}; 0 picks a free port); with --split the
                   first of consecutive ports: runs N, access control N+1, secrets N+2
      --split      each service on its own port (as real clients expect one address per service:
                   VAULT_ADDR, CONSUL_HTTP_ADDR); the /_sim/ control API on every port
      --runs-port N, --access-control-port N, --secrets-port N
                   that service's port in split mode (implies --split; 0 picks a free port)
      --host H     interface to bind (default ${DEFAULT_HOST}); any other than loopback prints a
                   warning and protects /_sim/ with a control token
      --allowed-host NAME
                   another Host name (NAME or NAME:PORT) the /_sim/ control API answers, besides
                   localhost, 127.0.0.1, [::1] and the bound address; repeatable
      --control-token TOKEN
                   the token /_sim/ requests must send in the X-Infra-Doubles-Control-Token
                   header (default: none on loopback, a random one beyond)
      --passthrough SERVICE=URL
                   forward what the fake does not simulate for SERVICE (runs, accessControl,
                   secrets) to the real server at URL, e.g. secrets=http://127.0.0.1:8200 (after
                   the service's routes, before its 404; journalled as passed through; 502 when
                   it cannot be reached); repeatable, once per service
      --seed N     seed of ids and secrets (default 1 on loopback; bound beyond loopback, a
                   random seed, printed at start): same seed, same calls, same responses
      --scenario FILE
                   serve this scenario document (JSON or YAML) INSTEAD of the default scenario
                   (same document and seed, same ids as run and createDoubles); POST /_sim/reset
                   goes back to the state right after it
      --with-default
                   with --scenario: build the default scenario first and load the document on top
                   of it (the document must not redefine its names, e.g. policy "acl-read"; ids
                   then differ from run's)
      --clock C    advanceable (default: real time that POST /_sim/clock/advance pushes forward),
                   manual (moves only when advanced) or system (real time, cannot be advanced)
      --start TIME RFC 3339 time the clock starts at (manual, advanceable; default: 2024-01-01T00:00:00Z
                   for manual and run, now for advanceable)
      --state FILE load the world saved in FILE at start (when it exists: instead of the default
                   scenario or --scenario), and write it there on exit (SIGINT, SIGTERM) and on
                   POST /_sim/state/save (a temporary file, then a rename)
      --mutant ID  build the world as this service mutant (infra-doubles mutate --list names them;
                   default: the --scenario document's mutant, else INFRA_DOUBLES_MUTANT, else none)
      --json       print one line of JSON on start instead of the banner
      --world-idle DURATION
                   close a world (POST /_sim/worlds) that received no request for this long, in
                   wall time (10m, 90s; default: worlds live until DELETE /_sim/worlds/:id)
      --max-worlds N
                   at most N live worlds (default 200); one more is refused with 409
      --format F   diagram: mermaid (default) or svg
      --coverage FILE
                   diagram: mark the transitions a coverage report reached, with counts
      --list       diagram: list the tables (name, what it is a table of, states, transitions)
  -h, --help       show this text

Control API (on the server's origin; writes need Content-Type: application/json):
  GET  /_sim/clock           {"now": ISO time, "epochMs": ms}
  POST /_sim/clock/advance   body {"by": "30s"} or {"by": 30000}
  POST /_sim/reset           back to the starting world, its start time and its faults
  GET  /_sim/journal         the requests answered so far
  POST /_sim/scenario        load a scenario document (JSON or YAML body)
  POST /_sim/worlds          a world of its own on a port of its own: {"seed"?, "clock"?, "start"?, "scenario"?}
  GET  /_sim/diagrams/TABLE  a state diagram (?format=svg|mermaid) with the items in each state now
  GET  /_sim/state           the whole world as a state document (PUT loads one)
  GET  /_sim/                every control route with its body shape
`;

/** A parsed `serve` command. */
export interface ServeCommand {
  readonly command: "serve";
  /** 0..65535; 0 picks a free port. */
  readonly port: number;
  readonly host: string;
  /** Integer seed, or any other text as a string seed. */
  readonly seed: number | string;
  /**
   * No `--seed` and a host beyond loopback: the CLI draws a random seed instead of `seed` (1), so
   * the services' tokens cannot be guessed from the network (docs/decisions/security.md).
   */
  readonly drawSeed?: true;
  readonly json: boolean;
  /** Extra `Host` names the control API answers (`--allowed-host`, repeatable). */
  readonly allowedHosts: readonly string[];
  /** `--control-token`, when given. */
  readonly controlToken?: string;
  /** Each service on its own port (`--split`, or any per-service port flag); absent: one origin. */
  readonly split?: true;
  /** Ports given per service key (`runs`, `accessControl`, `secrets`) in split mode. */
  readonly ports?: Readonly<Record<string, number>>;
  /** `--scenario FILE`: a scenario document to serve instead of the default scenario. */
  readonly scenario?: string;
  /** `--with-default`: build the default scenario first, then load `scenario` on top of it. */
  readonly withDefault?: true;
  /** `--clock` (default `advanceable`). */
  readonly clock: (typeof SERVE_CLOCKS)[number];
  /** `--start`: ms since the epoch. */
  readonly start?: number;
  /** `--passthrough SERVICE=URL` (repeatable): the real server per service key. */
  readonly passthrough?: Readonly<Record<string, string>>;
  /** `--world-idle`: a world idle this long (wall time, ms) is closed. */
  readonly worldIdleMs?: number;
  /** `--max-worlds`: the cap of live worlds. */
  readonly maxWorlds?: number;
  /** `--state FILE`: the world file loaded at start (when it exists) and written on exit. */
  readonly state?: string;
  /** `--mutant ID`: the service mutant the world is built as. */
  readonly mutant?: string;
}

/** The service keys `--passthrough` takes. */
export const PASSTHROUGH_SERVICES = ["runs", "accessControl", "secrets"] as const;

/** A parsed `replay` command. */
export interface ReplayCommand {
  readonly command: "replay";
  /** The bundle's path. */
  readonly file: string;
  /** `--until N`: serve the world before request N. */
  readonly until?: number;
  /** `--diff N`: print the state change of request N. */
  readonly diff?: number;
  /** Where `--until` serves (serve's defaults). */
  readonly port: number;
  readonly host: string;
  readonly json: boolean;
  readonly allowedHosts: readonly string[];
  readonly controlToken?: string;
}

/** A parsed `run` command. */
export interface RunCommand {
  readonly command: "run";
  /** The scenario document's path. */
  readonly file: string;
  readonly seed: number | string;
  /** `--start`: ms since the epoch. */
  readonly start?: number;
}

/** The formats `diagram --format` takes. */
export const DIAGRAM_FORMATS = ["mermaid", "svg"] as const;

/** A parsed `diagram` command. */
export interface DiagramCommand {
  readonly command: "diagram";
  /** The table to draw; absent with `--list`. */
  readonly table?: string;
  readonly list: boolean;
  readonly format: (typeof DIAGRAM_FORMATS)[number];
  /** `--coverage FILE`: a coverage report to mark. */
  readonly coverage?: string;
}

/** The per-service port flags and the service key each sets. */
export const SERVICE_PORT_FLAGS = { "runs-port": "runs", "access-control-port": "accessControl", "secrets-port": "secrets" } as const;

/** Arguments that ask for help (print {@link USAGE}, exit 0) or cannot be used (usage on stderr, exit 2). */
export interface UsageRequest {
  readonly command: "usage";
  /** What was wrong, or `undefined` for `--help`. */
  readonly problem: string | undefined;
}

/**
 * Parses `argv` (without `node` and the script path).
 * @returns the command, or a {@link UsageRequest} for `--help`, unknown flags and bad values.
 * @example parseCommand(["serve", "--port", "0", "--json"]) // { command: "serve", port: 0, host: "127.0.0.1", seed: 1, json: true, allowedHosts: [] }
 */
export function parseCommand(argv: readonly string[]): ServeCommand | RunCommand | DiagramCommand | ReplayCommand | SoakCommand | MutateCommand | UsageRequest {
  if (argv[0] === "soak") {
    const own = argv.includes("--") ? argv.slice(0, argv.indexOf("--")) : argv;
    if (own.includes("--help") || own.includes("-h")) return { command: "usage", problem: undefined };
    return parseSoakCommand(argv.slice(1));
  }
  if (argv[0] === "mutate") {
    const own = argv.includes("--") ? argv.slice(0, argv.indexOf("--")) : argv;
    if (own.includes("--help") || own.includes("-h")) return { command: "usage", problem: undefined };
    return parseMutateCommand(argv.slice(1));
  }
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    return { command: "usage", problem: (error as Error).message };
  }
  const { values, positionals } = parsed;
  if (values.help) return { command: "usage", problem: undefined };
  const [command, ...extra] = positionals;
  if (command === undefined) return { command: "usage", problem: "no command given" };
  if (command !== "serve" && command !== "run" && command !== "diagram" && command !== "replay") return { command: "usage", problem: `unknown command "${command}"` };
  if (command === "diagram") return diagramCommand(values, extra);
  if (command === "replay") return parseReplay(extra, values);
  const notServe = (["format", "coverage", "list"] as const).find((name) => values[name] !== undefined);
  if (notServe !== undefined) return { command: "usage", problem: `--${notServe} is an option of diagram, not ${command}` };
  const start = values.start === undefined ? undefined : parseStart(values.start);
  if (start === null) return { command: "usage", problem: `--start must be an RFC 3339 time like 2024-05-01T00:00:00Z, got "${values.start ?? ""}"` };
  if (command === "run") {
    const [file, ...more] = extra;
    if (file === undefined) return { command: "usage", problem: "run needs a scenario document: infra-doubles run FILE" };
    if (more.length > 0) return { command: "usage", problem: `unexpected argument "${more[0] ?? ""}"` };
    const serveOnly = Object.keys(values).filter((name) => !["seed", "start", "help"].includes(name));
    if (serveOnly.length > 0) return { command: "usage", problem: `--${serveOnly[0] ?? ""} is an option of ${serveOnly[0] === "until" || serveOnly[0] === "diff" ? "replay" : "serve"}, not run` };
    const runSeed = values.seed === undefined ? 1 : parseSeed(values.seed);
    if (runSeed === undefined) return { command: "usage", problem: "--seed must not be empty" };
    return { command: "run", file, seed: runSeed, ...(start === undefined ? {} : { start }) };
  }
  if (extra.length > 0) return { command: "usage", problem: `unexpected argument "${extra[0] ?? ""}"` };
  for (const name of ["until", "diff"] as const) if (values[name] !== undefined) return { command: "usage", problem: `--${name} is an option of replay, not serve` };
  const clock = values.clock ?? "advanceable";
  if (!(SERVE_CLOCKS as readonly string[]).includes(clock)) return { command: "usage", problem: `--clock must be one of ${SERVE_CLOCKS.join(", ")}, got "${clock}"` };
  if (start !== undefined && clock === "system") return { command: "usage", problem: "--start needs --clock manual or advanceable (the system clock keeps the real time)" };
  if (values.scenario !== undefined && values.scenario.trim() === "") return { command: "usage", problem: "--scenario must name a file" };
  if (values.state !== undefined && values.state.trim() === "") return { command: "usage", problem: "--state must name a file" };
  if (values.mutant !== undefined && values.mutant.trim() === "") return { command: "usage", problem: "--mutant must name a mutant (infra-doubles mutate --list names them)" };
  if (values["with-default"] === true && values.scenario === undefined) {
    return { command: "usage", problem: "--with-default needs --scenario FILE (without a document the default scenario is always served)" };
  }
  const port = values.port === undefined ? DEFAULT_PORT : parsePort(values.port);
  if (port === undefined) return { command: "usage", problem: `--port must be a whole number from 0 to 65535, got "${values.port ?? ""}"` };
  const host = values.host ?? DEFAULT_HOST;
  if (host.trim() === "") return { command: "usage", problem: "--host must not be empty" };
  const seed = values.seed === undefined ? 1 : parseSeed(values.seed);
  if (seed === undefined) return { command: "usage", problem: "--seed must not be empty" };
  const allowedHosts = values["allowed-host"] ?? [];
  if (allowedHosts.some((name) => !/^(\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(:\d{1,5})?$/i.test(name.trim()))) {
    return { command: "usage", problem: `--allowed-host must be a host name or address, optionally with :port, got "${allowedHosts.find((name) => !/^(\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(:\d{1,5})?$/i.test(name.trim())) ?? ""}"` };
  }
  const controlToken = values["control-token"];
  if (controlToken !== undefined && !/^[\x21-\x7e]+$/.test(controlToken)) {
    return { command: "usage", problem: "--control-token must be printable ASCII without spaces" };
  }
  const ports: Record<string, number> = {};
  for (const [flag, key] of Object.entries(SERVICE_PORT_FLAGS)) {
    const text = values[flag as keyof typeof SERVICE_PORT_FLAGS];
    if (text === undefined) continue;
    const servicePort = parsePort(text);
    if (servicePort === undefined) return { command: "usage", problem: `--${flag} must be a whole number from 0 to 65535, got "${text}"` };
    ports[key] = servicePort;
  }
  const passthrough: Record<string, string> = {};
  for (const pair of values.passthrough ?? []) {
    const at = pair.indexOf("=");
    const key = at < 0 ? pair : pair.slice(0, at);
    const url = at < 0 ? "" : pair.slice(at + 1);
    if (!(PASSTHROUGH_SERVICES as readonly string[]).includes(key)) {
      return { command: "usage", problem: `--passthrough takes SERVICE=URL with SERVICE one of ${PASSTHROUGH_SERVICES.join(", ")}, got "${pair}"` };
    }
    if (!isHttpUrl(url)) return { command: "usage", problem: `--passthrough ${key}= needs an http(s) URL without query, like http://127.0.0.1:8200, got "${url}"` };
    if (passthrough[key] !== undefined) return { command: "usage", problem: `--passthrough ${key} is given twice` };
    passthrough[key] = url;
  }
  const worldIdleMs = values["world-idle"] === undefined ? undefined : parseWorldIdle(values["world-idle"]);
  if (worldIdleMs === undefined && values["world-idle"] !== undefined) {
    return { command: "usage", problem: `--world-idle must be a duration with units above zero like 10m, 90s or 1h30m, got "${values["world-idle"]}"` };
  }
  const maxWorlds = values["max-worlds"] === undefined ? undefined : /^\d{1,6}$/.test(values["max-worlds"]) ? Number(values["max-worlds"]) : undefined;
  if (maxWorlds === undefined && values["max-worlds"] !== undefined) return { command: "usage", problem: `--max-worlds must be a whole number from 0 to 999999, got "${values["max-worlds"]}"` };
  const split = values.split === true || Object.keys(ports).length > 0;
  const given = Object.values(ports).filter((p) => p !== 0);
  if (new Set(given).size !== given.length) return { command: "usage", problem: "each service needs its own port" };
  return {
    command: "serve",
    port,
    host,
    seed,
    ...(values.seed === undefined && bindsBeyondLoopback(host) ? { drawSeed: true as const } : {}),
    json: values.json ?? false,
    allowedHosts: allowedHosts.map((name) => name.trim()),
    ...(controlToken === undefined ? {} : { controlToken }),
    ...(split ? { split: true as const, ports } : {}),
    clock: clock as ServeCommand["clock"],
    ...(start === undefined ? {} : { start }),
    ...(values.scenario === undefined ? {} : { scenario: values.scenario }),
    ...(values["with-default"] === true ? { withDefault: true as const } : {}),
    ...(Object.keys(passthrough).length === 0 ? {} : { passthrough }),
    ...(worldIdleMs === undefined ? {} : { worldIdleMs }),
    ...(maxWorlds === undefined ? {} : { maxWorlds }),
    ...(values.state === undefined ? {} : { state: values.state }),
    ...(values.mutant === undefined ? {} : { mutant: values.mutant.trim() }),
  };
}

/** `diagram TABLE [--format F] [--coverage FILE]` or `diagram --list`. */
function diagramCommand(values: ReturnType<typeof parse>["values"], extra: readonly string[]): DiagramCommand | UsageRequest {
  const other = Object.keys(values).find((name) => !["format", "coverage", "list", "help"].includes(name));
  if (other !== undefined) return { command: "usage", problem: `--${other} is not an option of diagram` };
  const [table, ...more] = extra;
  if (more.length > 0) return { command: "usage", problem: `unexpected argument "${more[0] ?? ""}"` };
  const list = values.list === true;
  if (table === undefined && !list) return { command: "usage", problem: "diagram needs a table: infra-doubles diagram TABLE (infra-doubles diagram --list names them)" };
  if (table !== undefined && list) return { command: "usage", problem: "diagram takes a TABLE or --list, not both" };
  const format = values.format ?? "mermaid";
  if (!(DIAGRAM_FORMATS as readonly string[]).includes(format)) return { command: "usage", problem: `--format must be one of ${DIAGRAM_FORMATS.join(", ")}, got "${format}"` };
  if (values.coverage !== undefined && values.coverage.trim() === "") return { command: "usage", problem: "--coverage must name a file" };
  return {
    command: "diagram",
    ...(table === undefined ? {} : { table }),
    list,
    format: format as DiagramCommand["format"],
    ...(values.coverage === undefined ? {} : { coverage: values.coverage }),
  };
}

function parseReplay(extra: readonly string[], values: ReturnType<typeof parse>["values"]): ReplayCommand | UsageRequest {
  const [file, ...more] = extra;
  if (file === undefined) return { command: "usage", problem: "replay needs a bundle: infra-doubles replay BUNDLE" };
  if (more.length > 0) return { command: "usage", problem: `unexpected argument "${more[0] ?? ""}"` };
  const allowed = ["until", "diff", "port", "host", "json", "allowed-host", "control-token", "help"];
  const other = Object.keys(values).filter((name) => !allowed.includes(name));
  if (other.length > 0) return { command: "usage", problem: `--${other[0] ?? ""} is not an option of replay` };
  const numbers: Record<string, number> = {};
  for (const name of ["until", "diff"] as const) {
    const text = values[name];
    if (text === undefined) continue;
    if (!/^\d{1,9}$/.test(text) || Number(text) < 1) return { command: "usage", problem: `--${name} must be a request number from 1, got "${text}"` };
    numbers[name] = Number(text);
  }
  const serving = ["port", "host", "json", "allowed-host", "control-token"].filter((name) => values[name as keyof typeof values] !== undefined);
  if (numbers.until === undefined && serving.length > 0) return { command: "usage", problem: `--${serving[0] ?? ""} serves the world of --until N: give --until` };
  const port = values.port === undefined ? DEFAULT_PORT : parsePort(values.port);
  if (port === undefined) return { command: "usage", problem: `--port must be a whole number from 0 to 65535, got "${values.port ?? ""}"` };
  const host = values.host ?? DEFAULT_HOST;
  if (host.trim() === "") return { command: "usage", problem: "--host must not be empty" };
  const controlToken = values["control-token"];
  if (controlToken !== undefined && !/^[\x21-\x7e]+$/.test(controlToken)) return { command: "usage", problem: "--control-token must be printable ASCII without spaces" };
  return {
    command: "replay",
    file,
    ...(numbers.until === undefined ? {} : { until: numbers.until }),
    ...(numbers.diff === undefined ? {} : { diff: numbers.diff }),
    port,
    host,
    json: values.json ?? false,
    allowedHosts: (values["allowed-host"] ?? []).map((name) => name.trim()),
    ...(controlToken === undefined ? {} : { controlToken }),
  };
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return /^https?:$/.test(url.protocol) && url.search === "" && url.hash === "";
  } catch {
    return false;
  }
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      port: { type: "string", short: "p" },
      host: { type: "string" },
      seed: { type: "string" },
      json: { type: "boolean" },
      "allowed-host": { type: "string", multiple: true },
      "control-token": { type: "string" },
      split: { type: "boolean" },
      "runs-port": { type: "string" },
      "access-control-port": { type: "string" },
      "secrets-port": { type: "string" },
      scenario: { type: "string" },
      "with-default": { type: "boolean" },
      clock: { type: "string" },
      start: { type: "string" },
      passthrough: { type: "string", multiple: true },
      "world-idle": { type: "string" },
      "max-worlds": { type: "string" },
      format: { type: "string" },
      coverage: { type: "string" },
      list: { type: "boolean" },
      state: { type: "string" },
      mutant: { type: "string" },
      until: { type: "string" },
      diff: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
}

function parsePort(text: string): number | undefined {
  if (!/^\d{1,5}$/.test(text)) return undefined;
  const port = Number(text);
  return port <= 65535 ? port : undefined;
}

/** An RFC 3339 time (`Z` or an offset) as ms since the epoch; null when it is not one. */
function parseStart(text: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(text)) return null;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : null;
}

function parseSeed(text: string): number | string | undefined {
  if (text === "") return undefined;
  if (/^-?\d{1,15}$/.test(text)) return Number(text);
  return text;
}

/**
 * Reads `serve --world-idle`: a duration with units (`10m`, `90s`, `1h30m`, `500ms`), above zero
 * and at most 24.8 days (the longest timer), as ms.
 * @returns the ms, or `undefined` when it is not one.
 * @example parseWorldIdle("10m") // 600000
 */
export function parseWorldIdle(text: string): number | undefined {
  try {
    const ms = clockDurationMs(text.trim());
    return ms >= 1 && ms <= MAX_TIMER_MS ? ms : undefined;
  } catch {
    return undefined;
  }
}

/** The longest delay `setTimeout` takes (2^31 - 1 ms, about 24.8 days). */
const MAX_TIMER_MS = 2_147_483_647;
