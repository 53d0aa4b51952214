/**
 * A guard on @mswjs/interceptors' `Interceptor.prototype.dispose`, for nock and msw in one process
 * (issue 22 item 4).
 *
 * The library keeps one running instance per kind under a global symbol; a second instance's
 * `apply()` reuses the running one. But `dispose()` of an instance that is not the running one (one
 * that reused it, or was never applied at all) still deletes the global symbol, while the running
 * one's patches stay. nock 14 does exactly that on load and on every `nock.restore()`: its recorder
 * disposes two never-applied instances, which wiped msw's symbol (msw listening first); nock then
 * applied instances of its own over msw's patches, the doubles' unhandled-request listener sat in
 * front of msw and refused the requests msw answers, and once msw closed, nock's patch was left
 * dangling and the next `intercept()` could not patch `fetch` again (its requests went to the
 * network: `getaddrinfo ENOTFOUND secrets.test`).
 *
 * While a transport of this package is live, `dispose()` of an instance that is not the running one
 * leaves the running one's global symbol in place (the instance still removes its own listeners),
 * and an instance that reused a running one disposed since is disposed completely (it forwarded
 * its listeners to the dead instance when applied again). Nothing else changes.
 */
import { interceptorsBuilds } from "./interceptors-builds.js";
import { refCounted } from "./ref-counted.js";

interface InterceptorPrototype {
  dispose(this: InterceptorLike): void;
}

interface InterceptorLike {
  readonly symbol?: symbol;
  readyState?: string;
  subscriptions?: (() => void)[];
  on?: unknown;
}

const guard = refCounted(install);

/**
 * Guards `dispose()` (see the module comment) until the returned function is called. Reference
 * counted; releasing twice is harmless.
 * @example
 * const release = holdDisposeGuard();
 * release();
 */
export function holdDisposeGuard(): () => void {
  return guard.hold();
}

function install(): () => void {
  const undo = interceptorsBuilds((module) => (module as { Interceptor?: { prototype: InterceptorPrototype } }).Interceptor?.prototype).map((prototype) => {
    const { dispose } = prototype;
    const guarded = function (this: InterceptorLike): void {
      const symbol = this.symbol;
      const global = globalThis as Record<symbol, unknown>;
      const running = symbol === undefined ? undefined : global[symbol];
      dispose.call(this);
      // Not the running instance: put the running one's symbol back.
      if (symbol !== undefined && running !== undefined && running !== this && global[symbol] === undefined) global[symbol] = running;
      // An instance that reused a running one which is gone since (msw closed first): dispose()
      // skipped everything and left it half-disposed, its `on` still forwarding to the dead
      // instance, so applying it again (nock's next activation) put its listeners where no request
      // goes. Finish the disposal.
      if (Object.prototype.hasOwnProperty.call(this, "on")) delete this.on;
      if (this.readyState === "DISPOSING") {
        for (const unsubscribe of this.subscriptions?.splice(0) ?? []) unsubscribe();
        this.readyState = "DISPOSED";
      }
    };
    prototype.dispose = guarded;
    return () => {
      if (prototype.dispose === guarded) prototype.dispose = dispose;
    };
  });
  return () => {
    for (const one of undo) one();
  };
}
