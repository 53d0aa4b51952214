/**
 * Decoding the SSH engine's request fields the way the real service's field types read JSON:
 * duration-in-seconds fields (`ttl`, `max_ttl`, `not_before_duration`), map fields
 * (`default_extensions`, `critical_options`, ...; a list of maps is merged, values are printed as
 * text) and `allowed_user_key_lengths` (each value an integer, a list of integers, or a string of
 * comma-separated integers).
 *
 * Spec: secrets.md "SSH engine" (role parameters: types); FIDELITY.md "Secrets" (400 for bad input).
 */
import { badRequest } from "../../../simulator/secrets/errors.js";
import { parseDuration } from "../../../simulator/kernel/duration.js";
import { isDomainError } from "../../../simulator/kernel/errors.js";
import { fieldConversionError, integerOf, scalarText } from "../request.js";

type Data = Readonly<Record<string, unknown>>;

/**
 * A duration field in whole seconds (an integer, a numeric string, or a Go duration string with
 * hours as the largest unit), returned in ms. `""` counts as not sent.
 * @throws {DomainError} 400 for anything else or a negative duration.
  * @example durationField({ ttl: "1h" }, "ttl") // 3_600_000
 */
export function durationField(data: Data, field: string): number | undefined {
  const value = data[field];
  if (value === undefined || value === null || value === "") return undefined;
  let ms: number;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw fieldConversionError(field, value, "not a duration");
    ms = value * 1000;
  } else if (typeof value === "string") {
    try {
      ms = parseDuration(value, { largestUnit: "h" });
    } catch (error) {
      if (isDomainError(error)) throw fieldConversionError(field, value, error.detail);
      throw error;
    }
  } else {
    throw fieldConversionError(field, value, "not a duration");
  }
  if (ms < 0) throw fieldConversionError(field, value, "negative durations are not allowed");
  return Math.floor(ms / 1000) * 1000;
}

/**
 * A map-of-strings field: a JSON object, a list of objects (merged, later keys win), or a string
 * holding a JSON object. Values are printed as text (`true`, `1`); `null` values become `""`.
 * @throws {DomainError} 400 for anything else.
  * @example stringMapField({ extensions: [{ "permit-pty": "" }] }, "extensions") // { "permit-pty": "" }
 */
export function stringMapField(data: Data, field: string): Record<string, string> | undefined {
  const value = data[field];
  if (value === undefined || value === null) return undefined;
  const merged = objectOf(field, value);
  const out: Record<string, string> = {};
  for (const [key, item] of Object.entries(merged)) out[key] = textOf(field, value, item);
  return out;
}

/**
 * `allowed_user_key_lengths`: a map from key type to allowed sizes (an integer, a list of integers
 * or numeric strings, or a comma-separated string).
 * @throws {DomainError} 400 `error processing allowed_user_key_lengths: ...` for other values.
  * @example keyLengthsField({ l: { rsa: "2048,4096" } }, "l") // { rsa: [2048, 4096] }
 */
export function keyLengthsField(data: Data, field: string): Record<string, number[]> | undefined {
  const value = data[field];
  if (value === undefined || value === null) return undefined;
  const merged = objectOf(field, value);
  const out: Record<string, number[]> = {};
  for (const [key, item] of Object.entries(merged)) {
    const items = Array.isArray(item) ? item : typeof item === "string" ? item.split(",").map((s) => s.trim()).filter((s) => s !== "") : [item];
    out[key] = items.map((entry) => {
      const parsed = integerOf(entry);
      if (parsed === undefined) throw badRequest("parse field", `error processing ${field}: could not parse ${JSON.stringify(entry)} as an integer`);
      return parsed;
    });
  }
  return out;
}

function objectOf(field: string, value: unknown): Record<string, unknown> {
  if (typeof value === "string") {
    if (value.trim() === "") return {};
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      throw fieldConversionError(field, value, "expected a map");
    }
    return objectOf(field, parsed);
  }
  if (Array.isArray(value)) {
    const merged: Record<string, unknown> = {};
    for (const item of value) {
      if (item === null || typeof item !== "object" || Array.isArray(item)) throw fieldConversionError(field, value, "expected a map");
      Object.assign(merged, item);
    }
    return merged;
  }
  if (typeof value === "object" && value !== null) return value as Record<string, unknown>;
  throw fieldConversionError(field, value, "expected a map");
}

function textOf(field: string, whole: unknown, item: unknown): string {
  if (item === null || item === undefined) return "";
  const text = scalarText(item);
  if (text === undefined) throw fieldConversionError(field, whole, "map values must be strings, numbers or booleans");
  return text;
}
