/**
 * Validation rules for identifiers and names of the access-control service: UUID form, the
 * reserved built-in prefix, and the service/node identity name rule.
 *
 * Spec: access-control.md "Token" (name rule for ServiceName and NodeName) and "Limits".
 */
import { RESERVED_ID_PREFIX } from "./state.js";

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const IDENTITY_NAME = /^[a-z0-9]([a-z0-9\-_]*[a-z0-9])?$/;
const ROLE_NAME = /^[A-Za-z0-9\-_]{1,256}$/;
const POLICY_NAME = /^[A-Za-z0-9\-_]{1,128}$/;

/** Longest ServiceName or NodeName (spec Limits). */
export const MAX_IDENTITY_NAME_LENGTH = 256;

/** Whether `value` has the 8-4-4-4-12 hexadecimal UUID form (any version, either case). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** Whether `value` starts with the prefix reserved for built-in ids. */
export function isReservedId(value: string): boolean {
  return value.startsWith(RESERVED_ID_PREFIX);
}

/**
 * The spec's rule for ServiceName and NodeName: at most 256 characters, lowercase alphanumerics,
 * `-` and `_`, starting and ending with a lowercase alphanumeric.
 */
export function isValidIdentityName(name: string): boolean {
  return name.length <= MAX_IDENTITY_NAME_LENGTH && IDENTITY_NAME.test(name);
}

/** Role names: 1 to 256 of letters, digits, `-` and `_`. */
export function isValidRoleName(name: string): boolean {
  return ROLE_NAME.test(name);
}

/** Policy names: 1 to 128 of letters, digits, `-` and `_` (the real service's rule). */
export function isValidPolicyName(name: string): boolean {
  return POLICY_NAME.test(name);
}
