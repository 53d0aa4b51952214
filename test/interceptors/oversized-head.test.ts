/**
 * A request whose head exceeds node:http's limit (16 KiB) gets the local server's answer on every
 * transport: `431 Request Header Fields Too Large`, no body, `Connection: close`. Through nock,
 * node:http(s) requests of that size used to hang forever (issue 8, defect 11), and fetch requests
 * in process (nock, @mswjs/interceptors, msw) were answered 200 (issue 8).
 *
 * The limit is one definition (`src/interceptors/head-limit.ts`), counted as node:http counts it:
 * the boundary tests put a head exactly at the limit and one byte under it.
 */
import http from "node:http";
import https from "node:https";
import { expect, it } from "vitest";
import { requestHeadBytes, requestHeadLimit } from "../../src/interceptors/head-limit.js";
import { secretsPlugin } from "../../src/scenarios/secrets/plugin.js";
import { describeEachTransport } from "../support/transports.js";

interface Seen {
  status: number;
  statusMessage: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function send(url: string, headers: Record<string, string>, method = "GET"): Promise<Seen> {
  return new Promise((resolve, reject) => {
    const req = (url.startsWith("https:") ? https : http).request(url, { method, headers, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, statusMessage: res.statusMessage ?? "", headers: res.headers, body }));
    });
    req.on("error", reject);
    req.setTimeout(5_000, () => req.destroy(new Error("no answer within 5 s")));
    req.end();
  });
}

describeEachTransport("request heads beyond 16 KiB", (h) => {
  it.each([17_000, 70_000])("a %d-byte header gets 431 with no body from node:http(s)", async (size) => {
    const t = await h.start([secretsPlugin], { seed: 1 });
    const seen = await send(`${t.base("secrets")}/sys/health`, { "x-padding": "a".repeat(size) });
    expect(seen.status).toBe(431);
    expect(seen.statusMessage).toBe("Request Header Fields Too Large");
    expect(seen.headers.connection).toBe("close");
    expect(seen.body).toBe("");
  });

  it("a head just under the limit is answered as usual", async () => {
    const t = await h.start([secretsPlugin], { seed: 1 });
    const seen = await send(`${t.base("secrets")}/sys/health`, { "x-padding": "a".repeat(16_000) });
    expect(seen.status).toBe(200);
  });

  it("a head of exactly the limit gets 431 and one byte less is answered, through node:http(s)", async () => {
    const t = await h.start([secretsPlugin], { seed: 1 });
    const url = new URL(`${t.base("secrets")}/sys/health`);
    // What node:http's client sends with `agent: false`: Host, Connection: close, and the padding.
    const others = requestHeadBytes(url.pathname, [["Host", url.host], ["Connection", "close"], ["x-padding", ""]]);
    const under = await send(url.href, { "x-padding": "a".repeat(requestHeadLimit() - 1 - others) });
    expect(under.status).toBe(200);
    const at = await send(url.href, { "x-padding": "a".repeat(requestHeadLimit() - others) });
    expect(at.status).toBe(431);
  });

  it("a LIST head counts as a GET head of the same size (the server's method rewriter adds nothing to it)", async () => {
    const t = await h.start([secretsPlugin], { seed: 1 });
    const url = new URL(`${t.base("secrets")}/sys/mounts`);
    // node:http's client declares a LIST's empty body.
    const others = requestHeadBytes(url.pathname, [["Host", url.host], ["Connection", "close"], ["Content-Length", "0"], ["x-padding", ""]]);
    const under = await send(url.href, { "x-padding": "a".repeat(requestHeadLimit() - 1 - others) }, "LIST");
    expect(under.status).toBe(403); // the service's answer (no token)
    const at = await send(url.href, { "x-padding": "a".repeat(requestHeadLimit() - others) }, "LIST");
    expect(at.status).toBe(431);
    expect(at.headers.connection).toBe("close");
  });

  it.each([17_000, 70_000])("a %d-byte header gets 431 with no body from fetch, and nothing is journalled", async (size) => {
    const t = await h.start([secretsPlugin], { seed: 1 });
    const before = t.doubles.handler.journal.length;
    const response = await fetch(`${t.base("secrets")}/sys/health`, { headers: { "x-padding": "a".repeat(size) } });
    expect(response.status).toBe(431);
    expect(await response.text()).toBe("");
    expect(t.doubles.handler.journal.length).toBe(before);
  });

  it("a fetch head of exactly the limit gets 431 and one byte less is answered (in process: the head fetch hands over)", async () => {
    if (h.name === "server") return; // on the wire, undici adds its own lines (Connection, Accept, User-Agent, ...)
    const t = await h.start([secretsPlugin], { seed: 1 });
    const url = new URL(`${t.base("secrets")}/sys/health`);
    const others = requestHeadBytes(url.pathname, [["host", url.host], ["x-padding", ""]]);
    const under = await fetch(url, { headers: { "x-padding": "a".repeat(requestHeadLimit() - 1 - others) } });
    expect(under.status).toBe(200);
    const at = await fetch(url, { headers: { "x-padding": "a".repeat(requestHeadLimit() - others) } });
    expect(at.status).toBe(431);
    expect(at.headers.get("connection")).toBe("close");
  });
});
