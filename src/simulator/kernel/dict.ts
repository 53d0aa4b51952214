/**
 * Stored collections keyed by names a client chooses. The real services take any name: a role, a
 * policy, a mount, a namespace or a token may be called `constructor` or `__proto__`. A plain
 * object literal would answer such a key with an inherited member of `Object.prototype` (and
 * `o["__proto__"] = x` would change its prototype), so every collection is a null-prototype object:
 * a lookup finds only what was stored, and `__proto__` is an ordinary key.
 *
 * The {@link Dict} type carries a brand that an object literal does not have, so the compiler
 * refuses `{}` (or `Object.fromEntries(...)`) where a collection is declared: build them with
 * {@link dict}. Snapshots and clones keep the null prototype (`clonePlain`).
 */

declare const DICT: unique symbol;

/** A stored collection by client-chosen key: a null-prototype object (the simulator builds it with its `dict()` helper; read it as a record). */
export type Dict<T> = { [key: string]: T } & { readonly [DICT]: true };

/**
 * A new collection, empty or holding `entries` (pairs, or the own enumerable properties of an
 * object; a `__proto__` key is stored as an ordinary entry).
 * @example
 * const roles = dict<Role>();
 * roles["constructor"] = role; // an ordinary entry
 * dict([["a", 1]])["toString"]; // undefined
 */
export function dict<T>(entries?: Iterable<readonly [string, T]> | Readonly<Record<string, T>>): Dict<T> {
  const out = Object.create(null) as Dict<T>;
  if (entries === undefined) return out;
  const pairs = Symbol.iterator in entries ? (entries as Iterable<readonly [string, T]>) : Object.entries(entries as Record<string, T>);
  for (const [key, value] of pairs) out[key] = value;
  return out;
}

/**
 * The entries of a collection as a new collection, each value mapped (the `Object.fromEntries`
 * of collections).
 * @example const names = mapDict(roles, (role) => role.name);
 */
export function mapDict<T, U>(source: Readonly<Record<string, T>>, map: (value: T, key: string) => U): Dict<U> {
  const out = dict<U>();
  for (const key of Object.keys(source)) out[key] = map(source[key] as T, key);
  return out;
}

/**
 * Stores `value` under `key` as an own, enumerable property, whatever the key: `record["__proto__"]
 * = value` on an object with a prototype would replace the prototype instead. For copies into
 * objects that have one (header maps built with `{}`, clones of plain objects).
 * @example setOwn(headers, "__proto__", "x"); Object.keys(headers) // ["__proto__"]
 */
export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  if (key === "__proto__") Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
  else record[key] = value;
}
