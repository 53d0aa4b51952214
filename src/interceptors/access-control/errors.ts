/**
 * The one place the access-control service turns errors into answers: plain text (not JSON) with
 * the real service's status codes (FIDELITY.md "Access control"):
 * 400 request-shape errors, 403 `Permission denied...` and `ACL not found`, 404 missing token or
 * rule on read, 405 wrong method, and 500 for semantic validation failures (the real service's
 * choice; clients that retry on 5xx depend on it).
 */
import { isDomainError, type DomainErrorCode } from "../../simulator/kernel/errors.js";
import type { SimRequest, SimResponse } from "../http.js";

const STATUS: Readonly<Record<DomainErrorCode, number>> = {
  malformed: 400,
  unauthenticated: 403,
  forbidden: 403,
  acl_not_found: 403,
  not_found: 404,
  unsupported: 405,
  invalid: 500,
  conflict: 500,
  precondition_failed: 500,
  internal: 500,
  unavailable: 503,
};

/** A plain-text answer. */
export function text(status: number, body: string, headers: Record<string, string> = {}): SimResponse {
  return { status, headers: { "content-type": "text/plain; charset=utf-8", ...headers }, body };
}

/** Turns a thrown error into the service's answer. */
export function accessControlErrorResponse(error: unknown, _request?: SimRequest): SimResponse {
  if (isDomainError(error)) return text(error.status ?? STATUS[error.code], error.detail);
  const message = error instanceof Error ? error.message : String(error);
  return text(500, message);
}

/**
 * The answer for a path under the service that no route serves: 405 when the path exists for
 * another method (with the real router's `Allow` header, e.g. `OPTIONS,GET,PUT,DELETE`, when
 * `allow` is given), else 404 like the real service's router. The nearest routes go in a header.
 */
export function accessControlNoRoute(
  request: SimRequest,
  nearest: readonly string[],
  methodMismatch: boolean,
  allow: readonly string[] = [],
): SimResponse {
  const headers: Record<string, string> = nearest.length > 0 ? { "x-infra-doubles-nearest": nearest.join("; ") } : {};
  if (!methodMismatch) return text(404, "404 page not found\n", headers);
  if (allow.length > 0) headers.allow = allow.join(",");
  return text(405, `method ${request.method} not allowed`, headers);
}
