/**
 * The cloud engine's errors, in the secrets service's error kinds: 400 for user errors the real
 * service reports as such, 500 where the real service fails with an internal error (template
 * problems, static role validation, rotation failures), 404 with no message for missing things.
 *
 * FIDELITY.md "Secrets" (error bodies).
 */
import type { DomainError } from "../../kernel/errors.js";
import { missing, secretsError } from "../errors.js";

/**
 * A 400 user error with the real service's message.
 * @example throw cloudBadRequest("issue credentials", `Role "x" not found`)
 */
export function cloudBadRequest(operation: string, message: string, resource?: string): DomainError {
  return secretsError("invalid", operation, message, resource === undefined ? {} : { resource });
}

/**
 * A 500 answer (the real service returns an internal error here).
 * @example throw cloudInternal("rotate root credentials", "no configuration found for config/root")
 */
export function cloudInternal(operation: string, message: string, resource?: string): DomainError {
  return secretsError("internal", operation, message, resource === undefined ? {} : { resource });
}

/**
 * A 404 with an empty `errors` list.
 * @example throw cloudMissing("read role", "deploy")
 */
export function cloudMissing(operation: string, resource?: string): DomainError {
  return missing(operation, resource);
}
