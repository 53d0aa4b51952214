/**
 * Repeated request headers reach the services as the local server's node:http reads them, through
 * every transport: the first `Authorization` line wins (as Go's `Header.Get` reads it), other
 * names are joined with `, `. The services' token headers (`X-Secrets-Token`, `X-Vault-Token`,
 * `X-Acl-Token`, `X-Consul-Token`) are read as Go's `Header.Get` reads them too: the first line
 * (issue 8). fetch itself joins repeated headers into one line on the wire, so it sends
 * `Bearer a, Bearer b` (or `t1, t2`) to every transport alike, and Go reads that one line.
 */
import http from "node:http";
import https from "node:https";
import { expect, it } from "vitest";
import { requestHeaders } from "../../src/interceptors/header-values.js";
import { TOKEN_HEADER as ACL_TOKEN, TOKEN_HEADER_ALIAS as ACL_TOKEN_ALIAS } from "../../src/interceptors/access-control/request-scope.js";
import { FIRST_VALUE_TOKEN_HEADERS } from "../../src/interceptors/header-values.js";
import { TOKEN_HEADER as SECRETS_TOKEN, TOKEN_HEADER_ALIAS as SECRETS_TOKEN_ALIAS } from "../../src/interceptors/secrets/dispatch.js";
import { createDoubles } from "../../src/scenarios/doubles.js";
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

  it.each(["X-Acl-Token", "X-Consul-Token"])("reads the first of two %s lines sent by node:http, as Go's Header.Get does", async (name) => {
    const h = await startAcl(t);
    const first = await nodeGet(`${h.base}/acl/token/self`, { [name]: [h.root, "6d1e2c40-0000-4000-8000-000000000000"] });
    expect(first.status).toBe(200);
    expect(JSON.parse(first.text).AccessorID).toBe(h.acl.bootstrapToken.accessorId);
    const second = await nodeGet(`${h.base}/acl/token/self`, { [name]: ["6d1e2c40-0000-4000-8000-000000000000", h.root] });
    expect(second).toEqual({ status: 403, text: "ACL not found" });
  });

  it.each(["X-Secrets-Token", "X-Vault-Token"])("reads the first of two %s lines sent by node:http, as Go's Header.Get does", async (name) => {
    const started = await t.startWith(createDoubles({ seed: 1 }));
    const root = started.doubles.secrets.rootToken;
    const url = `${started.base("secrets")}/sys/mounts`;
    const first = await nodeGet(url, { [name]: [root, "s.bogusbogusbogusbogusbogu"] });
    expect(first.status).toBe(200);
    const second = await nodeGet(url, { [name]: ["s.bogusbogusbogusbogusbogu", root] });
    expect(second.status).toBe(403);
  });

  it("gets one joined token line from fetch on every transport, and reads it whole as Go does (no such token)", async () => {
    const h = await startAcl(t);
    const headers = new Headers();
    headers.append("x-acl-token", h.root);
    headers.append("x-acl-token", h.root);
    const response = await fetch(`${h.base}/acl/token/self`, { headers });
    expect([response.status, await response.text()]).toEqual([403, "ACL not found"]);
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
  // node:http joins repeated token lines; the services read the first, as Go does.
  expect(requestHeaders(seen.raw)).toEqual({ ...seen.node, "x-acl-token": "t1" });
  expect(seen.node["x-acl-token"]).toBe("t1, t2");
  expect(requestHeaders(seen.raw)).toMatchObject({ authorization: "Bearer a", "x-acl-token": "t1", cookie: "a=1; b=2", "user-agent": "one" });
});

it("reads every token header of the services by its first line", () => {
  for (const name of [SECRETS_TOKEN, SECRETS_TOKEN_ALIAS, ACL_TOKEN, ACL_TOKEN_ALIAS]) expect(FIRST_VALUE_TOKEN_HEADERS.has(name)).toBe(true);
});
