/**
 * The real HTTP transport: a `node:http` server over the same transport-free handler, for clients
 * that are not in the test's Node process (curl, Go, Python, a browser).
 *
 * node:http's parser refuses methods it does not know, and the secrets service lists with `LIST`.
 * From the first request node:http refuses on a connection, that connection's bytes therefore
 * reach node:http's parser through a method rewriter ({@link rewriteUnknownMethods}), which turns
 * `LIST /path HTTP/1.1` into `GET` plus an internal header naming the real method; the handler
 * sees `LIST` again.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { holdClientMethodSupport } from "./client-methods.js";
import type { Handler, RequestHead } from "./handler.js";
import { withContentLength, type SimRequest, type SimResponse } from "./http.js";
import { requestHeaders } from "./header-values.js";
import { HEAD_TOO_LARGE_BYTES, requestHeadLimit } from "./head-limit.js";
import { lazyRequire } from "../simulator/kernel/lazy-require.js";
import { connectionSecret, MAX_LINE_BYTES, ORIGINAL_METHOD_HEADER, originalMethod, rewriteUnknownMethods } from "./socket-methods.js";
import { nextTurn } from "./event-loop.js";

/** node:http, loaded by the first `startServer` (see lazy-require.ts). */
const http = lazyRequire<typeof import("node:http")>("node:http");

/** Options of {@link startServer}. */
export interface ServerOptions {
  /** Port to listen on; 0 (default) picks a free port. */
  readonly port?: number;
  /** Interface to bind (default `127.0.0.1`). */
  readonly host?: string;
}

/** A running server. Dispose it (or `await close()`) to stop it. */
export interface RunningServer extends AsyncDisposable {
  /** The origin, e.g. `http://127.0.0.1:53211`. */
  readonly url: string;
  readonly port: number;
  /**
   * The token `/_sim/` requests must send (`X-Infra-Doubles-Control-Token`), when the server has
   * one (set by `DoublesCore.listen`; see docs/decisions/security.md).
   */
  readonly controlToken?: string;
  /** The listening node:http server (a connection's bytes pass through the method rewriter from the first request node:http refuses). */
  readonly server: Server;
  /** Stops listening and closes every open connection (requests in flight are cut off). */
  close(): Promise<void>;
}

/**
 * Header a client may set on a `GET` to send `LIST` when its HTTP stack cannot send that method
 * (`X-HTTP-Method-Override: LIST`). Any other method or value is ignored, as the real services
 * ignore the header.
 */
export const METHOD_OVERRIDE_HEADER = "x-http-method-override";

/**
 * Serves `handlerFor(origin)` over node:http. The handler is built once the origin (with the chosen
 * port) is known, so the services can give absolute links and upload URLs on that origin; it is
 * built before the first request is answered.
 *
 * Any method that is an HTTP token is accepted, `LIST` included (from curl `-X LIST`, `fetch`, raw
 * sockets), as is `GET` with an `X-HTTP-Method-Override: LIST` header (no other override is
 * honoured). Requests are routed under
 * the server's own origin whatever their `Host` header says.
 *
 * @param handlerFor - builds the handler for the server's origin (`http://127.0.0.1:<port>`).
 * @param options - port (default 0: a free port) and interface (default `127.0.0.1`).
 * @returns the running server; `await close()` (or `await using`) stops it and leaves no handle open.
 * @throws the listen error (e.g. `EADDRINUSE`) when the port cannot be bound.
 * @example
 * const server = await startServer((origin) => doubles.handlerFor(origin), { port: 0 });
 * console.log(server.url);
 * await server.close();
 */
export async function startServer(
  handlerFor: (origin: string) => Handler,
  options: ServerOptions = {},
): Promise<RunningServer> {
  const host = options.host ?? "127.0.0.1";
  const ready: { handler?: Handler; origin?: string } = {};
  // node:http's parser refuses heads from requestHeadLimit() on; here it allows room for the
  // method rewriter's internal header (at most one line), and serve() applies the limit itself to
  // the head as the client sent it: a LIST is refused where a GET of the same size is.
  const server = http().createServer({ maxHeaderSize: requestHeadLimit() + MAX_LINE_BYTES + 256 }, (req, res) => {
    if (!ready.handler || !ready.origin) {
      res.writeHead(503, { "content-type": "text/plain; charset=utf-8" }).end("infra-doubles: the server is starting\n");
      return;
    }
    void serve(ready.handler, ready.origin, req, res);
  });
  rewriteUnknownMethods(server);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const hostForUrl = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${hostForUrl}:${address.port}`;
  try {
    ready.handler = handlerFor(url);
    ready.origin = url;
  } catch (error) {
    await closeServer(server);
    throw error;
  }
  // A test that also has nock (or msw) loaded sends LIST to this server through their interceptor.
  const releaseMethods = holdClientMethodSupport();
  const close = async (): Promise<void> => {
    releaseMethods();
    await closeServer(server);
  };
  return { url, port: address.port, server, close, [Symbol.asyncDispose]: close };
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

async function serve(handler: Handler, origin: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const secret = connectionSecret(req.socket);
  if (sentHeadBytes(req, secret) >= requestHeadLimit()) {
    // node:http's own answer, byte for byte, and the connection closes: the body after the head
    // is not read (Go's net/http answers and closes too).
    answerAndClose(req, HEAD_TOO_LARGE_BYTES);
    return;
  }
  const url = requestUrl(req.url ?? "/", origin, handler);
  const hasBody = req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0;
  // Repeated lines folded by the rule every in-process transport applies too (header-values.ts).
  const headers = requestHeaders(req.rawHeaders);
  // The tracker's header carries the connection's secret; a client's own copy (possible once the
  // tracker passes a connection through) does not, and is dropped unread.
  const original = originalMethod(headers[ORIGINAL_METHOD_HEADER], secret);
  if (headers[ORIGINAL_METHOD_HEADER] !== undefined) delete headers[ORIGINAL_METHOD_HEADER];
  // Only a GET may ask to be a LIST: the real services honour no override, so a POST never
  // becomes a DELETE here either.
  const override = req.method === "GET" && headers[METHOD_OVERRIDE_HEADER]?.trim().toUpperCase() === "LIST" ? "LIST" : undefined;
  // Case-sensitive, as in Go's net/http: a client's `delete` stays `delete` (an unknown method).
  const method = original ?? override ?? req.method ?? "GET";
  // Decided from the head alone (the /_sim/ guard): a refused request's body is never read.
  const refusal = handler.admit?.(new ServedHead(method, url, headers, req.url ?? "/", req.rawHeaders));
  if (refusal !== undefined) {
    if (hasBody) stopReading(req, res);
    else {
      req.resume();
      res.shouldKeepAlive = false;
    }
    send(res, refusal, method === "HEAD");
    return;
  }
  let read: { chunks: Buffer[]; tooLarge: boolean } = NO_BODY;
  if (hasBody) {
    const body = await readBody(req, handler.maxBodyBytes(url));
    if (body === undefined) return; // the client went away mid-request: nobody is left to answer
    // A body cut short never reaches the service, so nothing half-sent is ever stored.
    if (!body.tooLarge && !req.complete) return;
    if (body.tooLarge) stopReading(req, res);
    read = body;
  } else {
    // No body by its framing (no Transfer-Encoding, no Content-Length above 0): nothing to wait for.
    req.resume();
  }
  const chunks = read.chunks;
  const request = new ServedRequest(method, url, headers, chunks.length === 0 ? new Uint8Array() : new Uint8Array(Buffer.concat(chunks)), read.tooLarge, res);
  let response: SimResponse;
  try {
    response = await handler.handle(request);
    request.answered();
  } catch (error) {
    request.answered();
    response = {
      status: 500,
      headers: { "content-type": "text/plain; charset=utf-8", "x-infra-doubles-bug": "1" },
      body: `infra-doubles: internal error (a bug in the fake, please report it): ${String(error)}`,
    };
  }
  if (res.destroyed || res.writableEnded) return;
  if (response.drop !== undefined) {
    dropConnection(req, response.drop);
    return;
  }
  if (response.stream !== undefined) {
    await sendStream(res, response, response.stream, method === "HEAD");
    return;
  }
  send(res, response, method === "HEAD");
}

/**
 * A request as the server hands it to the handler. Its signal aborts only when the client goes
 * away while the request is in flight (a blocked read stops waiting); it is made only when the
 * handler asks for it (a blocked read does), and only then does the request watch the response's
 * `close` (a response already closed aborts it at once); aborting builds a DOMException: none of
 * it is paid by a request that never asks. A class, not an object literal with a getter: a
 * literal's accessor is defined anew for every request (about 0.7 us on Node 20, measured).
 */
class ServedRequest implements SimRequest {
  private abort: AbortController | undefined;
  private done = false;
  readonly bodyTooLarge?: boolean;

  constructor(
    readonly method: string,
    readonly url: URL,
    readonly headers: Record<string, string>,
    readonly body: Uint8Array,
    tooLarge: boolean,
    private readonly res: ServerResponse,
  ) {
    if (tooLarge) this.bodyTooLarge = true;
  }

  get signal(): AbortSignal {
    if (this.abort === undefined) {
      const abort = (this.abort = new AbortController());
      // The client went away before the answer: the signal aborts (now, or when it goes).
      if (this.res.closed && !this.done) abort.abort();
      else if (!this.done) this.res.once("close", () => this.done || abort.abort());
    }
    return this.abort.signal;
  }

  /** The handler has answered: a close from now on is the answer's, not the client leaving. */
  answered(): void {
    this.done = true;
  }
}

/**
 * The head {@link Handler.admit} decides on; the `Host` lines are counted only when it asks (the
 * control API's guard does, for `/_sim/` requests only).
 */
class ServedHead implements RequestHead {
  constructor(
    readonly method: string,
    readonly url: URL,
    readonly headers: Record<string, string>,
    readonly target: string,
    private readonly raw: readonly string[],
  ) {}

  get hostLines(): number {
    return hostLines(this.raw);
  }
}

/** What a request without a body reads. */
const NO_BODY: { readonly chunks: Buffer[]; readonly tooLarge: false } = Object.freeze({ chunks: [], tooLarge: false });

/**
 * A fault's dropped connection: `reset` resets the TCP connection (RST: the client reads
 * `ECONNRESET`), `hang-up` closes it without an answer (node clients: `socket hang up`).
 */
function dropConnection(req: IncomingMessage, drop: "reset" | "hang-up"): void {
  const socket = req.socket as Socket | null;
  if (socket === null || socket === undefined) return;
  if (drop === "reset" && typeof socket.resetAndDestroy === "function") socket.resetAndDestroy();
  else socket.destroy();
}

/** How many `Host` lines a head carried (raw, before any folding). */
function hostLines(raw: readonly string[]): number {
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] ?? "";
    if (name.length === 4 && name.toLowerCase() === "host") count++;
  }
  return count;
}

/**
 * The head bytes the client sent, counted as node:http counts them (`head-limit.ts`): the method
 * rewriter's own header line (the one carrying the connection's secret) is not the client's.
 */
function sentHeadBytes(req: IncomingMessage, secret: string): number {
  const raw = req.rawHeaders;
  // requestHeadBytes() over the lines, without building them: a string's latin1 length is its length.
  let bytes = (req.url ?? "").length;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] ?? "";
    const value = raw[i + 1] ?? "";
    if (secret !== "" && name.length === ORIGINAL_METHOD_HEADER.length && name.toLowerCase() === ORIGINAL_METHOD_HEADER && originalMethod(value, secret) !== undefined) continue;
    const first = value.charCodeAt(0);
    bytes += name.length + (first === 0x20 || first === 0x09 ? value.replace(/^[ \t]+/, "").length : value.length);
  }
  return bytes;
}

/**
 * Reads the request body, stopping at `limit` bytes: a declared `Content-Length` above it is not
 * read at all, and a chunked body stops being read at the first chunk past it (`tooLarge`, no
 * chunks kept). `undefined` when the client went away.
 */
function readBody(req: IncomingMessage, limit: number | undefined): Promise<{ chunks: Buffer[]; tooLarge: boolean } | undefined> {
  const declared = Number(req.headers["content-length"]);
  if (limit !== undefined && Number.isFinite(declared) && declared > limit) return Promise.resolve({ chunks: [], tooLarge: true });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const done = (value: { chunks: Buffer[]; tooLarge: boolean } | undefined): void => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("aborted", onError);
      resolve(value);
    };
    const onData = (chunk: Buffer): void => {
      length += chunk.length;
      if (limit !== undefined && length > limit) {
        chunks.length = 0;
        done({ chunks, tooLarge: true });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => done({ chunks, tooLarge: false });
    const onError = (): void => done(undefined);
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("aborted", onError);
  });
}

/**
 * After a body over the limit: read no more of it (the socket is paused, so the client's sends
 * back up instead of filling memory), answer with `Connection: close`, and drop the connection
 * shortly after the answer is written (an unread body cannot be skipped to the next request).
 */
function stopReading(req: IncomingMessage, res: ServerResponse): void {
  req.pause();
  res.shouldKeepAlive = false;
  res.setHeader("connection", "close");
  res.once("finish", () => {
    // The socket's own idle timeout (no timer of ours): a paused socket is idle at once.
    const socket = req.socket;
    socket?.setTimeout(250, () => socket.destroy());
  });
}

/**
 * Writes `bytes` (a whole HTTP answer) and closes the connection without reading what the client
 * still sends: reading stops at once (the client's sends back up), the answer goes out with a FIN,
 * and the socket is destroyed shortly after (the client has had the time to read the answer).
 */
function answerAndClose(req: IncomingMessage, bytes: string): void {
  const socket = req.socket as Socket | null;
  if (socket === null || socket === undefined) return;
  req.pause();
  socket.pause();
  socket.end(bytes);
  socket.setTimeout(250, () => socket.destroy());
}

/**
 * Writes a streamed answer ({@link SimResponse.stream}) chunked: one piece at a time, waiting for
 * the socket to drain when its buffer is full and yielding to the event loop after every piece
 * (other requests are answered in between). Stops when the client goes away.
 */
async function sendStream(res: ServerResponse, response: SimResponse, stream: () => Iterable<string>, head: boolean): Promise<void> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    const lower = name.toLowerCase();
    if (lower !== "content-length" && lower !== "transfer-encoding") headers[name] = value;
  }
  try {
    res.writeHead(response.status, headers);
    if (head) {
      res.end();
      return;
    }
    for (const piece of stream()) {
      if (res.destroyed) return;
      if (!res.write(piece)) await new Promise<void>((resolve) => {
        const done = (): void => {
          res.off("drain", done);
          res.off("close", done);
          resolve();
        };
        res.once("drain", done);
        res.once("close", done);
      });
      await nextTurn();
    }
    if (!res.destroyed) res.end();
  } catch {
    // A piece failed to build after the status went out: the client sees a cut-off body.
    res.destroy();
  }
}

/**
 * Writes the response with a `Content-Length` (as the real services do for their small JSON
 * bodies; `0` for a bodyless 200 or 202, see {@link withContentLength}). A HEAD answer carries the length of the body a GET would get, and no body.
 */
function send(res: ServerResponse, response: SimResponse, head: boolean): void {
  try {
    const body = response.body;
    // A string body goes out as a string: node:http writes the head and a string body in one
    // write of one string, where bytes take a second buffer and a gathered write (writev). The
    // Content-Length is its UTF-8 byte length, counted without encoding it.
    const length = body === undefined ? undefined : typeof body === "string" ? Buffer.byteLength(body, "utf8") : body.byteLength;
    const headers = withContentLength(response, length);
    res.writeHead(response.status, headers);
    if (body === undefined || head) res.end();
    else if (typeof body === "string") res.end(body, "utf8");
    else res.end(Buffer.from(body));
  } catch (error) {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.writeHead(500, { "content-type": "text/plain; charset=utf-8", "x-infra-doubles-bug": "1" });
    res.end(`infra-doubles: internal error (a bug in the fake, please report it): cannot send the response: ${String(error)}`);
  }
}

/**
 * The request's URL under the server's origin (the `Host` header is ignored: clients reach the
 * server as `localhost`, `127.0.0.1` or through a proxy). Absolute-form targets keep their path and
 * query. When the handler's services live on another origin (a handler built for nock bases), the
 * path is taken to that origin.
 */
function requestUrl(target: string, origin: string, handler: Handler): URL {
  let pathAndQuery = "/";
  if (target.startsWith("/")) pathAndQuery = target;
  else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) {
    try {
      const absolute = new URL(target);
      pathAndQuery = `${absolute.pathname}${absolute.search}`;
    } catch {
      pathAndQuery = "/";
    }
  }
  const local = safeUrl(`${origin}${pathAndQuery}`) ?? new URL(`${origin}/`);
  const elsewhere = handler.origins[0];
  if (handler.owns(local) || elsewhere === undefined) return local;
  return safeUrl(`${elsewhere}${pathAndQuery}`) ?? local;
}

function safeUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}
