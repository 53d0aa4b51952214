/**
 * Network failures in the shapes Node's own clients give, on every in-process transport: a dropped
 * connection (a fault's `reset` or `hang-up`) and a refused unhandled request
 * (`onUnhandledRequest: "error"`) reject `fetch` with `TypeError: fetch failed` whose `cause` is
 * an `Error` carrying a `code`, as undici rejects a network failure, and give a node:http client an
 * `error` event with that `Error` itself (`ECONNRESET` for a drop, as Node's `socket hang up` and
 * `read ECONNRESET`). See docs/decisions/faults.md "How a failed connection looks".
 *
 * The transports fail a request with the node:http form of the error, marked as a network failure
 * ({@link networkFailure}); only the @mswjs/interceptors request controller knows which client
 * sent it, so the shape is chosen there: while a transport of this package is live, the
 * controller's `errorWith()` (nock 14 and the `interceptors` transport fail requests through it)
 * and `respondWith()` (msw fails a request with `Response.error()`, see {@link droppedResponse})
 * turn a marked failure into the client's form. Nothing else changes: an error not marked here
 * goes through as before. nock 15 runs its own copy of @mswjs/interceptors at the socket level,
 * where the node:http form is what both clients see (fetch wraps it in `fetch failed` itself).
 */
import { interceptorsBuilds } from "./interceptors-builds.js";
import { refCounted } from "./ref-counted.js";

const NETWORK_FAILURE = Symbol.for("infra-doubles.network-failure");

/** The drop a `Response.error()` from {@link droppedResponse} stands for. */
const droppedResponses = new WeakMap<object, () => Error>();

/**
 * Marks `error` (the node:http form: an `Error` with a `code`) as a network failure, to be shaped
 * for the client that sent the request.
 * @example controller.errorWith(networkFailure(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" })))
 */
export function networkFailure<E extends Error>(error: E): E {
  Object.defineProperty(error, NETWORK_FAILURE, { value: true, enumerable: false });
  return error;
}

/**
 * A `Response.error()` (msw's only way to fail a request) that stands for `failure`: where the
 * request controller is shared with this package, the client gets `failure` in its own shape.
 */
export function droppedResponse(failure: () => Error): Response {
  const response = Response.error();
  droppedResponses.set(response, failure);
  return response;
}

/**
 * The error the client that sent `request` sees for `reason`: for a marked network failure,
 * node:http gets it as is and fetch `TypeError: fetch failed` with it as `cause`; anything else
 * unchanged.
 */
export function shapeFailure(request: Request | undefined, reason: unknown): unknown {
  const failure = markedFailure(reason);
  if (failure === undefined) return reason;
  return request !== undefined && fromNodeHttp(request) ? failure : new TypeError("fetch failed", { cause: failure });
}

function markedFailure(reason: unknown): Error | undefined {
  if (reason instanceof Error && (reason as unknown as Record<symbol, unknown>)[NETWORK_FAILURE] === true) return reason;
  const cause = reason instanceof Error ? reason.cause : undefined;
  if (cause instanceof Error && (cause as unknown as Record<symbol, unknown>)[NETWORK_FAILURE] === true) return cause;
  return undefined;
}

/**
 * Whether `request` came from node:http (the ClientRequest interceptor keeps the client's body
 * stream on it, under a symbol found by its description so that any copy of the library works).
 */
export function fromNodeHttp(request: Request): boolean {
  return Object.getOwnPropertySymbols(request).some((s) => s.description === "kRawRequestBodyStream");
}

interface ControllerPrototype {
  respondWith(this: ControllerLike, response: Response): void;
  errorWith(this: ControllerLike, reason?: unknown): void;
}

interface ControllerLike {
  readonly request?: Request;
}

const shapes = refCounted(install);

/**
 * Shapes network failures (see the module comment) until the returned function is called.
 * Reference counted; releasing twice is harmless. Loads @mswjs/interceptors on first use.
 */
export function holdNetworkErrorShapes(): () => void {
  return shapes.hold();
}

function install(): () => void {
  const undo = interceptorsBuilds((module) => (module as { RequestController?: { prototype: ControllerPrototype } }).RequestController?.prototype).map(patch);
  return () => {
    for (const restoreOne of undo) restoreOne();
  };
}

function patch(prototype: ControllerPrototype): () => void {
  const { respondWith, errorWith } = prototype;
  const shapedErrorWith = function (this: ControllerLike, reason?: unknown): void {
    errorWith.call(this, shapeFailure(this.request, reason));
  };
  const shapedRespondWith = function (this: ControllerLike, response: Response): void {
    const failure = typeof response === "object" && response !== null ? droppedResponses.get(response) : undefined;
    if (failure === undefined) respondWith.call(this, response);
    else errorWith.call(this, shapeFailure(this.request, networkFailure(failure())));
  };
  prototype.errorWith = shapedErrorWith;
  prototype.respondWith = shapedRespondWith;
  return () => {
    // Put back only what is still ours (another library may have wrapped it since).
    if (prototype.errorWith === shapedErrorWith) prototype.errorWith = errorWith;
    if (prototype.respondWith === shapedRespondWith) prototype.respondWith = respondWith;
  };
}
