/**
 * Repeated request headers reach the services as the local server's node:http reads them, through
 * every transport: the first `Authorization` line wins (as Go's `Header.Get` reads it), other
 * names are joined with `, `. fetch itself joins repeated headers into one line on the wire, so it
 * sends `Bearer a, Bearer b` to every transport alike.
 */
import http from "node:http";
import https from "node:https";
import { expect, it } from "vitest";
import { requestHeaders } from "../../src/interceptors/header-values.js";
import { describeEachTransport } from "../support/transports.js";
import { startAcl } from "./access-control/support.js";

/** A GET through node:http(s), looked up at call time (the in-process transports patch the modules). */
function nodeGet(url: string, headers: Record<string, string | string[]>): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = (url.startsWith("https:") ? https : http).request(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

describeEachTransport("repeated request headers", (t) => {
  it("keeps the first of two Authorization lines sent by node:http, as the local server does", async () => {
    const h = await startAcl(t);
    const answer = await nodeGet(`${h.base}/acl/token/self`, { authorization: [`Bearer ${h.root}`, "Bearer 6d1e2c40-0000-4000-8000-000000000000"] });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text).AccessorID).toBe(h.acl.bootstrapToken.accessorId);
  });

  it("joins two X-Acl-Token lines with a comma, as node:http does (no such token)", async () => {
    const h = await startAcl(t);
    const answer = await nodeGet(`${h.base}/acl/token/self`, { "x-acl-token": [h.root, h.root] });
    expect(answer).toEqual({ status: 403, text: "ACL not found" });
  });

  it("gets one joined Authorization line from fetch on every transport", async () => {
    const h = await startAcl(t);
    const headers = new Headers();
    headers.append("authorization", `Bearer ${h.root}`);
    headers.append("authorization", "Bearer other");
    const response = await fetch(`${h.base}/acl/token/self`, { headers });
    expect(response.status).toBe(403);
  });
});

function grouped(lines: readonly (readonly [string, string])[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, value] of lines) (out[name.toLowerCase()] ??= []).push(value);
  return out;
}

it("folds repeated lines as node:http's IncomingMessage.headers does (one rule for every transport)", async () => {
  const lines: [string, string][] = [
    ["Authorization", "Bearer a"], ["authorization", "Bearer b"], ["X-Acl-Token", "t1"], ["x-acl-token", "t2"],
    ["Cookie", "a=1"], ["cookie", "b=2"], ["User-Agent", "one"], ["user-agent", "two"], ["X-Vault-Token", "v"],
  ];
  const seen = await new Promise<{ node: Record<string, unknown>; raw: string[] }>((resolve, reject) => {
    const server = http.createServer((req, res) => {
      res.end();
      server.close();
      resolve({ node: { ...req.headers }, raw: req.rawHeaders });
    });
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      const req = http.request({ host: "127.0.0.1", port, headers: grouped(lines), agent: false }, (res) => res.resume());
      req.on("error", reject);
      req.end();
    });
  });
  expect(requestHeaders(seen.raw)).toEqual(seen.node);
  expect(requestHeaders(seen.raw)).toMatchObject({ authorization: "Bearer a", "x-acl-token": "t1, t2", cookie: "a=1; b=2", "user-agent": "one" });
});
