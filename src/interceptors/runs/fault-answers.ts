/**
 * The run orchestration service's own error answers that a fault can give, as JSON:API error
 * documents from its error writer: a 429 rate limit with the headers its clients read, and 5xx
 * errors. See docs/decisions/faults.md for the headers.
 */
import type { FaultAnswer, FaultAnswerOptions } from "../faults.js";
import type { SimResponse } from "../http.js";
import { errorDocument } from "./errors.js";

/** Requests per second the rate-limit headers announce (the service's published default). */
export const RUNS_RATE_LIMIT = 30;

/** Default wait a rate-limit answer announces, ms. */
export const DEFAULT_RETRY_AFTER_MS = 1000;

/**
 * The 429 answer: `{"errors":[{"status":"429","title":"too many requests"}]}` with
 * `X-RateLimit-Limit` (requests per second), `X-RateLimit-Reset` (seconds until the limit resets,
 * a decimal, as go-tfe reads it) and `Retry-After` (whole seconds, rounded up).
 * @example runsRateLimited({ retryAfterMs: 1500 }).headers // { ..., "x-ratelimit-reset": "1.500", "retry-after": "2" }
 */
export function runsRateLimited(options: FaultAnswerOptions): SimResponse {
  const ms = options.retryAfterMs ?? DEFAULT_RETRY_AFTER_MS;
  const response = errorDocument(429, { title: "too many requests" });
  return {
    ...response,
    headers: {
      ...response.headers,
      "x-ratelimit-limit": String(RUNS_RATE_LIMIT),
      "x-ratelimit-reset": (ms / 1000).toFixed(3),
      "retry-after": String(Math.ceil(ms / 1000)),
    },
  };
}

/**
 * The run orchestration service's fault answers: `rate-limited` (429), `internal-error` (500),
 * `bad-gateway` (502), `unavailable` (503).
 */
export const RUNS_FAULT_ANSWERS: Readonly<Record<string, FaultAnswer>> = Object.freeze({
  "rate-limited": {
    status: 429,
    description: "rate limit exceeded: 429 with X-RateLimit-Limit, X-RateLimit-Reset and Retry-After",
    respond: (_request, options) => runsRateLimited(options),
  },
  "internal-error": {
    status: 500,
    description: "internal server error (JSON:API error document)",
    respond: () => errorDocument(500, { title: "internal server error" }),
  },
  "bad-gateway": {
    status: 502,
    description: "bad gateway (JSON:API error document)",
    respond: () => errorDocument(502, { title: "bad gateway" }),
  },
  unavailable: {
    status: 503,
    description: "service unavailable (JSON:API error document)",
    respond: () => errorDocument(503, { title: "service unavailable" }),
  },
});
