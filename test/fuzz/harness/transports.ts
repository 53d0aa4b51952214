/**
 * The fuzz's transports: the transport-free handler (nock bases, or the server's one origin),
 * nock + fetch, nock + node:http(s), and the server over raw sockets with framing cases
 * (pipelining, chunked bodies, split writes, bad Content-Length).
 */
// Default imports, read at call time: nock patches `https.request` after these modules load.
import http from "node:http";
import https from "node:https";
import { connect, type Socket } from "node:net";
import { setupServer } from "msw/node";
import type { Handler } from "../../../src/interceptors/handler.js";
import { mswHandlers } from "../../../src/interceptors/transports/msw.js";
import { headTooLargeResponse, requestHeadBytes, requestHeadLimit } from "../../../src/interceptors/head-limit.js";
import { foldRequestHeaderLines } from "../../../src/interceptors/header-values.js";
import type { Doubles } from "../../../src/scenarios/doubles.js";
import type { FuzzTransport } from "../fuzz.config.js";
import type { FuzzRequest } from "./generate.js";
import type { FuzzResponse } from "./oracles.js";
import type { ServiceKey } from "./world.js";

/** A started transport. */
export interface Transport {
  readonly name: FuzzTransport;
  /** Base URLs per service key and base name. */
  readonly bases: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** Sends one request; resolves with the answer (or undefined when the connection closed without one). */
  send(request: FuzzRequest, signal: AbortSignal): Promise<FuzzResponse | undefined>;
  /** Whether the answer of this request is comparable with the handler's (false for bad framing). */
  comparable(request: FuzzRequest): boolean;
  /**
   * What the fake's handler receives for this request through this transport (undefined: the
   * transport answers or drops it itself). Default: the request as generated.
   */
  effective?(request: FuzzRequest): FuzzRequest | undefined;
  /**
   * The request head as this transport puts it on the wire (target and header lines in order),
   * for a transport whose node:http parser applies the head limit to those bytes (the server, a
   * node:http client's mock socket). Default: the handler applies the limit to what it receives.
   */
  wireHead?(request: FuzzRequest): { readonly target: string; readonly lines: readonly (readonly [string, string])[] };
  close(): Promise<void>;
}

/** The full URL of a request on `bases` (normalised as a client's URL parser would). */
export function urlOf(bases: Transport["bases"], request: FuzzRequest): URL {
  const base = bases[request.service]?.[request.base] ?? "";
  return new URL(`${base}${request.path}${request.query ? `?${request.query}` : ""}`);
}

function joinedHeaders(request: FuzzRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of request.headers) {
    const key = name.toLowerCase();
    out[key] = out[key] === undefined ? value : `${out[key]}, ${value}`;
  }
  return out;
}

function bodyBytes(body: string | Uint8Array | undefined): Uint8Array {
  if (body === undefined) return new Uint8Array();
  return typeof body === "string" ? new TextEncoder().encode(body) : body;
}

/** Calls a handler directly. */
export function handlerTransport(name: FuzzTransport, handler: Handler, bases: Transport["bases"]): Transport {
  return {
    name,
    bases,
    comparable: () => true,
    async send(request, signal) {
      const response = await handler.handle({ method: request.method, url: urlOf(bases, request), headers: joinedHeaders(request), body: request.body, signal });
      const headers: Record<string, string> = {};
      for (const [n, v] of Object.entries(response.headers)) headers[n.toLowerCase()] = v;
      return { status: response.status, headers, body: request.method === "HEAD" ? new Uint8Array() : bodyBytes(response.body) };
    },
    close: async () => undefined,
  };
}

/** The transport-free handler on the nock base URLs. */
export function directHandler(doubles: Doubles): Transport {
  return handlerTransport("handler", doubles.handler, doubles.baseUrls());
}

/** Methods `fetch` upper-cases (the Fetch standard's "normalize a method"). */
const FETCH_NORMALIZED = new Set(["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"]);

/** The in-process transport a fuzz transport runs through (`intercept({ transport })`, or msw handlers). */
type InProcess = "nock" | "interceptors" | "msw";

/** Starts `via` on the doubles; resolves with its stop function. */
function startInProcess(doubles: Doubles, via: InProcess): { stop: () => void } {
  if (via !== "msw") {
    const interception = doubles.intercept({ transport: via });
    return { stop: () => interception.stop() };
  }
  // msw's own server with the doubles' handlers (`infra-doubles/msw`), as a suite using msw runs them.
  const server = setupServer(...mswHandlers(doubles));
  server.listen({ onUnhandledRequest: "bypass" });
  return { stop: () => server.close() };
}

/** nock (or the @mswjs/interceptors transport, or msw handlers) + fetch. */
export function nockFetch(doubles: Doubles, via: InProcess = "nock"): Transport {
  const interception = startInProcess(doubles, via);
  const bases = doubles.baseUrls();
  return {
    name: `${via}-fetch`,
    bases,
    comparable: () => true,
    // fetch upper-cases the methods of the Fetch standard's normalization list, and no other
    effective: (r) => (FETCH_NORMALIZED.has(r.method.toUpperCase()) && r.method !== r.method.toUpperCase() ? { ...r, method: r.method.toUpperCase() } : r),
    async send(request, signal) {
      const headers = new Headers();
      for (const [n, v] of request.headers) headers.append(n, v);
      const response = await fetch(urlOf(bases, request), {
        method: request.method,
        headers,
        ...(request.body.length > 0 ? { body: Buffer.from(request.body) } : {}),
        redirect: "manual",
        signal,
      });
      const out: Record<string, string> = {};
      response.headers.forEach((v, n) => (out[n] = v));
      return { status: response.status, headers: out, body: new Uint8Array(await response.arrayBuffer()) };
    },
    close: async () => interception.stop(),
  };
}

/** nock (or the @mswjs/interceptors transport, or msw handlers) + node:http(s) `request()`. */
export function nockHttp(doubles: Doubles, via: InProcess = "nock"): Transport {
  const interception = startInProcess(doubles, via);
  const bases = doubles.baseUrls();
  return {
    name: `${via}-http`,
    bases,
    comparable: () => true,
    // node:http's client upper-cases every method; its repeated header lines are read as the server reads them
    effective: (r) => {
      const folded = foldedLines(r);
      return folded.method !== folded.method.toUpperCase() ? { ...folded, method: folded.method.toUpperCase() } : folded;
    },
    // What node:http's client writes (the global agent keeps connections alive): its mock socket's
    // parser counts these lines against the head limit.
    wireHead: (r) => {
      const url = urlOf(bases, r);
      const lines: (readonly [string, string])[] = [...r.headers];
      if (r.body.length > 0) lines.push(["Content-Length", String(r.body.length)]);
      lines.push(["Host", url.host], ["Connection", "keep-alive"]);
      return { target: `${url.pathname}${url.search}`, lines };
    },
    send(request, signal) {
      const url = urlOf(bases, request);
      const headers: Record<string, string | string[]> = {};
      for (const [n, v] of request.headers) {
        const old = headers[n];
        headers[n] = old === undefined ? v : [...(Array.isArray(old) ? old : [old]), v];
      }
      if (request.body.length > 0) headers["Content-Length"] = String(request.body.length);
      const send = url.protocol === "https:" ? https.request : http.request;
      return new Promise((resolve, reject) => {
        const req = send(url, { method: request.method, headers, signal }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("error", reject);
          res.on("end", () => {
            const out: Record<string, string> = {};
            for (const [n, v] of Object.entries(res.headers)) if (v !== undefined) out[n] = Array.isArray(v) ? v.join(", ") : v;
            resolve({ status: res.statusCode ?? 0, headers: out, body: new Uint8Array(Buffer.concat(chunks)) });
          });
        });
        req.on("error", reject);
        req.end(request.body.length > 0 ? Buffer.from(request.body) : undefined);
      });
    },
    close: async () => interception.stop(),
  };
}

/** Bases of every service on the server's origin. */
export function serverBases(doubles: Doubles, origin: string): Record<string, Record<string, string>> {
  return Object.fromEntries(doubles.registeredPlugins.map((p) => [p.key, p.serverBases(origin)]));
}

const HEALTH_PROBE = "GET /v1/sys/health HTTP/1.1\r\nHost: fuzz\r\n\r\n";

/**
 * The local server over raw sockets (`net.connect`), one keep-alive connection reused while it
 * stays open. Framing: `plain`, `split` (the request in pieces), `chunked` (body in chunks),
 * `pipelined` (a health probe right behind the request in one write), `cl-long`/
 * `cl-bad`/`cl-te` (Content-Length longer than the body, not a number, or beside
 * Transfer-Encoding).
 */
export async function serverSocket(doubles: Doubles): Promise<Transport & { readonly origin: string }> {
  const server = await doubles.listen();
  const origin = server.url;
  const { port } = server;
  const bases = serverBases(doubles, origin);
  let socket: Socket | undefined;
  let reader: ResponseReader | undefined;

  const open = async (): Promise<void> => {
    if (socket && !socket.destroyed && reader && !reader.ended) return;
    socket?.destroy();
    const s = connect(port, "127.0.0.1");
    await new Promise<void>((resolve, reject) => {
      s.once("connect", resolve);
      s.once("error", reject);
    });
    s.on("error", () => undefined);
    socket = s;
    reader = new ResponseReader(s);
  };

  /** The request line's target and the header lines, framing lines included, as written. */
  const wireHead = (request: FuzzRequest): { target: string; lines: (readonly [string, string])[] } => {
    const url = urlOf(bases, request);
    const lines: (readonly [string, string])[] = [["Host", `127.0.0.1:${port}`], ...request.headers];
    const length = request.body.length;
    switch (request.framing ?? "plain") {
      case "chunked":
        lines.push(["Transfer-Encoding", "chunked"]);
        break;
      case "cl-long":
        lines.push(["Content-Length", String(length + 10)]);
        break;
      case "cl-bad":
        lines.push(["Content-Length", ["-1", "abc", "1e3", "0x10", `${length}, ${length + 1}`][length % 5] ?? "x"]);
        break;
      case "cl-te":
        lines.push(["Content-Length", String(length)], ["Transfer-Encoding", "chunked"]);
        break;
      default:
        if (length > 0 || !["GET", "HEAD", "DELETE", "OPTIONS"].includes(request.method)) lines.push(["Content-Length", String(length)]);
    }
    return { target: `${url.pathname}${url.search}`, lines };
  };

  return {
    name: "server-socket",
    bases,
    origin,
    comparable: (r) => effective(r) !== undefined,
    effective,
    wireHead,
    async send(request, signal) {
      await open();
      const s = socket as Socket;
      const rd = reader as ResponseReader;
      const { target, lines } = wireHead(request);
      const framing = request.framing ?? "plain";
      const head = [`${request.method} ${target} HTTP/1.1`, ...lines.map(([n, v]) => `${n}: ${v}`)];
      const body = Buffer.from(request.body);
      let payload: Buffer[];
      switch (framing) {
        case "chunked": {
          const parts: Buffer[] = [];
          for (let at = 0; at < body.length; ) {
            const size = Math.min(body.length - at, 1 + ((at * 7919 + body.length) % 4096));
            parts.push(Buffer.from(`${size.toString(16)}\r\n`), body.subarray(at, at + size), Buffer.from("\r\n"));
            at += size;
          }
          parts.push(Buffer.from("0\r\n\r\n"));
          payload = [Buffer.from(`${head.join("\r\n")}\r\n\r\n`), ...parts];
          break;
        }
        default:
          payload = [Buffer.from(`${head.join("\r\n")}\r\n\r\n`), body];
      }
      let whole = Buffer.concat(payload);
      const expect: boolean[] = [request.method === "HEAD"]; // methods are case-sensitive: "head" gets a body
      if (framing === "pipelined") {
        whole = Buffer.concat([whole, Buffer.from(HEALTH_PROBE)]);
        expect.push(false);
      }
      const answers = rd.expect(expect, signal);
      if (framing === "split") {
        const cuts = [1, Math.floor(whole.length / 3), Math.floor(whole.length / 2), whole.length - 1].filter((c, i, a) => c > 0 && c < whole.length && a.indexOf(c) === i);
        let at = 0;
        for (const cut of [...cuts, whole.length]) {
          s.write(whole.subarray(at, cut));
          at = cut;
          await new Promise((r) => setImmediate(r));
        }
      } else s.write(whole);
      if (framing === "cl-long") s.end(); // half-close: the body never completes
      const got = await answers;
      if (framing === "pipelined") {
        const probe = got[1];
        if (got[0] !== undefined && (probe === undefined || probe.status !== 200)) {
          return { ...(got[0] as FuzzResponse), headers: { ...(got[0] as FuzzResponse).headers, "x-fuzz-pipeline": `probe answered ${probe?.status ?? "nothing"}` } };
        }
      }
      const closing = got.some((r) => r === undefined || r.headers.connection?.toLowerCase() === "close");
      if (closing || (framing !== "plain" && framing !== "split" && framing !== "chunked" && framing !== "pipelined")) {
        s.destroy(); // the server closes it, or its framing is lost: the next request opens another
      }
      return got[0];
    },
    close: async () => {
      socket?.destroy();
      await server.close();
    },
  };
}

/**
 * The request with its repeated header lines folded as node:http's server reads what a node:http
 * client sends (the first `Authorization`, ...; `src/interceptors/header-values.ts`): every
 * transport reads a node:http client's request so.
 */
function foldedLines(r: FuzzRequest): FuzzRequest {
  const folded = foldRequestHeaderLines(r.headers.flat());
  if (folded.length === r.headers.length * 2) return r;
  const headers: [string, string][] = [];
  for (let i = 0; i + 1 < folded.length; i += 2) headers.push([folded[i] ?? "", folded[i + 1] ?? ""]);
  return { ...r, headers };
}

/**
 * The request the server's handler receives for a request sent over a raw socket, or undefined
 * when node:http answers (or drops) it itself: a `Content-Length` that is not a number or sits
 * beside `Transfer-Encoding` (400), a body that never completes. (A head beyond the limit gets the
 * server's 431: the twin answers it from the same definition, see {@link twinOf}.) A GET with
 * `X-HTTP-Method-Override: LIST` is a LIST (the server's own override); of repeated headers node:http
 * may not join, the first.
 */
function effective(r: FuzzRequest): FuzzRequest | undefined {
  if (r.framing === "cl-long" || r.framing === "cl-bad" || r.framing === "cl-te") return undefined;
  // node:http keeps the first of repeated headers it may not join (its `discard` list), and joins the others
  let out = foldedLines(r);
  const override = r.headers
    .filter(([n]) => n.toLowerCase() === "x-http-method-override")
    .map(([, v]) => v)
    .join(", ");
  const isList = override.trim().toUpperCase() === "LIST"; // repeated, node:http joins them: "list, list" is no override
  if (r.method === "GET" && isList) out = { ...out, method: "LIST" };
  return out;
}

/** Parses HTTP/1.1 responses from a socket, in order. */
class ResponseReader {
  private buffer = Buffer.alloc(0);
  ended = false;
  private waiting: (() => void) | undefined;

  constructor(socket: Socket) {
    socket.on("data", (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.waiting?.();
    });
    const end = (): void => {
      this.ended = true;
      this.waiting?.();
    };
    socket.on("end", end);
    socket.on("close", end);
  }

  /** Reads one answer per entry (`true`: the answer of a HEAD, no body); undefined once the connection ends. */
  async expect(heads: readonly boolean[], signal: AbortSignal): Promise<(FuzzResponse | undefined)[]> {
    const out: (FuzzResponse | undefined)[] = [];
    for (const head of heads) out.push(await this.next(head, signal));
    return out;
  }

  private async next(head: boolean, signal: AbortSignal): Promise<FuzzResponse | undefined> {
    for (;;) {
      const parsed = this.tryParse(head);
      if (parsed !== undefined) return parsed;
      if (this.ended || signal.aborted) return undefined;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          this.waiting = undefined;
          signal.removeEventListener("abort", done);
          resolve();
        };
        this.waiting = done;
        signal.addEventListener("abort", done, { once: true });
      });
    }
  }

  private tryParse(head: boolean): FuzzResponse | undefined {
    const end = this.buffer.indexOf("\r\n\r\n");
    if (end < 0) return undefined;
    const lines = this.buffer.subarray(0, end).toString("latin1").split("\r\n");
    const status = Number((lines[0] ?? "").split(" ")[1]);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(":");
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    }
    let at = end + 4;
    let body: Buffer;
    if (head || status === 204 || status === 304 || (status >= 100 && status < 200)) body = Buffer.alloc(0);
    else if (headers["transfer-encoding"]?.includes("chunked")) {
      const parts: Buffer[] = [];
      for (;;) {
        const lineEnd = this.buffer.indexOf("\r\n", at);
        if (lineEnd < 0) return undefined;
        const size = parseInt(this.buffer.subarray(at, lineEnd).toString("latin1"), 16);
        if (this.buffer.length < lineEnd + 2 + size + 2) return undefined;
        parts.push(this.buffer.subarray(lineEnd + 2, lineEnd + 2 + size));
        at = lineEnd + 2 + size + 2;
        if (size === 0) break;
      }
      body = Buffer.concat(parts);
    } else if (headers["content-length"] !== undefined) {
      const length = Number(headers["content-length"]);
      if (this.buffer.length < at + length) return undefined;
      body = this.buffer.subarray(at, at + length);
      at += length;
    } else {
      if (!this.ended) return undefined; // read until close
      body = this.buffer.subarray(at);
      at = this.buffer.length;
    }
    this.buffer = this.buffer.subarray(at);
    return { status, headers, body: new Uint8Array(body) };
  }
}

/**
 * The server's own handler (same origin as a running server) for comparing transcripts: each
 * request is handed over as the server's handler would receive it through `socket`.
 */
export function serverHandler(doubles: Doubles, origin: string, socket: Transport): Transport {
  return twinOf(handlerTransport("server-handler", doubles.handlerFor(origin), serverBases(doubles, origin)), socket);
}

/**
 * `direct` (a handler transport), handed each request as `transport`'s handler receives it. A head
 * `transport`'s node:http parser refuses (its {@link Transport.wireHead} counted by the one
 * definition of the limit, `src/interceptors/head-limit.ts`) gets node:http's 431 instead; on other
 * transports the handler applies that definition itself.
 */
export function twinOf(direct: Transport, transport: Transport): Transport {
  const socket = transport;
  const reach = (r: FuzzRequest): FuzzRequest | undefined => (socket.effective ? socket.effective(r) : r);
  return {
    ...direct,
    comparable: socket.comparable,
    effective: reach,
    send: (request, signal) => {
      const head = socket.wireHead?.(request);
      if (head !== undefined && requestHeadBytes(head.target, head.lines) >= requestHeadLimit()) {
        const refused = headTooLargeResponse();
        return Promise.resolve({ status: refused.status, headers: { ...refused.headers }, body: new Uint8Array() });
      }
      const received = reach(request);
      return received === undefined ? Promise.resolve(undefined) : direct.send(received, signal);
    },
  };
}

export type { ServiceKey };
