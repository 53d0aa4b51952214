/**
 * Blocking queries of the access-control service: `?index=N&wait=<duration>`. A read with an
 * index holds its answer until its result changes (its index passes N, or the answer differs
 * from the first one computed) or `wait` passes on the simulator's clock (default 5m, at most
 * 10m). The answer carries the result's index in `X-Acl-Index` and `X-Consul-Index` (with
 * `X-Consul-KnownLeader` and `X-Consul-LastContact`): the highest ModifyIndex of the result, never 0.
 *
 * FIDELITY.md "Access control" (blocking queries).
 */
import { DomainError, isDomainError } from "../../simulator/kernel/errors.js";
import { ACCESS_CONTROL } from "../../simulator/access-control/state.js";
import type { RouteContext, SimResponse } from "../http.js";
import { accessControlErrorResponse } from "./errors.js";
import { parseGoDuration } from "./go-json.js";
import { queryMetaHeaders } from "./request-scope.js";

/** Default `wait`, ms. */
export const DEFAULT_WAIT_MS = 5 * 60_000;
/** Longest `wait`, ms (longer values are cut to it). */
export const MAX_WAIT_MS = 10 * 60_000;

const MAX_UINT64 = 2n ** 64n - 1n;

/** A computed result: the JSON value and its index. */
export interface BlockingResult {
  readonly value: unknown;
  /** Highest ModifyIndex of the result (clamped to at least 1). */
  readonly index: number;
}

/** The blocking parameters of a request. */
export interface BlockingParameters {
  /** 0 = do not block. */
  readonly index: number;
  /** ms. */
  readonly waitMs: number;
}

function badRequest(message: string): DomainError {
  return new DomainError({ code: "malformed", service: ACCESS_CONTROL, operation: "parse blocking query", message });
}

/**
 * Reads `index` and `wait`.
 * @throws {DomainError} `malformed`: `Invalid wait time`, `Invalid index`.
 */
export function blockingParameters(query: URLSearchParams): BlockingParameters {
  let waitMs = DEFAULT_WAIT_MS;
  const wait = query.get("wait");
  if (wait !== null && wait !== "") {
    const parsed = parseGoDuration(wait);
    if (parsed === undefined) throw badRequest("Invalid wait time");
    if (parsed > 0) waitMs = Math.min(parsed, MAX_WAIT_MS);
  }
  let index = 0;
  const raw = query.get("index");
  if (raw !== null && raw !== "") {
    // Go's strconv.ParseUint(raw, 10, 64): decimal digits, at most 2^64 - 1.
    if (!/^\d+$/.test(raw) || BigInt(raw) > MAX_UINT64) throw badRequest("Invalid index");
    index = Number(raw);
  }
  return { index, waitMs };
}

interface Attempt {
  readonly response: SimResponse;
  readonly index: number;
  readonly fingerprint: string;
  /** An error other than "not found" (403, 500): answered at once, never waited on. */
  readonly final?: boolean;
}

function attempt(compute: () => BlockingResult): Attempt {
  try {
    const result = compute();
    const body = JSON.stringify(result.value);
    const index = Math.max(1, result.index);
    return {
      response: { status: 200, headers: { "content-type": "application/json", ...queryMetaHeaders(index) }, body },
      index,
      fingerprint: body,
    };
  } catch (error) {
    // Request-shape errors (400) are answered before the real service sets its index header.
    if (!isDomainError(error) || error.code === "malformed") throw error;
    const response = accessControlErrorResponse(error);
    const withIndex = { ...response, headers: { ...response.headers, ...queryMetaHeaders(1) } };
    if (error.code !== "not_found") return { response: withIndex, index: 1, fingerprint: "", final: true };
    return { response: withIndex, index: 1, fingerprint: `missing:${error.detail}` };
  }
}

/**
 * Answers a blocking read. `compute` runs once, then again after every change of the simulator
 * while the request waits; a `not_found` result (404) also waits, so a client can wait for a
 * resource to appear. Other errors answer at once; like the real service, every answer after the
 * request's shape was accepted (200, 403, 404, 500) carries `X-Acl-Index` (at least 1), and a 400
 * carries none.
 * @throws {DomainError} `malformed` for a bad `index` or `wait`, and whatever 400 `compute` throws.
 * @example return blockingRead(ctx, () => ({ value: tokenWire(view), index: view.modifyIndex }));
 */
export async function blockingRead(ctx: RouteContext, compute: () => BlockingResult): Promise<SimResponse> {
  const params = blockingParameters(ctx.query);
  const first = attempt(compute);
  if (first.final === true || params.index === 0 || first.index > params.index) return first.response;
  const { sim, request } = ctx;
  const deadline = sim.now() + params.waitMs;
  let current = first;
  while (current.final !== true && current.index <= params.index && current.fingerprint === first.fingerprint) {
    if (sim.now() >= deadline || request.signal?.aborted) break;
    await sim.waitForChange(sim.version, deadline, request.signal);
    current = attempt(compute);
  }
  return current.response;
}
