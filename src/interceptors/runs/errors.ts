/**
 * The one place the run orchestration service turns errors into JSON:API error documents
 * (FIDELITY.md "Run orchestration"): `{"errors":[{"status":"404","title":"not found"}]}`, `status`
 * as a string; 401 `unauthorized`; 404 `not found` (also for refusals: the service hides
 * existence); 409 `transition not allowed` with a `detail`; 422 `invalid attribute` with `detail`
 * and `source.pointer`.
 */
import type { SimRequest, SimResponse } from "../http.js";
import { isDomainError } from "../../simulator/kernel/errors.js";
import { document } from "./json-api.js";

const STATUS_BY_CODE: Readonly<Record<string, number>> = Object.freeze({
  unauthenticated: 401,
  forbidden: 404,
  not_found: 404,
  conflict: 409,
  // Force-execute preconditions (the spec's 403).
  precondition_failed: 403,
  acl_not_found: 404,
  invalid: 422,
  malformed: 422,
  unsupported: 404,
  unavailable: 503,
  internal: 500,
});

const TITLE_BY_STATUS: Readonly<Record<number, string>> = Object.freeze({
  400: "bad request",
  401: "unauthorized",
  403: "forbidden",
  404: "not found",
  409: "transition not allowed",
  422: "invalid attribute",
  500: "internal server error",
  503: "service unavailable",
});

/** One JSON:API error object. */
export interface ErrorObject {
  readonly status: string;
  readonly title: string;
  readonly detail?: string;
  readonly source?: { readonly pointer: string };
}

/**
 * A JSON:API error document response.
 * @example
 * errorDocument(404, { title: "not found" }) // {"errors":[{"status":"404","title":"not found"}]}
 */
export function errorDocument(status: number, error: Omit<ErrorObject, "status">): SimResponse {
  return document(status, { errors: [{ status: String(status), ...error }] });
}

/**
 * Renders any thrown error. A {@link DomainError} gets its status (explicit, or by code), the
 * title of that status, and for 409/422/400/403 its detail (and pointer); 404 and 401 carry no
 * detail, as the real service's.
 * @example
 * runsErrorResponse(conflict("apply run", "run-abc", "planning", "Run was not paused for confirmation; apply not allowed"), request) // 409
 */
export function runsErrorResponse(error: unknown, _request: SimRequest): SimResponse {
  if (!isDomainError(error)) {
    return errorDocument(500, { title: "internal server error", detail: error instanceof Error ? error.message : String(error) });
  }
  const status = error.status ?? STATUS_BY_CODE[error.code] ?? 500;
  const title = error.title ?? TITLE_BY_STATUS[status] ?? "error";
  if (status === 404 || status === 401) return errorDocument(status, { title });
  return errorDocument(status, {
    title,
    detail: error.detail,
    ...(error.pointer !== undefined ? { source: { pointer: error.pointer } } : {}),
  });
}

/**
 * Requests under the API base that match no route: 404 `not found`, as the real service. The
 * nearest routes go in an `x-infra-doubles-nearest` header (a debugging hint; the body stays faithful).
 * @example
 * runsNoRoute(request, ["GET /runs/:run_id"], false) // 404 not found, nearest routes in x-infra-doubles-nearest
 */
export function runsNoRoute(_request: SimRequest, nearest: readonly string[], _methodMismatch: boolean): SimResponse {
  const response = errorDocument(404, { title: "not found" });
  return { ...response, headers: { ...response.headers, "x-infra-doubles-nearest": nearest.join("; ") } };
}
