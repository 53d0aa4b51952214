/**
 * The request head limit every transport applies: node:http's own (16 KiB unless Node runs with
 * `--max-http-header-size`), counted as node:http counts it, and answered as node:http answers it.
 *
 * node:http clients on the in-process transports meet node:http's parser (their mock socket's),
 * which refuses such a head itself; fetch through nock, @mswjs/interceptors or msw, and direct
 * calls of the handler, meet no parser: the handler applies this same definition to them (see
 * `handler.ts`). The local server applies it to the head as the client sent it (`server.ts`: its
 * parser allows more, so that the method rewriter's internal header does not count), so the same
 * head gets the same 431 on every transport.
 *
 * See docs/decisions/security.md ("Request heads are limited to 16 KiB on every transport").
 */
import { lazyRequire } from "../simulator/kernel/lazy-require.js";
import type { SimRequest, SimResponse } from "./http.js";

/** node:http, loaded when the limit is first read (see lazy-require.ts). */
const http = lazyRequire<typeof import("node:http")>("node:http");
let limit: number | undefined;

/**
 * The request head limit in bytes: node:http's `maxHeaderSize` (16,384 by default). A head of this
 * many counted bytes or more is refused (see {@link requestHeadBytes}). Read on first use, so that
 * an import of the package does not load node:http.
 * @example requestHeadLimit() // 16384
 */
export function requestHeadLimit(): number {
  limit ??= http().maxHeaderSize;
  return limit;
}

/**
 * The bytes of a request head node:http's parser counts against its limit: the request target,
 * and each header line's name and value (leading whitespace of a value excluded); not the method,
 * the version, separators or line ends.
 * @param target - the request target as sent (`/v1/sys/health?x=1`).
 * @param lines - header lines as sent, in order (`[name, value]`).
 * @example requestHeadBytes("/abc", [["Host", "h"], ["X-P", "aa"]]) // 4 + 5 + 5 = 14
 */
export function requestHeadBytes(target: string, lines: Iterable<readonly [string, string]>): number {
  let bytes = Buffer.byteLength(target, "latin1");
  for (const [name, value] of lines) bytes += Buffer.byteLength(name, "latin1") + Buffer.byteLength(value.replace(/^[ \t]+/, ""), "latin1");
  return bytes;
}

/**
 * The counted head bytes of a request as a transport hands it to the handler: target
 * `pathname + search`, its headers as given (repeated lines joined, as fetch's `Headers` and the
 * transports' folding send them), plus the `Host` line every client sends when the headers lack one.
 */
export function simRequestHeadBytes(request: SimRequest): number {
  const target = `${request.url.pathname}${request.url.search}`;
  const lines: [string, string][] = Object.entries(request.headers);
  if (request.headers.host === undefined) lines.push(["host", request.url.host]);
  return requestHeadBytes(target, lines);
}

/** Whether node:http would refuse this request's head (431). */
export function headTooLarge(request: SimRequest): boolean {
  // An upper bound first (latin1 counts one byte per character; leading blanks of a value, which do
  // not count, are counted here): most heads are far below the limit and need no exact count.
  const { url, headers } = request;
  let bound = url.pathname.length + url.search.length + (headers.host === undefined ? 4 + url.host.length : 0);
  for (const name in headers) bound += name.length + (headers[name]?.length ?? 0);
  if (bound < requestHeadLimit()) return false;
  return simRequestHeadBytes(request) >= requestHeadLimit();
}

/** node:http's answer to a head beyond the limit, byte for byte (then it closes the connection). */
export const HEAD_TOO_LARGE_BYTES = "HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n";

/**
 * node:http's answer to a head beyond the limit ({@link HEAD_TOO_LARGE_BYTES}) for the in-process
 * transports: `431 Request Header Fields Too Large`, `Connection: close`, no body.
 */
export function headTooLargeResponse(): SimResponse {
  return { status: 431, headers: { connection: "close" } };
}
