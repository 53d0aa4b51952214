/**
 * One hook into node:http's `ClientRequest.prototype.onSocket`, shared by every feature of this
 * package that must see a request's socket before the first byte is written to it (the mock socket
 * of @mswjs/interceptors, under nock, msw or the `interceptors` transport): keeping requests to
 * owned origins in process (`owned-origins.ts`), and methods Node's parser does not know
 * (`client-methods.ts`).
 *
 * Features add and remove hooks in any order; the prototype is patched while at least one hook is
 * registered and put back after the last one is removed (unless another library wrapped it since,
 * in which case our layer stays but does nothing).
 */
import { createRequire } from "node:module";

/** node:http's view of a request, as a hook sees it. */
export interface HookedRequest {
  readonly method?: string;
  readonly protocol?: string;
}

/** Called with each request and the socket it gets, before any byte is written to that socket. */
export type SocketHook = (request: HookedRequest, socket: unknown) => void;

interface ClientRequestPrototype {
  onSocket(socket: unknown, error?: unknown): unknown;
}

const hooks = new Set<SocketHook>();
let uninstall: (() => void) | undefined;

/**
 * Registers `hook` until the returned function is called (calling it twice is harmless).
 * @example
 * const remove = addSocketHook((request, socket) => console.log(request.method));
 * remove();
 */
export function addSocketHook(hook: SocketHook): () => void {
  // A function registered twice must be removable twice: wrap it.
  const entry: SocketHook = (request, socket) => hook(request, socket);
  hooks.add(entry);
  uninstall ??= install();
  return () => {
    if (!hooks.delete(entry)) return;
    if (hooks.size === 0) {
      uninstall?.();
      uninstall = undefined;
    }
  };
}

/** Whether the `onSocket` patch is in place right now (for tests). */
export function socketHooksInstalled(): boolean {
  return uninstall !== undefined;
}

/** node:http's own `ClientRequest.prototype`, looked up once per process (every first hook installs). */
let prototypeFound: ClientRequestPrototype | undefined;

function clientRequestPrototype(): ClientRequestPrototype {
  prototypeFound ??= (createRequire(import.meta.url)("node:_http_client") as { ClientRequest: { prototype: ClientRequestPrototype } }).ClientRequest.prototype;
  return prototypeFound;
}

function install(): () => void {
  // node:http's own ClientRequest, whatever nock or @mswjs/interceptors put on `http.ClientRequest`.
  const proto = clientRequestPrototype();
  const hadOwn = Object.prototype.hasOwnProperty.call(proto, "onSocket");
  const original = proto.onSocket;
  let active = true;
  const patched = function onSocket(this: HookedRequest, socket: unknown, error?: unknown): unknown {
    if (active && socket !== null && socket !== undefined) for (const hook of hooks) hook(this, socket);
    return original.call(this, socket, error);
  };
  proto.onSocket = patched;
  return () => {
    active = false;
    // Put back only our own layer: another library may have wrapped it since.
    if (proto.onSocket !== patched) return;
    if (hadOwn) proto.onSocket = original;
    else delete (proto as Partial<ClientRequestPrototype>).onSocket;
  };
}
