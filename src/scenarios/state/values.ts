/**
 * Service state as JSON and back. State is plain data (objects, arrays, strings, finite numbers,
 * booleans, null) plus byte arrays, written `{"$bytes": "<base64>"}`. Keys keep the world's order
 * (the order lists answer in), so a document loaded and saved again gives the same bytes.
 * Loaded objects are null-prototype objects, as the simulator's own collections (`dict.ts`).
 */
import { setOwn } from "../../simulator/kernel/dict.js";
import { UsageError } from "../../simulator/kernel/errors.js";
import { refuse, statePointer } from "./errors.js";

/** The key of a byte array written as JSON. */
export const BYTES_KEY = "$bytes";

/**
 * `value` as JSON-ready data: byte arrays as `{"$bytes": base64}`, `undefined` members left out.
 * @throws {UsageError} for anything else that JSON cannot hold (a library bug: state is plain data).
 * @example encodeValue({ a: new Uint8Array([1]) }) // { a: { $bytes: "AQ==" } }
 */
export function encodeValue(value: unknown, path: (string | number)[] = []): unknown {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new UsageError(`state: ${statePointer(path)} holds ${String(value)}, which JSON cannot hold`);
    return value;
  }
  if (Array.isArray(value)) return value.map((item, index) => encodeValue(item, [...path, index]));
  if (value instanceof Uint8Array) return { [BYTES_KEY]: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64") };
  if (typeof value === "object") {
    const prototype = Object.getPrototypeOf(value) as unknown;
    if (prototype === Object.prototype || prototype === null) {
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(value)) {
        const member = (value as Record<string, unknown>)[key];
        if (member !== undefined) setOwn(out, key, encodeValue(member, [...path, key]));
      }
      return out;
    }
  }
  throw new UsageError(`state: ${statePointer(path)} holds a ${typeof value === "object" ? ((value as object).constructor?.name ?? "object") : typeof value}, which a state document cannot hold`);
}

/**
 * JSON data back as state: `{"$bytes": base64}` as a byte array, objects as null-prototype objects.
 * @throws {StateDocumentError} for a `$bytes` value that is not base64.
 */
export function decodeValue(value: unknown, path: (string | number)[] = []): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item, index) => decodeValue(item, [...path, index]));
  const keys = Object.keys(value);
  if (keys.length === 1 && keys[0] === BYTES_KEY) {
    const text = (value as Record<string, unknown>)[BYTES_KEY];
    if (typeof text !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) refuse([...path, BYTES_KEY], "must be base64 bytes");
    return Uint8Array.from(Buffer.from(text, "base64"));
  }
  const out = Object.create(null) as Record<string, unknown>;
  for (const key of keys) setOwn(out, key, decodeValue((value as Record<string, unknown>)[key], [...path, key]));
  return out;
}
