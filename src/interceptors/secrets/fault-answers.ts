/**
 * The secrets service's own error answers that a fault can give, from its error writer
 * (`{"errors":[...]}`) and its health endpoint: a sealed node (503), a standby or performance
 * standby (429 / 473 from `sys/health`), an index not yet replicated (412), an internal error
 * (500), a rate-limit quota (429).
 */
import type { FaultAnswer } from "../faults.js";
import { json, type SimRequest } from "../http.js";
import { secretsError } from "../../simulator/secrets/errors.js";
import { secretsErrorResponse } from "./error-response.js";
import { healthResponse } from "./health-route.js";

/** Whether a request is for `sys/health` (root namespace), under any base path. */
function isHealth(request: SimRequest): boolean {
  return /\/sys\/health\/*$/.test(request.url.pathname);
}

/** `{"errors":[message]}` with the status, through the service's error writer. */
function errors(request: SimRequest, code: "unavailable" | "internal" | "precondition_failed", status: number, message: string) {
  return secretsErrorResponse(secretsError(code, `${request.method} ${request.url.pathname}`, message, { status }), request);
}

/**
 * - `sealed`: 503 `{"errors":["Vault is sealed"]}`; on `sys/health`, the health answer of a
 *   sealed node (503 unless `sealedcode` says otherwise).
 * - `standby`, `performance-standby`: on `sys/health` only (a standby forwards every other
 *   request to the active node): the health answer of that node (429 unless `standbyok`; 473
 *   unless `perfstandbyok`).
 * - `index-not-replicated`: 412 `{"errors":["required index state not present"]}` (a request
 *   carrying an index this node has not replicated yet).
 * - `internal-error`: 500 `{"errors":["internal error"]}`.
 * - `rate-limited`: 429 `{"errors":["request path \"...\": rate limit quota exceeded"]}` with
 *   `Retry-After` (whole seconds).
 */
export const SECRETS_FAULT_ANSWERS: Readonly<Record<string, FaultAnswer>> = Object.freeze({
  sealed: {
    status: 503,
    description: "the node is sealed (503 Vault is sealed; sys/health answers as a sealed node)",
    respond: (request, _options, sim) =>
      isHealth(request) ? healthResponse(sim, request, "", "sealed") : errors(request, "unavailable", 503, "Vault is sealed"),
  },
  standby: {
    status: 429,
    description: "sys/health on an unsealed standby node (429 unless standbyok)",
    where: "GET or HEAD /sys/health",
    appliesTo: isHealth,
    respond: (request, _options, sim) => healthResponse(sim, request, "", "standby"),
  },
  "performance-standby": {
    status: 473,
    description: "sys/health on a performance standby node (473 unless perfstandbyok)",
    where: "GET or HEAD /sys/health",
    appliesTo: isHealth,
    respond: (request, _options, sim) => healthResponse(sim, request, "", "performance-standby"),
  },
  "index-not-replicated": {
    status: 412,
    description: "the node has not replicated the index the request requires (412)",
    respond: (request) => errors(request, "precondition_failed", 412, "required index state not present"),
  },
  "internal-error": {
    status: 500,
    description: "internal error (500)",
    respond: (request) => errors(request, "internal", 500, "internal error"),
  },
  "rate-limited": {
    status: 429,
    description: "a rate-limit quota refused the request (429 with Retry-After)",
    respond: (request, options) => {
      const path = request.url.pathname.replace(/^\/v1\//, "");
      const response = json(429, { errors: [`request path ${JSON.stringify(path)}: rate limit quota exceeded`] });
      return { ...response, headers: { ...response.headers, "retry-after": String(Math.ceil((options.retryAfterMs ?? 1000) / 1000)) } };
    },
  },
});
