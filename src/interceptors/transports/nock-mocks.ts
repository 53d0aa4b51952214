/**
 * A user's own nock interceptors on origins the doubles serve. nock asks interceptors in the order
 * they were added; this module sees each interceptor added by a scope that is not one of this
 * package's (a hook on nock's `Scope.prototype.add`, which `.reply()` and `.replyWithError()` call
 * once per interceptor), and tells the live interceptions serving that origin: the nock transport
 * then moves its own interceptors behind the user's (the user's answer first, whichever was
 * defined first), the `interceptors` transport refuses it (it answers before nock runs).
 * See docs/decisions/transports.md "Your own nock interceptors".
 */
import type nock from "nock";
import { loadNock, nockLoaded } from "./nock-module.js";

/**
 * nock, when something in the process loaded it already (this package loads it only for the nock
 * transport); `undefined` otherwise.
 */
export function loadedNock(): typeof nock | undefined {
  return nockLoaded() ? loadNock() : undefined;
}

/** Scopes created by this package. */
const ownScopes = new WeakSet<object>();
/** Callbacks of live interceptions, by the `protocol://host:port` key nock files scopes under. */
const watchers = new Map<string, Set<() => void>>();
let watching = false;

/**
 * nock's key of an origin: `protocol://hostname:port`, the port always written.
 * @example nockKey("https://secrets.test") // "https://secrets.test:443"
 */
export function nockKey(origin: string): string {
  const url = new URL(origin);
  return `${url.protocol}//${url.hostname}:${url.port === "" ? (url.protocol === "https:" ? "443" : "80") : url.port}`;
}

/** Marks `scope` as this package's own (its interceptors are no user mock). */
export function markOwnScope<S extends object>(scope: S): S {
  ownScopes.add(scope);
  return scope;
}

/**
 * Calls `callback` each time a user's nock interceptor is added on one of `origins` (exact
 * origins only: a scope on a regular expression is not seen), until the returned function is
 * called. Whatever `callback` throws comes out of the user's `.reply()`.
 */
export function onUserMock(origins: readonly string[], callback: () => void): () => void {
  const keys = [...new Set(origins.map(nockKey))];
  for (const key of keys) {
    let set = watchers.get(key);
    if (set === undefined) watchers.set(key, (set = new Set()));
    set.add(callback);
  }
  return () => {
    for (const key of keys) {
      const set = watchers.get(key);
      set?.delete(callback);
      if (set?.size === 0) watchers.delete(key);
    }
  };
}

/**
 * Origins among `origins` on which nock holds interceptors now (the user's: call before adding
 * this package's own).
 * @example mockedOrigins(nock, ["https://secrets.test"]) // ["https://secrets.test"] after nock("https://secrets.test").get("/v1/x").reply(200)
 */
export function mockedOrigins(instance: typeof nock, origins: readonly string[]): string[] {
  const mocked = new Set(
    [...instance.activeMocks(), ...instance.pendingMocks()].map((label) => {
      const url = label.replace(/^\S+ /, "");
      try {
        return nockKey(url);
      } catch {
        return "";
      }
    }),
  );
  return origins.filter((origin) => mocked.has(nockKey(origin)));
}

/** Installs the hook on nock's `Scope.prototype.add` (once per process). */
export function watchUserMocks(instance: typeof nock): void {
  if (watching) return;
  const prototype = Object.getPrototypeOf(instance("http://infra-doubles.invalid")) as { add?: (...args: unknown[]) => unknown };
  const add = prototype.add;
  if (typeof add !== "function") return; // another nock shape: the doubles then answer first, as before
  watching = true;
  prototype.add = function (this: { basePath?: unknown }, ...args: unknown[]) {
    const result = add.apply(this, args);
    if (!ownScopes.has(this) && typeof this.basePath === "string") {
      for (const callback of [...(watchers.get(this.basePath) ?? [])]) callback();
    }
    return result;
  };
}

/**
 * nock's table of interceptors by origin key (`allInterceptors` in nock 14's `lib/intercept.js`),
 * or `undefined` for a nock that does not keep one this way. nock does not export it; its
 * `pendingMocks()` reads it through `Object.values`, which is watched for that one call.
 */
function interceptorTable(instance: typeof nock): Record<string, { interceptors?: unknown[]; allowUnmocked?: boolean }> | undefined {
  const values = Object.values;
  let table: unknown;
  Object.values = ((value: object) => {
    table ??= value;
    return values(value);
  }) as typeof Object.values;
  try {
    instance.pendingMocks();
  } finally {
    Object.values = values;
  }
  if (table === null || typeof table !== "object") return undefined;
  const entries = values(table as object) as unknown[];
  return entries.every((entry) => typeof entry === "object" && entry !== null && Array.isArray((entry as { interceptors?: unknown }).interceptors)) ? (table as Record<string, { interceptors?: unknown[] }>) : undefined;
}

/**
 * Forgets nock's entries for `origins` once they hold no interceptor (ours were removed, no user
 * mock is left on them). nock keeps an origin's entry for ever after its last interceptor is
 * removed, and looks at every entry on every request: with new origins each test
 * (`uniqueOrigins`), each request went through every origin ever intercepted (issue 24 item 6:
 * 2.7 -> 24.9 ms a request after 1,000 rounds).
 */
export function forgetEmptyOrigins(instance: typeof nock, origins: readonly string[]): void {
  const table = interceptorTable(instance);
  if (table === undefined) return;
  for (const key of new Set(origins.map(nockKey))) {
    const entry = table[key];
    if (entry !== undefined && entry.interceptors?.length === 0 && entry.allowUnmocked !== true) Reflect.deleteProperty(table, key);
  }
}
