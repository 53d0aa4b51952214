/**
 * Request fields of the cloud engine, decoded like the real service's field types (strings,
 * integers, durations in seconds, comma-separated string lists, key-value pairs). A value that
 * cannot be converted is a 400 `Field validation failed: error converting input <v> for field "<f>": <why>`.
 * Absent fields and JSON `null` read as "not supplied" (`undefined`).
 *
 * FIDELITY.md "Secrets" (400 for user errors).
 */
import { badRequest } from "../../../simulator/secrets/errors.js";
import { GoDurationError, goParseInt64, parseDurationSeconds } from "../../../simulator/secrets/cloud/go-duration.js";
import { goQuote, goRequestValue } from "../../../simulator/secrets/cloud/go-format.js";

type Data = Readonly<Record<string, unknown>>;

function goTypeOf(value: unknown): string {
  if (Array.isArray(value)) return "[]interface {}";
  if (value !== null && typeof value === "object") return "map[string]interface {}";
  if (typeof value === "number") return "json.Number";
  if (typeof value === "boolean") return "bool";
  return "string";
}

function conversionError(field: string, value: unknown, why: string): ReturnType<typeof badRequest> {
  return badRequest("validate fields", `Field validation failed: error converting input ${goRequestValue(value)} for field ${JSON.stringify(field)}: ${why}`);
}

function unconvertible(field: string, value: unknown, type: string): ReturnType<typeof badRequest> {
  return conversionError(field, value, `'' expected type '${type}', got unconvertible type '${goTypeOf(value)}', value: '${goRequestValue(value)}'`);
}

/** Weak conversion of a scalar to a string (booleans become `1`/`0`), or undefined for containers. */
function weakString(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number") return String(value);
  if (typeof value === "boolean") return value ? "1" : "0";
  return undefined;
}

/**
 * A string field.
 * @example stringParam({ region: "eu-west-1" }, "region") // "eu-west-1"
 */
export function stringParam(data: Data, field: string): string | undefined {
  const value = data[field];
  if (value === undefined || value === null) return undefined;
  const text = weakString(value);
  if (text === undefined) throw unconvertible(field, value, "string");
  return text;
}

/**
 * An integer field (JSON integers, integer strings, booleans as 1/0), within Go's int64 range.
 * @throws {DomainError} 400 `Field validation failed: ...` for anything else, e.g.
 *   `cannot parse '' as int: strconv.ParseInt: parsing "99999999999999999999": value out of range`.
 * @example intParam({ max_retries: "3" }, "max_retries") // 3
 */
export function intParam(data: Data, field: string): number | undefined {
  const value = data[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "number" || typeof value === "string") {
    const text = String(value).trim();
    if (/^[+-]?\d+$/.test(text)) {
      try {
        return Number(goParseInt64(text));
      } catch (error) {
        if (error instanceof GoDurationError) throw conversionError(field, value, `cannot parse '' as int: ${error.message}`);
        throw error;
      }
    }
    throw conversionError(field, value, `cannot parse '' as int: strconv.ParseInt: parsing ${goQuote(text)}: invalid syntax`);
  }
  throw unconvertible(field, value, "int");
}

/**
 * A duration-in-seconds field: seconds as a number or string, `<n>d`, or a Go duration (`"1h"`).
 * @example durationSecondsParam({ ttl: "1h" }, "ttl") // 3600
 */
export function durationSecondsParam(data: Data, field: string): number | undefined {
  const value = data[field];
  if (value === undefined || value === null) return undefined;
  try {
    return parseDurationSeconds(value);
  } catch (error) {
    if (error instanceof GoDurationError) throw conversionError(field, value, error.message);
    throw error;
  }
}

/**
 * A list of strings: a JSON array, or a comma-separated string (items trimmed).
 * @example commaStringListParam({ iam_groups: "a, b" }, "iam_groups") // ["a", "b"]
 */
export function commaStringListParam(data: Data, field: string): string[] | undefined {
  const value = data[field];
  if (value === undefined || value === null) return undefined;
  if (value === "") return [];
  const items = typeof value === "string" ? value.split(",") : Array.isArray(value) ? value : [value];
  return items.map((item) => {
    const text = weakString(item);
    if (text === undefined) throw unconvertible(field, value, "string");
    return text.trim();
  });
}

/**
 * Key-value pairs: a JSON object, or `key=value` strings (a list, or one string).
 * @example keyValueParam({ iam_tags: ["team=infra"] }, "iam_tags") // { team: "infra" }
 */
export function keyValueParam(data: Data, field: string): Record<string, string> | undefined {
  const value = data[field];
  if (value === undefined || value === null) return undefined;
  const out: Record<string, string> = {};
  if (typeof value === "object" && !Array.isArray(value)) {
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
      const text = item === null ? "" : weakString(item);
      if (text === undefined) throw unconvertible(field, value, "map[string]string");
      out[key] = text;
    }
    return out;
  }
  const items = Array.isArray(value) ? value : [value];
  for (const item of items) {
    const text = weakString(item);
    if (text === undefined) throw unconvertible(field, value, "[]string");
    const at = text.indexOf("=");
    if (at <= 0) throw conversionError(field, value, `invalid key pair ${goQuote(text)}`);
    out[text.slice(0, at)] = text.slice(at + 1);
  }
  return out;
}

/**
 * How a cloud engine field is read: `string`, `int`, `duration` (seconds), `comma-list` (a list
 * of strings, or one comma-separated string) or `key-value` (an object, or `key=value` strings).
 */
export type CloudFieldKind = "string" | "int" | "duration" | "comma-list" | "key-value";

/** One request field of a cloud engine endpoint: its wire name, the input member it becomes, and its kind. */
export interface CloudFieldRule {
  readonly field: string;
  readonly input: string;
  readonly kind: CloudFieldKind;
}

const cloudField = (field: string, input: string, kind: CloudFieldKind): CloudFieldRule => Object.freeze({ field, input, kind });

/**
 * `POST <mount>/roles/:name`: the role parameters (spec "Cloud-account engine", role parameters and
 * the legacy `policy` / `arn`). The route reads bodies through this table, and the testing kit
 * generates bodies from it.
 * @example CLOUD_ROLE_FIELDS.find((f) => f.field === "iam_tags")?.kind // "key-value"
 */
export const CLOUD_ROLE_FIELDS: readonly CloudFieldRule[] = Object.freeze([
  cloudField("credential_type", "credentialType", "string"),
  cloudField("role_arns", "roleArns", "comma-list"),
  cloudField("policy_arns", "policyArns", "comma-list"),
  cloudField("policy_document", "policyDocument", "string"),
  cloudField("iam_groups", "iamGroups", "comma-list"),
  cloudField("iam_tags", "iamTags", "key-value"),
  cloudField("default_sts_ttl", "defaultStsTtl", "duration"),
  cloudField("max_sts_ttl", "maxStsTtl", "duration"),
  cloudField("user_path", "userPath", "string"),
  cloudField("permissions_boundary_arn", "permissionsBoundaryArn", "string"),
  cloudField("policy", "policy", "string"),
  cloudField("arn", "arn", "string"),
]);

/**
 * `POST <mount>/static-roles/:name`: `username` and `rotation_period` (seconds or a Go duration).
 * @example CLOUD_STATIC_ROLE_FIELDS.map((f) => f.field) // ["username", "rotation_period"]
 */
export const CLOUD_STATIC_ROLE_FIELDS: readonly CloudFieldRule[] = Object.freeze([
  cloudField("username", "username", "string"),
  cloudField("rotation_period", "rotationPeriod", "duration"),
]);

/**
 * Reads every field of `rules` into its input member, in table order (the first bad one is the
 * one reported); fields not supplied are left out.
 * @throws {DomainError} 400 `Field validation failed: ...` as the field kind's reader does.
 * @example readCloudFields({ username: "app", rotation_period: "1h" }, CLOUD_STATIC_ROLE_FIELDS) // { username: "app", rotationPeriod: 3600 }
 */
export function readCloudFields(data: Data, rules: readonly CloudFieldRule[]): Record<string, unknown> {
  const readers: Readonly<Record<CloudFieldKind, (d: Data, field: string) => unknown>> = {
    string: stringParam,
    int: intParam,
    duration: durationSecondsParam,
    "comma-list": commaStringListParam,
    "key-value": keyValueParam,
  };
  const out: Record<string, unknown> = {};
  for (const { field, input, kind } of rules) {
    const value = readers[kind](data, field);
    if (value !== undefined) out[input] = value;
  }
  return out;
}
