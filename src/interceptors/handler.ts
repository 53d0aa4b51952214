/**
 * The one transport-free entry point: `handle(request) -> response` over every mounted service.
 * Transports (nock, the node:http server, direct calls) are thin adapters over it, so they behave
 * identically.
 */
import { isDomainError } from "../simulator/kernel/errors.js";
import type { Simulator } from "../simulator/kernel/simulator.js";
import type { FaultPlan, FaultSource } from "./faults.js";
import { omitNullFields, refusable, refusalResponse, reorderList, type WireMutation } from "./mutation.js";
import { headTooLarge, headTooLargeResponse } from "./head-limit.js";
import { encodeHeaderValues, headerValuesPrintable } from "./header-values.js";
import type { EndpointNote, HttpService, NamedRoute, Route, RouteContext, ServiceMount, SimRequest, SimResponse } from "./http.js";
import { JournalBody, RequestJournal, type JournalEntry } from "./journal.js";
import { ANY_METHOD, catalogHas, catalogOf, isMatch, matchRoute, mountOf, nearestInCatalog, routeEndpoint, type RouteMatch, type RouteMiss } from "./router.js";
import { forward, forwardedUrl, PassthroughError } from "./passthrough.js";
import { passthroughFailure, toSimResponse, userRouteFailure, type AnswerFallback } from "./user-routes.js";

export type { JournalEntry } from "./journal.js";

/** Response header naming the nearest real endpoints when a request matches none. */
export const NEAREST_HEADER = "x-infra-doubles-nearest";

/** Options of {@link createHandler}. */
export interface HandlerOptions {
  readonly sim: Simulator;
  readonly mounts: readonly ServiceMount[];
  /** Keep at most this many journal entries (default 1000; 0 keeps none); ignored when `journal` is given. */
  readonly journalLimit?: number;
  /**
   * The journal entries are recorded in (default: a new one). Handlers given the same journal keep
   * one: `createDoubles()` hands its nock handler and every server's handler the same.
   */
  readonly journal?: RequestJournal;
  /** Faults to apply (`doubles.faults`): asked once per routed request. */
  readonly faults?: FaultSource;
  /** One deliberate change to a route's answers (a service mutant; see src/interceptors/mutation.ts). */
  readonly mutation?: WireMutation;
  /**
   * Called once per answered request of a mounted service (not for URLs no service owns) with the
   * service's name, the endpoint the request reached (`undefined`: none of the service's
   * endpoints) and the status answered. Observes only: the answer is already final.
   */
  readonly observe?: AnswerObserver;
  /**
   * User routes and passthrough targets: asked for a request the service's own routes do not
   * simulate (no route matched, or a catch-all row naming no route), before its 404.
   */
  readonly fallback?: AnswerFallback;
}

/** Who answered a request instead of the service's own routes (see {@link HandlerOptions.fallback}). */
export type AnsweredBy = "user route" | "passthrough";

/**
 * Observes answers (coverage): the service, the endpoint label reached (for a user route, its
 * name), the status, and who answered when not the service's own routes.
 * @example const observe: AnswerObserver = (service, endpoint, status) => counts.set(`${endpoint} ${status}`, 1);
 */
export type AnswerObserver = (service: string, endpoint: string | undefined, status: number, answeredBy?: AnsweredBy) => void;

/**
 * A request as the server knows it before reading its body: what {@link Handler.admit} decides on.
 * @example { method: "POST", url: new URL("http://127.0.0.1:8080/_sim/reset"), headers: { host: "127.0.0.1:8080" }, target: "/_sim/reset", hostLines: 1 }
 */
export interface RequestHead {
  readonly method: string;
  readonly url: URL;
  /** Lower-case names, repeated lines folded as the services read them (`requestHeaders`). */
  readonly headers: Readonly<Record<string, string>>;
  /** The request target as sent: origin-form `/path?query`, or absolute-form `http://host/path`. */
  readonly target: string;
  /** How many `Host` lines the head carried (folding keeps the first only). */
  readonly hostLines: number;
}

/** The transport-free handler. */
export interface Handler {
  readonly sim: Simulator;
  readonly mounts: readonly ServiceMount[];
  /**
   * Answers one request. Never rejects: unexpected failures become a 500 naming the library bug.
   * A request head node:http would refuse (`head-limit.ts`) gets its 431, as on the local server.
   */
  handle(request: SimRequest): Promise<SimResponse>;
  /** Whether some mounted service owns this URL's origin (transports intercept these origins). */
  owns(url: URL): boolean;
  /** Every origin some mount lives on. */
  readonly origins: readonly string[];
  /** Requests answered so far, oldest first (a copy of {@link Handler.requests}' entries). */
  readonly journal: readonly JournalEntry[];
  /** The journal itself: filters, dump, limits. */
  readonly requests: RequestJournal;
  clearJournal(): void;
  /**
   * The longest request body the service mounted at `url` accepts, in bytes (`undefined`: no
   * service, or no limit). Transports stop reading a body there and send the request with
   * `bodyTooLarge` instead.
   */
  maxBodyBytes(url: URL): number | undefined;
  /**
   * Asked by the local server with the request's head, before any byte of its body is read: an
   * answer refuses the request there (its body is never read and the connection closes after the
   * answer), `undefined` lets it through. The `/_sim/` guard answers its Host, Origin, token and
   * content-type refusals here (docs/decisions/security.md); a handler without it admits all.
   */
  admit?(head: RequestHead): SimResponse | undefined;
}

/** Thrown inside the transaction a refused route runs in, to roll it back (never escapes `refuseSuccess`). */
const ROLLBACK: unique symbol = Symbol("infra-doubles: refused by a service mutant");

/** Origins of base URLs seen so far (a handler is built per doubles, a doubles per test, on the same few bases). */
const baseOrigins = new Map<string, string>();

/** `new URL(base).origin`, parsed once per process for each base. */
function originOfBase(base: string): string {
  let origin = baseOrigins.get(base);
  if (origin === undefined) {
    origin = new URL(base).origin;
    if (baseOrigins.size >= 1024) baseOrigins.clear();
    baseOrigins.set(base, origin);
  }
  return origin;
}

/**
 * Builds the handler.
 * @example
 * const handler = createHandler({ sim, mounts: [{ service: runsHttp, bases: { api: "https://x.test/api/v2" } }] });
 * const response = await handler.handle({ method: "GET", url: new URL("https://x.test/api/v2/runs/run-1"), headers: {}, body: new Uint8Array() });
 */
export function createHandler(options: HandlerOptions): Handler {
  const { sim, mounts } = options;
  const journal = options.journal ?? new RequestJournal({ limit: options.journalLimit ?? 1000 });
  const origins = [...new Set(mounts.flatMap((m) => Object.values(m.bases).map(originOfBase)))];

  const unjournaled = new Set(mounts.filter((m) => m.service.journaled === false).map((m) => m.key ?? m.service.name));
  /** Service key -> the service's name (what the coverage observer counts by). */
  const nameOf = new Map(mounts.map((m) => [m.key ?? m.service.name, m.service.name]));
  const observe = options.observe;
  const mutation = options.mutation;
  /**
   * The endpoint label a routed request is for (what a mutation names): the row's own, or, for a
   * catch-all row, the one its service names (`endpointOf`).
   */
  const mutatedEndpoint = (result: RouteMatch, request: SimRequest): string | undefined =>
    result.route.method === ANY_METHOD ? result.mount.service.endpointOf?.(sim, request, result.path) : routeEndpoint(result.route, request.method);
  /**
   * Records one answered request (bodies kept up to the journal's limit, not decoded; the
   * response as the service gave it, before header values are made printable).
   */
  const record = (note: RequestNote, request: SimRequest, service: string | undefined, response: SimResponse, at = sim.now(), error?: unknown, fault?: string, endpoint?: string): SimResponse => {
    if (observe !== undefined && service !== undefined) observe(nameOf.get(service) ?? service, endpoint, response.status, note.answeredBy);
    if (service !== undefined && unjournaled.has(service)) return response;
    journal.tap?.(request, response, note.startedAt, at);
    if (journal.limit === 0) return response;
    const nearest = response.headers[NEAREST_HEADER];
    journal.record({
      at,
      startedAt: note.startedAt,
      service,
      method: request.method,
      url: request.url.href,
      route: note.route,
      routeMethod: note.method === request.method ? undefined : note.method,
      operation: note.operation,
      requestHeaders: request.headers,
      requestBody: JournalBody.of(request.body, journal.maxBodyBytes),
      status: response.drop === undefined ? response.status : 0,
      responseHeaders: response.headers,
      responseBody: JournalBody.of(response.body, journal.maxBodyBytes),
      nearest: nearest === undefined ? undefined : nearest.split("; "),
      error: error === undefined ? undefined : stackOf(error),
      fault,
      configurationFiles: response.journal?.configurationFiles,
      answeredBy: note.answeredBy,
    });
    return response;
  };

  /**
   * A 404/405 for a request that matches none of the service's real endpoints names the nearest
   * ones in a header (the body stays the service's own).
   */
  const annotate = (request: SimRequest, mount: ServiceMount, path: string, response: SimResponse): SimResponse => {
    if ((response.status !== 404 && response.status !== 405) || response.headers[NEAREST_HEADER] !== undefined) return response;
    let catalog: readonly string[];
    try {
      catalog = catalogOf(mount.service, sim);
    } catch {
      return response;
    }
    if (catalog.length === 0 || catalogHas(catalog, request.method, path)) return response;
    const prefix = new URL(mount.bases.api ?? request.url.origin).pathname.replace(/\/+$/, "");
    const nearest = nearestInCatalog(catalog, request.method, path).map((label) => label.replace(" ", ` ${prefix}`));
    return { ...response, headers: { ...response.headers, [NEAREST_HEADER]: nearest.join("; ") } };
  };

  return {
    sim,
    mounts,
    origins,
    get journal() {
      return journal.entries;
    },
    requests: journal,
    clearJournal: () => journal.clear(),
    owns: (url) => origins.includes(url.origin),
    maxBodyBytes: (url) => mountOf(mounts, "POST", url)?.service.bodyLimit?.maxBytes,
    async handle(request) {
      // A head node:http's parser would refuse (the server's, a node:http client's mock socket) is
      // refused here too for the transports that meet no parser (fetch in process, direct calls):
      // node:http's 431, not journalled (the request never reaches a service).
      if (headTooLarge(request)) return headTooLargeResponse();
      const note = new RequestNote(sim.clock.now());
      let response: SimResponse;
      try {
        response = await answer(request, note);
      } catch (error) {
        // Only a bug gets here (a timed move that throws while catching up, ...): still an answer,
        // journalled at the clock's time without catching up again (the next request will).
        response = record(note, request, undefined, bugResponse(error), Math.max(sim.clock.now(), journal.last()?.at ?? 0), error);
      }
      return finalize(response);
    },
  };

  async function answer(request: SimRequest, journalNote: RequestNote): Promise<SimResponse> {
    sim.catchUp(); // before routing: a due move fires (or fails) whatever the request
    // Methods are case-sensitive, as in Go's net/http: `delete` is an unknown method, not DELETE.
    const method = request.method;
    const normalized: SimRequest = request;
    const result = matchRoute(mounts, method, request.url);
    if (result === undefined) {
      return record(journalNote, normalized, undefined, {
        status: 404,
        headers: { "content-type": "text/plain; charset=utf-8" },
        body: `infra-doubles: no service is mounted at ${request.url.origin}${request.url.pathname}; mounted bases: ${mounts
          .flatMap((m) => Object.values(m.bases))
          .join(", ")}`,
      });
    }
    const service = result.mount.service;
    const key = result.mount.key ?? service.name;
    const bodyLimit = service.bodyLimit;
    if (bodyLimit !== undefined && (request.bodyTooLarge === true || request.body.length > bodyLimit.maxBytes)) {
      // Coverage: counted for the endpoint the request was for, when its path and method name one.
      const endpoint = observe === undefined || !isMatch(result) ? undefined : (routeEndpoint(result.route, method) ?? service.endpointOf?.(sim, normalized, result.path));
      return record(journalNote, normalized, key, bodyLimit.tooLarge(normalized), sim.now(), undefined, undefined, endpoint);
    }
    if (options.fallback?.active === true && !simulated(result, normalized)) {
      const other = await answerUnsimulated(options.fallback, normalized, journalNote, result);
      if (other !== undefined) return other;
    }
    if (!isMatch(result)) {
      const miss = service.noRoute(normalized, result.nearest, result.methodMismatch);
      return record(journalNote, normalized, key, annotate(normalized, result.mount, result.path, miss));
    }
    // A catch-all row (any method) is no endpoint: it names what it matched, if anything, itself.
    if (result.route.method !== ANY_METHOD) {
      journalNote.route = result.route.path;
      journalNote.operation = result.route.operation;
    }
    // Only when observed: the route names the endpoint it reached (a dispatching route) here.
    const note: EndpointNote | undefined = observe === undefined ? undefined : {};
    const endpointOf = (): string | undefined => note?.label ?? (note === undefined ? undefined : routeEndpoint(result.route, method));
    const faults = options.faults;
    let plan: FaultPlan | undefined;
    /** A catch-all row's route, named before its handler runs (a fault may answer instead of it). */
    let named: NamedRoute | undefined;
    if (faults?.active === true) {
      // The route in the vocabulary's form (`POST /ssh/creds/:name`): the row's own, or, for a
      // catch-all row, the one the service names for this request (the handler may never run).
      if (result.route.method === ANY_METHOD) named = service.routeOf?.(sim, normalized, result.path);
      const route = named === undefined ? (result.route.method === ANY_METHOD ? undefined : `${method} ${result.route.path}`) : `${named.method} ${named.route}`;
      const operation = named === undefined ? result.route.operation : named.operation;
      plan = faults.plan({ service: key, request, ...(route === undefined ? {} : { route }), ...(operation === undefined ? {} : { operation }) });
    }
    /** A faulted request is journalled with the route the fault applied to, as its handler would name it. */
    const nameFaulted = (): void => {
      if (named !== undefined && journalNote.route === undefined) journalNote.describe(named.route, named.operation, named.method);
    };
    if (plan !== undefined) {
      await plan.delay?.(request.signal);
      if (!plan.commit && (plan.answer !== undefined || plan.connection !== undefined)) {
        nameFaulted();
        return record(journalNote, normalized, key, await faultResponse(plan, service, normalized, sim), sim.now(), undefined, plan.id, endpointOf());
      }
    }
    const fault = plan?.id;
    // A service mutant's change to this route's answers (src/interceptors/mutation.ts), when the
    // request is for the endpoint it names.
    const mutating = mutation !== undefined && mutation.service === key && mutatedEndpoint(result, normalized) === mutation.endpoint ? mutation : undefined;
    try {
      const context: RouteContext = {
        sim,
        request: normalized,
        params: result.params,
        query: request.url.searchParams,
        mount: result.mount,
        path: result.path,
        ...(note === undefined ? {} : { endpoint: note }),
        describe: journalNote.describe,
      };
      let response = await (mutating?.kind === "refusal" ? refuseSuccess(service, mutating, result.route, context) : result.route.handler(context));
      if (mutating !== undefined && mutating.kind !== "refusal" && refusable(response)) {
        if (mutating.kind === "list-order") {
          const pointer = service.answerTable?.routes[mutating.endpoint]?.unorderedList;
          if (pointer !== undefined) response = reorderList(response, pointer);
        } else {
          response = omitNullFields(response, mutating.field);
        }
      }
      if (plan?.commit === true) {
        nameFaulted();
        return record(journalNote, normalized, key, await faultResponse(plan, service, normalized, sim), sim.now(), undefined, fault, endpointOf());
      }
      return record(journalNote, normalized, key, annotate(normalized, result.mount, result.path, response), sim.now(), undefined, fault, endpointOf());
    } catch (error) {
      if (isDomainError(error)) {
        // A commit-then-fail fault whose request failed anyway: nothing was kept; the client still
        // sees the fault (as it would had the connection dropped after the failure).
        if (plan?.commit === true) {
          nameFaulted();
          return record(journalNote, normalized, key, await faultResponse(plan, service, normalized, sim), sim.now(), undefined, fault, endpointOf());
        }
        return record(journalNote, normalized, key, annotate(normalized, result.mount, result.path, service.errorResponse(error, normalized)), sim.now(), undefined, fault, endpointOf());
      }
      return record(journalNote, normalized, key, bugResponse(error), sim.now(), error, fault, endpointOf());
    }
  }

  /**
   * Runs `route` for a request a `refusal` mutation targets, and answers the service's own error for
   * the mutation's code instead of a success (an error answer stays the route's own). Nothing the
   * route did is kept, nor seen: it runs inside a kernel transaction that is rolled back (so the
   * transitions it traced never reach coverage) and the state taken before it (schedule, ids and
   * stored bytes included) is put back. A route answering asynchronously (a blocking read, which
   * changes nothing) is only answered for: other requests may have changed state while it waited.
   */
  async function refuseSuccess(service: HttpService, mutation: Extract<WireMutation, { kind: "refusal" }>, route: Route, context: RouteContext): Promise<SimResponse> {
    const snapshot = sim.snapshot();
    let answered: SimResponse | Promise<SimResponse> | undefined;
    try {
      sim.update(service.name, () => {
        answered = route.handler(context);
        if (!(answered instanceof Promise) && refusable(answered)) throw ROLLBACK;
      });
    } catch (error) {
      if (error !== ROLLBACK) throw error;
      sim.restore(snapshot);
      return refusalResponse(service, mutation, context.request);
    }
    const response = await (answered as SimResponse | Promise<SimResponse>);
    return refusable(response) ? refusalResponse(service, mutation, context.request) : response;
  }

  /**
   * Whether the service's own routes simulate this request: a route row matched that is not a
   * catch-all, or a catch-all row whose service names the route the request is for.
   */
  function simulated(result: RouteMatch | RouteMiss, request: SimRequest): boolean {
    if (!isMatch(result)) return false;
    if (result.route.method !== ANY_METHOD) return true;
    return result.mount.service.routeOf?.(sim, request, result.path) !== undefined;
  }

  /**
   * A request no route of its service simulates: a user route of the service answering it (or of
   * another service whose base holds the URL: on the server, access control and secrets share
   * `/v1`), else the passthrough target of the service (or of that other service), else
   * `undefined` (the service's own answer, its 404).
   */
  async function answerUnsimulated(fallback: AnswerFallback, request: SimRequest, journalNote: RequestNote, result: RouteMatch | RouteMiss): Promise<SimResponse | undefined> {
    const candidates = [result.mount, ...mounts.filter((m) => m !== result.mount)].flatMap((mount) => {
      const under = underBase(mount, request.url);
      return under === undefined ? [] : [{ mount, key: mount.key ?? mount.service.name, ...under }];
    });
    for (const candidate of candidates) {
      const found = fallback.userRoute(candidate.key, request.method, candidate.path);
      if (found === undefined) continue;
      const { entry, params } = found;
      const name = `${entry.method} ${entry.template}`;
      const service = candidate.mount.service;
      journalNote.describe(entry.template);
      journalNote.answeredBy = "user route";
      return withFaults(candidate.key, service, request, journalNote, name, async () => {
        try {
          return { response: toSimResponse(await entry.answer({ request, params, path: candidate.path })) };
        } catch (error) {
          return { response: service.errorResponse(userRouteFailure(service.name, name, error), request), error };
        }
      });
    }
    for (const candidate of candidates) {
      const target = fallback.passthrough(candidate.key);
      if (target === undefined) continue;
      const service = candidate.mount.service;
      journalNote.answeredBy = "passthrough";
      const url = forwardedUrl(target.url, candidate.basePath, candidate.path, request.url.search);
      return withFaults(candidate.key, service, request, journalNote, undefined, async () => {
        try {
          return { response: await forward(request, url, { ...(target.timeoutMs === undefined ? {} : { timeoutMs: target.timeoutMs }), origins }) };
        } catch (error) {
          const message = error instanceof PassthroughError ? error.message : `passthrough to ${url.origin} failed: ${error instanceof Error ? error.message : String(error)}`;
          return { response: service.errorResponse(passthroughFailure(service.name, message), request), error: message };
        }
      });
    }
    return undefined;
  }

  /**
   * Runs `run` (a user route or a passthrough) under the faults that apply to the request as to
   * any route of the service (`route`: the user route's name), and journals the answer.
   */
  async function withFaults(
    key: string,
    service: HttpService,
    request: SimRequest,
    journalNote: RequestNote,
    route: string | undefined,
    run: () => Promise<{ response: SimResponse; error?: unknown }>,
  ): Promise<SimResponse> {
    const plan = options.faults?.active === true ? options.faults.plan({ service: key, request, ...(route === undefined ? {} : { route }) }) : undefined;
    if (plan !== undefined) {
      await plan.delay?.(request.signal);
      if (!plan.commit && (plan.answer !== undefined || plan.connection !== undefined)) {
        return record(journalNote, request, key, await faultResponse(plan, service, request, sim), sim.now(), undefined, plan.id, route);
      }
    }
    const { response, error } = await run();
    if (plan?.commit === true) return record(journalNote, request, key, await faultResponse(plan, service, request, sim), sim.now(), error, plan.id, route);
    return record(journalNote, request, key, response, sim.now(), error, plan?.id, route);
  }
}

/** The request's path relative to the first of `mount`'s bases that holds `url`, with that base's path. */
function underBase(mount: ServiceMount, url: URL): { readonly basePath: string; readonly path: string } | undefined {
  for (const base of Object.values(mount.bases)) {
    const parsed = new URL(base);
    if (parsed.origin !== url.origin) continue;
    const basePath = parsed.pathname.replace(/\/+$/, "");
    if (basePath === "") return { basePath, path: url.pathname === "" ? "/" : url.pathname };
    if (url.pathname === basePath) return { basePath, path: "/" };
    if (url.pathname.startsWith(`${basePath}/`)) return { basePath, path: url.pathname.slice(basePath.length) };
  }
  return undefined;
}

/** The answer a fault gives instead of the route's: the service's own error answer, or a dropped connection. */
async function faultResponse(plan: FaultPlan, service: HttpService, request: SimRequest, sim: Simulator): Promise<SimResponse> {
  if (plan.connection === "no-response") {
    await plan.hold?.(request.signal);
    return { status: 0, headers: {}, drop: "reset" };
  }
  if (plan.connection !== undefined) return { status: 0, headers: {}, drop: plan.connection };
  const answer = plan.answer === undefined ? undefined : service.faultAnswers?.[plan.answer];
  if (answer === undefined) throw new Error(`infra-doubles: fault ${plan.id}: the ${service.name} service has no answer "${String(plan.answer)}"`);
  return answer.respond(request, plan.answerOptions ?? {}, sim);
}

/**
 * The one place every answer passes before any transport sends it: header values become printable
 * ASCII (see {@link encodeHeaderValues}), so no value a service built from client input can make a
 * transport throw or split the header block.
 */
function finalize(response: SimResponse): SimResponse {
  if (headerValuesPrintable(response.headers)) return response;
  return { ...response, headers: encodeHeaderValues(response.headers) };
}

/** What the handler learns about one request while answering it, for its journal entry. */
class RequestNote {
  route: string | undefined = undefined;
  operation: string | undefined = undefined;
  /** The method the route's name carries, when not the one sent (see {@link RouteContext.describe}). */
  method: string | undefined = undefined;
  /** Set when a user route or a passthrough answered instead of the service's routes. */
  answeredBy: AnsweredBy | undefined = undefined;

  constructor(readonly startedAt: number) {}

  /** {@link RouteContext.describe}: a route that dispatches further names what it matched. */
  readonly describe = (route: string, operation?: string, method?: string): void => {
    this.route = route;
    if (operation !== undefined) this.operation = operation;
    this.method = method;
  };
}

function stackOf(error: unknown): string {
  if (typeof error === "string") return error;
  return error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
}

/** The 500 answer to an unexpected failure: a bug in the fake, named as such. */
function bugResponse(error: unknown): SimResponse {
  // The body names the bug in one short line; the stack stays in the journal entry (`error`),
  // never in a response: it would show file paths to whoever sent the request.
  const name = error instanceof Error ? error.name : "Error";
  const message = (error instanceof Error ? error.message : String(error)).split("\n")[0]?.slice(0, 200) ?? "";
  return {
    status: 500,
    headers: { "content-type": "text/plain; charset=utf-8", "x-infra-doubles-bug": "1" },
    body: `infra-doubles: internal error (a bug in the fake, please report it; the stack trace is in the journal): ${name}: ${message}`,
  };
}
