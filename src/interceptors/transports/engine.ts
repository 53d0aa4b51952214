/**
 * The @mswjs/interceptors engine under the `interceptors` transport: its ClientRequest (node:http,
 * node:https, and the clients built on them) and fetch interceptors, shared with whoever else runs
 * them in the process (nock 14, msw 2).
 *
 * @mswjs/interceptors keeps one running instance per kind, process-wide (a global symbol); a
 * second instance's `apply()` reuses the running one, and a reusing instance's `dispose()` removes
 * the running one's global symbol while its patches stay. So this module never disposes anyone
 * else's instance and never relies on `apply()` of a second instance:
 * - when an instance of a kind is running (nock's, msw's), listeners are attached to it, in front
 *   of its own listeners (so `nock.disableNetConnect()` or msw's `onUnhandledRequest: "error"` never
 *   see requests to owned origins), and detached on stop;
 * - otherwise an instance is applied here, and disposed after the last listener of this module is
 *   detached, unless another library attached its own listeners to it meanwhile (nock loaded after
 *   the transport started): it then stays applied for that library, and is disposed once it has no
 *   listener left ({@link disposeIdleEngines}, run whenever a transport of this package stops).
 *
 * The engine is loaded on first use (importing the package does not load it). The ClientRequest
 * kind is applied on the first node:http or node:https request, not when a listener is attached:
 * applying it also patches the global `Headers`, `Request` and `Response` (to record header-name
 * case), which costs every `fetch` about a third more; a test that only uses `fetch` never pays it
 * (see {@link armClientRequest}).
 */
import { createRequire } from "node:module";

/** A request event, as @mswjs/interceptors emits it. */
export interface EngineRequestEvent {
  readonly request: Request;
  readonly requestId: string;
  readonly controller: EngineController;
}

/** The part of @mswjs/interceptors' RequestController this package uses. */
export interface EngineController {
  readyState: number;
  respondWith(response: Response): void;
  errorWith(reason?: unknown): void;
}

/** Answers (or leaves alone) one intercepted request. */
export type EngineListener = (event: EngineRequestEvent) => Promise<void> | void;

interface EmitterLike {
  prependListener(event: string, listener: EngineListener): unknown;
  on(event: string, listener: EngineListener): unknown;
  removeListener(event: string, listener: EngineListener): unknown;
  listenerCount(event: string): number;
  eventNames(): (string | symbol)[];
}

interface InstanceLike {
  readyState: string;
  emitter: EmitterLike;
  apply(): void;
  dispose(): void;
}

interface Kind {
  readonly name: string;
  readonly symbol: symbol;
  create(): InstanceLike;
}

const APPLIED = "APPLIED";
const requireHere = createRequire(import.meta.url);

let kinds: readonly Kind[] | undefined;

/** The two kinds, loaded on first use. */
function engineKinds(): readonly Kind[] {
  kinds ??= [
    kindOf("client-request", requireHere("@mswjs/interceptors/ClientRequest") as { ClientRequestInterceptor: new () => InstanceLike }, "ClientRequestInterceptor"),
    kindOf("fetch", requireHere("@mswjs/interceptors/fetch") as { FetchInterceptor: new () => InstanceLike }, "FetchInterceptor"),
  ];
  return kinds;
}

function kindOf<K extends string>(name: string, module: Record<K, new () => InstanceLike>, exported: K): Kind {
  const Interceptor = module[exported] as (new () => InstanceLike) & { symbol: symbol };
  return { name, symbol: Interceptor.symbol, create: () => new Interceptor() };
}

/** Instances applied by this module, per kind (by global symbol). */
const applied = new Map<symbol, InstanceLike>();
/** Listeners attached by this module, per instance. */
const attached = new Map<InstanceLike, number>();
let attachments = 0;
const idleCallbacks = new Set<() => void>();

/**
 * Puts `listener` in front of every request node:http, node:https and fetch make (with
 * `{ last: true }`: after every listener attached so far, nock's and msw's included; with
 * `{ fetchOnly: true }`: fetch's requests only), until the returned function is called (calling it
 * twice is harmless).
 * @example
 * const detach = attachEngineListener(async ({ request, controller }) => controller.respondWith(new Response("hi")));
 * detach();
 */
export function attachEngineListener(listener: EngineListener, options: { readonly last?: boolean; readonly fetchOnly?: boolean } = {}): () => void {
  const instances: InstanceLike[] = [];
  const attach = (kind: Kind): void => {
    const instance = runningInstance(kind);
    if (options.last === true) {
      instance.emitter.on("request", listener);
      keepLast(instance.emitter, listener);
    } else instance.emitter.prependListener("request", listener);
    attached.set(instance, (attached.get(instance) ?? 0) + 1);
    instances.push(instance);
  };
  for (const kind of engineKinds()) {
    if (kind.name === CLIENT_REQUEST && options.fetchOnly === true) continue;
    if (kind.name === CLIENT_REQUEST && !kindRunning(kind)) {
      pendingClientRequest.set(listener, () => attach(kind));
      armClientRequest();
    } else attach(kind);
  }
  attachments++;
  let detached = false;
  return () => {
    if (detached) return;
    detached = true;
    attachments--;
    if (pendingClientRequest.delete(listener) && pendingClientRequest.size === 0) disarmClientRequest();
    for (const instance of instances) {
      instance.emitter.removeListener("request", listener);
      releaseLast(instance.emitter, listener);
      const left = (attached.get(instance) ?? 1) - 1;
      if (left > 0) attached.set(instance, left);
      else attached.delete(instance);
    }
    disposeIdleEngines();
    if (attachments === 0) for (const callback of idleCallbacks) callback();
  };
}

const CLIENT_REQUEST = "client-request";

/** Listeners waiting for the first node:http request, with what attaches each to the ClientRequest kind. */
const pendingClientRequest = new Map<EngineListener, () => void>();

/** Whether an instance of `kind` runs now (someone's, or one this module applied). */
function kindRunning(kind: Kind): boolean {
  if (isApplied((globalThis as Record<symbol, unknown>)[kind.symbol])) return true;
  return applied.get(kind.symbol)?.readyState === APPLIED;
}

/** The node:http and node:https entry points the ClientRequest interceptor patches (module objects, not ESM namespaces). */
const entryPoints = (): readonly { readonly module: Record<string, unknown>; readonly name: string }[] => {
  // Looked up once per process: each intercept() arms them anew in a process nothing else intercepts in.
  if (entries !== undefined) return entries;
  const http = requireHere("node:http") as Record<string, unknown>;
  const https = requireHere("node:https") as Record<string, unknown>;
  entries = [
    { module: http, name: "ClientRequest" },
    { module: http, name: "request" },
    { module: http, name: "get" },
    { module: https, name: "request" },
    { module: https, name: "get" },
  ];
  return entries;
};
let entries: readonly { readonly module: Record<string, unknown>; readonly name: string }[] | undefined;

/** The layer {@link armClientRequest} put on the entry points, while it waits for its first call. */
let arming: { readonly disarm: () => void } | undefined;

/**
 * Puts a thin layer on `http.request`, `http.get`, `http.ClientRequest`, `https.request` and
 * `https.get` that, on the first call, takes itself off, applies (or joins) the ClientRequest
 * interceptor with every pending listener in front, and makes the call again through the
 * interceptor's patch. A layer another library wrapped meanwhile (nock or msw applied after the
 * listener was attached) cannot be taken off: once fired or disarmed it passes calls straight to
 * node's own function, and takes itself off when it finds itself back in place.
 */
function armClientRequest(): void {
  if (arming !== undefined) return;
  let done = false;
  const layers = entryPoints().map(({ module, name }) => {
    type Entry = (...args: unknown[]) => unknown;
    const original = module[name] as Entry;
    let restored = false;
    const takeOff = (): void => {
      if (module[name] !== layer) return;
      module[name] = original;
      restored = true;
    };
    // What the call goes to: after the first call, whatever stands on the module (the interceptor's
    // patch) if this layer was taken off, else node's own function (an outer layer did its part).
    const target = (): Entry => {
      if (!done) fire();
      else takeOff();
      return restored ? (module[name] as Entry) : original;
    };
    const layer =
      name === "ClientRequest"
        ? function ClientRequest(...args: unknown[]): unknown {
            const construct = target() as unknown as new (...a: unknown[]) => unknown;
            return Reflect.construct(construct, args, new.target === undefined || new.target === layer ? construct : new.target);
          }
        : function (this: unknown, ...args: unknown[]): unknown {
            return target().apply(this, args);
          };
    if (name === "ClientRequest") layer.prototype = original.prototype;
    Object.defineProperty(layer, "name", { value: original.name });
    module[name] = layer;
    return takeOff;
  });
  const finish = (): void => {
    done = true;
    arming = undefined;
    for (const takeOff of layers) takeOff();
  };
  const fire = (): void => {
    finish();
    const pending = [...pendingClientRequest.values()];
    pendingClientRequest.clear();
    for (const attach of pending) attach();
  };
  arming = { disarm: finish };
}

/** Takes the layer of {@link armClientRequest} off when no listener waits for it any more. */
function disarmClientRequest(): void {
  arming?.disarm();
}

/** Listeners that stay after every other `request` listener of an emitter, with how to stop. */
const lastListeners = new WeakMap<EmitterLike, { readonly listeners: Set<EngineListener>; readonly unwrap: () => void }>();

/**
 * Keeps `listener` after every `request` listener added to `emitter` later: another library that
 * joins the running instance afterwards (msw's `server.listen()` after `intercept()` reuses it and
 * appends its listeners) still answers before the unhandled-request policy decides.
 */
function keepLast(emitter: EmitterLike, listener: EngineListener): void {
  const existing = lastListeners.get(emitter);
  if (existing !== undefined) {
    existing.listeners.add(listener);
    return;
  }
  const listeners = new Set<EngineListener>([listener]);
  type Add = (this: EmitterLike, event: string, added: EngineListener) => unknown;
  const target = emitter as unknown as Record<"on" | "addListener", Add>;
  const originals = { on: target.on, addListener: target.addListener };
  const ownBefore = { on: Object.prototype.hasOwnProperty.call(emitter, "on"), addListener: Object.prototype.hasOwnProperty.call(emitter, "addListener") };
  const wrap = (name: "on" | "addListener"): Add =>
    function (this: EmitterLike, event, added) {
      const result = originals[name].call(this, event, added);
      if (event === "request" && !listeners.has(added)) {
        for (const last of listeners) {
          this.removeListener("request", last);
          originals.on.call(this, "request", last);
        }
      }
      return result;
    };
  const wrapped = { on: wrap("on"), addListener: wrap("addListener") };
  target.on = wrapped.on;
  target.addListener = wrapped.addListener;
  lastListeners.set(emitter, {
    listeners,
    unwrap: () => {
      for (const name of ["on", "addListener"] as const) {
        if (target[name] !== wrapped[name]) continue; // wrapped again since: leave it
        // Back to the prototype's method when the original was inherited.
        if (ownBefore[name]) target[name] = originals[name];
        else delete target[name];
      }
    },
  });
}

function releaseLast(emitter: EmitterLike, listener: EngineListener): void {
  const entry = lastListeners.get(emitter);
  if (entry === undefined || !entry.listeners.delete(listener) || entry.listeners.size > 0) return;
  entry.unwrap();
  lastListeners.delete(emitter);
}

/** How many listeners of this package are attached right now. */
export function engineAttachments(): number {
  return attachments;
}

/**
 * Runs `callback` each time the last listener of this package is detached (the nock transport
 * restores nock then, if it had kept it active for this engine).
 * @returns a function that unregisters the callback.
 */
export function onEngineIdle(callback: () => void): () => void {
  idleCallbacks.add(callback);
  return () => idleCallbacks.delete(callback);
}

/**
 * Disposes every instance this module applied that has no listener left, its own or another
 * library's. Called after each detach, and by the nock transport after it restored nock.
 */
export function disposeIdleEngines(): void {
  for (const [symbol, instance] of applied) {
    if (attached.has(instance)) continue;
    if (instance.readyState !== APPLIED) {
      applied.delete(symbol);
      continue;
    }
    const listening = instance.emitter.eventNames().some((event) => instance.emitter.listenerCount(String(event)) > 0);
    if (listening) continue;
    // Our own instance: its dispose() restores what its setup() patched, and clears the global
    // symbol only if it still names this instance (a reusing instance may have cleared it).
    const global = globalThis as Record<symbol, unknown>;
    if (global[symbol] === undefined) global[symbol] = instance;
    if (global[symbol] === instance) instance.dispose();
    applied.delete(symbol);
  }
}

/** Whether this module has an instance of its own applied right now (for tests). */
export function engineInstancesApplied(): number {
  return [...applied.values()].filter((instance) => instance.readyState === APPLIED).length;
}

/**
 * The running instance of `kind`: someone's (nock's, msw's), or one this module applied before,
 * or a new one applied now.
 */
function runningInstance(kind: Kind): InstanceLike {
  const global = globalThis as Record<symbol, unknown>;
  const running = global[kind.symbol];
  if (isApplied(running)) return running;
  const mine = applied.get(kind.symbol);
  if (mine !== undefined && mine.readyState === APPLIED) {
    // Our instance still patches node:http / fetch, but a reusing instance's dispose() removed its
    // global symbol: name it again, so that nothing applies a second layer over it.
    global[kind.symbol] = mine;
    return mine;
  }
  const orphan = orphanedInstance(kind);
  if (orphan !== undefined) {
    // A reusing instance's dispose() (msw's server.close() after msw joined nock's fetch
    // interceptor) removed the running one's symbol while its patch stays: a new instance's apply()
    // would fail ("already replaced", an unhandled rejection of its setup). Name the running one again.
    global[kind.symbol] = orphan;
    return orphan;
  }
  const instance = kind.create();
  instance.apply();
  if (instance.readyState !== APPLIED || global[kind.symbol] !== instance) {
    throw new Error(`infra-doubles: could not apply @mswjs/interceptors' ${kind.name} interceptor (state ${instance.readyState})`);
  }
  applied.set(kind.symbol, instance);
  return instance;
}

/**
 * An applied instance of `kind` that no global symbol names any more, found inside a batch of
 * interceptors another library keeps on a global symbol (nock 14 keeps its BatchInterceptor under
 * `Symbol(nock-interceptor)`).
 */
function orphanedInstance(kind: Kind): InstanceLike | undefined {
  const global = globalThis as Record<symbol, unknown>;
  for (const symbol of Object.getOwnPropertySymbols(globalThis)) {
    const holder = global[symbol] as { interceptors?: unknown } | null | undefined;
    if (typeof holder !== "object" || holder === null || !Array.isArray(holder.interceptors)) continue;
    for (const candidate of holder.interceptors as unknown[]) {
      if (isApplied(candidate) && (candidate.constructor as { symbol?: symbol }).symbol === kind.symbol) return candidate;
    }
  }
  return undefined;
}

function isApplied(value: unknown): value is InstanceLike {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Partial<InstanceLike>;
  return candidate.readyState === APPLIED && typeof candidate.emitter?.prependListener === "function";
}
