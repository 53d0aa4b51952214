/**
 * Domain errors of the secrets service, worded like the real service (FIDELITY.md "Secrets").
 * The interceptor turns them into `{"errors":[...]}` bodies in one place (`error-response.ts`).
 */
import { DomainError, type DomainErrorCode } from "../kernel/errors.js";

/** The simulator service name of the secrets service. */
export const SECRETS = "secrets";

/**
 * A secrets-service domain error.
 * @param code - the kind of failure (`invalid` -> 400, `forbidden` -> 403, `not_found` -> 404, ...).
 * @param operation - what failed, e.g. `write managed key`.
 * @param message - the real service's wording (the string that lands in `errors`).
 * @param extra - `status` is for src/interceptors only (wire-level refusals); the simulator never sets it.
 * @example throw secretsError("invalid", "write role", "missing ip");
 */
export function secretsError(
  code: DomainErrorCode,
  operation: string,
  message: string,
  extra: { resource?: string; state?: string; status?: number } = {},
): DomainError {
  return new DomainError({ code, service: SECRETS, operation, message, ...extra });
}

/** 403 `permission denied`: a missing, unknown or expired token, or a policy that does not grant the capability. */
export function permissionDenied(operation: string, resource?: string): DomainError {
  return secretsError("forbidden", operation, "permission denied", resource === undefined ? {} : { resource });
}

/** 404 with an empty `errors` list: a read of a missing path (the real service's answer). */
export function missing(operation: string, resource?: string): DomainError {
  return secretsError("not_found", operation, "", resource === undefined ? {} : { resource });
}

/** 400 with the given message: a user error (validation, unknown reference). */
export function badRequest(operation: string, message: string): DomainError {
  return secretsError("invalid", operation, message);
}
