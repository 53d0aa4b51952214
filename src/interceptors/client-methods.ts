/**
 * Methods that @mswjs/interceptors cannot read from a node:http client: `LIST` (the secrets
 * service's listing method) and any other HTTP token method Node's parser does not know (`FROB`).
 *
 * Every in-process transport (nock 14, msw 2, the fast `interceptors` transport) intercepts
 * node:http through @mswjs/interceptors' ClientRequest interceptor. It hands each request a mock
 * socket that runs the bytes the client writes through Node's own HTTP request parser to rebuild
 * the request; that parser refuses a method it does not know, so the request is never emitted and
 * the client waits forever (under nock, even a request that nock would pass through to a real
 * server, such as `doubles.listen()`'s).
 *
 * The fix lives in the one place every copy and every user of the interceptor shares: node:http's
 * `ClientRequest.prototype.onSocket` (through `client-request-hooks.ts`). When a request whose method Node's parser does not know gets
 * a mock socket (one with a `requestParser` and a `passthrough()`), only the bytes that socket
 * feeds to its own parser have the method token of the request line replaced by `GET`. Nothing
 * else changes: the interceptor takes the method of the request it emits from the client's
 * options (so handlers see `LIST`), the bytes buffered for a pass-through keep `LIST`, and no
 * header is added, so there is no internal signal a client could forge.
 *
 * Methods fetch forbids (`TRACE`, `TRACK`): the interceptor's `FetchRequest` builds its `Request`
 * with `GET` and then writes the real method into undici's internal state. Node 24's undici keeps
 * that state in a private field, so the method lands on the instance only, and `request.clone()`
 * (which nock calls before matching) says `GET`: the request was answered as a GET. For such a
 * request, the mock socket's `onRequest` gives the emitted request a `clone()` that keeps the method
 * (nothing changes where the clone already keeps it, as on Node 20 and 22).
 *
 * Installed while at least one transport of this package is live (reference counted), and removed
 * after the last one stops.
 */
import { lazyRequire } from "../simulator/kernel/lazy-require.js";
import { addSocketHook } from "./client-request-hooks.js";
import { refCounted } from "./transports/ref-counted.js";

interface ParserLike {
  execute(chunk: Buffer, ...rest: unknown[]): unknown;
}

interface MockSocketLike {
  requestParser?: ParserLike;
  passthrough?: unknown;
  onRequest?: (args: { request?: unknown }) => unknown;
}

/** node:http, loaded by the first hold (see lazy-require.ts). */
const http = lazyRequire<typeof import("node:http")>("node:http");

/** Methods Node's HTTP parser reads (every other token method needs the rewrite); set by the first hold. */
let parserMethods: ReadonlySet<string> | undefined;

/** The method the mock socket's parser is shown instead of one it does not know. */
const PARSER_STAND_IN = "GET";

/** Methods a fetch `Request` cannot carry (`CONNECT` never reaches a mock socket as a request). */
const FETCH_FORBIDDEN_METHODS: ReadonlySet<string> = new Set(["TRACE", "TRACK"]);

const WRAPPED = Symbol.for("infra-doubles.client-methods.wrapped");

const support = refCounted(() => {
  const known = (parserMethods ??= new Set(http().METHODS));
  return addSocketHook((request, socket) => {
    const method = request.method;
    if (typeof method !== "string" || !isMockSocket(socket)) return;
    if (!known.has(method)) showParserKnownMethod(socket, method);
    if (FETCH_FORBIDDEN_METHODS.has(method.toUpperCase())) keepMethodOnClone(socket);
  });
});

/**
 * Makes node:http requests with any HTTP token method readable by @mswjs/interceptors until the
 * returned release function is called (reference counted: installed by the first holder, removed
 * after the last release). Releasing twice is harmless.
 *
 * @returns a function that releases this hold.
 * @example
 * const release = holdClientMethodSupport();
 * // http.request(url, { method: "LIST" }) now reaches nock / msw / the interceptors transport
 * release();
 */
export function holdClientMethodSupport(): () => void {
  return support.hold();
}

/** Whether the support is installed right now (for tests). */
export function clientMethodSupportInstalled(): boolean {
  return support.installed();
}

function isMockSocket(socket: unknown): socket is MockSocketLike & { requestParser: ParserLike } {
  if (typeof socket !== "object" || socket === null) return false;
  const candidate = socket as MockSocketLike;
  return typeof candidate.passthrough === "function" && typeof candidate.requestParser?.execute === "function";
}
/**
 * Wraps the socket's request parser so that the request line it reads starts with a method it
 * knows. Only the first request line is touched (a mock socket carries one request); the body and
 * every header pass unchanged.
 */
function showParserKnownMethod(socket: { requestParser: ParserLike }, method: string): void {
  const parser = socket.requestParser as ParserLike & { [WRAPPED]?: true };
  if (parser[WRAPPED]) return;
  parser[WRAPPED] = true;
  const execute = parser.execute;
  const prefix = Buffer.from(`${method} `, "latin1");
  let held: Buffer | undefined = Buffer.alloc(0);
  parser.execute = function (this: ParserLike, chunk: Buffer, ...rest: unknown[]): unknown {
    if (held === undefined) return execute.call(this, chunk, ...rest);
    const data = held.length === 0 ? chunk : Buffer.concat([held, chunk]);
    if (data.length < prefix.length && prefix.subarray(0, data.length).equals(data)) {
      held = data; // the method token is split across writes: wait for the rest
      return 0;
    }
    held = undefined;
    const rewritten = data.subarray(0, prefix.length).equals(prefix)
      ? Buffer.concat([Buffer.from(`${PARSER_STAND_IN} `, "latin1"), data.subarray(prefix.length)])
      : data;
    return execute.call(this, rewritten, ...rest);
  };
}

/**
 * Wraps the mock socket's `onRequest` so that the request it emits keeps its method through
 * `clone()`: where the interceptor could only set the method on the instance (an own `method`
 * property, Node 24), each clone gets the same own property.
 */
function keepMethodOnClone(socket: MockSocketLike): void {
  const onRequest = socket.onRequest;
  if (typeof onRequest !== "function" || (onRequest as { [WRAPPED]?: true })[WRAPPED]) return;
  const wrapped = function (this: unknown, args: { request?: unknown }): unknown {
    if (isRequest(args?.request)) carryOwnMethod(args.request);
    return onRequest.call(this, args);
  };
  (wrapped as { [WRAPPED]?: true })[WRAPPED] = true;
  socket.onRequest = wrapped;
}

interface RequestLike {
  clone(): RequestLike;
}

/** A fetch `Request` (checked by shape: the global is not read, so fetch stays unloaded until used). */
function isRequest(value: unknown): value is RequestLike {
  return typeof value === "object" && value !== null && typeof (value as Partial<RequestLike>).clone === "function";
}

function carryOwnMethod(request: RequestLike): void {
  const own = Object.getOwnPropertyDescriptor(request, "method");
  if (own === undefined || typeof own.value !== "string") return; // the clone keeps it already
  const clone = request.clone;
  Object.defineProperty(request, "clone", {
    configurable: true,
    value: function (this: RequestLike): RequestLike {
      const copy = clone.call(this);
      Object.defineProperty(copy, "method", own);
      carryOwnMethod(copy);
      return copy;
    },
  });
}
