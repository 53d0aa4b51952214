/**
 * Passthrough: a request the fake does not simulate (no route of the service, no user route)
 * forwarded to a real server the user named (`createDoubles({ passthrough: { secrets: url } })`,
 * `serve --passthrough secrets=URL`), and the real answer handed back as the service's.
 *
 * The request leaves through node:http's own `ClientRequest` (from `node:_http_client`), never
 * through `http.request`, `fetch` or `http.ClientRequest`, which nock, msw and the `interceptors`
 * transport replace while they run: a forwarded request is not intercepted again, whatever
 * transport answered the original one. A target on an origin that live doubles serve in this
 * process is refused (nothing sent to an owned origin may leave the process).
 *
 * Implements DESIGN.md "User routes and passthrough"; see docs/decisions/user-routes-and-passthrough.md.
 */
import { createRequire } from "node:module";
import type { ClientRequest, IncomingMessage, RequestOptions } from "node:http";
import type { Agent as HttpsAgent } from "node:https";
import { lazyRequire } from "../simulator/kernel/lazy-require.js";
import type { SimRequest, SimResponse } from "./message.js";
import { canonicalOrigin, isOwnedOrigin } from "./owned-origins.js";

/** How long a forwarded request may wait for the real server's answer by default, ms. */
export const DEFAULT_PASSTHROUGH_TIMEOUT_MS = 10_000;

/** The largest answer a passthrough hands back, bytes (a longer one is a failed passthrough). */
export const PASSTHROUGH_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** Where one service's unsimulated requests go. */
export interface PassthroughTarget {
  /**
   * The real server's URL: its origin, and optionally the path that stands for the service's base
   * path (`http://127.0.0.1:8200` keeps `/v1`; `http://proxy.test/vault/v1` replaces it).
   */
  readonly url: string;
  /** How long to wait for the answer (idle socket), ms (default {@link DEFAULT_PASSTHROUGH_TIMEOUT_MS}). */
  readonly timeoutMs?: number;
}

/** Why a passthrough gave no answer (the handler answers the service's 502). */
export class PassthroughError extends Error {
  override readonly name = "PassthroughError";
}

/** Headers that belong to one connection, never forwarded (RFC 9110 7.6.1), plus `host` and the length (set anew). */
const HOP_BY_HOP: ReadonlySet<string> = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
  "content-length",
]);

const requireHere = createRequire(import.meta.url);

type ClientRequestConstructor = new (url: URL, options: RequestOptions, callback?: (response: IncomingMessage) => void) => ClientRequest;

let NativeClientRequest: ClientRequestConstructor | undefined;
// node:https (with net and tls) loads on the first forward: importing the package must not pay for
// it (docs/decisions/import-cost.md).
const https = lazyRequire<typeof import("node:https")>("node:https");
let httpsAgent: HttpsAgent | undefined;

/** node:http's own ClientRequest, whatever nock or @mswjs/interceptors put on `http.ClientRequest`. */
function nativeClientRequest(): ClientRequestConstructor {
  NativeClientRequest ??= (requireHere("node:_http_client") as { ClientRequest: ClientRequestConstructor }).ClientRequest;
  return NativeClientRequest;
}

/**
 * The URL a request is forwarded to: the target's origin, the target's path (or, when it has none,
 * the base path the request came under), then the request's path relative to that base and its query.
 * @param basePath - the path of the base the request matched (`/v1`), no trailing slash.
 * @param relative - the request's path relative to that base (`/secret/data/app`).
 * @example forwardedUrl("http://127.0.0.1:8200", "/v1", "/secret/data/app", "?version=2").href // "http://127.0.0.1:8200/v1/secret/data/app?version=2"
 */
export function forwardedUrl(target: string, basePath: string, relative: string, search: string): URL {
  const url = new URL(target);
  const targetPath = url.pathname.replace(/\/+$/, "");
  const prefix = targetPath === "" ? basePath : targetPath;
  return new URL(`${url.origin}${prefix}${relative.startsWith("/") ? relative : `/${relative}`}${search}`);
}

/**
 * Sends `request` to `url` with node:http's own client (see the module comment) and returns the
 * real answer: status, headers (hop-by-hop ones dropped; repeated ones joined with `, `, cookies
 * with `; `... as node reads them), body bytes.
 * @param origins - origins these doubles serve: a target on one of them, or on any origin a live
 *   in-process transport holds, is refused.
 * @throws {PassthroughError} when the target is an owned origin, the connection fails, the server
 *   sends nothing within `timeoutMs` (idle), the client gave up, or the answer is longer than
 *   {@link PASSTHROUGH_MAX_RESPONSE_BYTES}; the message names the target and the cause.
 * @example
 * const response = await forward(request, new URL("http://127.0.0.1:8200/v1/secret/data/app"), { timeoutMs: 5000 });
 */
export async function forward(request: SimRequest, url: URL, options: { readonly timeoutMs?: number; readonly origins?: readonly string[] } = {}): Promise<SimResponse> {
  const origin = canonicalOrigin(url.origin);
  if (origin === undefined || isOwnedOrigin(url.origin) || (options.origins ?? []).some((o) => canonicalOrigin(o) === origin)) {
    throw new PassthroughError(`${url.origin} is served by infra-doubles in this process: a passthrough goes to another server`);
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) if (!HOP_BY_HOP.has(name.toLowerCase())) headers[name] = value;
  if (request.body.length > 0 || !["GET", "HEAD", "DELETE", "OPTIONS"].includes(request.method)) headers["content-length"] = String(request.body.length);
  const timeoutMs = options.timeoutMs ?? DEFAULT_PASSTHROUGH_TIMEOUT_MS;
  const ClientRequestClass = nativeClientRequest();
  return new Promise<SimResponse>((resolve, reject) => {
    let settled = false;
    const failWith = (cause: string): void => {
      if (settled) return;
      settled = true;
      reject(new PassthroughError(`passthrough to ${url.origin} failed: ${cause}`));
    };
    const agent = url.protocol === "https:" ? (httpsAgent ??= new (https().Agent)({ keepAlive: false })) : undefined;
    let outgoing: ClientRequest;
    try {
      outgoing = new ClientRequestClass(url, { method: request.method, headers, timeout: timeoutMs, ...(agent === undefined ? {} : { agent }) }, (incoming) => {
        const chunks: Buffer[] = [];
        let total = 0;
        incoming.on("data", (chunk: Buffer) => {
          total += chunk.length;
          if (total > PASSTHROUGH_MAX_RESPONSE_BYTES) {
            incoming.destroy();
            failWith(`the answer is longer than ${PASSTHROUGH_MAX_RESPONSE_BYTES} bytes`);
            return;
          }
          chunks.push(chunk);
        });
        incoming.on("error", (error) => failWith(error.message));
        incoming.on("aborted", () => failWith("the server closed the connection mid-answer"));
        incoming.on("end", () => {
          if (settled) return;
          settled = true;
          const out: Record<string, string> = {};
          for (const [name, value] of Object.entries(incoming.headers)) {
            if (value === undefined || HOP_BY_HOP.has(name)) continue;
            out[name] = Array.isArray(value) ? value.join(name === "set-cookie" ? "; " : ", ") : value;
          }
          const body = Buffer.concat(chunks);
          resolve({ status: incoming.statusCode ?? 502, headers: out, ...(body.length === 0 ? {} : { body: new Uint8Array(body) }) });
        });
      });
    } catch (error) {
      failWith(error instanceof Error ? error.message : String(error));
      return;
    }
    outgoing.on("timeout", () => {
      failWith(`no answer within ${timeoutMs} ms`);
      outgoing.destroy();
    });
    outgoing.on("error", (error: NodeJS.ErrnoException) => failWith(error.code === undefined ? error.message : `${error.code} (${error.message})`));
    const signal = request.signal;
    if (signal !== undefined) {
      if (signal.aborted) {
        outgoing.destroy();
        failWith("the client gave up");
        return;
      }
      signal.addEventListener("abort", () => {
        outgoing.destroy();
        failWith("the client gave up");
      }, { once: true });
    }
    outgoing.end(request.body.length > 0 ? Buffer.from(request.body.buffer, request.body.byteOffset, request.body.length) : undefined);
  });
}
