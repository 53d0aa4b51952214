/**
 * Methods node:http cannot parse (`LIST`, the secrets service's listing method): a byte-level
 * HTTP/1.1 request framing tracker that rewrites `LIST /path HTTP/1.1` to `GET /path HTTP/1.1` plus
 * an internal header carrying the real method, and the hook that runs a connection of the local
 * server through it from the first request node:http's parser refuses (until then node:http parses
 * the connection itself, in C++).
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
import type { Server } from "node:http";
import type { Socket } from "node:net";
import { lazyRequire } from "../simulator/kernel/lazy-require.js";

/**
 * Internal header carrying a method node:http cannot parse (lower case). The tracker adds it to a
 * rewritten request as `<connection secret> <METHOD>` and drops it from every request a client
 * sends while it follows the framing. A client cannot fake it in any framing state (pass-through
 * after an upgrade included): the server honours it only when it starts with the connection's
 * secret, which never leaves the process (see {@link connectionSecret}).
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

/** node:http, loaded on first use (see lazy-require.ts): an import of the package does not load it. */
const http = lazyRequire<typeof import("node:http")>("node:http");

let knownMethods: ReadonlySet<string> | undefined;

/** Whether node:http's parser reads `method` (its `METHODS`). */
function parserKnows(method: string): boolean {
  return (knownMethods ??= new Set(http().METHODS)).has(method);
}
/** Whether a header name this long may be one of the three the tracker reads. */
function isInterestingLength(length: number): boolean {
  return length === 14 || length === 17 || length === ORIGINAL_METHOD_HEADER.length;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const REQUEST_LINE = /^(\S+) (\S+) (HTTP\/\d\.\d)$/;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const TAB = 0x09;
const COLON = 0x3a;

type Phase =
  | "request-line"
  | "headers"
  | "body"
  | "chunk-size"
  | "chunk-data"
  | "chunk-end"
  | "trailers"
  | "passthrough";

/** What the tracker learnt from the header lines of the request being read (reset per request). */
interface MessageFraming {
  contentLength: string | undefined;
  lengthConflict: boolean;
  /** Whether a `Transfer-Encoding` line named any coding, and the last coding named. */
  transferEncoded: boolean;
  lastCoding: string;
  connect: boolean;
  droppingHeader: boolean;
}

/** What becomes of a line: kept as it came, dropped, or replaced by other bytes. */
const KEEP = 0;
const DROP = 1;
type LineAction = typeof KEEP | typeof DROP | Buffer;

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
 * node:http each returned buffer on its own ({@link rewriteUnknownMethods} does).
 *
 * Bytes that need no change come back as views of the pushed chunk (no copy): a chunk holding one
 * whole request with a method node:http knows comes back as one buffer, itself.
 *
 * @example
 * const tracker = new MethodRewriter();
 * Buffer.concat(tracker.push(Buffer.from("LIST /v1/ssh/roles HTTP/1.1\r\nHost: x\r\n\r\n"))).toString();
 * // "GET /v1/ssh/roles HTTP/1.1\r\nx-infra-doubles-original-method: LIST\r\nHost: x\r\n\r\n"
 */
export class MethodRewriter {
  /**
   * @param secret - put before the method in the internal header (`<secret> LIST`), so the server
   *   can tell the tracker's header from a client's; "" (tests of the framing) writes the method
   *   alone. A function is called at the first rewrite (a connection that never sends an unknown
   *   method never draws a secret).
   */
  constructor(private readonly secret: string | (() => string) = "") {}

  private phase: Phase = "request-line";
  private line: Buffer[] = [];
  private lineLength = 0;
  private remaining = 0;
  /** Set by a line or body end that ends a message (or starts pass-through): the output splits there. */
  private boundary = false;
  private readonly framing: MessageFraming = {
    contentLength: undefined,
    lengthConflict: false,
    transferEncoded: false,
    lastCoding: "",
    connect: false,
    droppingHeader: false,
  };

  /** Requests whose method was rewritten so far. */
  rewritten = 0;

  /** Whether the tracker gave up following the framing (it then passes bytes through). */
  get passingThrough(): boolean {
    return this.phase === "passthrough";
  }

  /**
   * Takes the next bytes of the connection and returns the bytes to hand to node:http, each message
   * ending at the end of a returned buffer. A partial line is held back until its end arrives.
   */
  push(chunk: Buffer): Buffer[] {
    const out: Buffer[] = [];
    /** Start of the bytes of `chunk` passed on unchanged and not yet in `out`. */
    let start = 0;
    let offset = 0;
    const length = chunk.length;
    while (offset < length) {
      const phase = this.phase;
      if (phase === "passthrough") {
        offset = length;
        break;
      }
      if (phase === "body" || phase === "chunk-data") {
        const take = Math.min(this.remaining, length - offset);
        offset += take;
        this.remaining -= take;
        if (this.remaining === 0) {
          if (phase === "body") {
            this.phase = "request-line";
            if (offset > start) out.push(chunk.subarray(start, offset));
            start = offset;
          } else this.phase = "chunk-end";
        }
        continue;
      }
      const newline = chunk.indexOf(LF, offset);
      if (newline === -1) {
        // A line cut by the chunk's end: what came before it goes now, the line waits for its end.
        if (offset > start) out.push(chunk.subarray(start, offset));
        this.line.push(chunk.subarray(offset));
        this.lineLength += length - offset;
        start = offset = length;
        if (this.lineLength > MAX_LINE_BYTES) this.giveUp(out);
        break;
      }
      const end = newline + 1;
      let line: Buffer;
      const held = this.line.length > 0;
      if (held) {
        // Its start came in earlier chunks (everything before it was handed on then: start === offset).
        this.line.push(chunk.subarray(offset, end));
        line = Buffer.concat(this.line);
        this.line = [];
        this.lineLength = 0;
      } else line = chunk.subarray(offset, end);
      const action = this.takeLine(line);
      if (held) {
        if (action === KEEP) out.push(line);
        else if (action !== DROP) out.push(action);
        start = end;
      } else if (action !== KEEP) {
        if (offset > start) out.push(chunk.subarray(start, offset));
        if (action !== DROP) out.push(action);
        start = end;
      }
      offset = end;
      if (this.boundary) {
        this.boundary = false;
        if (offset > start) out.push(chunk.subarray(start, offset));
        start = offset;
      }
    }
    if (offset > start) out.push(start === 0 && offset === length ? chunk : chunk.subarray(start, offset));
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

  private takeLine(line: Buffer): LineAction {
    switch (this.phase) {
      case "request-line":
        return this.takeRequestLine(line);
      case "headers":
        return this.takeHeaderLine(line);
      default:
        break;
    }
    const text = line.toString("latin1", 0, line.length - eolLength(line));
    switch (this.phase) {
      case "chunk-size": {
        const size = /^([0-9A-Fa-f]{1,13})[ \t]*(?:;.*)?$/.exec(text);
        if (!size?.[1]) {
          this.passThrough();
          return KEEP;
        }
        this.remaining = Number.parseInt(size[1], 16);
        this.phase = this.remaining === 0 ? "trailers" : "chunk-data";
        return KEEP;
      }
      case "chunk-end":
        if (text === "") this.phase = "chunk-size";
        else this.passThrough();
        return KEEP;
      case "trailers":
        if (text === "") this.endMessage();
        return KEEP;
      default:
        return KEEP;
    }
  }

  private takeRequestLine(line: Buffer): LineAction {
    const eol = eolLength(line);
    // Empty lines between pipelined requests are allowed (RFC 9112 section 2.2).
    if (line.length === eol) return KEEP;
    const framing = this.framing;
    framing.contentLength = undefined;
    framing.lengthConflict = false;
    framing.transferEncoded = false;
    framing.lastCoding = "";
    framing.connect = false;
    framing.droppingHeader = false;
    this.phase = "headers";
    // The common case first: a method node:http knows (other than CONNECT) is kept as it came.
    const space = line.indexOf(SPACE);
    if (space > 0) {
      const first = line.toString("latin1", 0, space);
      if (first !== "CONNECT" && parserKnows(first)) return KEEP;
    }
    const text = line.toString("latin1", 0, line.length - eol);
    const parts = REQUEST_LINE.exec(text);
    const method = parts?.[1];
    if (!parts || method === undefined || !TOKEN.test(method) || parserKnows(method)) {
      framing.connect = method === "CONNECT";
      return KEEP;
    }
    this.rewritten++;
    const secret = typeof this.secret === "string" ? this.secret : this.secret();
    const value = secret === "" ? method : `${secret} ${method}`;
    const crlf = eol === 2 ? "\r\n" : "\n";
    return Buffer.from(`GET ${parts[2]} ${parts[3]}${crlf}${ORIGINAL_METHOD_HEADER}: ${value}${crlf}`, "latin1");
  }

  private takeHeaderLine(line: Buffer): LineAction {
    const framing = this.framing;
    const textEnd = line.length - eolLength(line);
    if (textEnd === 0) {
      this.endHeaders();
      return KEEP;
    }
    const first = line[0];
    if (first === SPACE || first === TAB) {
      // An obsolete folded continuation belongs to the header line before it.
      return framing.droppingHeader ? DROP : KEEP;
    }
    const colon = line.indexOf(COLON);
    const nameEnd = colon === -1 || colon > textEnd ? textEnd : colon;
    // Only three names matter here; the others are passed on without looking further, and without
    // making a string of them (a name padded with blanks before its colon is read as text).
    const padded = nameEnd > 0 && (line[nameEnd - 1] === SPACE || line[nameEnd - 1] === TAB);
    const name = padded || isInterestingLength(nameEnd) ? line.toString("latin1", 0, nameEnd).trim() : "";
    const lower = isInterestingLength(name.length) ? name.toLowerCase() : "";
    framing.droppingHeader = lower === ORIGINAL_METHOD_HEADER;
    if (framing.droppingHeader) return DROP;
    if (lower === "content-length") {
      const value = colon === nameEnd ? line.toString("latin1", colon + 1, textEnd).trim() : "";
      if (framing.contentLength !== undefined && framing.contentLength !== value) framing.lengthConflict = true;
      framing.contentLength = value;
    } else if (lower === "transfer-encoding") {
      const value = colon === nameEnd ? line.toString("latin1", colon + 1, textEnd) : "";
      for (const part of value.split(",")) {
        const coding = part.trim().toLowerCase();
        if (coding === "") continue;
        framing.transferEncoded = true;
        framing.lastCoding = coding;
      }
    }
    return KEEP;
  }

  private endHeaders(): void {
    const framing = this.framing;
    // A CONNECT leaves HTTP (node:http closes the connection: the server has no `connect` listener).
    // An upgrade request does not (see the class comment); its body is read as any other.
    if (framing.connect || framing.lengthConflict) {
      this.passThrough();
      return;
    }
    if (framing.transferEncoded) {
      if (framing.lastCoding === "chunked") this.phase = "chunk-size";
      else this.passThrough();
      return;
    }
    if (framing.contentLength === undefined) {
      this.endMessage();
      return;
    }
    if (!/^\d{1,15}$/.test(framing.contentLength)) {
      this.passThrough();
      return;
    }
    this.remaining = Number(framing.contentLength);
    if (this.remaining === 0) this.endMessage();
    else this.phase = "body";
  }

  private endMessage(): void {
    this.phase = "request-line";
    this.boundary = true;
  }

  private passThrough(): void {
    this.phase = "passthrough";
    this.boundary = true;
  }
}

/** 2 for a line ending in CRLF, 1 for a bare LF (a line always ends in LF here). */
function eolLength(line: Buffer): number {
  return line.length >= 2 && line[line.length - 2] === CR ? 2 : 1;
}

/**
 * node:http's own per-connection state this module relies on (stable from Node 12 to 24:
 * `lib/_http_server.js`): the parser on `socket.parser`, and `socket._paused`, set while node:http
 * holds back pipelined requests (its `data` listener asserts it is not set).
 */
interface HttpSocket extends Socket {
  parser?: unknown;
  _paused?: boolean;
}

/** One connection's tracker and the node:http listeners it feeds. */
class RewrittenConnection {
  /** The connection's secret: drawn at its first rewritten request ("" until then). */
  secret = "";
  readonly rewriter = new MethodRewriter(() => (this.secret ||= randomBytes(16).toString("hex")));
  /** Rewritten bytes node:http could not take yet (it paused the connection), in order. */
  private pending: Buffer[] = [];
  private ended = false;

  constructor(
    private readonly socket: HttpSocket,
    private readonly parser: unknown,
    private readonly nodeOnData: (chunk: Buffer) => void,
    private readonly nodeOnEnd: () => void,
  ) {}

  readonly onData = (chunk: Buffer): void => {
    const parts = this.rewriter.push(chunk);
    if (this.pending.length > 0) {
      this.pending.push(...parts);
      this.drain();
      return;
    }
    // The common case: one buffer, handed on as node:http would have received it.
    if (parts.length === 1 && !this.socket._paused) {
      this.nodeOnData(parts[0] as Buffer);
      return;
    }
    this.pending = parts;
    this.drain();
  };

  readonly onEnd = (): void => {
    const held = this.rewriter.flush();
    if (held.length > 0) this.pending.push(Buffer.concat(held));
    this.ended = true;
    this.drain();
  };

  /** Hands node:http the pending buffers, one `data` call each, while it takes them. */
  readonly drain = (): void => {
    const pending = this.pending;
    let i = 0;
    while (i < pending.length) {
      if (this.socket.parser !== this.parser) {
        // node:http let go of the connection (an upgrade, CONNECT, a parse error, close): the
        // rest would have been dropped with its parser.
        this.pending = [];
        return;
      }
      if (this.socket._paused) break;
      this.nodeOnData(pending[i++] as Buffer);
    }
    this.pending = i === pending.length ? [] : pending.slice(i);
    if (this.ended && this.pending.length === 0) {
      this.ended = false;
      this.nodeOnEnd();
    }
  };
}

const connections = new WeakMap<Socket, RewrittenConnection>();
let warned = false;

/**
 * node:http's request parser as this module uses it while the parser reads the socket in C++
 * (`src/node_http_parser.cc` and `lib/_http_server.js`, Node 20 to 24): its callbacks are indexed
 * properties named by numbers on its class, `incoming` is the request whose head it read last.
 */
interface NodeParser {
  [callback: number]: unknown;
  incoming: { complete?: boolean } | null;
  _consumed?: boolean;
  getCurrentBuffer(): Buffer;
  initialize(type: number, resource: object, maxHeaderSize: number, lenient: number, connections?: unknown): void;
  remove(): void;
  execute(data: Buffer): number | Error;
  close(): void;
}

interface NodeParserClass {
  new (): NodeParser;
  readonly REQUEST: number;
  readonly kOnMessageBegin: number;
  readonly kOnHeaders: number;
  readonly kOnHeadersComplete: number;
  readonly kOnBody: number;
  readonly kOnMessageComplete: number;
  readonly kOnExecute: number;
  readonly kLenientNone: number;
  readonly kLenientAll: number;
}

/** node:http's parse error, as its `clientError` event gives it. */
interface ParseError {
  code?: unknown;
  rawPacket?: unknown;
}

/** The parser class of `parser` when it has every internal the native path needs; else undefined. */
function parserClass(parser: unknown): NodeParserClass | undefined {
  if (typeof parser !== "object" || parser === null) return undefined;
  const candidate = parser as NodeParser;
  const Class = candidate.constructor as unknown as Partial<NodeParserClass>;
  const numbers = [Class.REQUEST, Class.kOnMessageBegin, Class.kOnHeaders, Class.kOnHeadersComplete, Class.kOnBody, Class.kOnMessageComplete, Class.kOnExecute, Class.kLenientNone, Class.kLenientAll];
  if (!numbers.every((value) => typeof value === "number")) return undefined;
  const full = Class as NodeParserClass;
  const methods = [candidate.getCurrentBuffer, candidate.initialize, candidate.remove, candidate.execute, candidate.close];
  if (!methods.every((method) => typeof method === "function")) return undefined;
  if (candidate._consumed !== true || typeof candidate[full.kOnExecute] !== "function" || candidate[full.kOnMessageBegin] != null) return undefined;
  return full;
}

/**
 * Where the request node:http refused begins in `reads` (the connection's reads since the last one
 * that ended between two requests, the refused one last): found by feeding them to a fresh parser of
 * the same kind, whole, then once more with the read where the last request began byte by byte, and
 * noting where that request's first byte went in. Undefined when the fresh parser does not refuse
 * the same read (it always does: it is the same parser from the same state).
 */
function refusedRequestStart(Parser: NodeParserClass, reads: readonly Buffer[], maxHeaderSize: number, lenient: number): { read: number; offset: number } | undefined {
  const run = (slowRead: number): { read: number; offset: number; failedIn: number } => {
    const parser = new Parser();
    parser.initialize(Parser.REQUEST, {}, maxHeaderSize, lenient);
    const noop = (): number => 0;
    parser[Parser.kOnHeaders] = noop;
    parser[Parser.kOnHeadersComplete] = noop;
    parser[Parser.kOnBody] = noop;
    parser[Parser.kOnMessageComplete] = noop;
    let read = 0;
    let offset = -1;
    const begin = { read: -1, offset: -1, failedIn: -1 };
    parser[Parser.kOnMessageBegin] = () => {
      begin.read = read;
      begin.offset = offset;
    };
    try {
      for (; read < reads.length && begin.failedIn === -1; read++) {
        const bytes = reads[read] as Buffer;
        if (read === slowRead) {
          for (offset = 0; offset < bytes.length; offset++) {
            if (parser.execute(bytes.subarray(offset, offset + 1)) instanceof Error) {
              begin.failedIn = read;
              break;
            }
          }
        } else {
          offset = -1;
          if (parser.execute(bytes) instanceof Error) begin.failedIn = read;
        }
      }
    } finally {
      parser.close();
    }
    return begin;
  };
  const last = reads.length - 1;
  const whole = run(-1);
  if (whole.failedIn !== last || whole.read === -1) return undefined;
  const exact = run(whole.read);
  if (exact.failedIn !== last || exact.read !== whole.read || exact.offset < 0) return undefined;
  return { read: exact.read, offset: exact.offset };
}

/** Whether a request asked for a protocol upgrade as llhttp reads it (`Upgrade:` and `Connection: upgrade`). */
function asksUpgrade(incoming: { headers?: Record<string, string | string[] | undefined> }): boolean {
  const headers = incoming.headers;
  if (headers === undefined || headers.upgrade === undefined) return false;
  const connection = headers.connection;
  return typeof connection === "string" && /(?:^|,)\s*upgrade\s*(?:,|$)/i.test(connection);
}

/**
 * A connection node:http parses itself (in C++ from the socket, or from JavaScript once another
 * party reads the socket too) until its parser refuses a method. Every read that ends inside a
 * request is kept; a read that ends between requests drops them. On the refusal
 * ({@link NativeConnection.switchToRewriter}) the kept reads and the refused one say exactly where
 * the refused request begins, and the connection goes on through a {@link RewrittenConnection}
 * from that byte. A request asking for an upgrade switches the connection at its end too: llhttp
 * keeps its upgrade flag after it (a refused method next is dropped without an error) and node:http
 * drops the rest of that read.
 */
class NativeConnection {
  switched = false;
  private kept: Buffer[] = [];
  private begun = false;
  /** node:http's `incoming` when the last request began (the request before it). */
  private before: unknown = null;
  private lastChecked: unknown = null;
  /** node:http's `data` listener wrapped, once node:http reads the socket from JavaScript. */
  private jsOnData: ((chunk: Buffer) => void) | undefined;

  constructor(
    private readonly server: Server,
    private readonly socket: HttpSocket,
    private readonly parser: NodeParser,
    private readonly Parser: NodeParserClass,
    private readonly nodeOnExecute: (this: unknown, ret: unknown) => unknown,
    private readonly nodeOnData: (chunk: Buffer) => void,
    private readonly nodeOnEnd: () => void,
    private readonly nodeOnError: readonly ((error: Error) => void)[],
    private readonly connectionsList: unknown,
  ) {
    parser[Parser.kOnMessageBegin] = (): void => {
      this.begun = true;
      this.before = parser.incoming;
    };
    // node:http calls it on the parser with its own `this` (a bound function: `this` unused).
    parser[Parser.kOnExecute] = (ret: unknown): unknown => {
      const result = this.nodeOnExecute.call(parser, ret);
      if (!this.switched && this.socket.parser === parser) this.afterRead(undefined, typeof ret === "number" ? ret : undefined);
      return result;
    };
    socket.on("newListener", this.onNewListener);
  }

  /**
   * Another `data` listener makes node:http read the socket from JavaScript (`kOnExecute` is then
   * not called): node:http's own `data` listener is wrapped so the reads are still followed.
   */
  private readonly onNewListener = (event: string | symbol, listener: unknown): void => {
    if (event !== "data" || this.switched || this.jsOnData !== undefined || listener === this.nodeOnData) return;
    const jsOnData = (this.jsOnData = (chunk: Buffer): void => {
      this.nodeOnData(chunk);
      if (!this.switched && this.socket.parser === this.parser) this.afterRead(chunk, undefined);
    });
    this.socket.removeListener("data", this.nodeOnData);
    this.socket.on("data", jsOnData);
  };

  /** After node:http parsed a read (`read` when known; `parsed`: the bytes it took, when known). */
  private afterRead(read: Buffer | undefined, parsed: number | undefined): void {
    const parser = this.parser;
    const incoming = parser.incoming;
    // Between requests: none began, or the last one's head was read (a new `incoming`) and it ended.
    if (this.begun && (incoming === this.before || incoming === null || incoming.complete !== true)) {
      this.kept.push(read ?? parser.getCurrentBuffer());
      return;
    }
    if (incoming !== null && incoming !== this.lastChecked) {
      this.lastChecked = incoming;
      if (asksUpgrade(incoming as { headers?: Record<string, string | undefined> })) {
        const bytes = read ?? parser.getCurrentBuffer();
        const end = parsed ?? this.parsedOfLast([...this.kept, bytes]);
        this.kept = [];
        if (end !== undefined) this.switchAt(bytes.subarray(end));
        return;
      }
    }
    if (this.kept.length > 0) this.kept = [];
  }

  /** How many bytes of the last of `reads` a fresh parser takes (it stops after an upgrade request). */
  private parsedOfLast(reads: readonly Buffer[]): number | undefined {
    const Parser = this.Parser;
    const parser = new Parser();
    parser.initialize(Parser.REQUEST, {}, this.maxHeaderSize(), this.lenient());
    const noop = (): number => 0;
    for (const callback of [Parser.kOnMessageBegin, Parser.kOnHeaders, Parser.kOnHeadersComplete, Parser.kOnBody, Parser.kOnMessageComplete]) parser[callback] = noop;
    try {
      let parsed: number | Error = 0;
      for (const read of reads) parsed = parser.execute(read);
      return typeof parsed === "number" ? parsed : undefined;
    } finally {
      parser.close();
    }
  }

  private maxHeaderSize(): number {
    return (this.server as Server & { maxHeaderSize?: number }).maxHeaderSize ?? 0;
  }

  private lenient(): number {
    const insecure = (this.server as Server & { insecureHTTPParser?: boolean }).insecureHTTPParser ?? process.execArgv.includes("--insecure-http-parser");
    return insecure ? this.Parser.kLenientAll : this.Parser.kLenientNone;
  }

  /**
   * Takes the connection off node:http's C++ parse at a refused method: the same parser starts
   * afresh (so node:http's queue of pipelined responses stays in order), fed from JavaScript through
   * a method tracker from the refused request's first byte. False when the request's start cannot be
   * found (node:http then answers as it does without the tracker).
   */
  switchToRewriter(error: ParseError): boolean {
    const raw = error.rawPacket;
    if (!Buffer.isBuffer(raw) || this.socket.parser !== this.parser) return false;
    const reads = [...this.kept, raw];
    const start = refusedRequestStart(this.Parser, reads, this.maxHeaderSize(), this.lenient());
    if (start === undefined) return false;
    this.switchAt(Buffer.concat([(reads[start.read] as Buffer).subarray(start.offset), ...reads.slice(start.read + 1)]));
    return true;
  }

  /** Starts the same parser afresh and reads the connection through the tracker from `rest` on. */
  private switchAt(rest: Buffer): void {
    const Parser = this.Parser;
    this.switched = true;
    this.kept = [];
    this.socket.removeListener("newListener", this.onNewListener);
    const parser = this.parser;
    parser[Parser.kOnMessageBegin] = null;
    parser[Parser.kOnExecute] = this.nodeOnExecute;
    // Out of the server's list of connections first: initialize() adds it again, and a parser left
    // in twice stays there without a socket once the connection closes (server.close() throws).
    parser.remove();
    parser.initialize(Parser.REQUEST, { type: "HTTPINCOMINGMESSAGE", socket: this.socket }, this.maxHeaderSize(), this.lenient(), this.connectionsList);
    // node:http took its error listener off for a parse error; the connection goes on.
    for (const listener of this.nodeOnError) if (!this.socket.listeners("error").includes(listener)) this.socket.on("error", listener);
    if (this.jsOnData !== undefined) {
      this.socket.removeListener("data", this.jsOnData);
      this.socket.on("data", this.nodeOnData);
    }
    // Its `data` listener makes node:http stop reading the socket in C++ (node:http's own unconsume).
    const connection = readThroughRewriter(this.socket, parser, this.nodeOnData, this.nodeOnEnd);
    if (rest.length > 0) connection.onData(rest);
  }
}

const natives = new WeakMap<Socket, NativeConnection>();

/** Puts a {@link RewrittenConnection} between the socket and node:http's `data` and `end` listeners. */
function readThroughRewriter(socket: HttpSocket, parser: unknown, nodeOnData: (chunk: Buffer) => void, nodeOnEnd: () => void): RewrittenConnection {
  const connection = new RewrittenConnection(socket, parser, nodeOnData, nodeOnEnd);
  connections.set(socket, connection);
  // Adding a `data` listener makes node:http stop reading the socket in C++ (it reads the
  // listener's bytes instead: its supported path for a socket someone else reads too).
  socket.on("data", connection.onData);
  socket.removeListener("data", nodeOnData);
  socket.prependListener("end", connection.onEnd);
  socket.removeListener("end", nodeOnEnd);
  socket.on("resume", connection.drain);
  return connection;
}

/**
 * Teaches `server` (a node:http server, before it accepts connections) every method that is an
 * HTTP token. Each connection is parsed by node:http in C++ as usual until its parser refuses a
 * request (a `clientError` with an `HPE_` code: a method it does not know, or a line the tracker
 * drops) or reads a request asking for an upgrade; from that request on (after the upgrade
 * request), the connection's bytes run through a {@link MethodRewriter} between the socket and
 * node:http's parser, so every answer is the one the tracker gets from its first byte. node:http
 * keeps the real socket (its writes, timeouts and addresses are the socket's own); only its `data`
 * and `end` listeners are fed through the tracker, each returned buffer on its own, and held back
 * while node:http pauses the connection. A node:http without the parser internals the C++ path
 * needs reads every connection through the tracker from its first byte.
 *
 * When a future node:http no longer has the listeners this relies on, connections are served
 * unchanged (methods node:http knows only) and a warning is emitted once.
 *
 * @example
 * const server = createServer(handler);
 * rewriteUnknownMethods(server);
 * // in the request listener: originalMethod(req.headers[ORIGINAL_METHOD_HEADER], connectionSecret(req.socket))
 */
export function rewriteUnknownMethods(server: Server): void {
  const native = server.listeners("connection") as ((socket: unknown) => void)[];
  server.removeAllListeners("connection");
  const emit = server.emit;
  server.emit = function (this: Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event === "clientError") {
      const [error, socket] = args as [ParseError | undefined, Socket | undefined];
      const connection = socket === undefined ? undefined : natives.get(socket);
      // Any parse error (a refused method, or a line the tracker would have dropped, such as a
      // folded copy of the internal header): the request is read again as the tracker hands it on.
      if (connection !== undefined && !connection.switched && typeof error?.code === "string" && error.code.startsWith("HPE_") && connection.switchToRewriter(error)) return true;
    }
    return Reflect.apply(emit, this, [event, ...args]) as boolean;
  } as Server["emit"];
  server.on("connection", (socket: HttpSocket) => {
    const dataBefore = socket.listeners("data");
    const endBefore = socket.listeners("end");
    const errorBefore = socket.listeners("error");
    for (const listener of native) listener.call(server, socket);
    const onData = socket.listeners("data").filter((listener) => !dataBefore.includes(listener));
    const onEnd = socket.listeners("end").filter((listener) => !endBefore.includes(listener));
    const onError = socket.listeners("error").filter((listener) => !errorBefore.includes(listener)) as ((error: Error) => void)[];
    const [nodeOnData] = onData;
    const [nodeOnEnd] = onEnd;
    if (onData.length !== 1 || onEnd.length !== 1 || nodeOnData === undefined || nodeOnEnd === undefined || socket.parser == null || socket._paused !== false) {
      if (!warned) {
        warned = true;
        process.emitWarning("infra-doubles: this node:http cannot be taught the LIST method (its connection listeners changed); the server accepts the methods node:http knows only");
      }
      return;
    }
    const parser = socket.parser;
    const Parser = parserClass(parser);
    // node:http's list of the server's connections (for its request timeouts), made at listen().
    const connectionsSymbol = Object.getOwnPropertySymbols(server).find((symbol) => symbol.description === "http.server.connections");
    const connectionsList = connectionsSymbol === undefined ? undefined : (server as unknown as Record<symbol, unknown>)[connectionsSymbol];
    if (Parser !== undefined && connectionsList !== undefined) {
      const nodeParser = parser as NodeParser;
      const nodeOnExecute = nodeParser[Parser.kOnExecute] as (this: unknown, ret: unknown) => unknown;
      natives.set(socket, new NativeConnection(server, socket, nodeParser, Parser, nodeOnExecute, nodeOnData as (chunk: Buffer) => void, nodeOnEnd as () => void, onError, connectionsList));
      return;
    }
    readThroughRewriter(socket, parser, nodeOnData as (chunk: Buffer) => void, nodeOnEnd as () => void);
  });
}

/**
 * The secret the tracker of this connection writes into {@link ORIGINAL_METHOD_HEADER} ("" when the
 * connection has not had a method rewritten, or is not one of {@link rewriteUnknownMethods}'s): 128
 * random bits drawn at the connection's first rewritten request. It never appears in a response or
 * the journal, so it does not touch determinism (same seed, same bytes).
 */
export function connectionSecret(socket: Socket | null | undefined): string {
  return socket ? (connections.get(socket)?.secret ?? "") : "";
}
