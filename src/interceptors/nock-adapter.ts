/**
 * The nock transport: intercepts every method and path on the handler's origins and answers from
 * the handler, until teardown.
 *
 * Two nock traps are handled here:
 * - nock parses `application/json` bodies before any reply function runs and throws (killing the
 *   process) on malformed JSON. The documented `request` event fires first with the raw body: we
 *   keep the raw text and hide the JSON content type from nock's own parser (only nock's copy of
 *   the headers is touched), so the service answers malformed bodies with its own error.
 * - nock hands bodies over as strings, hex-encoding bytes that are not valid UTF-8: the exact bytes
 *   are taken from the request nock built (nock 14 keeps the written chunks on it), and recovered
 *   from the string form otherwise (see {@link recoverBytes}).
 *
 * Answers are sent as the local server sends them: with a `Content-Length`, and for `HEAD` with the
 * headers of the `GET` answer and no body.
 */
import type nock from "nock";
import { holdClientMethodSupport } from "./client-methods.js";
import { connectionError } from "./faults.js";
import type { Handler } from "./handler.js";
import { withContentLength, type SimRequest, type SimResponse } from "./http.js";
import { setOwn } from "../simulator/kernel/dict.js";
import { holdOwnedOrigins } from "./owned-origins.js";
import { claimOrigins } from "./transports/claims.js";
import { disposeIdleEngines, engineAttachments, onEngineIdle } from "./transports/engine.js";
import { holdUnhandledPolicy, type UnhandledAction, type UnhandledRequestStrategy } from "./transports/unhandled.js";
import { forgetEmptyOrigins, markOwnScope, onUserMock, watchUserMocks } from "./transports/nock-mocks.js";
import { loadNock, nockLoaded } from "./transports/nock-module.js";
import { holdNetworkErrorShapes } from "./transports/network-errors.js";
import { holdDisposeGuard } from "./transports/dispose-guard.js";

/** Options of the in-process transports ({@link interceptWithNock}, `interceptWithInterceptors`). */
export interface TransportOptions {
  /**
   * What happens to a request to a host no doubles own that nothing else answered (default
   * `"warn"`); see {@link UnhandledRequestStrategy}. Loopback hosts are never unhandled.
   */
  readonly onUnhandledRequest?: UnhandledRequestStrategy;
  /** Told of each request failed or warned about by `onUnhandledRequest` (the doubles list them). */
  readonly onUnhandled?: (request: Request, action: UnhandledAction) => void;
}

/** Live interceptions, process-wide. */
let liveInterceptions = 0;
/** Whether this library turned nock's interception on (by loading nock, or `activate()`). */
let activatedHere = false;

/**
 * nock with its interception active, for one more interception. Loading nock activates it; a nock
 * loaded and restored since (by us or by the user) is activated again. Either way the activation
 * is ours to undo in {@link releaseNock}; a nock the user had active stays theirs.
 */
function acquireNock(): typeof nock {
  // Loading nock 14 disposes its recorder's never-applied interceptors, which would wipe the
  // global symbol of an engine instance that runs already (msw's): see dispose-guard.ts.
  const releaseGuard = holdDisposeGuard();
  try {
    const loaded = nockLoaded();
    const instance = loadNock();
    if (!loaded && instance.isActive()) activatedHere = true;
    else if (!instance.isActive()) {
      instance.activate();
      activatedHere = true;
    }
    liveInterceptions++;
    return instance;
  } finally {
    releaseGuard();
  }
}

/**
 * One interception fewer. After the last one, nock's interception is restored (node's own
 * `http.request`, `http.ClientRequest`, `fetch` again) if this library activated it and no one
 * else's mocks are left in nock; a nock the user activated is left alone.
 */
function releaseNock(instance: typeof nock): void {
  liveInterceptions = Math.max(0, liveInterceptions - 1);
  restoreNockIfIdle(instance);
}

/**
 * Restores nock if this library activated it and nothing uses it any more: no interception of
 * ours, no mock of the user's, and no `interceptors` transport listening on the engine nock runs
 * (it may be attached to nock's own @mswjs/interceptors instances, which `restore()` disposes).
 */
function restoreNockIfIdle(instance: typeof nock): void {
  if (liveInterceptions > 0 || !activatedHere || engineAttachments() > 0) return;
  if (!instance.isActive()) {
    activatedHere = false;
    return;
  }
  if (instance.activeMocks().length > 0 || instance.pendingMocks().length > 0) return;
  const releaseGuard = holdDisposeGuard(); // nock.restore() disposes instances that may not be the running ones
  try {
    instance.restore();
  } finally {
    releaseGuard();
  }
  activatedHere = false;
  // An engine instance applied by the `interceptors` transport, kept for nock's listeners, can go.
  disposeIdleEngines();
}

onEngineIdle(() => {
  if (activatedHere && nockLoaded()) restoreNockIfIdle(loadNock());
});

/**
 * Methods intercepted on every origin with nock's own API (`LIST` included). Any other method
 * (`TRACE`, `PROPFIND`, `M-SEARCH`, `FROB`) reaches the services through one more interceptor per
 * origin that matches every method (see {@link ANY_METHOD}), so that it gets the service's own
 * 404/405 instead of nock's "No match".
 */
export const INTERCEPTED_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "LIST"] as const;

/**
 * The method name under which the any-method interceptor is registered (it shows in
 * `nock.activeMocks()`); the interceptor itself matches requests of every method.
 */
export const ANY_METHOD = "INFRA-DOUBLES-ANY-METHOD";

const RAW_CONTENT_TYPE = "application/x-infra-doubles-raw";

/** A live set of interceptors. Dispose it (or call `stop()`) to remove every one of them. */
export interface NockInterception extends Disposable {
  /** The intercepted origins. */
  readonly origins: readonly string[];
  /** Removes every interceptor this call added. Safe to call twice. */
  stop(): void;
  /** Whether {@link NockInterception.stop} has run. */
  readonly stopped: boolean;
}

interface CapturedRequest {
  raw: string;
  contentType: string;
  /** The exact bytes, when nock exposes the chunks it was written. */
  exact: Uint8Array | undefined;
}

/**
 * Routes requests to the handler's origins through nock.
 *
 * @param handler - the transport-free handler (see `createHandler`).
 * @returns the interception; `using` it, or calling `stop()`, removes it.
 * @throws {UsageError} when one of the origins is already intercepted by an interception that was
 *   not stopped, on any transport (the first one to match would answer and silently shadow this one).
 * @example
 * using interception = interceptWithNock(doubles.handler);
 * await fetch("https://app.run-orchestration.test/api/v2/runs/run-123");
 */
export function interceptWithNock(handler: Handler, options: TransportOptions = {}): NockInterception {
  const scopes: nock.Scope[] = [];
  let stopped = false;
  // nock.cleanAll() removes the interceptors without stop(): the origins are then free again.
  const live = (): boolean => !stopped && scopes.some((scope) => scope.activeMocks().length > 0);
  const releaseClaim = claimOrigins(handler.origins, live);
  const releaseGuard = holdDisposeGuard();
  const nock = acquireNock();
  const releaseMethods = holdClientMethodSupport();
  const captured = new WeakMap<object, CapturedRequest>();
  const interceptors: nock.Interceptor[] = [];
  const onRequest = (req: { headers?: Record<string, unknown>; requestBodyBuffers?: unknown }, _interceptor: unknown, body: string): void => {
    if (isFetchRequest(req)) return; // nock 15: the reply function gets the request itself, body unread
    const headers = req.headers ?? {};
    const contentType = String(headers["content-type"] ?? "");
    const contentLength = String(headers["content-length"] ?? "");
    const raw = body ?? "";
    captured.set(req, { raw, contentType, exact: writtenBytes(req.requestBodyBuffers) ?? recoverBytes(raw, contentType, contentLength) });
    if (contentType.toLowerCase().startsWith("application/json")) headers["content-type"] = RAW_CONTENT_TYPE;
  };

  const serve = (origin: string, hostAlias: string): void => {
    const scope = markOwnScope(nock(hostAlias).persist());
    scope.on("request", onRequest);
    for (const registered of [...INTERCEPTED_METHODS, ANY_METHOD]) {
      const interceptor = scope.intercept(/.*/, registered);
      if (registered === ANY_METHOD) matchEveryMethod(interceptor);
      interceptors.push(interceptor);
      // nock 14 calls a reply function with the request target (`this.req` is the request it
      // built); nock 15 with the fetch `Request` itself.
      interceptor.reply(async function reply(this: nock.ReplyFnContext, target: string | Request) {
        const request = typeof target === "string" ? fromNock14(this, target, origin, registered) : await fromNock15(target, origin, registered);
        const response = await handler.handle(request);
        // A fault's dropped connection: nock fails the request with this error, in node:http's form
        // and marked, and the request controller gives it to the client in its own form (fetch:
        // `TypeError: fetch failed` with it as `cause`; nock does not say which client sent it).
        if (response.drop !== undefined) throw connectionError(response.drop, "node");
        return replyOf(response, request.method === "HEAD");
      } as unknown as (uri: string, body: nock.Body) => nock.ReplyFnResult);
    }
    scopes.push(scope);
  };
  /** nock 14: the request nock built, its body as the `request` event captured it. */
  const fromNock14 = (context: nock.ReplyFnContext, uri: string, origin: string, registered: string): SimRequest => {
    const req = context.req as unknown as { headers: Record<string, string | string[]>; method?: string };
    const capture = captured.get(req) ?? { raw: "", contentType: "", exact: undefined };
    const headers = normalizeHeaders(req.headers);
    if (capture.contentType) headers["content-type"] = capture.contentType;
    return {
      method: sentMethod(registered, req.method),
      // `uri` is the request target: a path such as `//v1/x` stays a path on this origin.
      url: uri.startsWith("/") ? new URL(`${origin}${uri}`) : new URL(uri, origin),
      headers,
      body: capture.exact ?? recoverBytes(capture.raw, capture.contentType),
    };
  };
  /** nock 15: the fetch `Request` (a GET's body, which a `Request` cannot hold, kept by nock beside it). */
  const fromNock15 = async (req: Request, origin: string, registered: string): Promise<SimRequest> => {
    const url = new URL(req.url);
    const headers: Record<string, string> = {};
    req.headers.forEach((value, name) => setOwn(headers, name, value));
    const body = req.body !== null ? new Uint8Array(await req.arrayBuffer()) : getRequestBody(req);
    // A path such as `//v1/x` stays a path on this origin (the URL keeps it as its pathname).
    return { method: sentMethod(registered, req.method), url: new URL(`${origin}${url.pathname}${url.search}`), headers, body, signal: req.signal };
  };
  /** The other scheme on the same host and port: answered as the real server would, in process. */
  const refuse = (alias: WrongSchemeAlias): void => {
    const scope = markOwnScope(nock(alias.origin).persist());
    for (const method of [...INTERCEPTED_METHODS, ANY_METHOD]) {
      const interceptor = scope.intercept(/.*/, method);
      if (method === ANY_METHOD) matchEveryMethod(interceptor);
      interceptors.push(interceptor);
      if (alias.plainToTls) interceptor.reply(400, PLAIN_TO_TLS_BODY, { "content-length": String(Buffer.byteLength(PLAIN_TO_TLS_BODY)), connection: "close" });
      else interceptor.replyWithError(Object.assign(new Error(`infra-doubles: ${alias.origin} speaks plain HTTP; a TLS client gets no answer (EPROTO)`), { code: "EPROTO" }));
    }
    scopes.push(scope);
  };
  const aliases: string[] = [];
  const register = (): void => {
    aliases.length = 0;
    for (const origin of handler.origins) {
      serve(origin, origin);
      // `https://secrets.test.` is the same host to DNS: fetch sends it as written.
      const dotted = trailingDotAlias(origin);
      if (dotted !== undefined && !handler.origins.includes(dotted)) {
        serve(origin, dotted);
        aliases.push(dotted);
      }
      for (const alias of wrongSchemeAliases(origin)) {
        if (handler.origins.includes(alias.origin)) continue;
        refuse(alias);
        aliases.push(alias.origin);
      }
    }
  };
  const unregister = (): void => {
    for (const scope of scopes) {
      scope.persist(false);
      scope.removeListener("request", onRequest);
    }
    for (const interceptor of interceptors) nock.removeInterceptor(interceptor);
    scopes.length = 0;
    interceptors.length = 0;
  };
  register();
  watchUserMocks(nock);
  // A user's own interceptor added on one of these origins (after this call) goes in front of
  // ours (not after nock.cleanAll() removed ours: the origins are free then).
  const releaseWatch = onUserMock(handler.origins, () => {
    if (!live()) return;
    unregister();
    register();
  });
  const releaseOrigins = holdOwnedOrigins([...handler.origins, ...aliases]);
  const releaseShapes = holdNetworkErrorShapes();
  const releaseUnhandled = holdUnhandledPolicy(options.onUnhandledRequest ?? "warn", (request, action) => options.onUnhandled?.(request, action));

  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    releaseWatch();
    unregister();
    forgetEmptyOrigins(nock, [...handler.origins, ...aliases]);
    releaseShapes();
    releaseUnhandled(); // before nock is released: nock is restored only once no engine listener is left
    releaseOrigins();
    releaseNock(nock);
    releaseClaim();
    releaseMethods();
    releaseGuard();
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

/** Go's net/http answer to plain HTTP sent to its TLS port (the real services run on it). */
export const PLAIN_TO_TLS_BODY = "Client sent an HTTP request to an HTTPS server.\n";

interface WrongSchemeAlias {
  readonly origin: string;
  /** Plain HTTP to a TLS port (answered 400); otherwise TLS to a plain port (a TLS error). */
  readonly plainToTls: boolean;
}

/** `https://h.` for `https://h` (none for IP literals). */
function trailingDotAlias(origin: string): string | undefined {
  const url = new URL(origin);
  if (url.hostname.endsWith(".") || url.hostname.startsWith("[") || /^[\d.]+$/.test(url.hostname)) return undefined;
  return `${url.protocol}//${url.hostname}.${url.port === "" ? "" : `:${url.port}`}`;
}

/** The other scheme on the same host and port (`http://h:443` for `https://h`), with and without a trailing dot. */
function wrongSchemeAliases(origin: string): WrongSchemeAlias[] {
  const url = new URL(origin);
  const tls = url.protocol === "https:";
  const port = url.port === "" ? (tls ? "443" : "80") : url.port;
  const other = `${tls ? "http:" : "https:"}//${url.hostname}:${port}`;
  const dotted = trailingDotAlias(other);
  return [other, ...(dotted === undefined ? [] : [dotted])].map((alias) => ({ origin: alias, plainToTls: tls }));
}

/**
 * Makes one of our own nock interceptors match requests of every method: nock's API takes one
 * method per interceptor, and compares it in `matchOrigin()` (is this origin intercepted for this
 * request?) and `match()` (does this interceptor answer it?). Both are asked with the interceptor's
 * own method in place of the request's; everything else (origin, path, nock's scope options) is
 * matched as nock does.
 */
function matchEveryMethod(interceptor: nock.Interceptor): void {
  type Matching = {
    method: string;
    match(req: unknown, ...rest: unknown[]): unknown;
    matchOrigin(options: unknown): boolean;
  };
  const target = interceptor as unknown as Matching;
  const { match, matchOrigin } = target;
  if (typeof match !== "function" || typeof matchOrigin !== "function") {
    throw new Error("infra-doubles: this nock version has no Interceptor.match/matchOrigin; please report it");
  }
  // nock 14 passes the method in the options (`match(req, options, body)`, `matchOrigin(options)`);
  // nock 15 reads it from the fetch `Request` (`match(request, body)`, `matchOrigin(request)`).
  const withMethod = (value: unknown): unknown => (isFetchRequest(value) ? requestWithMethod(value, target.method) : { ...(value as object), method: target.method });
  target.match = function (req, ...rest) {
    if (isFetchRequest(req)) return match.call(this, withMethod(req), ...rest);
    return match.call(this, req, withMethod(rest[0]), ...rest.slice(1));
  };
  target.matchOrigin = function (options) {
    return matchOrigin.call(this, withMethod(options));
  };
}

/** `request` as nock 15's matching reads it, with `method` in place of its own. */
function requestWithMethod(request: Request, method: string): Request {
  return new Proxy(request, {
    get(target, property) {
      if (property === "method") return method;
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * The method as the client sent it: nock matches methods case-insensitively, the service sees the
 * method as sent (`fetch` sends `list` and `patch` lower-case), as Go's net/http does.
 */
function sentMethod(registered: string, method: string | undefined): string {
  const upper = registered === ANY_METHOD ? String(method ?? "GET").toUpperCase() : registered;
  return typeof method === "string" && method.toUpperCase() === upper ? method : upper;
}

/** Whether nock handed over a fetch `Request` (nock 15) rather than the request it built (nock 14). */
function isFetchRequest(value: unknown): value is Request {
  return typeof value === "object" && value !== null && typeof (value as { url?: unknown }).url === "string" && typeof (value as { headers?: { get?: unknown } }).headers?.get === "function";
}

/**
 * The body of a GET request nock 15 kept beside the `Request` (which cannot hold one): a Buffer
 * under its `kGetRequestBody` symbol (what `nock.getGetRequestBody()` streams, and throws without).
 */
function getRequestBody(request: Request): Uint8Array {
  const symbol = Object.getOwnPropertySymbols(request).find((s) => s.description === "kGetRequestBody");
  const value = symbol === undefined ? undefined : (Reflect.get(request, symbol) as unknown);
  return ArrayBuffer.isView(value) ? new Uint8Array(value.buffer, value.byteOffset, value.byteLength).slice() : new Uint8Array();
}

function normalizeHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : String(value);
  }
  return out;
}

/**
 * The response as nock's reply array: `[status, body, headers]`, with a `Content-Length` (as the
 * local server sends), and no body for `HEAD` (the `Content-Length` of the `GET` body stays).
 */
function replyOf(response: SimResponse, head: boolean): [number, string | Buffer, Record<string, string>] {
  const body = response.body === undefined ? undefined : Buffer.from(response.body);
  const headers = withContentLength(response, body);
  return [response.status, head || body === undefined ? "" : body, headers];
}

/** The chunks nock 14 keeps on the request it built (`requestBodyBuffers`), joined; else undefined. */
function writtenBytes(chunks: unknown): Uint8Array | undefined {
  if (!Array.isArray(chunks) || !chunks.every((chunk) => Buffer.isBuffer(chunk))) return undefined;
  return new Uint8Array(Buffer.concat(chunks as Buffer[]));
}

/**
 * Recovers the exact request bytes from nock's string form, for nock versions that do not keep the
 * written chunks. nock sends bytes that are valid UTF-8 as text and any other bytes hex-encoded.
 *
 * A declared `Content-Length` settles it: the text's UTF-8 length, or half the hex length. Without
 * one, a string is read as hex only when it is valid hex, its decoded bytes are not valid UTF-8
 * (so nock would have hex-encoded them), and the content type is not textual.
 *
 * @param raw - the body as nock hands it to its `request` event.
 * @param contentType - the request's `Content-Type` ("" when none).
 * @param contentLength - the request's `Content-Length` ("" when none).
 * @example recoverBytes("1f8b", "application/octet-stream") // Uint8Array [0x1f, 0x8b]
 */
export function recoverBytes(raw: string, contentType: string, contentLength = ""): Uint8Array {
  if (raw === "") return new Uint8Array();
  const text = new Uint8Array(Buffer.from(raw, "utf8"));
  const maybeHex = raw.length % 2 === 0 && /^[0-9a-f]+$/.test(raw);
  if (!maybeHex) return text;
  const hex = Buffer.from(raw, "hex");
  const hexIsConsistent = !Buffer.from(hex.toString("utf8"), "utf8").equals(hex);
  if (/^\d+$/.test(contentLength.trim())) {
    const declared = Number(contentLength.trim());
    if (declared === hex.length && declared !== text.length && hexIsConsistent) return new Uint8Array(hex);
    return text;
  }
  const textual = /json|text|x-www-form-urlencoded|xml|x-infra-doubles-raw/i.test(contentType);
  return !textual && hexIsConsistent ? new Uint8Array(hex) : text;
}
