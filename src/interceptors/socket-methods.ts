/**
 * Methods node:http cannot parse (`LIST`, the secrets service's listing method): a byte-level
 * HTTP/1.1 request framing tracker that rewrites `LIST /path HTTP/1.1` to `GET /path HTTP/1.1` plus
 * an internal header carrying the real method, and a socket wrapper that runs every connection of
 * the local server through it before node:http sees the bytes.
 *
 * The tracker follows request framing (request line, header lines, `Content-Length` bodies, chunked
 * bodies with trailers) so that it only ever rewrites request lines, whatever the keep-alive,
 * pipelining or TCP chunking: body bytes pass through untouched, even when they look like a request.
 * An `Upgrade:` request is followed like any other (the server answers it as plain HTTP, as Go's
 * net/http does); only `CONNECT` and framing node:http rejects end the tracking.
 *
 * Implements spec/secrets.md ("`LIST` is an HTTP method named LIST") for the local server; see
 * docs/decisions/transports.md.
 */
import { randomBytes } from "node:crypto";
import { lazyRequire } from "../simulator/kernel/lazy-require.js";
import type { Socket } from "node:net";
import { Duplex } from "node:stream";

/**
 * Internal header carrying a method node:http cannot parse (lower case). The tracker adds it to a
 * rewritten request as `<connection secret> <METHOD>` and drops it from every request a client
 * sends while it follows the framing. A client cannot fake it in any framing state (pass-through
 * after an upgrade included): the server honours it only when it starts with the connection's
 * secret, which never leaves the process (see {@link MethodRewritingSocket.secret}).
 */
export const ORIGINAL_METHOD_HEADER = "x-infra-doubles-original-method";

/**
 * The method an {@link ORIGINAL_METHOD_HEADER} value names, when it carries `secret`; else
 * undefined (a client's own copy of the header).
 * @example originalMethod("k3y LIST", "k3y") // "LIST"
 * @example originalMethod("DELETE", "k3y") // undefined
 */
export function originalMethod(value: string | undefined, secret: string): string | undefined {
  if (value === undefined || secret === "" || !value.startsWith(`${secret} `)) return undefined;
  const method = value.slice(secret.length + 1);
  return TOKEN.test(method) ? method : undefined;
}

/** Longest line (request line, header line, chunk size line) the tracker buffers before giving up. */
export const MAX_LINE_BYTES = 64 * 1024;

/** node:http, loaded by the first request line read (see lazy-require.ts). */
const http = lazyRequire<typeof import("node:http")>("node:http");
/** Methods node:http's parser reads; the first request line read sets it. */
let knownMethods: ReadonlySet<string> | undefined;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const REQUEST_LINE = /^(\S+) (\S+) (HTTP\/\d\.\d)$/;
const LF = 0x0a;

type Phase =
  | "request-line"
  | "headers"
  | "body"
  | "chunk-size"
  | "chunk-data"
  | "chunk-end"
  | "trailers"
  | "passthrough";

/** What the tracker learnt from the header lines of the request being read. */
interface MessageFraming {
  contentLength: string | undefined;
  lengthConflict: boolean;
  transferEncoding: string[];
  connect: boolean;
  droppingHeader: boolean;
}

/**
 * Rewrites request lines whose method node:http does not know (a valid HTTP token such as `LIST`)
 * into `GET` plus an {@link ORIGINAL_METHOD_HEADER} header, and passes every other byte through.
 * Feed it the connection's bytes in any chunking; the output is the same.
 *
 * Malformed framing (a bad `Content-Length`, an unknown transfer coding, an over-long line) and
 * `CONNECT` switch it to pass-through for the rest of the connection: node:http then answers or
 * closes the connection exactly as it would have without the tracker.
 *
 * An upgrade request (`Upgrade:` with `Connection: upgrade`) is no reason to stop: the server has
 * no `upgrade` listener, so node:http answers it as a plain request and goes on parsing HTTP, as
 * Go's net/http does. node:http does drop whatever follows an upgrade request in the same chunk
 * it reads, so every message ends at a boundary of the returned buffers, and a consumer must hand
 * node:http each returned buffer on its own ({@link MethodRewritingSocket} does).
 *
 * @example
 * const tracker = new MethodRewriter();
 * Buffer.concat(tracker.push(Buffer.from("LIST /v1/ssh/roles HTTP/1.1\r\nHost: x\r\n\r\n"))).toString();
 * // "GET /v1/ssh/roles HTTP/1.1\r\nx-infra-doubles-original-method: LIST\r\nHost: x\r\n\r\n"
 */
export class MethodRewriter {
  /**
   * @param secret - put before the method in the internal header (`<secret> LIST`), so the server
   *   can tell the tracker's header from a client's; "" (tests of the framing) writes the method alone.
   */
  constructor(private readonly secret = "") {}

  private phase: Phase = "request-line";
  private line: Buffer[] = [];
  private lineLength = 0;
  private remaining = 0;
  private framing: MessageFraming = freshFraming();

  /** Requests whose method was rewritten so far. */
  rewritten = 0;

  /** Whether the tracker gave up following the framing (it then passes bytes through). */
  get passingThrough(): boolean {
    return this.phase === "passthrough";
  }

  /**
   * Takes the next bytes of the connection and returns the bytes to hand to node:http. A partial
   * line is held back until its end arrives.
   */
  push(chunk: Buffer): Buffer[] {
    const out: Buffer[] = [];
    let offset = 0;
    while (offset < chunk.length) {
      if (this.phase === "passthrough") {
        out.push(chunk.subarray(offset));
        break;
      }
      if (this.phase === "body" || this.phase === "chunk-data") {
        const take = Math.min(this.remaining, chunk.length - offset);
        out.push(chunk.subarray(offset, offset + take));
        offset += take;
        this.remaining -= take;
        if (this.remaining === 0) this.phase = this.phase === "body" ? "request-line" : "chunk-end";
        continue;
      }
      const newline = chunk.indexOf(LF, offset);
      const end = newline === -1 ? chunk.length : newline + 1;
      this.line.push(chunk.subarray(offset, end));
      this.lineLength += end - offset;
      offset = end;
      if (newline === -1) {
        if (this.lineLength > MAX_LINE_BYTES) this.giveUp(out);
        continue;
      }
      const line = Buffer.concat(this.line);
      this.line = [];
      this.lineLength = 0;
      this.takeLine(line, out);
    }
    return out;
  }

  /** Bytes held back when the connection ends (an unfinished line), unchanged. */
  flush(): Buffer[] {
    const held = this.line;
    this.line = [];
    this.lineLength = 0;
    return held;
  }

  private giveUp(out: Buffer[]): void {
    out.push(...this.flush());
    this.phase = "passthrough";
  }

  private takeLine(line: Buffer, out: Buffer[]): void {
    const eol = line.length >= 2 && line[line.length - 2] === 0x0d ? "\r\n" : "\n";
    const text = line.subarray(0, line.length - eol.length).toString("latin1");
    switch (this.phase) {
      case "request-line":
        this.takeRequestLine(line, text, eol, out);
        return;
      case "headers":
        this.takeHeaderLine(line, text, out);
        return;
      case "chunk-size": {
        out.push(line);
        const size = /^([0-9A-Fa-f]{1,13})[ \t]*(?:;.*)?$/.exec(text);
        if (!size?.[1]) {
          this.phase = "passthrough";
          return;
        }
        this.remaining = Number.parseInt(size[1], 16);
        this.phase = this.remaining === 0 ? "trailers" : "chunk-data";
        return;
      }
      case "chunk-end":
        out.push(line);
        this.phase = text === "" ? "chunk-size" : "passthrough";
        return;
      case "trailers":
        out.push(line);
        if (text === "") this.phase = "request-line";
        return;
      default:
        out.push(line);
    }
  }

  private takeRequestLine(line: Buffer, text: string, eol: string, out: Buffer[]): void {
    if (text === "") {
      // Empty lines between pipelined requests are allowed (RFC 9112 section 2.2).
      out.push(line);
      return;
    }
    this.framing = freshFraming();
    this.phase = "headers";
    const parts = REQUEST_LINE.exec(text);
    const method = parts?.[1];
    if (!parts || method === undefined || !TOKEN.test(method) || (knownMethods ??= new Set(http().METHODS)).has(method)) {
      this.framing.connect = method === "CONNECT";
      out.push(line);
      return;
    }
    this.rewritten++;
    const value = this.secret === "" ? method : `${this.secret} ${method}`;
    out.push(Buffer.from(`GET ${parts[2]} ${parts[3]}${eol}${ORIGINAL_METHOD_HEADER}: ${value}${eol}`, "latin1"));
  }

  private takeHeaderLine(line: Buffer, text: string, out: Buffer[]): void {
    const framing = this.framing;
    if (text === "") {
      out.push(line);
      this.endHeaders();
      return;
    }
    if (text.startsWith(" ") || text.startsWith("\t")) {
      // An obsolete folded continuation belongs to the header line before it.
      if (!framing.droppingHeader) out.push(line);
      return;
    }
    const colon = text.indexOf(":");
    const name = (colon === -1 ? text : text.slice(0, colon)).trim().toLowerCase();
    const value = colon === -1 ? "" : text.slice(colon + 1).trim();
    framing.droppingHeader = name === ORIGINAL_METHOD_HEADER;
    if (framing.droppingHeader) return;
    out.push(line);
    if (name === "content-length") {
      if (framing.contentLength !== undefined && framing.contentLength !== value) framing.lengthConflict = true;
      framing.contentLength = value;
    } else if (name === "transfer-encoding") {
      framing.transferEncoding.push(...value.split(",").map((coding) => coding.trim().toLowerCase()).filter(Boolean));
    }
  }

  private endHeaders(): void {
    const framing = this.framing;
    // A CONNECT leaves HTTP (node:http closes the connection: the server has no `connect` listener).
    // An upgrade request does not (see the class comment); its body is read as any other.
    if (framing.connect || framing.lengthConflict) {
      this.phase = "passthrough";
      return;
    }
    if (framing.transferEncoding.length > 0) {
      this.phase = framing.transferEncoding.at(-1) === "chunked" ? "chunk-size" : "passthrough";
      return;
    }
    if (framing.contentLength === undefined) {
      this.phase = "request-line";
      return;
    }
    if (!/^\d{1,15}$/.test(framing.contentLength)) {
      this.phase = "passthrough";
      return;
    }
    this.remaining = Number(framing.contentLength);
    this.phase = this.remaining === 0 ? "request-line" : "body";
  }
}

function freshFraming(): MessageFraming {
  return { contentLength: undefined, lengthConflict: false, transferEncoding: [], connect: false, droppingHeader: false };
}

/**
 * A connection as node:http sees it: the client's socket with every incoming byte run through a
 * {@link MethodRewriter}, each buffer it returns pushed on its own (node:http parses each as one
 * chunk, so what follows an upgrade request is not dropped with it). Writes go straight to the socket. node:http accepts any Duplex on its
 * `connection` event; the socket's address getters and timeouts are forwarded so request objects
 * look as usual (`req.socket.remoteAddress`).
 *
 * @example
 * net.createServer((socket) => httpServer.emit("connection", new MethodRewritingSocket(socket)));
 */
export class MethodRewritingSocket extends Duplex {
  /**
   * This connection's secret: 128 random bits, written into the internal header of each rewritten
   * request and checked by the server. It never appears in a response or the journal, so it does
   * not touch determinism (same seed, same bytes).
   */
  readonly secret = randomBytes(16).toString("hex");
  private readonly rewriter = new MethodRewriter(this.secret);

  constructor(readonly socket: Socket) {
    super({ allowHalfOpen: true });
    socket.on("data", (chunk: Buffer) => {
      for (const part of this.rewriter.push(chunk)) {
        if (!this.push(part)) socket.pause();
      }
    });
    socket.on("end", () => {
      for (const part of this.rewriter.flush()) this.push(part);
      this.push(null);
    });
    socket.on("error", (error) => this.destroy(error));
    socket.on("close", () => this.destroy());
    socket.on("timeout", () => this.emit("timeout"));
  }

  get remoteAddress(): string | undefined {
    return this.socket.remoteAddress;
  }

  get remotePort(): number | undefined {
    return this.socket.remotePort;
  }

  get remoteFamily(): string | undefined {
    return this.socket.remoteFamily;
  }

  get localAddress(): string | undefined {
    return this.socket.localAddress;
  }

  get localPort(): number | undefined {
    return this.socket.localPort;
  }

  /** Requests whose method was rewritten on this connection. */
  get rewrittenRequests(): number {
    return this.rewriter.rewritten;
  }

  setTimeout(ms: number, callback?: () => void): this {
    this.socket.setTimeout(ms);
    if (callback) this.once("timeout", callback);
    return this;
  }

  setNoDelay(noDelay?: boolean): this {
    this.socket.setNoDelay(noDelay);
    return this;
  }

  setKeepAlive(enable?: boolean, initialDelay?: number): this {
    this.socket.setKeepAlive(enable, initialDelay);
    return this;
  }

  ref(): this {
    this.socket.ref();
    return this;
  }

  unref(): this {
    this.socket.unref();
    return this;
  }

  override _read(): void {
    this.socket.resume();
  }

  /**
   * Hands the bytes to the socket, and asks for more as soon as the socket has buffer room (not when
   * the bytes reached the network): waiting for each write to flush would serialize a response's
   * header and body writes behind the network round trip.
   */
  override _write(chunk: Buffer, encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.socket.destroyed) {
      callback();
      return;
    }
    if (this.socket.write(chunk, encoding)) callback();
    else this.socket.once("drain", () => callback());
  }

  /** A response's header block and body leave in one write (one syscall), as on a bare socket. */
  override _writev(chunks: { chunk: Buffer; encoding: BufferEncoding }[], callback: (error?: Error | null) => void): void {
    if (this.socket.destroyed) {
      callback();
      return;
    }
    this.socket.cork();
    let room = true;
    for (const { chunk, encoding } of chunks) room = this.socket.write(chunk, encoding);
    this.socket.uncork();
    if (room) callback();
    else this.socket.once("drain", () => callback());
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.socket.end(() => callback());
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.socket.destroy();
    callback(error);
  }
}
