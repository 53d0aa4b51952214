/** The one way this module reports bad input: a DomainError `invalid` of the access-control service. */
import { DomainError } from "../../kernel/errors.js";

/** `operation` e.g. `parse selector`; `message` in the real evaluator's words. */
export function selectorError(operation: string, message: string): DomainError {
  return new DomainError({ code: "invalid", service: "access-control", operation, message });
}
