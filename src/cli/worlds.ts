/**
 * Worlds of the dev server (`POST /_sim/worlds`): isolated doubles (their own simulator, clock, id
 * source, journal, faults and coverage), each served by a dev server of its own on an ephemeral
 * port of the server's interface, so a Go or Python suite gives every test its own world by
 * address (a Vault client takes an address, not a path prefix). docs/decisions/worlds.md.
 *
 * A world is `startDevServer()` with `serve`'s own options: the body's `seed`, `clock` and `start`
 * are read by `serve`'s argument parser (the same rules and messages), and its `scenario` is loaded
 * as `--scenario` loads one. Idle worlds expire on wall time (the server's resource management,
 * not simulated time): one unref'd timer per world.
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { PluginControlRoutes } from "../interceptors/control.js";
import { bodyText, empty, json, type Route } from "../interceptors/http.js";
import { loadScenario } from "../scenarios/document/load.js";
import type { ScenarioDocument } from "../scenarios/document/types.js";
import type { DoublesCore } from "../scenarios/doubles-core.js";
import { DomainError, UsageError } from "../simulator/kernel/errors.js";
import { parseCommand, type ServeCommand } from "./args.js";
import { devServerJson, startDevServer, type DevServer } from "./serve.js";

/** Default of `serve --max-worlds`: the number of live worlds the bench keeps within 300 MB RSS. */
export const DEFAULT_MAX_WORLDS = 200;

/** Names a world's `scenario` may take instead of a document. */
export const WORLD_SCENARIO_NAMES = ["server", "default"] as const;

/** What every world starts from unless its body says otherwise: the `serve` command's own options. */
export interface WorldDefaults {
  /** The server's interface: every world listens on it, on a port of its own. */
  readonly host: string;
  /** `--allowed-host` names, answered by each world's `/_sim/` too. */
  readonly allowedHosts?: readonly string[];
  readonly seed: number | string;
  readonly clock: ServeCommand["clock"];
  /** ms since the epoch. */
  readonly start?: number;
  /** The `--scenario` file (read once, when the {@link Worlds} are made). */
  readonly scenario?: string;
  readonly withDefault?: boolean;
  readonly passthrough?: Readonly<Record<string, string>>;
  /** `--mutant`: the service mutant worlds are built as unless their body names one (or `null`). */
  readonly mutant?: string;
  /** `--world-idle`: a world no request reached for this long (wall time, ms) is closed. Default: never. */
  readonly idleMs?: number;
  /** `--max-worlds` (default {@link DEFAULT_MAX_WORLDS}). */
  readonly maxWorlds?: number;
}

/** A live world as `GET /_sim/worlds` lists it. */
export interface WorldInfo {
  /** `world-1`, `world-2`, ... in creation order (never reused while the server runs). */
  readonly id: string;
  /** The world's origin, e.g. `http://127.0.0.1:41877`. */
  readonly url: string;
  readonly port: number;
  /** Wall time of its creation, ISO 8601. */
  readonly created: string;
  /** Wall time of the last request its port received (or of its creation), ISO 8601. */
  readonly lastUsed: string;
  /** Requests its port received, `/_sim/` ones included. */
  readonly requests: number;
}

/** What `POST /_sim/worlds` answers: `serve --json`'s start line of the world, with its id. */
export type CreatedWorld = Record<string, unknown> & { readonly id: string; readonly url: string; readonly port: number; readonly controlToken: string; readonly created: string };

interface World {
  readonly id: string;
  readonly dev: DevServer;
  readonly createdMs: number;
  lastUsedMs: number;
  requests: number;
  inFlight: number;
  timer: ReturnType<typeof setTimeout> | undefined;
  closing: Promise<void> | undefined;
}

/** The body fields of `POST /_sim/worlds`. */
const BODY_FIELDS = ["seed", "clock", "start", "scenario", "withDefault", "mutant"] as const;

/**
 * The worlds of one dev server: create, list, close, expire. {@link Worlds.routes} mounts them as
 * `/_sim/worlds` on the default world's server; a dashboard lists them with {@link Worlds.list}.
 * @example
 * const worlds = new Worlds({ host: "127.0.0.1", seed: 1, clock: "advanceable", idleMs: 600_000 });
 * const dev = await startDevServer({ port: 0, controlRoutes: [worlds.routes] });
 * const world = await worlds.create({ seed: 7 }); // world.url, world.controlToken, world.secrets.rootToken
 * await worlds.close(); await dev.close();
 */
export class Worlds {
  private readonly live = new Map<string, World>();
  private readonly document: ScenarioDocument | undefined;
  private creating = 0;
  private made = 0;
  private closed = false;
  /** The cap (`--max-worlds`). */
  readonly maxWorlds: number;
  /** The idle timeout in ms (`--world-idle`), when there is one. */
  readonly idleMs: number | undefined;

  /**
   * @throws {ScenarioDocumentError} when `defaults.scenario` cannot be read or is not a valid
   *   document (the error `serve --scenario` gives).
   */
  constructor(private readonly defaults: WorldDefaults) {
    this.document = defaults.scenario === undefined ? undefined : loadScenario(defaults.scenario);
    this.maxWorlds = defaults.maxWorlds ?? DEFAULT_MAX_WORLDS;
    this.idleMs = defaults.idleMs;
  }

  /** How many worlds are live. */
  get size(): number {
    return this.live.size;
  }

  /**
   * Creates a world from a `POST /_sim/worlds` body (`{}` or nothing: the server's own seed, clock
   * and scenario).
   * @param body - `{"seed"?: number | string, "clock"?: "advanceable" | "manual" | "system",
   *   "start"?: RFC 3339 | ms, "scenario"?: document | "server" | "default", "withDefault"?: boolean,
   *   "mutant"?: a mutant id (the world is built as that service mutant) | null (the faithful fake)}`;
   *   no `mutant`: the document's, else the server's `--mutant`, else the server process's
   *   `INFRA_DOUBLES_MUTANT`.
   * @returns `serve --json`'s line for the world, plus `id`, `port`, `created`.
   * @throws {UsageError} for a bad body (400); {@link DomainError} `conflict` (409) at the cap.
   */
  async create(body: unknown = {}): Promise<CreatedWorld> {
    const options = this.worldOptions(body);
    if (this.closed) throw worldsError("unavailable", "create world", "the server is stopping");
    if (this.live.size + this.creating >= this.maxWorlds) {
      throw worldsError(
        "conflict",
        "create world",
        `the server holds ${this.maxWorlds} worlds, its cap (serve --max-worlds ${this.maxWorlds}): close one with DELETE /_sim/worlds/:id, or start the server with a higher --max-worlds`,
      );
    }
    this.creating++;
    let dev: DevServer;
    try {
      dev = await startDevServer({ ...options, port: 0, host: this.defaults.host, controlToken: randomBytes(24).toString("base64url") });
    } finally {
      this.creating--;
    }
    const now = Date.now();
    this.made++;
    const world: World = { id: `world-${this.made}`, dev, createdMs: now, lastUsedMs: now, requests: 0, inFlight: 0, timer: undefined, closing: undefined };
    dev.server.server.on("request", (_req: IncomingMessage, res: ServerResponse) => {
      world.requests++;
      world.inFlight++;
      world.lastUsedMs = Date.now();
      res.once("close", () => {
        world.inFlight--;
        world.lastUsedMs = Date.now();
      });
    });
    this.live.set(world.id, world);
    if (this.closed) {
      await this.delete(world.id);
      throw worldsError("unavailable", "create world", "the server is stopping");
    }
    this.arm(world, this.idleMs);
    const line = JSON.parse(devServerJson(dev)) as Record<string, unknown>;
    return { id: world.id, port: dev.server.port, created: new Date(now).toISOString(), ...line } as CreatedWorld;
  }

  /** Every live world, oldest first. */
  list(): WorldInfo[] {
    return [...this.live.values()].map(info);
  }

  /** One live world, or `undefined`. */
  get(id: string): WorldInfo | undefined {
    const world = this.live.get(id);
    return world === undefined ? undefined : info(world);
  }

  /**
   * A live world's doubles, to drive it in process (a dashboard, a bench), or `undefined`.
   * @example worlds.doublesOf("world-1")?.advance("1m")
   */
  doublesOf(id: string): DoublesCore | undefined {
    return this.live.get(id)?.dev.doubles;
  }

  /**
   * Closes a world: its port is closed (connections included) and its doubles released.
   * @returns `false` when no live world has this id.
   */
  async delete(id: string): Promise<boolean> {
    const world = this.live.get(id);
    if (world === undefined) return false;
    this.live.delete(id);
    if (world.timer !== undefined) clearTimeout(world.timer);
    world.timer = undefined;
    world.closing ??= (async () => {
      await world.dev.close();
      await world.dev.doubles.close();
    })();
    await world.closing;
    return true;
  }

  /** Closes every world; later creations are refused (503). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.live.keys()].map((id) => this.delete(id)));
  }

  /** `/_sim/worlds` routes, for `startDevServer({ controlRoutes })` (listed by `GET /_sim`). */
  get routes(): PluginControlRoutes {
    return { key: "worlds", routes: this.controlRoutes() };
  }

  private controlRoutes(): Route[] {
    return [
      {
        method: "POST",
        path: "/",
        doc: {
          body: '{"seed"?: number | string, "clock"?: "advanceable" | "manual" | "system", "start"?: RFC 3339 | ms, "scenario"?: a document | "server" | "default", "withDefault"?: boolean, "mutant"?: a mutant id | null} (all optional: the server\'s own)',
          answer:
            '201 {"id", "url", "port", "controlToken", "created", "runs": {...}, "accessControl": {...}, "secrets": {...}, "scenario"?} (serve --json\'s line for the world); 400 a bad body; 409 at --max-worlds',
        },
        handler: async ({ request }) => json(201, await this.create(parseBody(bodyText(request)))),
      },
      {
        method: "GET",
        path: "/",
        doc: { answer: '200 {"worlds": [{"id", "url", "port", "created", "lastUsed", "requests"}], "maxWorlds", "idleMs"}' },
        handler: () => json(200, { worlds: this.list(), maxWorlds: this.maxWorlds, idleMs: this.idleMs ?? null }),
      },
      {
        method: "GET",
        path: "/:id",
        doc: { answer: '200 {"id", "url", "port", "created", "lastUsed", "requests"}; 404 no such world' },
        handler: ({ params }) => {
          const found = this.get(params.id ?? "");
          if (found === undefined) throw noWorld("read world", params.id ?? "");
          return json(200, found);
        },
      },
      {
        method: "DELETE",
        path: "/:id",
        doc: { answer: "204 the world closed (its port freed); 404 no such world" },
        handler: async ({ params }) => {
          if (!(await this.delete(params.id ?? ""))) throw noWorld("close world", params.id ?? "");
          return empty(204);
        },
      },
    ];
  }

  /** Closes `world` once no request reached it for `idleMs` (wall time), checking again when one did. */
  private arm(world: World, after: number | undefined): void {
    const idleMs = this.idleMs;
    if (idleMs === undefined || after === undefined) return;
    world.timer = setTimeout(() => {
      world.timer = undefined;
      if (!this.live.has(world.id)) return;
      const idle = Date.now() - world.lastUsedMs;
      if (world.inFlight > 0) this.arm(world, idleMs);
      else if (idle >= idleMs) void this.delete(world.id);
      else this.arm(world, idleMs - idle);
    }, Math.max(1, after));
    world.timer.unref();
  }

  /** `startDevServer` options from a body, read as `serve` reads its flags. */
  private worldOptions(body: unknown): { seed: number | string; clock: ServeCommand["clock"]; start?: number; scenario?: ScenarioDocument; withDefault?: boolean; mutant?: string | null; passthrough?: Readonly<Record<string, string>>; allowedHosts?: readonly string[] } {
    if (body === null || typeof body !== "object" || Array.isArray(body)) {
      throw new UsageError(`the body must be a JSON object like {"seed": 7, "clock": "manual"} (every field optional); got ${JSON.stringify(body)}`);
    }
    const fields = body as Record<string, unknown>;
    const unknown = Object.keys(fields).filter((key) => !(BODY_FIELDS as readonly string[]).includes(key));
    if (unknown.length > 0) throw new UsageError(`unknown field ${JSON.stringify(unknown[0])} (a world takes ${BODY_FIELDS.map((f) => JSON.stringify(f)).join(", ")})`);
    const { seed, clock, start, scenario, withDefault, mutant } = fields;
    if (mutant !== undefined && mutant !== null && (typeof mutant !== "string" || mutant.trim() === "")) {
      throw new UsageError(`"mutant" must be a mutant id (GET /_sim/mutants lists them) or null (the faithful fake); got ${JSON.stringify(mutant)}`);
    }
    if (seed !== undefined && typeof seed !== "string" && !Number.isSafeInteger(seed)) throw new UsageError(`"seed" must be a whole number or a string; got ${JSON.stringify(seed)}`);
    if (clock !== undefined && typeof clock !== "string") throw new UsageError(`"clock" must be a string; got ${JSON.stringify(clock)}`);
    if (start !== undefined && typeof start !== "string" && !Number.isSafeInteger(start)) {
      throw new UsageError(`"start" must be an RFC 3339 time like "2024-05-01T00:00:00Z" or ms since the epoch; got ${JSON.stringify(start)}`);
    }
    if (withDefault !== undefined && typeof withDefault !== "boolean") throw new UsageError(`"withDefault" must be true or false; got ${JSON.stringify(withDefault)}`);
    // `clock` and `start` go together: both from the body when it names either, else the server's.
    const ownClock = clock !== undefined || start !== undefined;
    const startText = ownClock ? (typeof start === "number" ? isoOrNull(start) : start) : this.defaults.start === undefined ? undefined : new Date(this.defaults.start).toISOString();
    if (startText === null) throw new UsageError(`"start" is beyond the times a Date can hold; got ${JSON.stringify(start)}`);
    const argv = ["serve", "--seed", String(seed ?? this.defaults.seed), "--clock", ownClock ? ((clock as string | undefined) ?? "advanceable") : this.defaults.clock];
    if (startText !== undefined) argv.push("--start", startText as string);
    const parsed = parseCommand(argv);
    if (parsed.command !== "serve") throw new UsageError((parsed.command === "usage" ? (parsed.problem ?? "") : "").replace(/--(seed|clock|start)\b/g, '"$1"'));
    let document: ScenarioDocument | undefined;
    let withDefaultScenario = false;
    if (scenario === undefined || scenario === "server") {
      if (withDefault !== undefined) throw new UsageError(`"withDefault" needs a "scenario" document (the server's scenario comes with the server's --with-default)`);
      document = this.document;
      withDefaultScenario = this.defaults.withDefault === true;
    } else if (scenario === "default") {
      if (withDefault !== undefined) throw new UsageError(`"withDefault" needs a "scenario" document ("default" is the default scenario alone)`);
    } else if (typeof scenario === "object" && scenario !== null && !Array.isArray(scenario)) {
      document = scenario as ScenarioDocument;
      withDefaultScenario = withDefault === true;
    } else {
      throw new UsageError(`"scenario" must be a scenario document (an object) or one of ${WORLD_SCENARIO_NAMES.map((n) => JSON.stringify(n)).join(", ")}; got ${JSON.stringify(scenario)}`);
    }
    return {
      seed: parsed.seed,
      clock: parsed.clock,
      ...(parsed.start === undefined ? {} : { start: parsed.start }),
      ...(document === undefined ? {} : { scenario: document }),
      ...(withDefaultScenario ? { withDefault: true } : {}),
      ...(mutant !== undefined ? { mutant: mutant as string | null } : this.defaults.mutant !== undefined && document?.mutant === undefined ? { mutant: this.defaults.mutant } : {}),
      ...(this.defaults.passthrough === undefined ? {} : { passthrough: this.defaults.passthrough }),
      ...(this.defaults.allowedHosts === undefined ? {} : { allowedHosts: this.defaults.allowedHosts }),
    };
  }
}

function info(world: World): WorldInfo {
  return {
    id: world.id,
    url: world.dev.url,
    port: world.dev.server.port,
    created: new Date(world.createdMs).toISOString(),
    lastUsed: new Date(world.lastUsedMs).toISOString(),
    requests: world.requests,
  };
}

function parseBody(text: string): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`the body must be JSON like {"seed": 7} (or empty); got ${JSON.stringify(text.slice(0, 80))}`);
  }
}

function isoOrNull(ms: number): string | null {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

function noWorld(operation: string, id: string): DomainError {
  return worldsError("not_found", operation, `no world ${JSON.stringify(id)} (GET /_sim/worlds lists them; an idle world closes after --world-idle)`);
}

function worldsError(code: "conflict" | "not_found" | "unavailable", operation: string, message: string): DomainError {
  return new DomainError({ code, service: "_sim", operation, message });
}

/**
 * The {@link WorldDefaults} of a `serve` command: its interface, allowed hosts, seed (the drawn
 * one beyond loopback), clock, start, scenario, passthrough, `--world-idle` and `--max-worlds`.
 * @example new Worlds(worldDefaults(command, seed))
 */
export function worldDefaults(command: ServeCommand, seed: number | string): WorldDefaults {
  return {
    host: command.host,
    allowedHosts: command.allowedHosts,
    seed,
    clock: command.clock,
    ...(command.start === undefined ? {} : { start: command.start }),
    ...(command.scenario === undefined ? {} : { scenario: command.scenario }),
    ...(command.withDefault === true ? { withDefault: true } : {}),
    ...(command.passthrough === undefined ? {} : { passthrough: command.passthrough }),
    ...(command.worldIdleMs === undefined ? {} : { idleMs: command.worldIdleMs }),
    ...(command.maxWorlds === undefined ? {} : { maxWorlds: command.maxWorlds }),
    ...(command.mutant === undefined ? {} : { mutant: command.mutant }),
  };
}
