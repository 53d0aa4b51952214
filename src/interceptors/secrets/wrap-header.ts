/**
 * Response wrapping on the wire: `X-Vault-Wrap-TTL` (or the spec-style `X-Secrets-Wrap-TTL`) on
 * any read or write turns the answer into a wrapping token. The answer is kept in the simulator
 * (src/simulator/secrets/wrapping.ts) and the response carries only `wrap_info`:
 * `{token, accessor, ttl, creation_time, creation_path, wrapped_accessor?}`, `data: null`.
 *
 * Not in spec/secrets.md: the real service's behaviour (issue 23; docs/decisions/secrets.md
 * "Response wrapping").
 */
import type { SimRequest, SimResponse } from "../http.js";
import { json } from "../http.js";
import { parseDuration } from "../../simulator/kernel/duration.js";
import type { Simulator } from "../../simulator/kernel/simulator.js";
import { rfc3339 } from "../../simulator/kernel/time.js";
import { SECRETS, badRequest } from "../../simulator/secrets/errors.js";
import type { SecretsState, WrappingRecord } from "../../simulator/secrets/state.js";
import { wrap } from "../../simulator/secrets/wrapping.js";
import { header } from "./request.js";

/** The header that asks for a wrapped answer (the real service's name). */
export const WRAP_TTL_HEADER = "x-vault-wrap-ttl";
/** The same header under the spec's naming of the service's headers (`X-Secrets-...`); it wins when both come. */
export const WRAP_TTL_HEADER_SPEC = "x-secrets-wrap-ttl";

/**
 * The wrap TTL a request asks for, in ms: a whole number of seconds (`"300"`) or a Go duration
 * (`"5m"`), as the real service parses it; `undefined` when the header is absent, empty or 0
 * (no wrapping).
 * @throws {DomainError} 400 `time: invalid duration "<value>"` or `requested wrap ttl cannot be negative`.
 * @example requestWrapTtlMs(request) // 300_000 for "X-Vault-Wrap-TTL: 5m"
 */
export function requestWrapTtlMs(request: SimRequest): number | undefined {
  const raw = header(request, WRAP_TTL_HEADER_SPEC) ?? header(request, WRAP_TTL_HEADER);
  if (raw === undefined) return undefined;
  const text = raw.trim();
  let ms: number;
  try {
    ms = /^[+-]?\d+$/.test(text) ? Number(text) * 1000 : parseDuration(text);
  } catch {
    throw badRequest("parse wrap ttl", `time: invalid duration ${JSON.stringify(text)}`);
  }
  if (!Number.isFinite(ms)) throw badRequest("parse wrap ttl", `time: invalid duration ${JSON.stringify(text)}`);
  if (ms < 0) throw badRequest("parse wrap ttl", "requested wrap ttl cannot be negative");
  return ms === 0 ? undefined : ms;
}

/**
 * The `wrap_info` object of a wrapping: `ttl` in whole seconds, `creation_time` RFC 3339 on the
 * simulator clock; `wrapped_accessor` only when a token was wrapped.
 * @example wrapInfo(record) // { token: "s.…", accessor: "…", ttl: 300, creation_time: "…", creation_path: "ssh/creds/otp-role" }
 */
export function wrapInfo(record: WrappingRecord): Record<string, unknown> {
  return {
    token: record.token,
    accessor: record.accessor,
    ttl: Math.floor(record.ttlMs / 1000),
    creation_time: rfc3339(record.createdAt),
    creation_path: record.creationPath,
    ...(record.wrappedAccessor !== "" ? { wrapped_accessor: record.wrappedAccessor } : {}),
  };
}

/**
 * The answer that carries only `wrap_info` (the envelope's other fields empty, the wrapped answer's
 * `request_id`).
 * @example wrappedResponse("3f2…", record).status // 200
 */
export function wrappedResponse(requestId: string, record: WrappingRecord): SimResponse {
  return json(200, {
    request_id: requestId,
    lease_id: "",
    renewable: false,
    lease_duration: 0,
    data: null,
    wrap_info: wrapInfo(record),
    warnings: null,
    auth: null,
  });
}

/**
 * Wraps `response` when it is a JSON answer with a body (200 envelope): the body is kept behind a
 * new wrapping token for `ttlMs` and the answer becomes its `wrap_info`. Empty answers (204),
 * errors and non-JSON answers pass unchanged, as the real service wraps only a response it has.
 * The accessor of a wrapped token (`auth.accessor`) becomes `wrapped_accessor`.
 * @param creationPath - the request path relative to its namespace (`ssh/creds/otp-role`).
 */
export function wrapResponse(sim: Simulator, response: SimResponse, ttlMs: number, creationPath: string, namespace: string): SimResponse {
  if (response.status !== 200 || typeof response.body !== "string" || !(response.headers["content-type"] ?? "").startsWith("application/json")) return response;
  let parsed: unknown;
  try {
    parsed = JSON.parse(response.body);
  } catch {
    return response;
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return response;
  const body = parsed as Record<string, unknown>;
  // An answer that is already a wrapping (rewrap) keeps its own wrap_info.
  if (body.wrap_info !== undefined && body.wrap_info !== null) return response;
  const auth = body.auth;
  const wrappedAccessor = auth !== null && typeof auth === "object" && typeof (auth as Record<string, unknown>).accessor === "string" ? ((auth as Record<string, unknown>).accessor as string) : "";
  const record = sim.update<SecretsState, WrappingRecord>(SECRETS, (ctx) => ({ ...wrap(ctx, { body: response.body as string, ttlMs, creationPath, wrappedAccessor, namespace }) }));
  return wrappedResponse(typeof body.request_id === "string" ? body.request_id : "", record);
}
