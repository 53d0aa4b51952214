import { METHODS } from "node:http";
import { describe, expect, it } from "vitest";
import { MAX_LINE_BYTES, MethodRewriter } from "../../src/interceptors/socket-methods.js";
import { INTERNAL_HEADER, serialize, type WireRequest } from "./wire.js";

const KNOWN = new Set(METHODS);

function rewriteAll(parts: readonly Buffer[]): string {
  const rewriter = new MethodRewriter();
  const out: Buffer[] = [];
  for (const part of parts) out.push(...rewriter.push(part));
  out.push(...rewriter.flush());
  return Buffer.concat(out).toString("latin1");
}

const list: WireRequest = { method: "LIST", target: "/v1/ssh/roles?x=1", headers: [["Host", "vault.test"]] };
const chunkedList: WireRequest = {
  method: "LIST",
  target: "/v1/echo/keys",
  headers: [["Host", "x"]],
  body: {
    kind: "chunked",
    chunks: [Buffer.from("LIST /smuggled HTTP/1.1\r\n"), Buffer.from("\r\n\r\nab")],
    extension: "name=value",
    trailers: [["X-Trailer", "t"]],
  },
};
const post: WireRequest = {
  method: "POST",
  target: "/things",
  headers: [["Host", "x"], ["Content-Type", "application/json"]],
  body: { kind: "length", bytes: Buffer.from("LIST / HTTP/1.1\r\n\r\n") },
};
const get: WireRequest = { method: "GET", target: "/", headers: [["Host", "x"]], leadingEmptyLines: 1 };
const pipeline = [list, chunkedList, post, get];

describe("the method rewriter", () => {
  it("rewrites a LIST request line to GET plus the internal header naming LIST", () => {
    expect(rewriteAll([Buffer.from("LIST /v1/kv/?a=b HTTP/1.1\r\nHost: x\r\n\r\n")])).toBe(
      `GET /v1/kv/?a=b HTTP/1.1\r\n${INTERNAL_HEADER}: LIST\r\nHost: x\r\n\r\n`,
    );
  });

  it("leaves methods node:http knows untouched, byte for byte", () => {
    const bytes = Buffer.concat([post, get].map((r) => serialize(r)));
    expect(rewriteAll([bytes])).toBe(bytes.toString("latin1"));
  });

  it("rewrites every pipelined request line and never a body that looks like one", () => {
    const input = Buffer.concat(pipeline.map((r) => serialize(r)));
    const expected = Buffer.concat(pipeline.map((r) => serialize(r, true, KNOWN))).toString("latin1");
    const output = rewriteAll([input]);
    expect(output).toBe(expected);
    expect(output).toContain("LIST /smuggled HTTP/1.1");
    expect(output.match(new RegExp(`${INTERNAL_HEADER}: LIST`, "g"))).toHaveLength(2);
  });

  it("reads a framing header whose name has blanks before its colon (the tracker reads only three names by their length)", () => {
    const body = "LIST / HTTP/1.1\r\n\r\n";
    for (const name of ["Content-Length ", "content-length\t"]) {
      const bytes = `POST /things HTTP/1.1\r\nHost: x\r\n${name}: ${body.length}\r\n\r\n${body}`;
      expect(rewriteAll([Buffer.from(bytes, "latin1")])).toBe(bytes);
    }
    const chunked = `POST /things HTTP/1.1\r\nTransfer-Encoding : chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
    expect(rewriteAll([Buffer.from(chunked, "latin1")])).toBe(chunked);
  });

  it("gives the same bytes whichever byte the input is split at", () => {
    const input = Buffer.concat(pipeline.map((r) => serialize(r)));
    const expected = Buffer.concat(pipeline.map((r) => serialize(r, true, KNOWN))).toString("latin1");
    for (let at = 0; at <= input.length; at++) {
      expect(rewriteAll([input.subarray(0, at), input.subarray(at)]), `split at ${at}`).toBe(expected);
    }
  });

  it("gives the same bytes when fed one byte at a time", () => {
    const input = Buffer.concat(pipeline.map((r) => serialize(r)));
    const expected = Buffer.concat(pipeline.map((r) => serialize(r, true, KNOWN))).toString("latin1");
    expect(rewriteAll([...input].map((byte) => Buffer.from([byte])))).toBe(expected);
  });

  it("drops an internal method header a client sends itself, folded continuation lines included", () => {
    const spoofed = `GET /x HTTP/1.1\r\nHost: x\r\n${INTERNAL_HEADER}: DELETE\r\n  continued\r\nAccept: */*\r\n\r\n`;
    expect(rewriteAll([Buffer.from(spoofed)])).toBe("GET /x HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n\r\n");
  });

  it("accepts bare LF line endings and keeps them", () => {
    expect(rewriteAll([Buffer.from("LIST /a HTTP/1.1\nHost: x\n\n")])).toBe(`GET /a HTTP/1.1\n${INTERNAL_HEADER}: LIST\nHost: x\n\n`);
  });

  it("rewrites any unknown method that is an HTTP token, and nothing that is not", () => {
    expect(rewriteAll([Buffer.from("FOO-BAR / HTTP/1.1\r\n\r\n")])).toBe(`GET / HTTP/1.1\r\n${INTERNAL_HEADER}: FOO-BAR\r\n\r\n`);
    const garbage = "LI(ST / HTTP/1.1\r\n\r\n";
    expect(rewriteAll([Buffer.from(garbage)])).toBe(garbage);
    const noVersion = "LIST /\r\n\r\n";
    expect(rewriteAll([Buffer.from(noVersion)])).toBe(noVersion);
  });

  it("passes everything through after framing it cannot follow, so node:http rejects it as usual", () => {
    const badLength = "POST / HTTP/1.1\r\nContent-Length: abc\r\n\r\nLIST / HTTP/1.1\r\n\r\n";
    expect(rewriteAll([Buffer.from(badLength)])).toBe(badLength);
    const conflicting = "POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nLIST / HTTP/1.1\r\n\r\n";
    expect(rewriteAll([Buffer.from(conflicting)])).toBe(conflicting);
    const gzipOnly = "POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\nLIST / HTTP/1.1\r\n\r\n";
    expect(rewriteAll([Buffer.from(gzipOnly)])).toBe(gzipOnly);
    const badChunk = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nLIST / HTTP/1.1\r\n\r\n";
    expect(rewriteAll([Buffer.from(badChunk)])).toBe(badChunk);
    const connect = "CONNECT x:443 HTTP/1.1\r\nHost: x:443\r\n\r\nLIST / HTTP/1.1\r\n\r\n";
    expect(rewriteAll([Buffer.from(connect)])).toBe(connect);
  });

  it("follows the connection after an Upgrade: request, with or without Connection: upgrade (node:http answers it as HTTP)", () => {
    for (const extra of ["Upgrade: websocket\r\n", "Connection: keep-alive, Upgrade\r\nUpgrade: websocket\r\n", "Upgrade: h2c\r\n"]) {
      const first = `PUT / HTTP/1.1\r\n${extra}Content-Length: 19\r\n\r\nLIST / HTTP/1.1\r\n\r\n`;
      expect(rewriteAll([Buffer.from(`${first}LIST /b HTTP/1.1\r\n\r\n`)])).toBe(`${first}GET /b HTTP/1.1\r\n${INTERNAL_HEADER}: LIST\r\n\r\n`);
    }
  });

  it("ends every message at a boundary of the buffers it returns (node:http drops what follows an upgrade in one chunk)", () => {
    const rewriter = new MethodRewriter();
    const messages = pipeline.map((r) => serialize(r, true, KNOWN).toString("latin1"));
    const parts = rewriter.push(Buffer.concat(pipeline.map((r) => serialize(r)))).map((b) => b.toString("latin1"));
    const ends = new Set<number>();
    let at = 0;
    for (const part of parts) ends.add((at += part.length));
    let end = 0;
    for (const message of messages) expect(ends.has((end += message.length)), message).toBe(true);
  });

  it("stops buffering a line longer than the limit and passes it through", () => {
    const rewriter = new MethodRewriter();
    const long = Buffer.from(`LIST /${"a".repeat(MAX_LINE_BYTES + 10)}`);
    const out = Buffer.concat(rewriter.push(long)).toString("latin1");
    expect(out).toBe(long.toString("latin1"));
    expect(rewriter.passingThrough).toBe(true);
  });

  it("counts the requests it rewrote", () => {
    const rewriter = new MethodRewriter();
    rewriter.push(Buffer.concat(pipeline.map((r) => serialize(r))));
    expect(rewriter.rewritten).toBe(2);
  });

  it("hands back an unfinished line when the connection ends", () => {
    const rewriter = new MethodRewriter();
    expect(rewriter.push(Buffer.from("LIST /par"))).toEqual([]);
    expect(Buffer.concat(rewriter.flush()).toString()).toBe("LIST /par");
  });
});
