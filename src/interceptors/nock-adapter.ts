/**
 * The nock transport: intercepts every method and path on the handler's origins and answers from
 * the handler, until teardown.
 *
 * Two nock traps are handled here:
 * - nock parses `application/json` bodies before any reply function runs and throws (killing the
 *   process) on malformed JSON. The documented `request` event fires first with the raw body: we
 *   keep the raw text and hide the JSON content type from nock's own parser (only nock's copy of
 *   the headers is touched), so the service answers malformed bodies with its own error.
 * - nock hands bodies over as strings, hex-encoding bytes that are not valid UTF-8: the exact bytes
 *   are recovered (see {@link recoverBytes}).
 */
import { createRequire } from "node:module";
import type nock from "nock";
import { UsageError } from "../simulator/kernel/errors.js";
import type { Handler } from "./handler.js";
import type { SimRequest } from "./http.js";

/**
 * nock is loaded on the first interception, not on import: loading nock activates its request
 * interceptor process-wide, which a user of the server transport alone should not pay for (and
 * which hangs node:http clients sending `LIST`). Resolved from this package, it is the same nock
 * instance the user's tests import (a peer dependency).
 */
function loadNock(): typeof nock {
  // tsup shims import.meta.url in the CommonJS build.
  return createRequire(import.meta.url)("nock") as typeof nock;
}

/**
 * Origins intercepted right now, process-wide. nock answers from the first interceptor that
 * matches, so a second interception of the same origin would be silently shadowed: refused.
 */
const activeOrigins = new Map<string, symbol>();

/** Methods intercepted on every origin (`LIST` included: `fetch` can send it through nock). */
export const INTERCEPTED_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "LIST"] as const;

const RAW_CONTENT_TYPE = "application/x-infra-doubles-raw";

/** A live set of interceptors. Dispose it (or call `stop()`) to remove every one of them. */
export interface NockInterception extends Disposable {
  /** The intercepted origins. */
  readonly origins: readonly string[];
  /** Removes every interceptor this call added. Safe to call twice. */
  stop(): void;
  /** Whether {@link NockInterception.stop} has run. */
  readonly stopped: boolean;
}

interface CapturedRequest {
  raw: string;
  contentType: string;
}

/**
 * Routes requests to the handler's origins through nock.
 *
 * @param handler - the transport-free handler (see `createHandler`).
 * @returns the interception; `using` it, or calling `stop()`, removes it.
 * @throws {UsageError} when one of the origins is already intercepted by an interception that was
 *   not stopped (nock would answer from the first one and silently ignore this one).
 * @example
 * using interception = interceptWithNock(doubles.handler);
 * await fetch("https://app.run-orchestration.test/api/v2/runs/run-123");
 */
export function interceptWithNock(handler: Handler): NockInterception {
  const taken = handler.origins.filter((origin) => activeOrigins.has(origin));
  if (taken.length > 0) {
    throw new UsageError(
      `${taken.join(", ")} ${taken.length === 1 ? "is" : "are"} already intercepted by another interception that was not stopped; ` +
        "stop it first (`using _nock = doubles.intercept()`, `interception.stop()` or `await doubles.close()` after each test)",
    );
  }
  const owner = Symbol("interception");
  for (const origin of handler.origins) activeOrigins.set(origin, owner);
  const nock = loadNock();
  const captured = new WeakMap<object, CapturedRequest>();
  const scopes: nock.Scope[] = [];
  const interceptors: nock.Interceptor[] = [];
  const onRequest = (req: { headers?: Record<string, unknown> }, _interceptor: unknown, body: string): void => {
    const headers = req.headers ?? {};
    const contentType = String(headers["content-type"] ?? "");
    captured.set(req, { raw: body ?? "", contentType });
    if (contentType.toLowerCase().startsWith("application/json")) headers["content-type"] = RAW_CONTENT_TYPE;
  };

  for (const origin of handler.origins) {
    const scope = nock(origin).persist();
    scope.on("request", onRequest);
    for (const method of INTERCEPTED_METHODS) {
      const interceptor = scope.intercept(/.*/, method);
      interceptors.push(interceptor);
      interceptor.reply(async function reply(this: nock.ReplyFnContext, uri: string) {
        const req = this.req as unknown as { headers: Record<string, string | string[]>; method: string };
        const capture = captured.get(req) ?? { raw: "", contentType: "" };
        const headers = normalizeHeaders(req.headers);
        if (capture.contentType) headers["content-type"] = capture.contentType;
        const request: SimRequest = {
          method,
          url: new URL(uri, origin),
          headers,
          body: recoverBytes(capture.raw, capture.contentType),
        };
        const response = await handler.handle(request);
        const body = response.body === undefined ? "" : typeof response.body === "string" ? response.body : Buffer.from(response.body);
        return [response.status, body, { ...response.headers }];
      });
    }
    scopes.push(scope);
  }

  let stopped = false;
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    for (const scope of scopes) {
      scope.persist(false);
      scope.removeListener("request", onRequest);
    }
    for (const interceptor of interceptors) nock.removeInterceptor(interceptor);
    for (const origin of handler.origins) if (activeOrigins.get(origin) === owner) activeOrigins.delete(origin);
  };
  return {
    origins: handler.origins,
    stop,
    get stopped() {
      return stopped;
    },
    [Symbol.dispose]: stop,
  };
}

function normalizeHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : String(value);
  }
  return out;
}

/**
 * Recovers the exact request bytes from nock's string form. nock sends UTF-8 text as is and any
 * other bytes hex-encoded. A string is read as hex only when it is valid hex, its decoded bytes are
 * not valid UTF-8 (so nock would have hex-encoded them), and the content type is not textual.
 */
export function recoverBytes(raw: string, contentType: string): Uint8Array {
  if (raw === "") return new Uint8Array();
  const textual = /json|text|x-www-form-urlencoded|xml|x-infra-doubles-raw/i.test(contentType);
  if (!textual && raw.length % 2 === 0 && /^[0-9a-f]+$/.test(raw)) {
    const bytes = Buffer.from(raw, "hex");
    const roundTrip = Buffer.from(bytes.toString("utf8"), "utf8");
    if (!roundTrip.equals(bytes)) return new Uint8Array(bytes);
  }
  return new Uint8Array(Buffer.from(raw, "utf8"));
}
