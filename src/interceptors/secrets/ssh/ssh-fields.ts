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
import { FIELD_KIND_REFUSALS, boolField, fieldConversionError, intField, integerOf, scalarText, stringField, stringListField, type SecretsFieldKind } from "../request.js";

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
    if (!Number.isFinite(value)) throw fieldConversionError(field, value, FIELD_KIND_REFUSALS.duration);
    ms = value * 1000;
  } else if (typeof value === "string") {
    try {
      ms = parseDuration(value, { largestUnit: "h" });
    } catch (error) {
      if (isDomainError(error)) throw fieldConversionError(field, value, error.detail);
      throw error;
    }
  } else {
    throw fieldConversionError(field, value, FIELD_KIND_REFUSALS.duration);
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
      throw fieldConversionError(field, value, FIELD_KIND_REFUSALS["string-map"]);
    }
    return objectOf(field, parsed);
  }
  if (Array.isArray(value)) {
    const merged: Record<string, unknown> = {};
    for (const item of value) {
      if (item === null || typeof item !== "object" || Array.isArray(item)) throw fieldConversionError(field, value, FIELD_KIND_REFUSALS["string-map"]);
      Object.assign(merged, item);
    }
    return merged;
  }
  if (typeof value === "object" && value !== null) return value as Record<string, unknown>;
  throw fieldConversionError(field, value, FIELD_KIND_REFUSALS["string-map"]);
}

function textOf(field: string, whole: unknown, item: unknown): string {
  if (item === null || item === undefined) return "";
  const text = scalarText(item);
  if (text === undefined) throw fieldConversionError(field, whole, "map values must be strings, numbers or booleans");
  return text;
}

/** One request field of an SSH endpoint: its wire name, the engine input member, and its kind. */
export interface SshFieldRule {
  /** The wire name, e.g. `key_type`. */
  readonly field: string;
  /** The engine input member, e.g. `keyType`. */
  readonly input: string;
  readonly kind: SecretsFieldKind;
}

const READERS: Readonly<Record<SecretsFieldKind, (data: Data, field: string) => unknown>> = Object.freeze({
  string: stringField,
  int: intField,
  bool: boolField,
  "string-list": stringListField,
  duration: durationField,
  "string-map": stringMapField,
  "key-lengths": keyLengthsField,
});

/**
 * Reads every field of `rules` (in table order: the first bad one is the 400) into its input member.
 * @throws {DomainError} 400 `error converting input ...` for a value its kind cannot read.
 * @example readFields({ username: "ops" }, SSH_CREDS_FIELDS) // { username: "ops", ip: undefined }
 */
export function readFields(data: Data, rules: readonly SshFieldRule[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { field, input, kind } of rules) out[input] = READERS[kind](data, field);
  return out;
}

const rule = (field: string, input: string, kind: SecretsFieldKind): SshFieldRule => Object.freeze({ field, input, kind });

/**
 * `POST <mount>/roles/:name`: the role parameters (spec: secrets.md "SSH engine", role parameters).
 * @example SSH_ROLE_FIELDS.find((r) => r.field === "ttl")?.kind // "duration"
 */
export const SSH_ROLE_FIELDS: readonly SshFieldRule[] = Object.freeze([
  rule("key_type", "keyType", "string"),
  rule("key", "key", "string"),
  rule("admin_user", "adminUser", "string"),
  rule("default_user", "defaultUser", "string"),
  rule("cidr_list", "cidrList", "string"),
  rule("exclude_cidr_list", "excludeCidrList", "string"),
  rule("port", "port", "int"),
  rule("key_bits", "keyBits", "int"),
  rule("install_script", "installScript", "string"),
  rule("allowed_users", "allowedUsers", "string"),
  rule("allowed_users_template", "allowedUsersTemplate", "bool"),
  rule("allowed_domains", "allowedDomains", "string"),
  rule("key_option_specs", "keyOptionSpecs", "string"),
  rule("ttl", "ttlMs", "duration"),
  rule("max_ttl", "maxTtlMs", "duration"),
  rule("allowed_critical_options", "allowedCriticalOptions", "string"),
  rule("allowed_extensions", "allowedExtensions", "string"),
  rule("default_critical_options", "defaultCriticalOptions", "string-map"),
  rule("default_extensions", "defaultExtensions", "string-map"),
  rule("allow_user_certificates", "allowUserCertificates", "bool"),
  rule("allow_host_certificates", "allowHostCertificates", "bool"),
  rule("allow_bare_domains", "allowBareDomains", "bool"),
  rule("allow_subdomains", "allowSubdomains", "bool"),
  rule("allow_user_key_ids", "allowUserKeyIds", "bool"),
  rule("key_id_format", "keyIdFormat", "string"),
  rule("allowed_user_key_lengths", "allowedUserKeyLengths", "key-lengths"),
  rule("algorithm_signer", "algorithmSigner", "string"),
  rule("not_before_duration", "notBeforeDurationMs", "duration"),
]);

/**
 * `POST <mount>/creds/:name`: `username` and `ip`.
 * @example SSH_CREDS_FIELDS.map((r) => r.field) // ["username", "ip"]
 */
export const SSH_CREDS_FIELDS: readonly SshFieldRule[] = Object.freeze([rule("username", "username", "string"), rule("ip", "ip", "string")]);

/**
 * `POST <mount>/verify`: `otp`.
 * @example SSH_VERIFY_FIELDS[0]?.field // "otp"
 */
export const SSH_VERIFY_FIELDS: readonly SshFieldRule[] = Object.freeze([rule("otp", "otp", "string")]);

/**
 * `POST <mount>/sign/:name`: the signing parameters.
 * @example SSH_SIGN_FIELDS.find((r) => r.field === "extensions")?.kind // "string-map"
 */
export const SSH_SIGN_FIELDS: readonly SshFieldRule[] = Object.freeze([
  rule("public_key", "publicKey", "string"),
  rule("ttl", "ttlMs", "duration"),
  rule("valid_principals", "validPrincipals", "string"),
  rule("cert_type", "certType", "string"),
  rule("key_id", "keyId", "string"),
  rule("critical_options", "criticalOptions", "string-map"),
  rule("extensions", "extensions", "string-map"),
]);
