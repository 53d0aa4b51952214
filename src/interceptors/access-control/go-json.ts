/**
 * Request bodies decoded the way the real (Go) service decodes them (`encoding/json` with
 * `DisallowUnknownFields`): field names match case-insensitively, `null` is ignored, a key that
 * names no field of the Go struct is an error (`json: unknown field "Bogus"`), a value of the wrong
 * JSON type is an error worded like Go's (`json: cannot unmarshal number into Go struct field
 * ACLToken.Description of type string`), fields are checked in document order so the first bad
 * key is the one reported, and an empty body is `EOF`.
 */
import { DomainError } from "../../simulator/kernel/errors.js";
import { GoDurationError, parseGoDurationStrict } from "../../simulator/kernel/go-duration.js";
import { GO_MAX_JSON_DEPTH, goJsonSyntaxMessage, jsonDepthExceeds } from "../go-json-syntax.js";
import { ACCESS_CONTROL } from "../../simulator/access-control/state.js";
import { goQuote } from "../../simulator/access-control/selector/go-string.js";

/** Reads one field of a struct (and so checks its JSON type); the value is what the decoder keeps. */
export type FieldReader<T> = (body: GoObject, field: string) => T;

/** The fields of a Go struct, by their Go names, each with its reader (`undefined`: not a field). */
export type FieldReaders = Readonly<Record<string, FieldReader<unknown> | undefined>>;

/** What {@link GoObject.decode} returns for `R`: each field's value, absent when not in the body. */
export type Decoded<R extends FieldReaders> = {
  -readonly [K in keyof R]?: R[K] extends FieldReader<infer T> | undefined ? Exclude<T, undefined> : never;
};

/** Options of {@link GoObject.parse}. */
export interface GoParseOptions {
  /** An empty body decodes as `{}` instead of failing with `EOF`. */
  readonly allowEmpty?: boolean;
  /**
   * Rewords the unknown-field message for `key` (the real service adds a note to an unknown
   * `Namespace` when namespaces are off). Applies to nested objects too.
   */
  readonly rewordUnknown?: (message: string, key: string) => string;
}

/**
 * Go's message for a `time.Time` field given a JSON value other than a string.
 * @example `Token decoding failed: ${GO_TIME_NOT_A_STRING}` // the 400 for {"ExpirationTime": 5}
 */
export const GO_TIME_NOT_A_STRING = "Time.UnmarshalJSON: input is not a JSON string";

/** A decoded JSON object with Go-style field lookup. */
export class GoObject {
  private constructor(
    private readonly value: Readonly<Record<string, unknown>>,
    /** Go struct name for error messages, e.g. `ACLToken`, or a path like `ACLToken.Policies`. */
    readonly struct: string,
    private readonly fail: (message: string) => DomainError,
    private readonly options: GoParseOptions = {},
  ) {}

  /**
   * Parses `text` as a JSON object.
   * @throws {DomainError} from `fail` with Go's wording for syntax errors and non-objects.
   */
  static parse(text: string, struct: string, fail: (message: string) => DomainError, options: GoParseOptions = {}): GoObject {
    if (text.trim() === "") {
      if (options.allowEmpty === true) return new GoObject({}, struct, fail, options);
      throw fail("EOF");
    }
    // Go's decoder refuses nesting beyond 10,000 levels, valid or not; checked before anything
    // recurses over the body.
    if (jsonDepthExceeds(text, GO_MAX_JSON_DEPTH)) throw fail("exceeded max depth");
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw fail(goJsonSyntaxMessage(text, error));
    }
    if (parsed === null) return new GoObject({}, struct, fail, options);
    if (typeof parsed !== "object" || Array.isArray(parsed)) {
      throw fail(`json: cannot unmarshal ${jsonType(parsed)} into Go value of type structs.${struct}`);
    }
    return new GoObject(parsed as Record<string, unknown>, struct, fail, options);
  }

  /**
   * Decodes the struct: every key of the object, in document order, must name one of `readers`'
   * fields (exactly, else case-insensitively, like Go), and is read by its reader (which checks its
   * type). Fields absent from the body are left out of the result.
   * @throws {DomainError} from `fail`: `json: unknown field "<key>"`, or the reader's type error,
   * whichever comes first in the body.
   */
  decode<R extends FieldReaders>(readers: R): Decoded<R> {
    const names = Object.keys(readers).filter((name) => readers[name] !== undefined);
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(this.value)) {
      const lower = key.toLowerCase();
      const field = names.includes(key) ? key : names.find((n) => n.toLowerCase() === lower);
      const reader = field === undefined ? undefined : readers[field];
      if (field === undefined || reader === undefined) {
        const message = `json: unknown field ${goQuote(key)}`;
        throw this.fail(this.options.rewordUnknown ? this.options.rewordUnknown(message, key) : message);
      }
      const value = reader(this, field);
      if (value !== undefined) out[field] = value;
    }
    return out as Decoded<R>;
  }

  /** The raw value of `field` (exact name first, then case-insensitive), `undefined` for absent or null. */
  raw(field: string): unknown {
    if (Object.hasOwn(this.value, field)) return this.value[field] ?? undefined;
    const lower = field.toLowerCase();
    const key = Object.keys(this.value).find((k) => k.toLowerCase() === lower);
    return key === undefined ? undefined : (this.value[key] ?? undefined);
  }

  private mismatch(field: string, value: unknown, goType: string): DomainError {
    return this.fail(goUnmarshalMessage(value, this.struct, field, goType));
  }

  /** A string field. */
  string(field: string): string | undefined {
    const value = this.raw(field);
    if (value === undefined) return undefined;
    if (typeof value !== "string") throw this.mismatch(field, value, "string");
    return value;
  }

  /** An unsigned integer field (Go `uint64`), e.g. `CreateIndex`. */
  uint(field: string): number | undefined {
    const value = this.raw(field);
    if (value === undefined) return undefined;
    if (typeof value !== "number") throw this.mismatch(field, value, "uint64");
    if (!Number.isInteger(value) || value < 0) {
      throw this.fail(`json: cannot unmarshal number ${JSON.stringify(value)} into Go struct field ${this.struct}.${field} of type uint64`);
    }
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
      return [decode(new GoObject(item as Record<string, unknown>, `${this.struct}.${field}`, this.fail, this.options))];
    });
  }

  /**
   * A Go `time.Time` field: an RFC 3339 string (fractions beyond milliseconds are dropped).
   * @returns ms since the epoch.
   */
  time(field: string): number | undefined {
    const value = this.raw(field);
    if (value === undefined) return undefined;
    if (typeof value !== "string") throw this.fail(GO_TIME_NOT_A_STRING);
    const ms = parseRfc3339(value);
    if (ms === undefined) {
      throw this.fail(`parsing time "\\"${value}\\"" as "\\"2006-01-02T15:04:05Z07:00\\"": cannot parse "${value}" as RFC 3339`);
    }
    return ms;
  }
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** Parses an RFC 3339 timestamp to ms since the epoch, or `undefined` when it is not one. */
export function parseRfc3339(text: string): number | undefined {
  const match = RFC3339.exec(text);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s, fraction, zone] = match as unknown as string[];
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > 31 || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return undefined;
  // setUTCFullYear, not Date.UTC: years 0-99 must not become 1900-1999.
  const date = new Date(0);
  date.setUTCFullYear(Number(y), month - 1, day);
  date.setUTCHours(Number(h), Number(mi), Number(s), 0);
  const base = date.getTime();
  if (date.getUTCDate() !== day) return undefined;
  const ms = fraction ? Math.floor(Number(`0${fraction}`) * 1000) : 0;
  let offset = 0;
  if (zone && zone !== "Z") {
    const sign = zone.startsWith("-") ? -1 : 1;
    const hours = Number(zone.slice(1, 3));
    const minutes = Number(zone.slice(4, 6));
    if (hours > 23 || minutes > 59) return undefined;
    offset = sign * (hours * 60 + minutes) * 60_000;
  }
  return base + ms - offset;
}

/**
 * Parses a Go duration string (`60s`, `5m`, `1h30m`, `-2s`) to milliseconds: Go's
 * `time.ParseDuration` (the kernel's {@link parseGoDurationStrict}), for `ExpirationTTL` and the
 * blocking-query `wait`.
 * @returns milliseconds (possibly fractional), or `undefined` when the text is not a Go duration
 *   (including one longer than Go's longest, 2^63 - 1 ns).
 * @example parseGoDuration("1h30m") // 5_400_000; parseGoDuration("10") // undefined
 */
export function parseGoDuration(text: string): number | undefined {
  try {
    return parseGoDurationStrict(text);
  } catch (error) {
    if (error instanceof GoDurationError) return undefined;
    throw error;
  }
}

/**
 * Go's message for a JSON value of the wrong type in a struct field (shared by the decoder and the
 * testing kit's labels).
 * @example goUnmarshalMessage(1, "ACLToken", "Description", "string") // "json: cannot unmarshal number into Go struct field ACLToken.Description of type string"
 */
export function goUnmarshalMessage(value: unknown, struct: string, field: string, goType: string): string {
  return `json: cannot unmarshal ${jsonType(value)} into Go struct field ${struct}.${field} of type ${goType}`;
}

/** Go's name of a JSON value's type in unmarshal errors. */
function jsonType(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (value === null) return "null";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "object") return "object";
  return typeof value;
}

/** A 400 error builder with the endpoint's decoding prefix, e.g. `Token decoding failed`. */
export function decodeFailure(operation: string, prefix: string): (message: string) => DomainError {
  return (message) =>
    new DomainError({ code: "malformed", service: ACCESS_CONTROL, operation, message: `${prefix}: ${message}` });
}
