/**
 * `infra-doubles serve` as a function: builds the doubles on an advanceable real-time clock, starts
 * the local server, runs each service's embedded default scenario on the server's origin, and says
 * what it built (a human banner, or one line of JSON).
 */
import { bindsBeyondLoopback, CONTROL_PREFIX, CONTROL_TOKEN_HEADER, type PluginControlRoutes } from "../interceptors/control.js";
import type { RunningServer } from "../interceptors/server.js";
import { ScenarioDocumentError } from "../scenarios/document/errors.js";
import { loadScenario, type ScenarioNames } from "../scenarios/document/load.js";
import type { ScenarioDocument } from "../scenarios/document/types.js";
import { DoublesCore } from "../scenarios/doubles-core.js";
import { Doubles, createDoubles } from "../scenarios/doubles.js";
import type { ServicePlugin } from "../scenarios/plugin.js";
import { DEFAULT_HOST, DEFAULT_PORT } from "./args.js";
import { loadStateFile, stateFileExists, writeStateFile } from "../scenarios/state/file.js";
import { useStateFile } from "../scenarios/state/control-routes.js";

/** Options of {@link startDevServer}. */
export interface DevServerOptions {
  /** Port (default 8080; 0 picks a free port). */
  readonly port?: number;
  /** Interface to bind (default `127.0.0.1`). */
  readonly host?: string;
  /** Seed of ids and secrets (default 1). */
  readonly seed?: number | string;
  /**
   * The services to serve, on a fresh advanceable clock (default: every registered service, as
   * `createDoubles({ clock: "advanceable", seed })`). Ignored when `doubles` is given.
   */
  readonly plugins?: readonly ServicePlugin<unknown>[];
  /** Ready-made doubles to serve instead. */
  readonly doubles?: DoublesCore;
  /** More `Host` names the `/_sim/` control API answers (`name` or `name:port`). */
  readonly allowedHosts?: readonly string[];
  /** The control token (default: none on loopback, a random one when bound beyond). */
  readonly controlToken?: string;
  /**
   * Each service on its own port (`port` is the first of consecutive ports, in registration order),
   * with the control API on every port. Default: every service on one origin.
   */
  readonly split?: boolean;
  /** Split mode: a port per service key, instead of the consecutive one. */
  readonly ports?: Readonly<Record<string, number>>;
  /**
   * The clock (default `advanceable`: real time that `POST /_sim/clock/advance` pushes forward;
   * `manual`: moves only when advanced; `system`: real time). Ignored when `doubles` is given.
   */
  readonly clock?: "advanceable" | "manual" | "system";
  /** Where a `manual` or `advanceable` clock starts (ms since the epoch or RFC 3339). */
  readonly start?: number | string;
  /**
   * A scenario document's file (JSON or YAML), served instead of the default scenarios (so the
   * same document and seed give the same ids as `infra-doubles run` and `createDoubles({ seed,
   * scenario })`); `POST /_sim/reset` goes back to the state right after it. Needs every service
   * (the default doubles). A document already read (`loadScenario(path)`, a world's posted
   * document) is taken as is.
   */
  readonly scenario?: string | ScenarioDocument;
  /**
   * With `scenario`: build the default scenarios first and load the document on top of them (its
   * names must not clash with the default's, e.g. access-control policy `acl-read`). Default false.
   */
  readonly withDefault?: boolean;
  /**
   * A real server per service key that answers what the fake does not simulate (the
   * `createDoubles({ passthrough })` option; `serve --passthrough secrets=URL`), e.g.
   * `{ secrets: "http://127.0.0.1:8200" }`. Ignored when `doubles` is given.
   */
  readonly passthrough?: Readonly<Record<string, string>>;
  /**
   * More `/_sim/<key>/` routes on this server (every port in split mode), behind the same checks:
   * `serve`'s `/_sim/worlds` (src/cli/worlds.ts).
   */
  readonly controlRoutes?: readonly PluginControlRoutes[];
  /**
   * A state document's file (`serve --state FILE`): loaded at start when it exists (instead of the
   * default scenario and `scenario`; `POST /_sim/reset` goes back to it), written on `close()`
   * (the CLI closes on SIGINT/SIGTERM) and on `POST /_sim/state/save`, atomically.
   */
  readonly state?: string;
  /**
   * A service mutant id to build the world as (`serve --mutant ID`; see `infra-doubles mutate
   * --list`). Absent: the `scenario` document's `mutant`, else the environment variable
   * `INFRA_DOUBLES_MUTANT`, else the faithful fake. Ignored when `doubles` is given.
   */
  readonly mutant?: string | null;
}

/** The `mutant` field of a {@link DevServer} built as one. */
function mutantOf(doubles: DoublesCore): { mutant?: { id: string; description: string } } {
  return doubles.mutant === undefined ? {} : { mutant: { id: doubles.mutant.id, description: doubles.mutant.description } };
}

/** A running dev server. */
export interface DevServer extends AsyncDisposable {
  /** The origin, e.g. `http://127.0.0.1:8080` (split mode: the first service's). */
  readonly url: string;
  /** Split mode: each service's origin by key (`runs`, `accessControl`, `secrets`); absent otherwise. */
  readonly urls?: Readonly<Record<string, string>>;
  /** The server (split mode: the first service's; every one is in `servers`). */
  readonly server: RunningServer;
  /** Every server: one, or one per service in split mode. */
  readonly servers: readonly RunningServer[];
  readonly doubles: DoublesCore;
  /**
   * Per service key (`runs`, `accessControl`, `secrets`): what its default scenario returned (base
   * URL, tokens, ...), or `{ baseUrl }` when a `scenario` document is served without the default
   * (its names, the bootstrap and root tokens included, are in `scenario`), or `{ bases }` for a
   * service without a default scenario.
   */
  readonly services: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** The token `/_sim/` requests must send in `X-Infra-Doubles-Control-Token`, when there is one. */
  readonly controlToken?: string;
  /** The interface the server is bound to (`127.0.0.1`, `0.0.0.0`, ...). */
  readonly host: string;
  /** What the `scenario` document's names resolved to (ids, tokens), when one was loaded. */
  readonly scenario?: ScenarioNames;
  /** The service mutant the world was built as (`--mutant`, the document's, the environment's): its id and behaviour in words. */
  readonly mutant?: { readonly id: string; readonly description: string };
  /** Stops the server (connections included), then writes the world to the `state` file when there is one. */
  close(): Promise<void>;
}

/**
 * Starts the dev server on the embedded default scenario, or on the `scenario` document instead
 * (on top of the default with `withDefault`). `POST /_sim/reset` returns to the state right after
 * the default scenarios ran or the document was loaded.
 *
 * @returns the running server and what each service's default scenario returned.
 * @throws the listen error (e.g. `EADDRINUSE`) or a default scenario's error; nothing is left open.
 * @example
 * const dev = await startDevServer({ port: 0, seed: 7 });
 * console.log(devServerJson(dev)); // {"url":"http://127.0.0.1:53100","runs":{...},...}
 * await dev.close();
 */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const seed = options.seed ?? 1;
  // No replay-bundle recording: a server runs for hours, and nothing writes its bundle.
  const clock = { bundle: false, clock: options.clock ?? "advanceable", ...(options.start === undefined ? {} : { start: options.start }), ...(options.passthrough === undefined ? {} : { passthrough: options.passthrough }) } as const;
  let document: ScenarioDocument | undefined;
  // A saved world replaces the default scenario and the document; checked before the server starts.
  const stateFile = options.state;
  const loadState = stateFile !== undefined && stateFileExists(stateFile);
  if (options.scenario !== undefined && !loadState) {
    if (options.doubles !== undefined && !(options.doubles instanceof Doubles)) throw new ScenarioDocumentError("reference", [{ path: "", expected: "a scenario document needs every service (serve the default doubles)" }]);
    if (options.doubles === undefined && options.plugins !== undefined) throw new ScenarioDocumentError("reference", [{ path: "", expected: "a scenario document needs every service (serve the default doubles)" }]);
    // Checked before the server starts: an invalid document never binds a port.
    document = typeof options.scenario === "string" ? loadScenario(options.scenario) : options.scenario;
  }
  // The mutant is part of the build: the flag, else the document's, else the environment's.
  const mutantId = options.mutant !== undefined ? options.mutant : typeof document?.mutant === "string" ? document.mutant : undefined;
  const mutant = mutantId === undefined ? {} : { mutant: mutantId };
  const doubles =
    options.doubles ?? (options.plugins ? new DoublesCore(options.plugins, { ...clock, seed, ...mutant }) : createDoubles({ ...clock, seed, ...mutant }));
  if (stateFile !== undefined) useStateFile(doubles, stateFile);
  if (loadState) loadStateFile(stateFile, doubles);
  let scenario: ScenarioNames | undefined;
  const services: Record<string, Record<string, unknown>> = {};
  const host = options.host ?? DEFAULT_HOST;
  const common = {
    port: options.port ?? DEFAULT_PORT,
    host,
    ...(options.allowedHosts === undefined ? {} : { allowedHosts: options.allowedHosts }),
    ...(options.controlToken === undefined ? {} : { controlToken: options.controlToken }),
    ...(options.controlRoutes === undefined ? {} : { controlRoutes: options.controlRoutes }),
  };
  const withDefault = !loadState && (document === undefined || options.withDefault === true);
  const build = (originOf: (key: string) => string): void => {
    for (const plugin of doubles.registeredPlugins) {
      const bases = plugin.serverBases(originOf(plugin.key));
      if (!withDefault) services[plugin.key] = bases.api === undefined ? { bases } : { baseUrl: bases.api };
      else services[plugin.key] = plugin.defaultScenario ? plugin.defaultScenario(doubles.controlsOf(plugin.key), bases) : { bases };
      const passthrough = options.doubles === undefined ? options.passthrough?.[plugin.key] : undefined;
      if (passthrough !== undefined) services[plugin.key] = { ...services[plugin.key], passthrough };
    }
    if (document === undefined || !(doubles instanceof Doubles)) return;
    try {
      scenario = doubles.load(document as never).names;
    } catch (error) {
      if (!(error instanceof ScenarioDocumentError) || !withDefault) throw error;
      throw new ScenarioDocumentError(
        error.kind,
        error.problems.map((p) => ({ ...p, expected: `${p.expected} (loaded on top of the default scenario, as --with-default asks: drop it to serve the document alone)` })),
      );
    }
  };
  /** Closes, then writes the world to the state file (when there is one). */
  const saving = (close: () => Promise<void>) => async (): Promise<void> => {
    await close();
    if (stateFile !== undefined) writeStateFile(stateFile, doubles);
  };
  if (options.split === true) {
    const split = await doubles.listen({
      ...common,
      split: true,
      ...(options.ports === undefined ? {} : { ports: options.ports }),
      setup: (origins) => build((key) => origins[key] ?? ""),
    });
    const servers = Object.values(split.servers);
    const first = servers[0];
    if (first === undefined) {
      await split.close();
      throw new Error("no service to serve");
    }
    const closeSplit = saving(() => split.close());
    return {
      url: first.url,
      urls: split.urls,
      server: first,
      servers,
      doubles,
      services,
      host,
      ...(scenario === undefined ? {} : { scenario }),
      ...mutantOf(doubles),
      ...(split.controlToken === undefined ? {} : { controlToken: split.controlToken }),
      close: closeSplit,
      [Symbol.asyncDispose]: closeSplit,
    };
  }
  const server = await doubles.listen({ ...common, setup: (origin) => build(() => origin) });
  const close = saving(() => server.close());
  return {
    url: server.url,
    server,
    servers: [server],
    doubles,
    services,
    host,
    ...(scenario === undefined ? {} : { scenario }),
    ...mutantOf(doubles),
    ...(server.controlToken === undefined ? {} : { controlToken: server.controlToken }),
    close,
    [Symbol.asyncDispose]: close,
  };
}

/**
 * The `--json` start line: `{"url": origin, "urls"?: {"<service key>": origin}, "controlToken"?:
 * token, "<service key>": <default scenario result>, ..., "scenario"?: <the document's names>}` as
 * one line (no newline inside); `scenario` only with a scenario document;
 * `urls` only in split mode (`url` is then the first service's), `controlToken` only when the
 * server has one, `mutant` (`{"id", "description"}`) only for a world built as a service mutant.
 * @example devServerJson(dev) // '{"url":"http://127.0.0.1:8080","runs":{...},"accessControl":{...},"secrets":{...}}'
 */
export function devServerJson(dev: Pick<DevServer, "url" | "urls" | "services" | "controlToken" | "scenario" | "mutant">): string {
  return JSON.stringify({
    url: dev.url,
    ...(dev.urls === undefined ? {} : { urls: dev.urls }),
    ...(dev.controlToken === undefined ? {} : { controlToken: dev.controlToken }),
    ...dev.services,
    ...(dev.scenario === undefined ? {} : { scenario: dev.scenario }),
    ...(dev.mutant === undefined ? {} : { mutant: dev.mutant }),
  });
}

/**
 * The warning printed (on stderr) when the server is bound beyond loopback, or `undefined` on
 * loopback.
 * @example devServerWarning({ host: "0.0.0.0" }) // "infra-doubles: WARNING: listening on 0.0.0.0 ..."
 */
export function devServerWarning(dev: Pick<DevServer, "host">): string | undefined {
  if (!bindsBeyondLoopback(dev.host)) return undefined;
  return (
    `infra-doubles: WARNING: listening on ${dev.host}, beyond this machine. Anyone who can reach the port can call the ` +
    `simulated services with the tokens printed here (same seed, same tokens: without --seed the CLI draws a random seed). The ${CONTROL_PREFIX}/ ` +
    `control API needs the control token in the ${headerName()} header. Bind to 127.0.0.1 unless other machines must connect.\n`
  );
}

function headerName(): string {
  return CONTROL_TOKEN_HEADER.replace(/(^|-)([a-z])/g, (_m, dash: string, letter: string) => `${dash}${letter.toUpperCase()}`);
}

/**
 * The human start banner: the URL, each service's base URLs and credentials, the control API.
 * @example process.stdout.write(devServerBanner(dev));
 */
export function devServerBanner(dev: Pick<DevServer, "url" | "urls" | "services" | "controlToken" | "scenario" | "mutant">): string {
  const lines = [`infra-doubles dev server listening on ${dev.url}`, ""];
  if (dev.urls !== undefined) {
    const width = Math.max(0, ...Object.keys(dev.urls).map((key) => key.length));
    lines.splice(0, 2, "infra-doubles dev server, one port per service", "");
    for (const [key, url] of Object.entries(dev.urls)) lines.push(`  ${key.padEnd(width)}  listening on ${url}`);
    lines.push("");
  }
  for (const [key, result] of Object.entries(dev.services)) {
    lines.push(key);
    const entries = Object.entries(result);
    const width = Math.max(0, ...entries.map(([name]) => name.length));
    for (const [name, value] of entries) {
      lines.push(`  ${name.padEnd(width)}  ${typeof value === "string" ? value : JSON.stringify(value)}`);
    }
    lines.push("");
  }
  if (dev.mutant !== undefined) lines.push("service mutant (not the faithful fake)", `  ${dev.mutant.id}`, `  ${dev.mutant.description}`, "");
  if (dev.scenario !== undefined) {
    lines.push("scenario document");
    for (const [service, groups] of Object.entries(dev.scenario)) {
      for (const [group, value] of Object.entries(groups as Record<string, unknown>)) {
        if (value !== null && typeof value === "object" && Object.keys(value).length === 0) continue;
        lines.push(`  ${service}.${group}  ${JSON.stringify(value)}`);
      }
    }
    lines.push("");
  }
  const control = `${dev.url}${CONTROL_PREFIX}`;
  lines.push(`Control API (${dev.urls === undefined ? "" : "on every port; "}writes need Content-Type: application/json)`);
  if (dev.controlToken !== undefined) {
    lines.push(
      `  control token  ${dev.controlToken}`,
      `  send it as     ${headerName()}: ${dev.controlToken}`,
      `  e.g. curl -H '${headerName()}: ${dev.controlToken}' ${control}/clock`,
    );
  }
  lines.push(
    `  GET  ${control}/clock`,
    `  POST ${control}/clock/advance   {"by": "30s"}`,
    `  POST ${control}/reset           (back to the starting world, its start time and its faults)`,
    `  POST ${control}/scenario        (a scenario document, JSON or YAML)`,
    `  GET  ${control}/                (every control route with its body shape)`,
    `  GET  ${control}/journal       (credentials masked; ?reveal=true shows them)`,
    `  GET  ${control}/ui            (the dashboard: open it in a browser)`,
    "",
    "Press Ctrl+C to stop.",
  );
  return `${lines.join("\n")}\n`;
}
