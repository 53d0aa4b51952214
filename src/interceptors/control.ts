/**
 * The `/_sim/` control API of the local server: reset to the starting state, read and advance the
 * simulator clock, read the request journal, and each service's own scenario routes under
 * `/_sim/<service key>/`. JSON in, JSON out; errors are `{"error": {"status", "code", "message"}}`.
 */
import { clockDurationMs } from "../simulator/kernel/clock.js";
import { DomainError, isDomainError, UsageError, type DomainErrorCode } from "../simulator/kernel/errors.js";
import type { Simulator, SimulatorSnapshot } from "../simulator/kernel/simulator.js";
import { isoMillis } from "../simulator/kernel/time.js";
import type { JournalEntry } from "./handler.js";
import { bodyText, empty, json, type HttpService, type Route, type ServiceMount, type SimResponse } from "./http.js";

/** Path prefix of the control API on the server's origin. */
export const CONTROL_PREFIX = "/_sim";

/** Service name of the control API in the journal (plugin routes are `_sim:<key>`). */
export const CONTROL_SERVICE = "_sim";

/** A service's own control routes, mounted under `/_sim/<key>/`. */
export interface PluginControlRoutes {
  /** The plugin key (`runs`, `accessControl`, `secrets`). */
  readonly key: string;
  /** Paths relative to `/_sim/<key>` (their `base` is ignored). */
  readonly routes: readonly Route[];
}

/** What the control API acts on. */
export interface ControlApiOptions {
  readonly sim: Simulator;
  /** The state `POST /_sim/reset` goes back to (the state the server started with). */
  readonly resetPoint: SimulatorSnapshot;
  /** The journal of the handler the control API is mounted on. */
  readonly journal: () => readonly JournalEntry[];
  readonly clearJournal: () => void;
  readonly plugins?: readonly PluginControlRoutes[];
}

/** The clock as the control API shows it. */
export interface ClockView {
  /** Simulator time as ISO 8601 with milliseconds (`2024-01-01T00:00:30.000Z`). */
  readonly now: string;
  /** Simulator time, ms since the epoch. */
  readonly epochMs: number;
  /** Whether `POST /_sim/clock/advance` can move this clock. */
  readonly advanceable: boolean;
}

/**
 * The control API's mounts on `origin`: one per plugin with control routes (under
 * `/_sim/<key>`), then the core routes under `/_sim`:
 *
 * | Route | Body | Answer |
 * | --- | --- | --- |
 * | `GET /_sim` | | `{"routes": ["GET /_sim/clock", ...]}` |
 * | `POST /_sim/reset` | | back to the starting state; `{"reset": true, "now", "epochMs", "advanceable"}` |
 * | `GET /_sim/clock` | | `{"now": ISO string, "epochMs": ms, "advanceable": bool}` |
 * | `POST /_sim/clock/advance` | `{"by": "30s"}` or `{"by": 30000}` (ms) | the new clock; 400 bad input (not a duration, no unit as in `"600"`, negative, past year 275760), 409 clock cannot move |
 * | `GET /_sim/journal` | | `{"entries": [{"at", "epochMs", "service", "method", "url", "status"}]}` (service requests only) |
 * | `DELETE /_sim/journal` | | 204, journal emptied |
 *
 * @example
 * const mounts = controlMounts("http://127.0.0.1:8080", { sim, resetPoint: sim.snapshot(), journal: () => [], clearJournal: () => {} });
 * // POST http://127.0.0.1:8080/_sim/clock/advance {"by":"10m"} -> {"now":"2024-01-01T00:10:00.000Z",...}
 */
export function controlMounts(origin: string, options: ControlApiOptions): ServiceMount[] {
  const pluginMounts = (options.plugins ?? []).map(({ key, routes }) => ({
    service: controlService(`${CONTROL_SERVICE}:${key}`, routes.map((route) => ({ ...route, base: "api" }))),
    bases: { api: `${origin}${CONTROL_PREFIX}/${key}` },
  }));
  const core = controlService(CONTROL_SERVICE, coreRoutes(options, pluginMounts.map((m) => m.bases.api.slice(origin.length))));
  return [...pluginMounts, { service: core, bases: { api: `${origin}${CONTROL_PREFIX}` } }];
}

function coreRoutes(options: ControlApiOptions, pluginPrefixes: readonly string[]): Route[] {
  const { sim } = options;
  const routes: Route[] = [
    {
      method: "GET",
      path: "/",
      handler: () =>
        json(200, {
          routes: [
            ...routes.filter((r) => r.path !== "/").map((r) => `${methodLabel(r)} ${CONTROL_PREFIX}${r.path}`),
            ...pluginPrefixes.map((prefix) => `* ${prefix}/...`),
          ],
        }),
    },
    {
      method: "POST",
      path: "/reset",
      handler: () => {
        sim.restore(options.resetPoint);
        options.clearJournal();
        return json(200, { reset: true, ...clockView(sim) });
      },
    },
    { method: "GET", path: "/clock", handler: () => json(200, clockView(sim)) },
    {
      method: "POST",
      path: "/clock/advance",
      handler: ({ request }) => {
        const by = advanceBy(bodyText(request));
        if (!canAdvance(sim)) {
          throw controlError("conflict", "advance clock", "this server's clock follows real time and cannot be advanced (start it with an advanceable or manual clock)");
        }
        try {
          sim.advance(by);
        } catch (error) {
          // A move past the latest time a Date can hold: refused, the clock stays where it was.
          if (error instanceof UsageError) throw controlError("invalid", "advance clock", withoutPrefix(error.message));
          throw error;
        }
        return json(200, clockView(sim));
      },
    },
    {
      method: "GET",
      path: "/journal",
      handler: () =>
        json(200, {
          entries: options
            .journal()
            .filter((entry) => !entry.service?.startsWith(CONTROL_SERVICE))
            .map((entry) => ({ at: isoMillis(entry.at), epochMs: entry.at, service: entry.service ?? null, method: entry.method, url: entry.url, status: entry.status })),
        }),
    },
    {
      method: "DELETE",
      path: "/journal",
      handler: () => {
        options.clearJournal();
        return empty(204);
      },
    },
  ];
  return routes;
}

/**
 * The simulator clock as `GET /_sim/clock` answers it.
 * @example clockView(sim) // { now: "2024-01-01T00:00:00.000Z", epochMs: 1704067200000, advanceable: true }
 */
export function clockView(sim: Simulator): ClockView {
  const epochMs = sim.now();
  return { now: isoMillis(epochMs), epochMs, advanceable: canAdvance(sim) };
}

function methodLabel(route: Route): string {
  return typeof route.method === "string" ? route.method : route.method.join("|");
}

function canAdvance(sim: Simulator): boolean {
  return typeof (sim.clock as { advance?: unknown }).advance === "function";
}

/** Reads `{"by": "30s"}` or `{"by": 30000}` (ms) as whole ms; a string needs a unit. */
function advanceBy(text: string): number {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw controlError("malformed", "advance clock", `the body must be JSON like {"by": "30s"} or {"by": 30000}: ${(error as Error).message}`);
  }
  const by = typeof body === "object" && body !== null ? (body as { by?: unknown }).by : undefined;
  if (typeof by !== "string" && typeof by !== "number") {
    throw controlError("invalid", "advance clock", `"by" must be a duration string ("30s", "1h30m") or milliseconds (30000); got ${JSON.stringify(by) ?? "nothing"}`);
  }
  try {
    return clockDurationMs(by);
  } catch (error) {
    if (error instanceof UsageError) throw controlError("invalid", "advance clock", `"by": ${withoutPrefix(error.message)}`);
    throw error;
  }
}

function withoutPrefix(message: string): string {
  return message.replace(/^infra-doubles: /, "");
}

function controlError(code: DomainErrorCode, operation: string, message: string): DomainError {
  return new DomainError({ code, service: CONTROL_SERVICE, operation, message });
}

const STATUS: Readonly<Record<DomainErrorCode, number>> = {
  malformed: 400,
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  unsupported: 405,
  conflict: 409,
  internal: 500,
  unavailable: 503,
};

function errorBody(status: number, code: string, message: string): SimResponse {
  return json(status, { error: { status, code, message } });
}

/**
 * A control service: its routes, with library-misuse errors ({@link UsageError}, e.g. a bad
 * argument to a scenario control) answered as 400 instead of a library-bug 500.
 */
function controlService(name: string, routes: readonly Route[]): HttpService {
  return {
    name,
    journaled: false,
    routes: routes.map((route) => ({
      ...route,
      handler: async (ctx) => {
        try {
          return await route.handler(ctx);
        } catch (error) {
          if (error instanceof UsageError) throw controlError("invalid", `${methodLabel(route)} ${route.path}`, error.message);
          throw error;
        }
      },
    })),
    errorResponse: (error) => {
      if (!isDomainError(error)) return errorBody(500, "internal", String(error));
      const status = error.status ?? STATUS[error.code];
      return errorBody(status, error.code, error.message);
    },
    noRoute: (request, nearest, methodMismatch) =>
      methodMismatch
        ? errorBody(405, "method_not_allowed", `${request.method} is not allowed on ${request.url.pathname}; try ${nearest.join(", ")}`)
        : errorBody(404, "not_found", `no control route ${request.method} ${request.url.pathname}; nearest: ${nearest.join(", ")}`),
  };
}
