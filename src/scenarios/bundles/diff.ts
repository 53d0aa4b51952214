/**
 * Differences between two values as JSON-pointer paths with their old and new values: what
 * `infra-doubles replay --diff N` prints of a simulator snapshot, and what the replay prints of two
 * JSON bodies.
 */
import { encodeValue } from "./recorder.js";

/** One difference: the JSON pointer (RFC 6901) and the values on each side (absent: `undefined`). */
export interface Change {
  readonly path: string;
  readonly before: unknown;
  readonly after: unknown;
  /** `added` (absent before), `removed` (absent after) or `changed`. */
  readonly kind: "added" | "removed" | "changed";
}

/**
 * Every difference between `before` and `after`, depth first, object keys and map keys in sorted
 * order (so the list does not depend on insertion order), array items by index.
 * @example diffValues({ a: 1, b: [1] }, { a: 2, b: [1, 2] }) // [{ path: "/a", before: 1, after: 2, kind: "changed" }, { path: "/b/1", before: undefined, after: 2, kind: "added" }]
 */
export function diffValues(before: unknown, after: unknown, path = ""): Change[] {
  const out: Change[] = [];
  walk(before, after, path, out);
  return out;
}

function walk(a: unknown, b: unknown, path: string, out: Change[]): void {
  if (Object.is(a, b)) return;
  const ka = kindOf(a);
  const kb = kindOf(b);
  if (ka !== kb || ka === "leaf" || ka === "bytes" || ka === "date") {
    if (ka === kb && same(a, b)) return;
    out.push({ path, before: a, after: b, kind: a === undefined ? "added" : b === undefined ? "removed" : "changed" });
    return;
  }
  const ea = entriesOf(a);
  const eb = entriesOf(b);
  const keys = [...new Set([...ea.keys(), ...eb.keys()])];
  if (ka !== "array") keys.sort();
  else keys.sort((x, y) => Number(x) - Number(y));
  for (const key of keys) walk(ea.get(key), eb.get(key), `${path}/${escape(key)}`, out);
}

type Kind = "array" | "object" | "map" | "set" | "bytes" | "date" | "leaf";

function kindOf(value: unknown): Kind {
  if (value === null || typeof value !== "object") return "leaf";
  if (Array.isArray(value)) return "array";
  if (ArrayBuffer.isView(value)) return "bytes";
  if (value instanceof Date) return "date";
  if (value instanceof Map) return "map";
  if (value instanceof Set) return "set";
  return "object";
}

function entriesOf(value: unknown): Map<string, unknown> {
  if (Array.isArray(value)) return new Map(value.map((v, i) => [String(i), v]));
  if (value instanceof Map) return new Map([...value].map(([k, v]) => [typeof k === "string" ? k : JSON.stringify(encodeValue(k, "", [])), v]));
  if (value instanceof Set) return new Map([...value].map((v) => [typeof v === "string" ? v : JSON.stringify(encodeValue(v, "", [])), true]));
  return new Map(Object.entries(value as Record<string, unknown>));
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(encodeValue(a, "", [])) === JSON.stringify(encodeValue(b, "", []));
}

function escape(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

/**
 * A value on one line for a diff: JSON (bytes, dates, maps tagged), `(absent)` for `undefined`,
 * cut at `max` characters.
 * @example showValue("planned") // "\"planned\""
 */
export function showValue(value: unknown, max = 200): string {
  if (value === undefined) return "(absent)";
  const text = JSON.stringify(encodeValue(value, "", []));
  return text.length > max ? `${text.slice(0, max)}... (${text.length} characters)` : text;
}

/**
 * Changes as lines `PATH: OLD -> NEW`.
 * @example formatChanges([{ path: "/a", before: 1, after: 2, kind: "changed" }]) // ["/a: 1 -> 2"]
 */
export function formatChanges(changes: readonly Change[]): string[] {
  return changes.map((c) => `${c.path || "/"}: ${showValue(c.before)} -> ${showValue(c.after)}`);
}
