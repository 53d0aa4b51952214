/**
 * How the testing kit's commands and helpers send requests: a `fetch`-shaped function. The default
 * is the global `fetch` (through whatever transport the test started: nock, the interceptors
 * transport, msw handlers, or a server's URLs); {@link handlerFetch} calls the doubles' handler
 * directly, with no transport at all.
 */
import type { Handler } from "../interceptors/handler.js";

/** A `fetch`-shaped function: `(url, init) => Promise<Response>`. */
export type FetchLike = (url: string, init?: RequestInit) => Promise<Response>;

const NULL_BODY = new Set([101, 204, 205, 304]);

/**
 * A `fetch` that answers from the doubles' transport-free handler (`doubles.handler.handle()`):
 * no interception, no sockets; the same bytes every transport answers. URLs are the doubles'
 * nock base URLs (`doubles.baseUrls()`). A dropped connection (a `reset` or `hang-up` fault) rejects
 * with `TypeError: fetch failed` whose `cause.code` is `ECONNRESET` or `UND_ERR_SOCKET`, as
 * Node's fetch does.
 * @param doubles - the doubles (`createDoubles()`), or anything with their `handler`.
 * @returns a {@link FetchLike}.
 * @example
 * const send = handlerFetch(doubles);
 * const response = await send(`${doubles.baseUrls().secrets.api}/sys/health`);
 * response.status // 200
 */
export function handlerFetch(doubles: { readonly handler: Handler }): FetchLike {
  return async (url, init = {}) => {
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const body = init.body === undefined || init.body === null ? new Uint8Array() : new Uint8Array(await new Response(init.body).arrayBuffer());
    const method = (init.method ?? "GET").toUpperCase();
    const answer = await doubles.handler.handle({ method, url: new URL(url), headers, body });
    // A dropped connection (a fault): fetch's own failure, as undici reports a reset or a closed socket.
    if (answer.drop !== undefined) {
      const cause = Object.assign(new Error(answer.drop === "reset" ? "read ECONNRESET" : "other side closed"), { code: answer.drop === "reset" ? "ECONNRESET" : "UND_ERR_SOCKET" });
      throw new TypeError("fetch failed", { cause });
    }
    const bytes = answer.body === undefined ? undefined : typeof answer.body === "string" ? new TextEncoder().encode(answer.body) : answer.body;
    const empty = bytes === undefined || method === "HEAD" || NULL_BODY.has(answer.status);
    return new Response(empty ? null : (bytes as Uint8Array<ArrayBuffer>), { status: answer.status, headers: answer.headers });
  };
}
