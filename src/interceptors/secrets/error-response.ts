/**
 * The one place the secrets service turns errors into responses: `{"errors":[...]}` with the real
 * status codes (FIDELITY.md "Secrets"): 400 user error, 403 `permission denied`, 404 `{"errors":[]}`
 * for a missing path, 405 unsupported operation, 503 sealed, 500 internal.
 */
import { isDomainError, type DomainError } from "../../simulator/kernel/errors.js";
import { json, type SimRequest, type SimResponse } from "../http.js";

const STATUS: Readonly<Record<DomainError["code"], number>> = Object.freeze({
  invalid: 400,
  malformed: 400,
  conflict: 400,
  precondition_failed: 400,
  acl_not_found: 403,
  unauthenticated: 403,
  forbidden: 403,
  not_found: 404,
  unsupported: 405,
  unavailable: 503,
  internal: 500,
});

/** The HTTP status of a secrets-service domain error. */
export function secretsStatus(error: DomainError): number {
  return error.status ?? STATUS[error.code];
}

/**
 * `{"errors":[...]}` for a domain error (an empty list when the error has no message, like a read
 * of a missing path). Errors other than domain errors are rethrown (the handler reports them as
 * library bugs).
 */
export function secretsErrorResponse(error: unknown, _request?: SimRequest): SimResponse {
  if (!isDomainError(error)) throw error;
  const status = secretsStatus(error);
  const messages = error.code === "forbidden" || error.code === "unauthenticated" ? ["permission denied"] : error.detail === "" ? [] : [error.detail];
  return json(status, { errors: messages });
}

/** 404 for a path no mount or system route owns (the real `no handler for route` answer). */
export function noHandlerResponse(path: string): SimResponse {
  return json(404, { errors: [`no handler for route "${path}". route entry not found.`] });
}
