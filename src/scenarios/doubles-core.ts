/**
 * The machinery behind `createDoubles()`: one simulator, one clock, a set of service plugins, and
 * the two transports (nock and the local server) over one handler.
 */
import { randomBytes } from "node:crypto";
import { networkInterfaces } from "node:os";
import { bindsBeyondLoopback, controlHosts, controlMounts, guardControl, type DiagramControl, type PluginControlRoutes } from "../interceptors/control.js";
import { createHandler, type Handler } from "../interceptors/handler.js";
import { RequestJournal, type JournalOptions } from "../interceptors/journal.js";
import type { HttpService, ServiceMount } from "../interceptors/http.js";
import { interceptWithNock, type NockInterception } from "../interceptors/nock-adapter.js";
import { interceptWithInterceptors, type Interception } from "../interceptors/transports/interceptors.js";
import { startServer, type RunningServer, type ServerOptions } from "../interceptors/server.js";
import {
  AdvanceableClock,
  GlobalDateClock,
  ManualClock,
  SystemClock,
  type Clock,
  type Instant,
} from "../simulator/kernel/clock.js";
import type { Duration } from "../simulator/kernel/duration.js";
import { UsageError } from "../simulator/kernel/errors.js";
import { Simulator, type SimulatorSnapshot } from "../simulator/kernel/simulator.js";
import { FaultSet, type SavedFaults } from "./faults/fault-set.js";
import type { FaultDefinition, FaultTarget } from "./faults/fault-definition.js";
import { CoverageCollector } from "./coverage/collector.js";
import { routeNamesOf, Vocabulary } from "../interceptors/vocabulary.js";
import type { CoverageReport } from "./coverage/report.js";
import { currentTestFileSource, flushCoverage, registerCoverage } from "./coverage/sink.js";
import { diagramMarks, stateDiagramMermaid, stateDiagramSvg, STATE_TABLES, tableSummary } from "./diagrams/index.js";
import { checkDoublesOptions } from "./options.js";
import type { ServicePlugin } from "./plugin.js";
import type { UnhandledRequest } from "./journal-matchers.js";
import { checkUnhandledStrategy, type UnhandledAction, type UnhandledRequestStrategy } from "../interceptors/transports/unhandled.js";
import { checkUserRoute, parsedBody, UserRouteTable, type AnswerFallback } from "../interceptors/user-routes.js";
import type { PassthroughTarget } from "../interceptors/passthrough.js";
import { canonicalOrigin } from "../interceptors/owned-origins.js";
import { isoMillis } from "../simulator/kernel/time.js";
import type { UserRouteName } from "../interceptors/vocabulary.js";
import type { PassthroughOption, UserRouteHandle, UserRouteHandler, UserRoutes } from "./user-routes.js";
import { BundleRecorder, DEFAULT_BUNDLE_LIMIT, encodeValue, restoreEvent } from "./bundles/recorder.js";
import { makeBundle, writeBundle, type Bundle } from "./bundles/bundle.js";
import { selectMutant } from "./mutants/select.js";
import type { Mutant } from "./mutants/types.js";

/** How many unhandled requests {@link DoublesCore.unhandledRequests} keeps. */
const UNHANDLED_KEPT = 1000;

/**
 * Which clock drives the simulator:
 * - `"manual"` (default): starts at `start` (default 2024-01-01T00:00:00Z) and moves only by
 *   `advance()`;
 * - `"fake-timers"`: reads `Date.now()` lazily, so `vi.useFakeTimers()` drives it;
 * - `"system"`: real time;
 * - `"advanceable"`: real time that `advance()` can push forward (the dev server's clock);
 * - or any {@link Clock}.
 */
export type ClockOption = "manual" | "fake-timers" | "system" | "advanceable" | Clock;

/** Base URL overrides: a string sets the service's API base; an object sets named bases. */
export type BaseUrlOption = string | Readonly<Record<string, string>>;

/** Options shared by every way of creating doubles. */
export interface DoublesCoreOptions {
  /** Seed of ids and secrets (default 1): same seed, same calls, same responses. */
  readonly seed?: number | string;
  readonly clock?: ClockOption;
  /**
   * Start time of the `"manual"` clock, or of the `"advanceable"` one (real time from there on);
   * refused with any other clock, which keeps its own time.
   */
  readonly start?: Instant;
  /** Base URLs per service key, for the nock transport (the server always uses its own origin). */
  readonly baseUrls?: Readonly<Record<string, BaseUrlOption>>;
  /**
   * How much the request journal keeps: `limit` entries (default 1000, the oldest go first) and
   * `maxBodyBytes` of each request and response body (default 16 KiB; longer bodies are cut and
   * marked `truncated`). See docs/guides/assert-what-your-code-sent.md.
   */
  readonly journal?: JournalOptions;
  /**
   * Extra HTTP services mounted only on the local server, next to the built-in `/_sim/` control
   * API. Their bases' paths are kept and moved to the server's origin.
   */
  readonly serverOnly?: (doubles: DoublesCore) => ServiceMount[];
  /**
   * Give these doubles hosts of their own: each default base URL's first host label gets a suffix
   * unique in the process (`https://secrets-3.test/v1`, `https://app-3.run-orchestration.test/api/v2`),
   * as `baseUrls()` shows, so several doubles intercept at once (`test.concurrent`) without sharing
   * anything. Base URLs given in `baseUrls` are kept as given. Default `false`.
   */
  readonly uniqueOrigins?: boolean;
  /**
   * Whether to count what requests and timed moves exercise, for {@link DoublesCore.coverage}
   * (default `true`). Counting never changes an answer; `false` skips it altogether.
   */
  readonly coverage?: boolean;
  /**
   * Per service key, a real server that answers what the fake does not simulate: a request no
   * route of the service (and no user route) answers is forwarded there, after the service's
   * routes and before its 404, on every transport and the server, and journalled with
   * `answeredBy: "passthrough"`. The URL's origin, and optionally a path standing for the
   * service's base path (`"http://127.0.0.1:8200"` keeps `/v1`); or `{ url, timeoutMs }` (default
   * 10000 ms of silence). The forwarded request leaves through node:http's own client, never
   * through an interception; a target on an origin the doubles serve is refused. A connection
   * error or a timeout is answered 502 in the service's own error shape. See
   * docs/guides/adopt-the-fake-before-every-call-is-simulated.md.
   * @example createDoubles({ passthrough: { secrets: "http://127.0.0.1:8200" } })
   */
  readonly passthrough?: Readonly<Record<string, PassthroughOption>>;
  /**
   * Whether to record what a replay bundle needs ({@link DoublesCore.bundle}, `useDoubles()` on a
   * failing test): every request whole (bytes as received, the answer given) and every control
   * action, with simulated times. Default `true`, up to `limit` requests and actions (default
   * 10,000; past it `bundle()` is refused as incomplete); `false` records nothing. See
   * docs/decisions/bundles.md.
   */
  readonly bundle?: boolean | { readonly limit?: number };
  /**
   * Build these doubles as a service mutant: the faithful fake with one deliberate change to its
   * tables (a mutant id from `infra-doubles mutate --list`, or a {@link Mutant}). Absent: the
   * environment variable `INFRA_DOUBLES_MUTANT` (set by `infra-doubles mutate` for the test
   * command), else the faithful fake. `null`: the faithful fake whatever the environment says.
   * See docs/guides/find-what-your-tests-would-not-notice.md.
   * @throws {UsageError} naming the id when no mutant has it.
   * @example createDoubles({ mutant: "runs:transition-removed:run/planned/confirm" })
   */
  readonly mutant?: string | Mutant | null;
}

/** Options of {@link DoublesCore.intercept}. */
export interface InterceptOptions {
  /**
   * `"nock"` (default): through nock, beside the test's own nock mocks. `"interceptors"`:
   * @mswjs/interceptors directly (the engine nock is built on): faster, no timers on the way.
   */
  readonly transport?: "nock" | "interceptors";
  /**
   * What happens to a request to a host no doubles own that nothing else (your nock mocks, msw)
   * answered, while this interception is live: `"warn"` (default: a warning, then the network),
   * `"error"` (the request fails, never leaving the process), `"bypass"`, or a function
   * `(request, print) => void` as msw's. Loopback hosts are never unhandled. Requests failed or
   * warned about are listed in {@link DoublesCore.unhandledRequests}. See
   * docs/decisions/transports.md "Unhandled requests".
   */
  readonly onUnhandledRequest?: UnhandledRequestStrategy;
}

/** Options of {@link DoublesCore.listen}. */
export interface ListenOptions extends ServerOptions {
  /**
   * Runs once the server's origin is known and before the first request is answered (the dev
   * server builds its default scenario here). `POST /_sim/reset` and `doubles.reset()` go back
   * to the state right after it.
   * @param origin - the server's origin, e.g. `http://127.0.0.1:8080`.
   */
  readonly setup?: (origin: string) => void;
  /**
   * More `Host` names the `/_sim/` control API answers, besides the loopback names and the bound
   * address with the server's port: `name` (any port) or `name:port` (e.g. a name on the LAN, a
   * proxy's host). Service routes answer any `Host`.
   */
  readonly allowedHosts?: readonly string[];
  /**
   * The token `/_sim/` requests must send in the `X-Infra-Doubles-Control-Token` header. Default:
   * none on loopback; bound beyond loopback (`0.0.0.0`, a LAN address), a random token (not
   * seeded: a predictable token protects nothing), returned as `controlToken`.
   */
  readonly controlToken?: string;
  /**
   * More `/_sim/<key>/` routes on this server only, listed by `GET /_sim` and behind the same
   * checks (the dev server's `/_sim/worlds`, src/cli/worlds.ts). Keys must not be a service's.
   */
  readonly controlRoutes?: readonly PluginControlRoutes[];
}

/**
 * Options of {@link DoublesCore.listen} in split mode: each service on its own port, as real
 * deployments give each service its own address (`VAULT_ADDR`, `CONSUL_HTTP_ADDR`, the runs API's
 * host). Each port serves one service's bases and the `/_sim/` control API; a path that service
 * does not own gets that service's own answer.
 */
export interface SplitListenOptions extends Omit<ListenOptions, "setup"> {
  readonly split: true;
  /**
   * First port: services get consecutive ports in registration order (`runs`, `accessControl`,
   * `secrets`: 8080, 8081, 8082). 0 (default): each a free port.
   */
  readonly port?: number;
  /** A port per service key, instead of the consecutive one (e.g. `{ secrets: 8200 }`). */
  readonly ports?: Readonly<Record<string, number>>;
  /**
   * Runs once every origin is known and before the first request is answered; `POST /_sim/reset`
   * (on any port) goes back to the state right after it.
   * @param origins - each service's origin by key, e.g. `{ secrets: "http://127.0.0.1:8082", ... }`.
   */
  readonly setup?: (origins: Readonly<Record<string, string>>) => void;
}

/** The servers of split mode. Dispose them (or `await close()`) to stop every one. */
export interface SplitServers extends AsyncDisposable {
  /** Each service's server by key. */
  readonly servers: Readonly<Record<string, RunningServer>>;
  /** Each service's origin by key, e.g. `{ runs: "http://127.0.0.1:8080", ... }`. */
  readonly urls: Readonly<Record<string, string>>;
  /** The token `/_sim/` requests must send on every port, when there is one. */
  readonly controlToken?: string;
  close(): Promise<void>;
}

/**
 * A handler that answers from `current()` once it exists (split mode builds the handlers after
 * every port is bound), and 503 before.
 */
function deferredHandler(sim: Simulator, current: () => Handler | undefined): Handler {
  return {
    sim,
    get mounts() {
      return current()?.mounts ?? [];
    },
    get origins() {
      return current()?.origins ?? [];
    },
    get journal() {
      return current()?.journal ?? [];
    },
    get requests() {
      return current()?.requests ?? new RequestJournal({ limit: 0 });
    },
    clearJournal: () => current()?.clearJournal(),
    owns: (url) => current()?.owns(url) ?? false,
    maxBodyBytes: (url) => current()?.maxBodyBytes(url),
    admit: (head) => current()?.admit?.(head),
    handle: async (request) =>
      (await current()?.handle(request)) ?? {
        status: 503,
        headers: { "content-type": "text/plain; charset=utf-8" },
        body: "infra-doubles: the server is starting\n",
      },
  };
}

/**
 * Builds the clock for a {@link ClockOption}.
 * @throws {UsageError} for an unknown option name, or a `start` given with another clock than
 *   `"manual"` (it would be ignored).
 * @example makeClock("manual", "2024-05-01T00:00:00Z") // a ManualClock
 */
export function makeClock(option: ClockOption = "manual", start?: Instant): Clock {
  if (start !== undefined && option !== "manual" && option !== "advanceable") {
    throw new UsageError(
      `"start" sets the first time of a manual or advanceable clock; a ${typeof option === "string" ? `"${option}"` : "given"} clock keeps its own time (drop "start", or use clock: "manual")`,
    );
  }
  if (typeof option !== "string") return option;
  switch (option) {
    case "manual":
      return new ManualClock(start);
    case "fake-timers":
      return new GlobalDateClock();
    case "system":
      return new SystemClock();
    case "advanceable":
      return new AdvanceableClock(undefined, start);
    default:
      throw new UsageError(`unknown clock option ${JSON.stringify(option)}`);
  }
}

/**
 * One simulator with its services and transports. See `createDoubles()` for the typed, all-service
 * version users normally call.
 *
 * @example
 * const doubles = new DoublesCore([runsPlugin], { seed: 1 });
 * using _nock = doubles.intercept();
 */
export class DoublesCore {
  readonly sim: Simulator;
  readonly clock: Clock;
  private readonly plugins: readonly ServicePlugin<unknown>[];
  private readonly options: DoublesCoreOptions;
  private nockHandler: Handler | undefined;
  private nockBaseCache: Readonly<Record<string, Readonly<Record<string, string>>>> | undefined;
  private readonly interceptions = new Set<Interception>();
  private readonly unhandled: UnhandledRequest[] = [];
  /** Appended to the first host label of default base URLs (`uniqueOrigins`). */
  private readonly hostSuffix: string;
  private readonly closers: (() => void)[] = [];
  private readonly servers = new Set<RunningServer>();
  private readonly controls = new Map<string, unknown>();
  /** The one journal every handler of these doubles (nock's, each server's) appends to. */
  private readonly requestJournal: RequestJournal;
  /** Where {@link DoublesCore.reset} goes back to (default: the state right after construction). */
  private resetPoint: { readonly snapshot: SimulatorSnapshot; readonly faults: SavedFaults } | undefined;
  /** Whether the clock was made here (from a `clock` name): only such a clock is set back by reset. */
  private readonly ownsClock: boolean;
  /**
   * Faults applied to requests through every transport of these doubles (see `FaultDefinition`):
   * `add()` one (returns a handle with `remove()`), `list()`, `clear()` (in `afterEach`).
   * Over HTTP on the server: `/_sim/faults`.
   * @example
   * doubles.faults.add({ service: "secrets", answer: "sealed", times: 1 });
   */
  readonly faults: FaultSet;
  private readonly collector: CoverageCollector | undefined;
  /** The service keys, route names and operations faults and journal filters are checked against. */
  private readonly vocabulary: Vocabulary;
  /** Routes users added (`doubles.<service>.route()`). */
  private readonly userRouteTable = new UserRouteTable();
  /** Passthrough targets by service key (the `passthrough` option). */
  private readonly passthroughTargets: ReadonlyMap<string, PassthroughTarget>;
  /** What every handler of these doubles asks for a request its service does not simulate. */
  private readonly fallback: AnswerFallback;
  /** The replay-bundle log: requests and control actions, in order (the `bundle` option). */
  private readonly recorder: BundleRecorder;
  /** Simulated time at creation (where a replay's manual clock starts). */
  private readonly createdAt: number;
  /**
   * The service mutant these doubles were built as (the `mutant` option or `INFRA_DOUBLES_MUTANT`),
   * or `undefined` for the faithful fake.
   * @example createDoubles({ mutant: id }).mutant?.description
   */
  readonly mutant: Mutant | undefined;

  constructor(plugins: readonly ServicePlugin<unknown>[], options: DoublesCoreOptions = {}) {
    checkDoublesOptions(options, plugins);
    this.plugins = plugins;
    this.options = options;
    this.clock = makeClock(options.clock, options.start);
    this.ownsClock = typeof options.clock !== "object";
    this.requestJournal = new RequestJournal(options.journal);
    this.createdAt = this.clock.now();
    const bundle = options.bundle;
    this.recorder = new BundleRecorder(bundle === false ? 0 : bundle === true || bundle === undefined ? DEFAULT_BUNDLE_LIMIT : (bundle.limit ?? DEFAULT_BUNDLE_LIMIT), () => this.clock.now());
    if (this.recorder.enabled) {
      const recorder = this.recorder;
      this.requestJournal.tap = (request, response, startedAt, at) => recorder.request(request, response, startedAt, at);
      if (options.passthrough !== undefined) recorder.note("passthrough: requests forwarded to a real server are compared with what the fake answers on replay");
      if (options.serverOnly !== undefined) recorder.note("serverOnly: the extra server mounts are not rebuilt on replay");
    }
    this.hostSuffix = options.uniqueOrigins === true ? `-${++uniqueOriginsCount}` : "";
    this.mutant = selectMutant(plugins, options.mutant);
    this.sim = new Simulator({
      clock: this.clock,
      seed: options.seed ?? 1,
      services: plugins.map((p) => p.definition),
      ...(this.mutant?.change.layer === "simulator" ? { mutation: this.mutant.change.mutation } : {}),
    });
    this.passthroughTargets = this.checkedPassthrough(options.passthrough);
    const table = this.userRouteTable;
    const targets = this.passthroughTargets;
    this.fallback = {
      get active() {
        return table.size > 0 || targets.size > 0;
      },
      userRoute: (key, method, path) => table.match(key, method, path),
      passthrough: (key) => targets.get(key),
    };
    this.faults = new FaultSet(this.sim, () => this.faultTargets(), (change) => {
      if (!this.recorder.enabled) return;
      const at = this.recorder.time();
      if (change.kind !== "fault.add") this.recorder.control({ ...change, at });
      else this.recorder.control({ kind: "fault.add", at, definition: encodeValue(change.definition, "faults.add", []) });
    });
    this.vocabulary = new Vocabulary(
      () => this.faultTargets().map((t) => ({ key: t.key, http: t.http, prefixes: Object.values(t.basePaths).flat(), userRoutes: () => table.names(t.key) })),
      this.sim,
    );
    this.requestJournal.useVocabulary(this.vocabulary);
    if (options.coverage !== false) {
      const testFile = currentTestFileSource();
      this.collector = new CoverageCollector(this.sim, plugins, testFile === undefined ? {} : { testFile });
      registerCoverage(this.collector);
    }
  }

  /** The services faults can target, with their base paths on every transport. */
  private faultTargets(): FaultTarget[] {
    const nock = this.nockBases();
    return this.plugins.map((plugin) => {
      const basePaths: Record<string, string[]> = {};
      for (const bases of [nock[plugin.key] ?? {}, plugin.serverBases("http://127.0.0.1")]) {
        for (const [name, base] of Object.entries(bases)) {
          const path = new URL(base).pathname.replace(/\/+$/, "");
          basePaths[name] = [...new Set([...(basePaths[name] ?? []), path])];
        }
      }
      return { key: plugin.key, http: plugin.http, basePaths, routeNames: () => [...routeNamesOf(plugin.http, this.sim), ...this.userRouteTable.names(plugin.key)] };
    });
  }

  /** The `passthrough` option, checked: keys of services, http(s) URLs, none on an origin these doubles serve. */
  private checkedPassthrough(option: DoublesCoreOptions["passthrough"]): Map<string, PassthroughTarget> {
    const out = new Map<string, PassthroughTarget>();
    if (option === undefined) return out;
    const keys = this.plugins.map((p) => p.key);
    const own = new Set(Object.values(this.nockBases()).flatMap((bases) => Object.values(bases).map((b) => canonicalOrigin(new URL(b).origin))));
    for (const [key, value] of Object.entries(option)) {
      if (!keys.includes(key)) throw new UsageError(`createDoubles: option "passthrough" names no service "${key}" (services: ${keys.join(", ")})`);
      const target: PassthroughTarget = typeof value === "string" ? { url: value } : value;
      let url: URL | undefined;
      try {
        url = new URL(target.url);
      } catch {
        url = undefined;
      }
      if (url === undefined || !/^https?:$/.test(url.protocol) || url.search !== "" || url.hash !== "") {
        throw new UsageError(`createDoubles: option "passthrough.${key}" must be an http(s) URL without query, like "http://127.0.0.1:8200", not ${JSON.stringify(target.url)}`);
      }
      if (target.timeoutMs !== undefined && !(Number.isSafeInteger(target.timeoutMs) && target.timeoutMs > 0)) {
        throw new UsageError(`createDoubles: option "passthrough.${key}.timeoutMs" must be a whole number of milliseconds above 0, not ${JSON.stringify(target.timeoutMs)}`);
      }
      if (own.has(canonicalOrigin(url.origin))) {
        throw new UsageError(`createDoubles: option "passthrough.${key}" is ${url.origin}, an origin these doubles serve: a passthrough goes to a real server elsewhere`);
      }
      out.set(key, { url: url.href, ...(target.timeoutMs === undefined ? {} : { timeoutMs: target.timeoutMs }) });
    }
    return out;
  }

  /**
   * Adds a route of your own to service `key`, answered when none of the service's own routes
   * answers a request (after its routes, before its 404), on every transport and the server; the
   * same as `doubles.<key>.route(method, template, handler)` (see {@link UserRoutes.route}).
   * @throws {UsageError} for an unknown service, a method not in upper case, a bad template, a
   *   template with the API prefix, a route the service simulates, or a second route of that name.
   * @example
   * using kv = doubles.route("secrets", "GET", "/secret/data/:path", ({ params }) => ({ body: { data: { data: { path: params.path } } } }));
   */
  route<T extends string>(key: string, method: string, template: T, handler: UserRouteHandler<T>): UserRouteHandle {
    const plugin = this.plugins.find((p) => p.key === key);
    if (plugin === undefined) throw new UsageError(`route: no service "${key}" in these doubles (have: ${this.plugins.map((p) => p.key).join(", ")})`);
    checkUserRoute(key, method, template);
    if (typeof handler !== "function") throw new UsageError(`${key}.route: the handler must be a function (request, world) => ({ status, headers, body })`);
    this.recorder.note(`${key}.route("${method} ${template}"): a user route's handler is a function, not recorded; on replay its requests get the fake's own answer`);
    const prefixes = [...new Set(this.faultTargets().find((t) => t.key === key)?.basePaths.api ?? [])].filter((p) => p !== "");
    const prefix = prefixes.find((p) => template === p || template.startsWith(`${p}/`));
    if (prefix !== undefined) {
      throw new UsageError(`${key}.route: write the template without the API prefix: "${template.slice(prefix.length) || "/"}", not "${template}"`);
    }
    const name = `${method} ${template}`;
    if (routeNamesOf(plugin.http, this.sim).includes(name)) {
      throw new UsageError(`${key}.route: the ${key} service simulates "${name}" itself; a user route answers only what the fake does not simulate`);
    }
    const sim = this.sim;
    const remove = this.userRouteTable.add({
      key,
      method,
      template,
      answer: async ({ request, params, path }) =>
        handler(
          {
            method: request.method,
            url: request.url,
            path,
            params: params as never,
            query: request.url.searchParams,
            headers: request.headers,
            body: parsedBody(request),
            rawBody: request.body,
          },
          { service: key, now: sim.now(), time: isoMillis(sim.now()) },
        ),
    });
    return { service: key, name: name as UserRouteName, remove, [Symbol.dispose]: remove };
  }

  /**
   * What the requests and timed moves so far exercised, per service, against the fake's own
   * tables: endpoints (`METHOD /path`, with the statuses answered), states entered and
   * transitions taken per state machine (`run`, `configuration version`), and named events
   * (`token` and `lease` lifecycles, secrets `node state`s answered in, `health code`s answered).
   * Every dimension has `exercised`, `total`, `reached` (counts by label) and `never` (labels).
   * Counting starts at creation, goes on across {@link DoublesCore.reset} and {@link DoublesCore.restore},
   * and never changes an answer. See docs/guides/see-what-your-tests-never-exercised.md.
   * @returns a new {@link CoverageReport} (plain JSON, keys sorted).
   * @throws {UsageError} when the doubles were created with `coverage: false`.
   * @example
   * const report = doubles.coverage();
   * report.services.runs.machines.run.transitions.never; // ["applying -> errored", ...]
   */
  coverage(): CoverageReport {
    if (this.collector === undefined) throw new UsageError("coverage: these doubles were created with coverage: false");
    return this.collector.report();
  }

  /**
   * `/_sim/diagrams`: the state tables of the services these doubles run, drawn with the number of
   * items stored in each state now and, when coverage is on, the coverage so far (no routes when
   * no service has a table).
   */
  private diagramControl(): { diagrams?: DiagramControl } {
    const served = STATE_TABLES.filter((table) => this.plugins.some((plugin) => plugin.key === table.service));
    if (served.length === 0) return {};
    return {
      diagrams: {
        list: () => served.map(tableSummary),
        render: (name, format) => {
          const table = served.find((t) => t.name === name);
          if (table === undefined) return undefined;
          const marks = diagramMarks(table, { sim: this.sim, ...(this.collector === undefined ? {} : { coverage: this.collector.report() }) });
          return format === "svg" ? stateDiagramSvg(table, marks) : stateDiagramMermaid(table, marks);
        },
      },
    };
  }

  /**
   * Forgets what was counted so far (e.g. after a setup phase that should not count).
   * @throws {UsageError} when the doubles were created with `coverage: false`.
   * @example doubles.clearCoverage();
   */
  clearCoverage(): void {
    if (this.collector === undefined) throw new UsageError("coverage: these doubles were created with coverage: false");
    this.collector.clear();
  }

  /**
   * The scenario controls of the service registered under `key`.
   * @throws {UsageError} when no such service is registered.
   */
  controlsOf<Controls>(key: string): Controls {
    const plugin = this.plugins.find((p) => p.key === key);
    if (!plugin) throw new UsageError(`no service "${key}" in these doubles (have: ${this.plugins.map((p) => p.key).join(", ")})`);
    if (!this.controls.has(key)) {
      const controls = plugin.controls(this.sim) as object;
      // Every service's controls take user routes: `doubles.secrets.route(...)`.
      const route: UserRoutes["route"] = (method, template, handler) => this.route(key, method, template, handler);
      if (typeof controls === "object" && controls !== null && Object.isExtensible(controls) && !("route" in controls)) {
        Object.defineProperty(controls, "route", { value: route, enumerable: false, configurable: true });
      }
      this.controls.set(key, this.recorder.enabled ? this.recorded(key, controls) : controls);
    }
    return this.controls.get(key) as Controls;
  }

  /** `controls` with every method call recorded for replay bundles (the outermost call only). */
  private recorded(key: string, controls: object): object {
    const recorder = this.recorder;
    const wrapped = new Map<PropertyKey, unknown>();
    return new Proxy(controls, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== "function" || property === "route" || property === "constructor") return value;
        let wrapper = wrapped.get(property);
        if (wrapper === undefined || (wrapper as { original?: unknown }).original !== value) {
          const method = value as (...args: unknown[]) => unknown;
          wrapper = Object.assign((...args: unknown[]) => recorder.call(key, String(property), args, () => method.apply(target, args)), { original: value });
          wrapped.set(property, wrapper);
        }
        return wrapper;
      },
    });
  }

  /** The registered plugins. */
  get registeredPlugins(): readonly ServicePlugin<unknown>[] {
    return this.plugins;
  }

  /** Simulator time, ms since the epoch (after firing every due move). */
  now(): number {
    return this.sim.now();
  }

  /**
   * Moves time forward and fires every move that falls due (plans finish, tokens expire, leases
   * end, cool-offs pass), each at its own due time.
   * @param by - milliseconds or a duration string (`"10m"`, `"1h30m"`).
   * @returns the new simulator time (ms since the epoch).
   * @throws {UsageError} with a system or fake-timers clock (move those clocks instead).
   * @example doubles.advance("10m");
   */
  advance(by: Duration): number {
    return this.sim.advance(by);
  }

  /**
   * A deep copy of every service's state, the schedule and the id source. The services' states in
   * it are frozen: {@link DoublesCore.restore} copies each when the service is first used.
   * @example const world = doubles.snapshot(); // then in each test: doubles.restore(world)
   */
  snapshot(): SimulatorSnapshot {
    return this.sim.snapshot();
  }

  /** Puts back a {@link DoublesCore.snapshot}. The clock does not move back. */
  restore(snapshot: SimulatorSnapshot): void {
    if (this.recorder.enabled) this.recorder.control(restoreEvent(this.recorder.time(), snapshot as unknown as Readonly<Record<string, unknown>>));
    this.sim.restore(snapshot);
  }

  /**
   * Back to the starting world: the state right after creation, or right after the
   * `createDoubles({ scenario })` document loaded, or right after `listen()` (after its `setup`,
   * which the dev server builds its default scenario or `--scenario` document in). One reset,
   * the same as `POST /_sim/reset` (which calls it):
   * - every service's state as it was then; ids and secrets drawn again (same seed, same ids);
   * - the clock back at that time, when these doubles made it (`clock: "manual"` or
   *   `"advanceable"`; a `"system"` or `"fake-timers"` clock, or a {@link Clock} passed in, keeps
   *   its time and moves due in between fire on the next request);
   * - faults as they were then (the document's `faults`, counts from 0); faults added since are removed;
   * - the request journal emptied.
   * Coverage counts go on.
   * @example
   * const doubles = createDoubles({ scenario: "world.yaml" });
   * doubles.advance("1h"); doubles.faults.add({ service: "runs", answer: "unavailable" });
   * doubles.reset(); // the document's world at its start time, with only its own faults
   */
  reset(): void {
    this.recorder.control({ kind: "reset", at: this.recorder.time() });
    this.recorder.quietly(() => this.resetNow());
  }

  private resetNow(): void {
    const rewind = this.ownsClock;
    if (this.resetPoint === undefined) {
      this.sim.reset({ rewind });
      this.faults.clear();
    } else {
      this.sim.restore(this.resetPoint.snapshot, { rewind });
      this.faults.load(this.resetPoint.faults);
    }
    this.requestJournal.clear();
  }

  /**
   * More `/_sim/` routes, under `/_sim/<key>/` (merged with a plugin's own when the key is a
   * service's): `Doubles` adds the scenario document routes here. Default none.
   */
  protected moreControlRoutes(): readonly PluginControlRoutes[] {
    return [];
  }

  /** Makes the current state, time and faults the ones {@link DoublesCore.reset} goes back to. */
  protected markResetPoint(): void {
    this.recorder.control({ kind: "mark", at: this.recorder.time() });
    this.sim.catchUp();
    this.resetPoint = { snapshot: this.sim.snapshot(), faults: this.faults.save() };
  }

  /**
   * Every request these doubles answered, through every transport (nock, the interceptors
   * transport, msw handlers, each server), oldest first: request headers and body, response
   * status, headers and body, the matched route template and operation, the service, simulated
   * time and duration, the fault applied. Filter it, count it, print it (credentials masked).
   * @example
   * await client.applyRun("run-1");
   * expect(doubles.journal.count({ route: "POST /runs/:run_id/actions/apply" })).toBe(1);
   * console.log(doubles.journal.format({ service: "runs", status: "4xx" }));
   */
  get journal(): RequestJournal {
    return this.requestJournal;
  }

  /**
   * Requests to hosts no doubles own that an interception of these doubles failed or warned about
   * (`onUnhandledRequest`), oldest first (the last 1000). `toHaveNoUnmatchedRequests()` and
   * `useDoubles()` fail on them.
   */
  get unhandledRequests(): readonly UnhandledRequest[] {
    return this.unhandled;
  }

  /** The base URLs each service answers on through nock. */
  baseUrls(): Record<string, Record<string, string>> {
    const out: Record<string, Record<string, string>> = {};
    for (const [key, bases] of Object.entries(this.nockBases())) out[key] = Object.assign({}, bases);
    return out;
  }

  /** {@link DoublesCore.baseUrls}, worked out once (from the options and the host suffix, both fixed at creation). */
  private nockBases(): Readonly<Record<string, Readonly<Record<string, string>>>> {
    if (this.nockBaseCache !== undefined) return this.nockBaseCache;
    const out: Record<string, Record<string, string>> = {};
    for (const plugin of this.plugins) {
      const override = this.options.baseUrls?.[plugin.key];
      if (override === undefined && this.hostSuffix === "") {
        out[plugin.key] = defaultBasesOf(plugin);
        continue;
      }
      const bases: Record<string, string> = Object.fromEntries(Object.entries(plugin.defaultBases).map(([name, base]) => [name, withHostSuffix(base, this.hostSuffix)]));
      if (typeof override === "string") bases.api = override;
      else if (override) Object.assign(bases, override);
      out[plugin.key] = Object.freeze(Object.fromEntries(Object.entries(bases).map(([k, v]) => [k, v.replace(/\/+$/, "")])));
    }
    this.nockBaseCache = out;
    return out;
  }

  /**
   * The transport-free handler on the nock base URLs (call `handler.handle(request)` directly).
   * Its `journal` is the doubles' one journal: it lists the requests answered through every
   * transport (nock, each server started by {@link DoublesCore.listen}), oldest first.
   */
  get handler(): Handler {
    if (this.nockHandler !== undefined) return this.nockHandler;
    const bases = this.nockBases();
    this.nockHandler = createHandler({
      sim: this.sim,
      mounts: this.plugins.map((p) => ({ service: p.http, key: p.key, bases: bases[p.key] ?? {} })),
      journal: this.requestJournal,
      faults: this.faults,
      fallback: this.fallback,
      ...(this.collector === undefined ? {} : { observe: this.collector.observe }),
      ...(this.mutant?.change.layer === "wire" ? { mutation: this.mutant.change.mutation } : {}),
    });
    return this.nockHandler;
  }

  /**
   * A handler with every service on one origin, as the local server serves them, plus the `/_sim/`
   * control API (see `controlMounts`): `POST /_sim/reset` calls {@link DoublesCore.reset},
   * `GET /_sim/clock`, `POST /_sim/clock/advance`, `GET /_sim/journal`, and each plugin's
   * `controlRoutes` under `/_sim/<key>/`.
   * @param origin - the server's origin, e.g. `http://127.0.0.1:8080` (no trailing slash).
   * @param keys - serve only these services (split mode: one service per port); default all.
   * @param controlRoutes - more `/_sim/<key>/` routes on this origin only ({@link ListenOptions.controlRoutes}).
   */
  handlerFor(origin: string, keys?: readonly string[], controlRoutes: readonly PluginControlRoutes[] = []): Handler {
    const base = origin.replace(/\/+$/, "");
    this.recorder.control({ kind: "serve", at: this.recorder.time(), origin: base, ...(keys === undefined ? {} : { keys: [...keys] }) });
    const served = keys === undefined ? this.plugins : this.plugins.filter((p) => keys.includes(p.key));
    const mounts: ServiceMount[] = served.map((p) => ({ service: p.http, key: p.key, bases: p.serverBases(base) }));
    const extra = this.options.serverOnly?.(this) ?? [];
    const holder: { handler?: Handler } = {};
    const plugins: PluginControlRoutes[] = [];
    const moreRoutes = this.moreControlRoutes();
    for (const plugin of this.plugins) {
      const routes = [...(plugin.controlRoutes?.(this.controlsOf(plugin.key)) ?? []), ...(moreRoutes.find((e) => e.key === plugin.key)?.routes ?? [])];
      if (routes.length > 0) plugins.push({ key: plugin.key, routes });
    }
    plugins.push(...moreRoutes.filter((e) => !this.plugins.some((p) => p.key === e.key)), ...controlRoutes);
    const control = controlMounts(base, {
      sim: this.sim,
      reset: () => this.reset(),
      journal: () => holder.handler?.journal ?? [],
      clearJournal: () => holder.handler?.clearJournal(),
      plugins,
      ...(this.collector === undefined ? {} : { coverage: () => this.coverage() }),
      ...this.diagramControl(),
      tables: this.plugins.flatMap((plugin) => (plugin.tables === undefined ? [] : [{ key: plugin.key, tables: plugin.tables(this.sim) }])),
      faults: {
        add: (definition) => {
          const handle = this.faults.add(definition as FaultDefinition);
          return this.faults.list().find((fault) => fault.id === handle.id);
        },
        list: () => this.faults.list(),
        clear: () => this.faults.clear(),
        remove: (id) => this.faults.remove(id),
      },
    });
    holder.handler = createHandler({
      sim: this.sim,
      mounts: [...control, ...extra.map((m) => ({ ...m, bases: rebaseMount(m, base) })), ...mounts],
      journal: this.requestJournal,
      faults: this.faults,
      fallback: this.fallback,
      ...(this.collector === undefined ? {} : { observe: this.collector.observe }),
      ...(this.mutant?.change.layer === "wire" ? { mutation: this.mutant.change.mutation } : {}),
    });
    return holder.handler;
  }

  /**
   * Starts intercepting the services' base URLs in this process, until `stop()` (or disposal, or
   * {@link DoublesCore.close}).
   * @param options.transport - `"nock"` (default) or `"interceptors"`: @mswjs/interceptors directly,
   *   several times faster, without nock's timers (works under full `vi.useFakeTimers()`).
   * @returns the interception.
   * @throws {UsageError} when another live interception (any transport) holds one of the origins,
   *   or for an unknown transport.
   * @example
   * using interception = doubles.intercept();
   * using fast = other.intercept({ transport: "interceptors" });
   */
  intercept(options?: { readonly transport?: "nock"; readonly onUnhandledRequest?: UnhandledRequestStrategy }): NockInterception;
  intercept(options: InterceptOptions): Interception;
  intercept(options: InterceptOptions = {}): Interception {
    const transport = options.transport ?? "nock";
    if (transport !== "nock" && transport !== "interceptors") {
      throw new UsageError(`unknown transport ${JSON.stringify(transport)} (transports: "nock", "interceptors")`);
    }
    const transportOptions = {
      ...(options.onUnhandledRequest === undefined ? {} : { onUnhandledRequest: checkUnhandledStrategy(options.onUnhandledRequest) }),
      onUnhandled: (request: Request, action: UnhandledAction) => {
        this.unhandled.push({ at: this.sim.clock.now(), method: request.method, url: request.url, action });
        if (this.unhandled.length > UNHANDLED_KEPT) this.unhandled.shift();
      },
    };
    const interception = transport === "nock" ? interceptWithNock(this.handler, transportOptions) : interceptWithInterceptors(this.handler, transportOptions);
    this.interceptions.add(interception);
    return interception;
  }

  /**
   * Starts the local HTTP server with every service on one origin and the `/_sim/` control API;
   * with `split: true` ({@link SplitListenOptions}), one server per service instead, each with the
   * control API. Every server answers from the same simulator and appends to the one journal.
   * @param options.port - 0 (default) picks a free port (split mode: the first of consecutive ports).
   * @param options.host - interface to bind (default `127.0.0.1`).
   * @param options.setup - builds state once the origin is known (split mode: every origin, by
   *   service key); `POST /_sim/reset` and {@link DoublesCore.reset} return to the state (and
   *   time, and faults) after it (without `setup`: when `listen()` was called).
   * @returns the running server (`url` is its origin), or in split mode the {@link SplitServers}
   *   (`urls` by service key); {@link DoublesCore.close} stops them too.
   * @throws {UsageError} for `ports` naming no service or ports beyond 65535; the listen error
   *   (e.g. `EADDRINUSE`), with every server of the call closed.
   * @example
   * const server = await doubles.listen({ port: 0 });
   * await fetch(`${server.url}/_sim/clock`); // {"now":"2024-01-01T00:00:00.000Z","epochMs":1704067200000,...}
   * const split = await doubles.listen({ split: true }); // split.urls.secrets = "http://127.0.0.1:53102"
   */
  listen(options: SplitListenOptions): Promise<SplitServers>;
  listen(options?: ListenOptions): Promise<RunningServer>;
  async listen(options: ListenOptions | SplitListenOptions = {}): Promise<RunningServer | SplitServers> {
    if ("split" in options && options.split === true) return this.listenSplit(options);
    const { setup, allowedHosts, controlToken, controlRoutes, ...serverOptions } = options as ListenOptions & { split?: unknown };
    delete (serverOptions as { split?: unknown }).split;
    const token = this.controlTokenFor(controlToken, serverOptions.host);
    const server = await startServer((origin) => {
      setup?.(origin);
      this.markResetPoint();
      return this.guarded(this.handlerFor(origin, undefined, controlRoutes), origin, allowedHosts, token);
    }, serverOptions);
    const running: RunningServer = token === undefined ? server : Object.assign(server, { controlToken: token });
    this.servers.add(running);
    return running;
  }

  /** The control token of a server bound to `host` (given, random beyond loopback, or none). */
  private controlTokenFor(controlToken: string | undefined, host: string | undefined): string | undefined {
    if (controlToken !== undefined && controlToken.trim() === "") throw new UsageError("listen: controlToken must not be empty");
    return controlToken ?? (bindsBeyondLoopback(host ?? "127.0.0.1") ? randomBytes(24).toString("base64url") : undefined);
  }

  /** `handler` with its `/_sim/` control API answering only its own server (docs/decisions/security.md). */
  private guarded(handler: Handler, origin: string, allowedHosts: readonly string[] | undefined, token: string | undefined): Handler {
    const url = new URL(origin);
    const interfaces = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((entry) => entry.address.replace(/%.*$/, "")));
    const allowed = controlHosts(url.hostname, url.port === "" ? 80 : Number(url.port), allowedHosts, interfaces);
    return guardControl(handler, { allowedHosts: allowed, ...(token === undefined ? {} : { token }) });
  }

  /** Split mode of {@link DoublesCore.listen}: one server per service. */
  private async listenSplit(options: SplitListenOptions): Promise<SplitServers> {
    const { setup, allowedHosts, controlToken, controlRoutes, ports = {}, port = 0, host } = options;
    const keys = this.plugins.map((p) => p.key);
    const unknown = Object.keys(ports).filter((key) => !keys.includes(key));
    if (unknown.length > 0) throw new UsageError(`ports names no service: ${unknown.join(", ")} (services: ${keys.join(", ")})`);
    const portOf = (key: string, index: number): number => ports[key] ?? (port === 0 ? 0 : port + index);
    const last = Math.max(...keys.map(portOf));
    if (!Number.isInteger(port) || port < 0 || last > 65535) {
      throw new UsageError(`split mode needs ${keys.length} ports from ${port}: ${last} is beyond 65535`);
    }
    const token = this.controlTokenFor(controlToken, host);
    const handlers = new Map<string, Handler>();
    const servers: Record<string, RunningServer> = {};
    const origins: Record<string, string> = {};
    try {
      for (const [index, key] of keys.entries()) {
        const server = await startServer(
          (origin) => {
            origins[key] = origin;
            return deferredHandler(this.sim, () => handlers.get(key));
          },
          { port: portOf(key, index), ...(host === undefined ? {} : { host }) },
        );
        servers[key] = token === undefined ? server : Object.assign(server, { controlToken: token });
      }
      setup?.(origins);
      this.markResetPoint();
      for (const key of keys) {
        const origin = origins[key] ?? "";
        handlers.set(key, this.guarded(this.handlerFor(origin, [key], controlRoutes), origin, allowedHosts, token));
      }
    } catch (error) {
      await Promise.all(Object.values(servers).map((s) => s.close()));
      throw error;
    }
    for (const server of Object.values(servers)) this.servers.add(server);
    const close = async (): Promise<void> => {
      await Promise.all(
        Object.values(servers).map(async (s) => {
          this.servers.delete(s);
          await s.close();
        }),
      );
    };
    return {
      servers,
      urls: { ...origins },
      ...(token === undefined ? {} : { controlToken: token }),
      close,
      [Symbol.asyncDispose]: close,
    };
  }

  /**
   * Runs `stop` once on the next {@link DoublesCore.close}: for transports built outside this class
   * (`mswHandlers(doubles)` from `infra-doubles/msw` stops answering and releases what it holds).
   * @param stop - called synchronously by `close()`, then forgotten.
   * @example
   * doubles.onClose(() => console.log("doubles closed"));
   */
  onClose(stop: () => void): void {
    this.closers.push(stop);
  }

  /**
   * Stops every interception and server started from this object. Under the vitest coverage
   * helper (`INFRA_DOUBLES_COVERAGE_DIR` set), also hands this object's coverage to the run's merge.
   */
  async close(): Promise<void> {
    if (this.collector !== undefined) flushCoverage(this.collector);
    for (const interception of this.interceptions) interception.stop();
    this.interceptions.clear();
    for (const stop of this.closers.splice(0)) stop();
    this.faults.release();
    await Promise.all([...this.servers].map((s) => s.close()));
    this.servers.clear();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /**
   * Writes a replay bundle of everything these doubles did since they were created: the seed,
   * start time, clock, base URLs and scenario document, then every request (the bytes as received,
   * the answer given) and every control action (scenario controls called, documents loaded,
   * faults added and removed, resets), in order, with simulated times. `infra-doubles replay PATH`
   * replays it on fresh doubles and reports the first answer that differs. See
   * docs/guides/replay-a-failing-test.md.
   * @param path - the file to write (directories are made); JSON, `{"format": "infra-doubles/bundle", "version": 1, ...}`.
   * @param about - the test that writes it, recorded in the file.
   * @returns the path written.
   * @throws {UsageError} with `bundle: false`, or when more than the `bundle.limit` requests and
   *   actions happened (a bundle missing some would replay another world).
   * @example
   * doubles.bundle(".infra-doubles/bundles/apply-retries.json");
   * // then: npx infra-doubles replay .infra-doubles/bundles/apply-retries.json
   */
  bundle(path: string, about?: Bundle["test"]): string {
    return writeBundle(path, this.bundleDocument(about));
  }

  /** The replay bundle {@link DoublesCore.bundle} writes, as an object. */
  bundleDocument(about?: Bundle["test"]): Bundle {
    const clock = this.options.clock;
    return makeBundle({
      seed: this.sim.seed,
      start: this.createdAt,
      clock: typeof clock === "string" ? clock : clock === undefined ? "manual" : "custom",
      baseUrls: this.baseUrls(),
      scenario: this.bundleScenario(),
      faults: this.faults.list(),
      events: this.recorder.events,
      unreplayable: this.recorder.unreplayable,
      dropped: this.recorder.dropped,
      limit: this.recorder.limit,
      ...(about === undefined ? {} : { test: about }),
    });
  }

  /** The scenario document loaded at creation, for bundles (`Doubles` has one). */
  protected bundleScenario(): unknown {
    return undefined;
  }

  /** Starts the bundle log afresh: what creation did is in the bundle's options, not its events. */
  protected restartRecording(): void {
    this.recorder.restart();
  }

  /**
   * Runs `load` (the loading of a state document into this world: `importState`, `PUT
   * /_sim/state`, `createDoubles({ state })`) as one recorded control action, the fault changes
   * it makes unrecorded, so a replay bundle loads the same document again.
   * @internal
   */
  recordedStateLoad<T>(document: unknown, load: () => T): T {
    // Recorded once it succeeded: a refused document changed nothing (nor does its replay).
    const at = this.recorder.time();
    const result = this.recorder.quietly(load);
    if (this.recorder.enabled) this.recorder.control({ kind: "state", at, document: encodeValue(document, "state", []) });
    return result;
  }

  /** Runs `run` as one recorded control action (a document load), its inner calls unrecorded. */
  protected recordedAction<T>(event: { readonly kind: "load"; readonly document: unknown }, run: () => T): T {
    // Recorded once it succeeded: a refused document (invalid, cyclic, too deep) loaded nothing.
    const at = this.recorder.time();
    const result = this.recorder.quietly(run);
    if (this.recorder.enabled) this.recorder.control({ kind: "load", at, document: encodeValue(event.document, "load", []) });
    return result;
  }

  /** The HTTP services of the plugins (for contract tests). */
  get httpServices(): readonly HttpService[] {
    return this.plugins.map((p) => p.http);
  }
}

/** Each plugin's default bases without a trailing slash (frozen: shared by every doubles that keeps them). */
const defaultBases = new WeakMap<ServicePlugin<unknown>, Readonly<Record<string, string>>>();

function defaultBasesOf(plugin: ServicePlugin<unknown>): Readonly<Record<string, string>> {
  let bases = defaultBases.get(plugin);
  if (bases === undefined) {
    bases = Object.freeze(Object.fromEntries(Object.entries(plugin.defaultBases).map(([k, v]) => [k, v.replace(/\/+$/, "")])));
    defaultBases.set(plugin, bases);
  }
  return bases;
}

/** Doubles created with `uniqueOrigins` so far in this process (their host suffix). */
let uniqueOriginsCount = 0;

/** `base` with `suffix` after its host's first label (`https://secrets.test/v1` -> `https://secrets-3.test/v1`). */
function withHostSuffix(base: string, suffix: string): string {
  if (suffix === "") return base;
  const url = new URL(base);
  const [first = "", ...rest] = url.hostname.split(".");
  url.hostname = [`${first}${suffix}`, ...rest].join(".");
  return url.href;
}

function rebaseMount(mount: ServiceMount, origin: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(mount.bases).map(([name, base]) => [name, `${origin}${new URL(base, origin).pathname}`.replace(/\/+$/, "")]),
  );
}
