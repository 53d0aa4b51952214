/**
 * Domain errors of the access-control service, in the real service's own words (FIDELITY.md
 * "Access control"). The interceptor turns them into plain-text answers: `invalid` and `conflict`
 * become the 500 the real service answers for semantic validation failures, `malformed` a 400,
 * `not_found` a 404, `forbidden`/`unauthenticated`/`acl_not_found` a 403.
 */
import { DomainError, type DomainErrorCode } from "../kernel/errors.js";
import { ACCESS_CONTROL } from "./state.js";

/** Builds an access-control {@link DomainError}. */
export function aclError(
  code: DomainErrorCode,
  operation: string,
  message: string,
  extra: { resource?: string } = {},
): DomainError {
  return new DomainError({ code, service: ACCESS_CONTROL, operation, message, ...extra });
}

/** A rule of the service refused the input (the real service answers 500 with the message). */
export function invalid(operation: string, message: string, resource?: string): DomainError {
  return aclError("invalid", operation, message, resource === undefined ? {} : { resource });
}

/** The request itself is malformed (400). */
export function malformed(operation: string, message: string): DomainError {
  return aclError("malformed", operation, message);
}

/** `ACL not found`: an unknown or expired token was presented (403). */
export function aclNotFound(operation: string, message = "ACL not found"): DomainError {
  return aclError("unauthenticated", operation, message);
}
