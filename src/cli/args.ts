/**
 * Command-line parsing of `infra-doubles` (node:util `parseArgs`, no dependency): commands, flags,
 * their validation, and the usage text.
 */
import { parseArgs } from "node:util";

/** Default port of `infra-doubles serve`. */
export const DEFAULT_PORT = 8080;

/** Default interface of `infra-doubles serve`. */
export const DEFAULT_HOST = "127.0.0.1";

/** The usage text printed on `--help` and on bad arguments. */
export const USAGE = `Usage: infra-doubles serve [--port 8080] [--host 127.0.0.1] [--seed N] [--json]
                          [--allowed-host NAME]... [--control-token TOKEN]
                          [--split] [--runs-port N] [--access-control-port N] [--secrets-port N]

Starts a local server with every simulated service on one origin (or, with --split, each service
on its own port), on the embedded default scenario (organizations, tokens, mounts ready to use),
and the /_sim/ control API.

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
      --seed N     seed of ids and secrets (default 1): same seed, same calls, same responses
      --json       print one line of JSON on start instead of the banner
  -h, --help       show this text

Control API (on the server's origin; writes need Content-Type: application/json):
  GET  /_sim/clock           {"now": ISO time, "epochMs": ms}
  POST /_sim/clock/advance   body {"by": "30s"} or {"by": 30000}
  POST /_sim/reset           back to the default scenario
  GET  /_sim/journal         the requests answered so far
`;

/** A parsed `serve` command. */
export interface ServeCommand {
  readonly command: "serve";
  /** 0..65535; 0 picks a free port. */
  readonly port: number;
  readonly host: string;
  /** Integer seed, or any other text as a string seed. */
  readonly seed: number | string;
  readonly json: boolean;
  /** Extra `Host` names the control API answers (`--allowed-host`, repeatable). */
  readonly allowedHosts: readonly string[];
  /** `--control-token`, when given. */
  readonly controlToken?: string;
  /** Each service on its own port (`--split`, or any per-service port flag); absent: one origin. */
  readonly split?: true;
  /** Ports given per service key (`runs`, `accessControl`, `secrets`) in split mode. */
  readonly ports?: Readonly<Record<string, number>>;
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
export function parseCommand(argv: readonly string[]): ServeCommand | UsageRequest {
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
  if (command !== "serve") return { command: "usage", problem: `unknown command "${command}"` };
  if (extra.length > 0) return { command: "usage", problem: `unexpected argument "${extra[0] ?? ""}"` };
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
  const split = values.split === true || Object.keys(ports).length > 0;
  const given = Object.values(ports).filter((p) => p !== 0);
  if (new Set(given).size !== given.length) return { command: "usage", problem: "each service needs its own port" };
  return {
    command: "serve",
    port,
    host,
    seed,
    json: values.json ?? false,
    allowedHosts: allowedHosts.map((name) => name.trim()),
    ...(controlToken === undefined ? {} : { controlToken }),
    ...(split ? { split: true as const, ports } : {}),
  };
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
      help: { type: "boolean", short: "h" },
    },
  });
}

function parsePort(text: string): number | undefined {
  if (!/^\d{1,5}$/.test(text)) return undefined;
  const port = Number(text);
  return port <= 65535 ? port : undefined;
}

function parseSeed(text: string): number | string | undefined {
  if (text === "") return undefined;
  if (/^-?\d{1,15}$/.test(text)) return Number(text);
  return text;
}
