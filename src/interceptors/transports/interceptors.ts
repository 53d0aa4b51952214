/**
 * The fast in-process transport: the handler's origins answered straight from @mswjs/interceptors
 * (the engine nock is built on), for fetch, node:http and node:https and every client built on
 * them, without nock's timers and copies.
 *
 * Requests to an owned origin are answered by the handler with the bytes the client sent, any
 * method included; a request to any other host is left alone (the next listener, nock or msw if
 * loaded, or the real network). Nothing in the way of a request uses a timer, so a test on
 * `vi.useFakeTimers()` drives a polling client with one `advanceTimersByTimeAsync`.
 *
 * Implements DESIGN.md "Transports"; see docs/decisions/transports.md.
 */
import type { Readable } from "node:stream";
import { holdClientMethodSupport } from "../client-methods.js";
import { connectionError } from "../faults.js";
import type { Handler } from "../handler.js";
import { withContentLength, type SimRequest, type SimResponse } from "../http.js";
import { canonicalOrigin, holdOwnedOrigins } from "../owned-origins.js";
import { claimOrigins } from "./claims.js";
import { setOwn } from "../../simulator/kernel/dict.js";
import { UsageError } from "../../simulator/kernel/errors.js";
import type { TransportOptions } from "../nock-adapter.js";
import { attachEngineListener, type EngineController, type EngineRequestEvent } from "./engine.js";
import { loadedNock, mockedOrigins, onUserMock, watchUserMocks } from "./nock-mocks.js";
import { holdUnhandledPolicy } from "./unhandled.js";
import { holdNetworkErrorShapes } from "./network-errors.js";
import { holdDisposeGuard } from "./dispose-guard.js";

/** A live interception. Dispose it (or call `stop()`) to end it. */
export interface Interception extends Disposable {
  /** The intercepted origins. */
  readonly origins: readonly string[];
  /** Ends the interception. Safe to call twice. */
  stop(): void;
  /** Whether {@link Interception.stop} has run. */
  readonly stopped: boolean;
}

/** Go's net/http answer to plain HTTP sent to its TLS port (the real services run on it). */
const PLAIN_TO_TLS_BODY = "Client sent an HTTP request to an HTTPS server.\n";

/** The controller's state before any answer (`RequestController.PENDING`). */
const PENDING = 0;

/** Status codes whose answers have no body (a `Response` refuses one). */
const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([101, 103, 204, 205, 304]);

/** Where a request goes, as far as this interception is concerned. */
type Destination =
  | { readonly kind: "owned"; readonly origin: string }
  | { readonly kind: "plain-to-tls" }
  | { readonly kind: "tls-to-plain"; readonly origin: string }
  | undefined;

/**
 * Routes requests to the handler's origins through @mswjs/interceptors.
 *
 * @param handler - the transport-free handler (see `createHandler`).
 * @returns the interception; `using` it, or calling `stop()`, ends it.
 * @throws {UsageError} when one of the origins is already intercepted by an interception that was
 *   not stopped, on any transport.
 * @example
 * using interception = interceptWithInterceptors(doubles.handler);
 * await fetch("https://app.run-orchestration.test/api/v2/runs/run-123");
 */
export function interceptWithInterceptors(handler: Handler, options: TransportOptions = {}): Interception {
  let stopped = false;
  const releaseClaim = claimOrigins(handler.origins, () => !stopped);
  let releaseWatch: () => void;
  try {
    releaseWatch = refuseUserNockMocks(handler.origins);
  } catch (error) {
    releaseClaim();
    throw error;
  }
  const releaseMethods = holdClientMethodSupport();
  const { held, destinations } = originPlan(handler.origins);
  const releaseOrigins = holdOwnedOrigins(held);
  const detach = attachEngineListener(async (event) => {
    if (!(await answer(handler, destinations, event))) return;
    // Answered. @mswjs/interceptors still calls the listeners after this one (nock's, msw's) once
    // this promise settles, and they would act on a request that is answered already (nock's
    // `disableNetConnect()` error, msw's unhandled-request warning). It never settles: a promise of
    // its own that nothing else holds, so it is collected with the request (a shared one would
    // keep every request's continuation).
    await new Promise<never>(() => undefined);
  });
  const releaseShapes = holdNetworkErrorShapes();
  const releaseGuard = holdDisposeGuard();
  const releaseUnhandled = holdUnhandledPolicy(options.onUnhandledRequest ?? "warn", (request, action) => options.onUnhandled?.(request, action));
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    releaseWatch();
    releaseUnhandled();
    releaseShapes();
    detach();
    releaseGuard();
    releaseOrigins();
    releaseMethods();
    releaseClaim();
  };
  return {
    origins: handler.origins,
    stop,
    get stopped() {
      return stopped;
    },
    [Symbol.dispose]: stop,
  };
}

/**
 * This transport answers its origins before nock's listener runs, so a user's nock interceptor on
 * one of them would never answer: refused loudly instead, whether it exists already (here) or is
 * added later (from its `.reply()`), as long as nock is loaded in the process.
 * @returns stops watching for later ones.
 * @throws {UsageError} when nock already holds an interceptor on one of `origins`.
 */
function refuseUserNockMocks(origins: readonly string[]): () => void {
  const nock = loadedNock();
  if (nock === undefined) return () => undefined;
  const advice = 'the "interceptors" transport answers them before nock runs; use doubles.intercept() (the nock transport, where your interceptors answer first) to mock single calls with nock';
  const mocked = mockedOrigins(nock, origins);
  if (mocked.length > 0) throw new UsageError(`nock holds interceptors on ${mocked.join(", ")}, which these doubles serve: ${advice}`);
  watchUserMocks(nock);
  return onUserMock(origins, () => {
    throw new UsageError(`this nock interceptor is on an origin that live doubles serve: ${advice}`);
  });
}

/** What {@link originPlan} works out for one list of origins. */
interface OriginPlan {
  /** The origins and their other-scheme aliases, for `holdOwnedOrigins`. */
  readonly held: readonly string[];
  readonly destinations: ReadonlyMap<string, Destination>;
}

/** Plans by the handler's origins (joined by spaces); a few at most per process, unless `uniqueOrigins`. */
const originPlans = new Map<string, OriginPlan>();
const ORIGIN_PLANS_KEPT = 64;

/**
 * The origins to hold and the destination table for a handler's origins: pure functions of them,
 * worked out once per process for each list (each doubles has its own handler, a test its own
 * doubles, and parsing the origins was a third of `intercept()`).
 */
function originPlan(origins: readonly string[]): OriginPlan {
  const key = origins.join(" ");
  let plan = originPlans.get(key);
  if (plan === undefined) {
    plan = { held: [...origins, ...origins.flatMap(otherScheme)], destinations: destinationTable(origins) };
    if (originPlans.size >= ORIGIN_PLANS_KEPT) originPlans.clear();
    originPlans.set(key, plan);
  }
  return plan;
}

/**
 * Every origin a request may name for this handler (canonical form: trailing dot dropped, default
 * port dropped, lower case), with what to do with it.
 */
function destinationTable(origins: readonly string[]): Map<string, Destination> {
  const table = new Map<string, Destination>();
  for (const origin of origins) {
    const canonical = canonicalOrigin(origin);
    if (canonical !== undefined) table.set(canonical, { kind: "owned", origin });
    table.set(origin, { kind: "owned", origin }); // the form clients send: found without canonicalising
  }
  for (const origin of origins) {
    const tls = origin.startsWith("https:");
    for (const alias of otherScheme(origin)) {
      const canonical = canonicalOrigin(alias);
      if (canonical === undefined || table.has(canonical)) continue;
      table.set(canonical, tls ? { kind: "plain-to-tls" } : { kind: "tls-to-plain", origin: alias });
    }
  }
  return table;
}

/** The other scheme on the same host and port (`http://h:443` for `https://h`). */
function otherScheme(origin: string): string[] {
  const url = new URL(origin);
  const tls = url.protocol === "https:";
  const port = url.port === "" ? (tls ? "443" : "80") : url.port;
  return [`${tls ? "http:" : "https:"}//${url.host.replace(/:\d+$/, "")}:${port}`];
}

/**
 * Answers one intercepted request when it goes to an owned origin.
 * @returns whether the request was this interception's (answered, or failed as the real server would).
 */
async function answer(handler: Handler, destinations: ReadonlyMap<string, Destination>, event: EngineRequestEvent): Promise<boolean> {
  const { request, controller } = event;
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return false;
  }
  const origin = url.origin;
  const destination = destinations.get(origin) ?? destinations.get(canonicalOrigin(origin) ?? "");
  if (destination === undefined) return false; // not ours: the next listener, or the network
  if (destination.kind === "plain-to-tls") {
    respond(controller, new Response(PLAIN_TO_TLS_BODY, { status: 400, headers: { "content-length": String(PLAIN_TO_TLS_BODY.length), connection: "close" } }));
    return true;
  }
  if (destination.kind === "tls-to-plain") {
    fail(controller, Object.assign(new Error(`infra-doubles: ${destination.origin} speaks plain HTTP; a TLS client gets no answer (EPROTO)`), { code: "EPROTO" }));
    return true;
  }
  // A path such as `//v1/x` stays a path on this origin.
  const simUrl = origin === destination.origin ? url : new URL(`${destination.origin}${url.pathname}${url.search}`);
  let read: RequestBody | undefined;
  // A request without a body by its framing (most GETs) reads nothing and waits for nothing.
  if (!bodyless(request)) {
    try {
      read = await requestBody(request, () => handler.maxBodyBytes(simUrl));
    } catch (error) {
      fail(controller, error);
      return true;
    }
  }
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => setOwn(headers, name, value));
  const simRequest: SimRequest = {
    method: request.method,
    url: simUrl,
    headers,
    body: read === undefined ? new Uint8Array() : read.body,
    signal: request.signal,
    ...(read?.tooLarge === true ? { bodyTooLarge: true } : {}),
  };
  const response = await handler.handle(simRequest);
  if (response.drop !== undefined) {
    // A client that gave up (a request never answered, then aborted) is failed already.
    if (!request.signal.aborted) fail(controller, connectionError(response.drop, rawBodyStream(request) === undefined ? "fetch" : "node"));
    return true;
  }
  try {
    respond(controller, toResponse(response, request.method === "HEAD"));
  } catch (error) {
    fail(controller, error);
  }
  return true;
}

/** A request body as read by {@link requestBody}. */
export interface RequestBody {
  /** The exact bytes (empty when `tooLarge`). */
  readonly body: Uint8Array;
  /** Reading stopped past the limit: the handler answers the service's 413 (`SimRequest.bodyTooLarge`). */
  readonly tooLarge: boolean;
}

/**
 * The exact request bytes, read as a stream and only up to `limit` bytes (the service's body
 * limit, `handler.maxBodyBytes`): past it, reading stops (the rest is never waited for, as on the
 * local server) and the body is reported `tooLarge`. @mswjs/interceptors emits a request as soon
 * as its head is parsed, with the body still arriving, so a client sending an endless body gets the
 * answer. fetch gives no body for GET and HEAD; a node:http client may still send one, and the
 * interceptor keeps it on the request's raw body stream.
 * @param limitOf - the longest body read, in bytes (`undefined`: no limit), or a function giving
 *   it, asked only when the request has a body (finding the service costs a route lookup).
 */
export async function requestBody(request: Request, limitOf?: number | (() => number | undefined)): Promise<RequestBody> {
  const limit = (): number | undefined => (typeof limitOf === "function" ? limitOf() : limitOf);
  if (request.body !== null) return readLimited(request.body, limit());
  if (bodyless(request)) return { body: new Uint8Array(), tooLarge: false };
  const stream = rawBodyStream(request);
  if (stream === undefined) return { body: new Uint8Array(), tooLarge: false };
  return readStream(stream, limit());
}

/**
 * Whether `request` has no body by its framing: no fetch body stream, no `Transfer-Encoding`, and
 * no `Content-Length` above 0 (what {@link requestBody} reads nothing for).
 */
function bodyless(request: Request): boolean {
  if (request.body !== null || request.headers.has("transfer-encoding")) return false;
  const length = request.headers.get("content-length");
  return length === null || length === "0";
}

/** Reads a node:http body stream up to `limit` bytes, leaving it past the limit. */
async function readStream(stream: Readable, limit: number | undefined): Promise<RequestBody> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    total += bytes.length;
    if (limit !== undefined && total > limit) return { body: new Uint8Array(), tooLarge: true }; // leaving the loop ends the stream
    chunks.push(bytes);
  }
  return { body: new Uint8Array(Buffer.concat(chunks)), tooLarge: false };
}

/** Reads a fetch body stream up to `limit` bytes, cancelling it past the limit. */
async function readLimited(stream: ReadableStream<Uint8Array>, limit: number | undefined): Promise<RequestBody> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (limit !== undefined && total > limit) {
      void reader.cancel().catch(() => undefined);
      return { body: new Uint8Array(), tooLarge: true };
    }
    chunks.push(value);
  }
  return { body: new Uint8Array(Buffer.concat(chunks)), tooLarge: false };
}

/**
 * The node:http body stream @mswjs/interceptors keeps on a request, found by its symbol's
 * description so that any copy of the library works.
 */
function rawBodyStream(request: Request): Readable | undefined {
  const symbol = Object.getOwnPropertySymbols(request).find((s) => s.description === "kRawRequestBodyStream");
  const stream = symbol === undefined ? undefined : (Reflect.get(request, symbol) as unknown);
  return typeof stream === "object" && stream !== null && Symbol.asyncIterator in stream ? (stream as Readable) : undefined;
}

/**
 * The handler's answer as a fetch `Response`, with a `Content-Length`; for `HEAD`, no body. Built
 * with the platform's own `Response`: the interceptor's ClientRequest part wraps the global one to
 * record header-name case, which lower-case names from the fake do not need.
 */
export function toResponse(response: SimResponse, head: boolean): Response {
  const bytes = response.body === undefined ? undefined : typeof response.body === "string" ? Buffer.from(response.body, "utf8") : response.body;
  const headers = withContentLength(response, bytes);
  const noBody = head || bytes === undefined || NULL_BODY_STATUSES.has(response.status);
  return new (nativeResponse())(noBody ? null : (bytes as Uint8Array<ArrayBuffer>), { status: response.status, headers });
}

let NativeResponse: typeof Response | undefined;

/**
 * The platform's `Response`, even when an interceptor put a wrapper in `globalThis.Response`. Read
 * on first use: touching `globalThis.Response` loads Node's fetch implementation (undici), which an
 * import of the package alone need not pay for.
 */
function nativeResponse(): typeof Response {
  NativeResponse ??= (globalThis.Response.prototype.constructor as typeof Response | undefined) ?? globalThis.Response;
  return NativeResponse;
}

function respond(controller: EngineController, response: Response): void {
  // The client may have aborted while the handler worked: the request is then answered already.
  if (controller.readyState === PENDING) controller.respondWith(response);
}

function fail(controller: EngineController, error: unknown): void {
  if (controller.readyState === PENDING) controller.errorWith(error instanceof Error ? error : new Error(String(error)));
}
