/**
 * Request bodies decoded the way the real (Go) service decodes them: field names match
 * case-insensitively, unknown fields and `null` are ignored, a value of the wrong JSON type is an
 * error worded like Go's `encoding/json` (`json: cannot unmarshal number into Go struct field
 * ACLToken.Description of type string`), and an empty body is `EOF`.
 */
import { DomainError } from "../../simulator/kernel/errors.js";
import { ACCESS_CONTROL } from "../../simulator/access-control/state.js";

/** A decoded JSON object with Go-style field lookup. */
export class GoObject {
  private constructor(
    private readonly value: Readonly<Record<string, unknown>>,
    /** Go struct name for error messages, e.g. `ACLToken`, or a path like `ACLToken.Policies`. */
    readonly struct: string,
    private readonly fail: (message: string) => DomainError,
  ) {}

  /**
   * Parses `text` as a JSON object.
   * @param allowEmpty - an empty body decodes as `{}` instead of failing with `EOF`.
   * @throws {DomainError} from `fail` with Go's wording for syntax errors and non-objects.
   */
  static parse(text: string, struct: string, fail: (message: string) => DomainError, allowEmpty = false): GoObject {
    if (text.trim() === "") {
      if (allowEmpty) return new GoObject({}, struct, fail);
      throw fail("EOF");
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw fail(syntaxMessage(text, error));
    }
    if (parsed === null) return new GoObject({}, struct, fail);
    if (typeof parsed !== "object" || Array.isArray(parsed)) {
      throw fail(`json: cannot unmarshal ${jsonType(parsed)} into Go value of type structs.${struct}`);
    }
    return new GoObject(parsed as Record<string, unknown>, struct, fail);
  }

  /** The raw value of `field` (exact name first, then case-insensitive), `undefined` for absent or null. */
  raw(field: string): unknown {
    if (Object.hasOwn(this.value, field)) return this.value[field] ?? undefined;
    const lower = field.toLowerCase();
    const key = Object.keys(this.value).find((k) => k.toLowerCase() === lower);
    return key === undefined ? undefined : (this.value[key] ?? undefined);
  }

  private mismatch(field: string, value: unknown, goType: string): DomainError {
    return this.fail(`json: cannot unmarshal ${jsonType(value)} into Go struct field ${this.struct}.${field} of type ${goType}`);
  }

  /** A string field. */
  string(field: string): string | undefined {
    const value = this.raw(field);
    if (value === undefined) return undefined;
    if (typeof value !== "string") throw this.mismatch(field, value, "string");
    return value;
  }

  /** A boolean field. */
  bool(field: string): boolean | undefined {
    const value = this.raw(field);
    if (value === undefined) return undefined;
    if (typeof value !== "boolean") throw this.mismatch(field, value, "bool");
    return value;
  }

  /** An array of strings. */
  strings(field: string): string[] | undefined {
    const value = this.raw(field);
    if (value === undefined) return undefined;
    if (!Array.isArray(value)) throw this.mismatch(field, value, "[]string");
    return value.map((item) => {
      if (item === null) return "";
      if (typeof item !== "string") throw this.mismatch(field, item, "string");
      return item;
    });
  }

  /** A map of strings to strings. */
  stringMap(field: string): Record<string, string> | undefined {
    const value = this.raw(field);
    if (value === undefined) return undefined;
    if (typeof value !== "object" || Array.isArray(value)) throw this.mismatch(field, value, "map[string]string");
    const out: Record<string, string> = {};
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      if (item === null) out[key] = "";
      else if (typeof item !== "string") throw this.mismatch(field, item, "string");
      else out[key] = item;
    }
    return out;
  }

  /** An array of objects, each decoded by `decode`. */
  objects<T>(field: string, goType: string, decode: (item: GoObject) => T): T[] | undefined {
    const value = this.raw(field);
    if (value === undefined) return undefined;
    if (!Array.isArray(value)) throw this.mismatch(field, value, `[]*structs.${goType}`);
    return value.flatMap((item) => {
      if (item === null) return [];
      if (typeof item !== "object" || Array.isArray(item)) throw this.mismatch(field, item, `structs.${goType}`);
      return [decode(new GoObject(item as Record<string, unknown>, `${this.struct}.${field}`, this.fail))];
    });
  }

  /**
   * A Go `time.Time` field: an RFC 3339 string (fractions beyond milliseconds are dropped).
   * @returns ms since the epoch.
   */
  time(field: string): number | undefined {
    const value = this.raw(field);
    if (value === undefined) return undefined;
    if (typeof value !== "string") throw this.fail("Time.UnmarshalJSON: input is not a JSON string");
    const ms = parseRfc3339(value);
    if (ms === undefined) {
      throw this.fail(`parsing time "\\"${value}\\"" as "\\"2006-01-02T15:04:05Z07:00\\"": cannot parse "${value}" as RFC 3339`);
    }
    return ms;
  }
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** Parses an RFC 3339 timestamp to ms since the epoch, or `undefined` when it is not one. */
export function parseRfc3339(text: string): number | undefined {
  const match = RFC3339.exec(text);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s, fraction, zone] = match as unknown as string[];
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > 31 || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return undefined;
  const base = Date.UTC(Number(y), month - 1, day, Number(h), Number(mi), Number(s));
  if (new Date(base).getUTCDate() !== day) return undefined;
  const ms = fraction ? Math.floor(Number(`0${fraction}`) * 1000) : 0;
  let offset = 0;
  if (zone && zone.toUpperCase() !== "Z") {
    const sign = zone.startsWith("-") ? -1 : 1;
    offset = sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * 60_000;
  }
  return base + ms - offset;
}

const GO_DURATION = /^[-+]?(0|((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+)$/;

const UNIT_NS: Readonly<Record<string, number>> = { ns: 1, us: 1e3, "µs": 1e3, "μs": 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/**
 * Parses a Go duration string (`60s`, `5m`, `1h30m`, `-2s`) to milliseconds.
 * @returns milliseconds (possibly fractional), or `undefined` when the text is not a Go duration.
 */
export function parseGoDuration(text: string): number | undefined {
  if (!GO_DURATION.test(text)) return undefined;
  const sign = text.startsWith("-") ? -1 : 1;
  const body = text.replace(/^[-+]/, "");
  if (body === "0") return 0;
  let ns = 0;
  for (const part of body.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) {
    ns += Number(part[1]) * (UNIT_NS[part[2] ?? ""] ?? Number.NaN);
  }
  return Number.isFinite(ns) ? (sign * ns) / 1e6 : undefined;
}

/** Go's name of a JSON value's type in unmarshal errors. */
function jsonType(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (value === null) return "null";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "object") return "object";
  return typeof value;
}

function syntaxMessage(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const position = /position (\d+)/.exec(message);
  const at = position ? Number(position[1]) : text.length;
  if (/end of (JSON )?input|Unterminated/i.test(message) || at >= text.trimEnd().length) return "unexpected EOF";
  const ch = text.charAt(at);
  const before = text.slice(0, at).trimEnd().slice(-1);
  const context = before === "{" || (before === "," && /"\s*:/.test(text.slice(0, at)) && !/\[[^\]]*$/.test(text.slice(0, at)))
    ? "looking for beginning of object key string"
    : "looking for beginning of value";
  return `invalid character '${ch}' ${context}`;
}

/** A 400 error builder with the endpoint's decoding prefix, e.g. `Token decoding failed`. */
export function decodeFailure(operation: string, prefix: string): (message: string) => DomainError {
  return (message) =>
    new DomainError({ code: "malformed", service: ACCESS_CONTROL, operation, message: `${prefix}: ${message}` });
}
