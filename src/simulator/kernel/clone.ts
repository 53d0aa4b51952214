/**
 * Deep copies of plain data (objects, arrays, strings, numbers, booleans, null). Transactions no
 * longer copy service state (they journal writes, see `journal.ts`); this stays for code that needs
 * a copy of plain data faster than `structuredClone`, and for operations copying a piece of their
 * state: unlike `structuredClone`, it copies through the transaction journal's proxies.
 *
 * Byte arrays are shared, not copied: stored bytes (archives, keys, certificates) are never
 * changed in place, only replaced. `Map`, `Set` and `Date` are copied; anything else with a
 * prototype of its own goes to `structuredClone`.
 */
import { setOwn } from "./dict.js";

/**
 * A deep copy of plain data.
 * @example const copy = clonePlain({ runs: { "run-1": { status: "pending" } } });
 */
export function clonePlain<T>(value: T): T {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = clonePlain(value[i]);
    return out as T;
  }
  if (ArrayBuffer.isView(value)) return value;
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype === Object.prototype || prototype === null) {
    const out: Record<string, unknown> = prototype === null ? Object.create(null) : {};
    for (const key of Object.keys(value)) {
      const copy = clonePlain((value as Record<string, unknown>)[key]);
      // A "__proto__" key (user data: metadata maps, secret keys) is an own property, not a prototype.
      setOwn(out, key, copy);
    }
    return out as T;
  }
  if (value instanceof Map) return new Map([...value].map(([k, v]) => [k, clonePlain(v)])) as T;
  if (value instanceof Set) return new Set([...value].map((v) => clonePlain(v))) as T;
  if (value instanceof Date) return new Date(value.getTime()) as T;
  return structuredClone(value);
}

/**
 * A deep copy of plain data in which frozen objects are shared, not copied: what a cached initial
 * state is copied with (see `ServiceDefinition.cacheInitialState`), so a copy holds the same frozen
 * values a build of it holds (the runs service's default outcome, which runs without overrides
 * share: `mergeOutcome` keeps a frozen base). A frozen object cannot be written, so sharing it is
 * safe as long as what it holds is frozen too, as the state's frozen values are.
 * @example cloneSharingFrozen({ outcome: DEFAULT_OUTCOME }).outcome === DEFAULT_OUTCOME // true
 */
export function cloneSharingFrozen<T>(value: T): T {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) return value;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = cloneSharingFrozen(value[i]);
    return out as T;
  }
  if (ArrayBuffer.isView(value)) return value;
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype === Object.prototype || prototype === null) {
    const out: Record<string, unknown> = prototype === null ? Object.create(null) : {};
    for (const key of Object.keys(value)) setOwn(out, key, cloneSharingFrozen((value as Record<string, unknown>)[key]));
    return out as T;
  }
  if (value instanceof Map) return new Map([...value].map(([k, v]) => [k, cloneSharingFrozen(v)])) as T;
  if (value instanceof Set) return new Set([...value].map((v) => cloneSharingFrozen(v))) as T;
  if (value instanceof Date) return new Date(value.getTime()) as T;
  return structuredClone(value);
}

/**
 * Service states copied by `Simulator.snapshot()` and frozen all through (see {@link cloneSealed}):
 * nothing can change them, so a simulator may hold one as a service's state-to-be and copy it only
 * when the service is first used (a lazy `restore`), and a snapshot may hand it out again.
 */
const sealed = new WeakSet<object>();

/** Whether `value` is a state {@link cloneSealed} made and froze (nothing in it can change). */
export function isSealed(value: unknown): boolean {
  return value !== null && typeof value === "object" && sealed.has(value);
}

/**
 * A deep copy of plain data, frozen all through (objects and arrays; byte arrays are shared and
 * never changed in place, as in {@link clonePlain}), registered as sealed ({@link isSealed}) when
 * nothing in it escapes freezing: a `Map`, `Set`, `Date` or other object (which `Object.freeze`
 * does not keep from changing) leaves the copy unsealed, for `restore` to copy at once as before.
 * A copy of it with {@link clonePlain} is the same data as a `clonePlain` of the original.
 * @example isSealed(cloneSealed({ runs: {} })) // true
 */
export function cloneSealed<T>(value: T): T {
  const escapes = { found: false };
  const copy = freezeCopy(value, escapes);
  if (!escapes.found && copy !== null && typeof copy === "object") sealed.add(copy);
  return copy;
}

function freezeCopy<T>(value: T, escapes: { found: boolean }): T {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = freezeCopy(value[i], escapes);
    return Object.freeze(out) as T;
  }
  if (ArrayBuffer.isView(value)) return value;
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype === Object.prototype || prototype === null) {
    const out: Record<string, unknown> = prototype === null ? Object.create(null) : {};
    for (const key of Object.keys(value)) setOwn(out, key, freezeCopy((value as Record<string, unknown>)[key], escapes));
    return Object.freeze(out) as T;
  }
  escapes.found = true;
  return clonePlain(value);
}
