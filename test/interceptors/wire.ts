/**
 * Test helpers at the byte level: HTTP/1.1 requests as data (serialised with or without the
 * method rewriting the server does), raw socket exchanges with the real server, and a small
 * response parser for pipelined answers.
 */
import { connect, type Socket } from "node:net";
import { createDoubles, type Doubles } from "../../src/scenarios/doubles.js";

/** One request as bytes go on the wire. */
export interface WireRequest {
  readonly method: string;
  readonly target: string;
  /** Header lines in order (name, value). */
  readonly headers: readonly (readonly [string, string])[];
  readonly body?:
    | { readonly kind: "length"; readonly bytes: Uint8Array }
    | {
        readonly kind: "chunked";
        /** Chunk sizes splitting `bytes`, each > 0. */
        readonly chunks: readonly Uint8Array[];
        readonly extension?: string;
        readonly trailers?: readonly (readonly [string, string])[];
      };
  /** Empty lines sent before the request line (tolerated between pipelined requests). */
  readonly leadingEmptyLines?: number;
}

export const INTERNAL_HEADER = "x-infra-doubles-original-method";

/**
 * Serialises `request`. With `rewritten`, produces what the method rewriter must hand node:http:
 * unknown methods become `GET` plus the internal header, and client-sent internal headers vanish.
 */
export function serialize(request: WireRequest, rewritten = false, knownMethods: ReadonlySet<string> = new Set()): Buffer {
  const parts: Buffer[] = [];
  const text = (s: string): void => {
    parts.push(Buffer.from(s, "latin1"));
  };
  text("\r\n".repeat(request.leadingEmptyLines ?? 0));
  if (rewritten && !knownMethods.has(request.method)) {
    text(`GET ${request.target} HTTP/1.1\r\n${INTERNAL_HEADER}: ${request.method}\r\n`);
  } else {
    text(`${request.method} ${request.target} HTTP/1.1\r\n`);
  }
  for (const [name, value] of request.headers) {
    if (rewritten && name.toLowerCase() === INTERNAL_HEADER) continue;
    text(`${name}: ${value}\r\n`);
  }
  const body = request.body;
  if (body?.kind === "length") {
    text(`Content-Length: ${body.bytes.length}\r\n\r\n`);
    parts.push(Buffer.from(body.bytes));
  } else if (body?.kind === "chunked") {
    text("Transfer-Encoding: chunked\r\n\r\n");
    for (const chunk of body.chunks) {
      text(`${chunk.length.toString(16)}${body.extension ? `;${body.extension}` : ""}\r\n`);
      parts.push(Buffer.from(chunk));
      text("\r\n");
    }
    text("0\r\n");
    for (const [name, value] of body.trailers ?? []) text(`${name}: ${value}\r\n`);
    text("\r\n");
  } else {
    text("\r\n");
  }
  return Buffer.concat(parts);
}

/** A parsed response. */
export interface WireResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

/**
 * Parses complete responses from `bytes` (Content-Length or chunked bodies; none for HEAD, 1xx,
 * 204 and 304). `methods` lists the request methods in order, so HEAD answers are read right.
 * @returns the responses parsed so far and whether the bytes end exactly after the last one.
 */
export function parseResponses(bytes: Buffer, methods: readonly string[]): { responses: WireResponse[]; complete: boolean } {
  const responses: WireResponse[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const headEnd = bytes.indexOf("\r\n\r\n", offset);
    if (headEnd === -1) return { responses, complete: false };
    const lines = bytes.subarray(offset, headEnd).toString("latin1").split("\r\n");
    const status = Number(lines[0]?.split(" ")[1]);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(":");
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    let cursor = headEnd + 4;
    const method = methods[responses.length] ?? "GET";
    let body: Buffer = Buffer.alloc(0);
    if (status < 200 || status === 204 || status === 304 || method === "HEAD") {
      // no body
    } else if (headers["transfer-encoding"] === "chunked") {
      const pieces: Buffer[] = [];
      for (;;) {
        const lineEnd = bytes.indexOf("\r\n", cursor);
        if (lineEnd === -1) return { responses, complete: false };
        const size = Number.parseInt(bytes.subarray(cursor, lineEnd).toString("latin1"), 16);
        cursor = lineEnd + 2;
        if (size === 0) {
          if (bytes.length < cursor + 2) return { responses, complete: false };
          cursor += 2;
          break;
        }
        if (bytes.length < cursor + size + 2) return { responses, complete: false };
        pieces.push(bytes.subarray(cursor, cursor + size));
        cursor += size + 2;
      }
      body = Buffer.concat(pieces);
    } else {
      const length = Number(headers["content-length"] ?? 0);
      if (bytes.length < cursor + length) return { responses, complete: false };
      body = bytes.subarray(cursor, cursor + length);
      cursor += length;
    }
    responses.push({ status, headers, body });
    offset = cursor;
  }
  return { responses, complete: true };
}

/** Options of {@link rawExchange}. */
export interface RawExchangeOptions {
  /** Milliseconds to wait between writes, so each part arrives in its own TCP read (default 1). */
  readonly gapMs?: number;
  /** Give up after this long (default 5000 ms). */
  readonly timeoutMs?: number;
  /** Awaited after each write instead of the gap (e.g. until the server has read the part). */
  readonly afterWrite?: (client: Socket, index: number) => Promise<void>;
}

/**
 * Opens a TCP connection to `port`, writes `parts` one by one with a small gap between them, and
 * resolves with the parsed responses once `methods.length` responses arrived (or the server
 * closed the connection).
 */
export function rawExchange(
  port: number,
  parts: readonly Buffer[],
  methods: readonly string[],
  options: RawExchangeOptions = {},
): Promise<{ responses: WireResponse[]; closed: boolean; raw: Buffer }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: "127.0.0.1", noDelay: true });
    const received: Buffer[] = [];
    let settled = false;
    const finish = (closed: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const raw = Buffer.concat(received);
      socket.destroy();
      resolve({ responses: parseResponses(raw, methods).responses, closed, raw });
    };
    const timer = setTimeout(() => {
      settled = true;
      socket.destroy();
      reject(new Error(`raw exchange timed out; received: ${JSON.stringify(Buffer.concat(received).toString("latin1"))}`));
    }, options.timeoutMs ?? 5000);
    socket.on("data", (chunk: Buffer) => {
      received.push(chunk);
      const { responses, complete } = parseResponses(Buffer.concat(received), methods);
      if (responses.length >= methods.length && complete) finish(false);
    });
    socket.on("close", () => finish(true));
    socket.on("error", () => finish(true));
    socket.on("connect", async () => {
      for (const [index, part] of parts.entries()) {
        if (socket.destroyed) return;
        socket.write(part);
        if (options.afterWrite) await options.afterWrite(socket, index);
        else await new Promise((r) => setTimeout(r, options.gapMs ?? 1));
      }
    });
  });
}

/** A server of the default doubles, spoken to on raw sockets as the secrets service (see {@link secretsOnRawSockets}). */
export interface RawSecretsServer {
  readonly doubles: Doubles;
  readonly port: number;
  readonly url: string;
  /** The root token (sent as `X-Secrets-Token`). */
  readonly token: string;
  /** The secrets service's base path on the server (e.g. `/v1`). */
  readonly prefix: string;
  /** The request head `METHOD <secrets base path><path> HTTP/1.1` with the root token, and `extra` header lines. */
  head(method: string, path: string, extra?: string): string;
  /** A whole JSON POST request (`extra` header lines before its content headers). */
  post(path: string, body: string, extra?: string): string;
}

/**
 * Starts the default doubles' server (seed 1) and creates the SSH role `web` through a raw POST,
 * for tests that write requests byte by byte to the secrets service. Close `doubles` after.
 * @example const raw = await secretsOnRawSockets(); await rawExchange(raw.port, [Buffer.from(`${raw.head("LIST", "/ssh/roles")}\r\n`)], ["LIST"]);
 */
export async function secretsOnRawSockets(onConnection?: (socket: Socket) => void): Promise<RawSecretsServer> {
  const doubles = createDoubles({ seed: 1 });
  const server = await doubles.listen();
  if (onConnection !== undefined) server.server.on("connection", onConnection);
  const token = doubles.secrets.rootToken;
  const base = doubles.registeredPlugins.find((p) => p.key === "secrets")?.serverBases(server.url).api;
  const prefix = new URL(base ?? "").pathname.replace(/\/$/, "");
  const head = (method: string, path: string, extra = ""): string => `${method} ${prefix}${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Secrets-Token: ${token}\r\n${extra}`;
  const post = (path: string, body: string, extra = ""): string => `${head("POST", path, `${extra}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`)}\r\n${body}`;
  const role = JSON.stringify({ key_type: "ca", allow_user_certificates: true, default_user: "ubuntu" });
  const created = await rawExchange(server.port, [Buffer.from(post("/ssh/roles/web", role))], ["POST"]);
  if (created.responses[0]?.status !== 204) throw new Error(`creating the SSH role web answered ${String(created.responses[0]?.status)}`);
  return { doubles, port: server.port, url: server.url, token, prefix, head, post };
}
