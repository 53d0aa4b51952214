/**
 * Nothing sent to an owned origin escapes to the real network, whatever its request target, host
 * spelling or scheme (issue 8, defect 2): each request below is answered in process. The real
 * network is made unreachable (`nock.disableNetConnect()`), and owned origins on 127.0.0.1 / ::1
 * have a listener that records every connection, so an escape fails the test either way.
 */
import http from "node:http";
import https from "node:https";
import { createServer, type Server } from "node:net";
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PLAIN_TO_TLS_BODY } from "../../src/interceptors/nock-adapter.js";
import { ownedOriginGuardInstalled } from "../../src/interceptors/owned-origins.js";
import { createDoubles, type Doubles } from "../../src/scenarios/doubles.js";

interface Seen {
  status: number;
  body: string;
}

/** One node:http(s) request; rejects with the client's error. */
function send(url: string, options: http.RequestOptions = {}): Promise<Seen> {
  return new Promise((resolve, reject) => {
    const req = (url.startsWith("https:") ? https : http).request(url, { headers: { "x-secrets-token": "s.secret-token" }, ...options }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** A listener that only counts connections (a real server the requests must never reach). */
async function recorder(host: string): Promise<{ port: number; hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const server: Server = createServer((socket) => {
    hits++;
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  return { port, hits: () => hits, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const ipv6 = await recorder("::1").then(
  async (r) => {
    await r.close();
    return true;
  },
  () => false,
);

let doubles: Doubles | undefined;
const closers: (() => Promise<void>)[] = [];
beforeEach(() => {
  nock.disableNetConnect();
});
afterEach(async () => {
  await doubles?.close();
  doubles = undefined;
  for (const close of closers.splice(0)) await close();
  nock.enableNetConnect();
});

/** Doubles intercepted with nock; the journal proves a request was answered by the fake. */
function start(options: Parameters<typeof createDoubles>[0] = {}): Doubles {
  doubles = createDoubles({ seed: 1, ...options });
  doubles.intercept();
  return doubles;
}

const urls = () => doubles?.handler.journal.map((entry) => entry.url) ?? [];

describe("requests to the default .test origins stay in process (node:https)", () => {
  it.each([
    ["a path starting with //", "https://secrets.test//v1/sys/health", "https://secrets.test//v1/sys/health"],
    ["a path starting with ///", "https://secrets.test///v1/sys/health", "https://secrets.test///v1/sys/health"],
    ["a path with /../", "https://secrets.test/v1/../v1/sys/health", "https://secrets.test/v1/sys/health"],
    ["a path with %2F", "https://secrets.test/v1%2Fsys/health", "https://secrets.test/v1%2Fsys/health"],
    ["an upper-case host", "https://SECRETS.TEST/v1/sys/health", "https://secrets.test/v1/sys/health"],
    ["a host with a trailing dot", "https://secrets.test./v1/sys/health", "https://secrets.test/v1/sys/health"],
    ["an explicit default port", "https://secrets.test:443/v1/sys/health", "https://secrets.test/v1/sys/health"],
    ["a trailing dot and //", "https://secrets.test.//v1/sys/health", "https://secrets.test//v1/sys/health"],
  ])("%s", async (_name, url, journalled) => {
    start();
    const seen = await send(url);
    expect(seen.status).toBeGreaterThanOrEqual(200);
    expect(urls()).toEqual([journalled]);
  });

  it("an absolute-form target naming another host, sent on a connection to the owned host", async () => {
    start();
    const seen = await send("https://secrets.test/", { path: "http://elsewhere.example/v1/sys/health" });
    expect(seen.status).toBe(200);
    expect(urls()).toEqual(["https://secrets.test/v1/sys/health"]);
  });

  it("a URL whose host the options override (the connection goes to the options' host)", async () => {
    start();
    const seen = await send("https://elsewhere.example/", { host: "secrets.test", hostname: "secrets.test", path: "//v1/sys/health" });
    expect(seen.status).toBe(404);
    expect(urls()).toEqual(["https://secrets.test//v1/sys/health"]);
  });

  it("plain HTTP to the TLS port gets Go's 400, in process", async () => {
    start();
    const seen = await send("http://secrets.test:443/v1/sys/health");
    expect(seen).toEqual({ status: 400, body: PLAIN_TO_TLS_BODY });
    const fetched = await fetch("http://secrets.test:443/v1/sys/health");
    expect(fetched.status).toBe(400);
    expect(await fetched.text()).toBe(PLAIN_TO_TLS_BODY);
    expect(urls()).toEqual([]);
  });
});

describe("requests to the default .test origins stay in process (fetch)", () => {
  it.each([
    ["a path starting with //", "https://secrets.test//v1/sys/health", "https://secrets.test//v1/sys/health"],
    ["a host with a trailing dot", "https://secrets.test./v1/sys/health", "https://secrets.test/v1/sys/health"],
    ["an upper-case host", "https://Secrets.Test/v1/sys/health", "https://secrets.test/v1/sys/health"],
  ])("%s", async (_name, url, journalled) => {
    start();
    const response = await fetch(url, { headers: { "x-secrets-token": "s.secret-token" } });
    expect(response.status).toBeGreaterThanOrEqual(200);
    expect(urls()).toEqual([journalled]);
  });
});

describe("origins on a real host: a listener there sees no connection", () => {
  it.each([
    ["//", (port: number) => `http://127.0.0.1:${port}//v1/sys/health`],
    ["///", (port: number) => `http://127.0.0.1:${port}///v1/sys/health`],
    ["/../", (port: number) => `http://127.0.0.1:${port}/x/../v1/sys/health`],
    ["%2F", (port: number) => `http://127.0.0.1:${port}/v1%2Fsys%2Fhealth`],
    ["IPv4 shorthand", (port: number) => `http://127.1:${port}//v1/sys/health`],
  ])("http, %s", async (_name, url) => {
    const real = await recorder("127.0.0.1");
    closers.push(real.close);
    start({ baseUrls: { secrets: `http://127.0.0.1:${real.port}/v1` } });
    const seen = await send(url(real.port));
    expect(seen.status).toBeGreaterThanOrEqual(200);
    expect(urls()).toHaveLength(1);
    expect(real.hits()).toBe(0);
  });

  it("TLS to the plain port fails in process, without connecting", async () => {
    const real = await recorder("127.0.0.1");
    closers.push(real.close);
    start({ baseUrls: { secrets: `http://127.0.0.1:${real.port}/v1` } });
    await expect(send(`https://127.0.0.1:${real.port}/v1/sys/health`)).rejects.toThrow(/EPROTO|plain HTTP/);
    await expect(fetch(`https://127.0.0.1:${real.port}/v1/sys/health`)).rejects.toThrow();
    expect(real.hits()).toBe(0);
  });

  it.runIf(ipv6)("an IPv6 literal origin: //, a long spelling of the address, fetch", async () => {
    const real = await recorder("::1");
    closers.push(real.close);
    start({ baseUrls: { secrets: `http://[::1]:${real.port}/v1` } });
    expect((await send(`http://[::1]:${real.port}//v1/sys/health`)).status).toBe(404);
    expect((await send(`http://[0:0:0:0:0:0:0:1]:${real.port}/v1/sys/health`)).status).toBe(200);
    expect((await send(`http://[::1]:${real.port}/`, { path: `http://[::1]:${real.port}/v1/sys/health` })).status).toBe(200);
    expect((await fetch(`http://[::1]:${real.port}//v1/sys/health`)).status).toBe(404);
    expect(urls()).toEqual([
      `http://[::1]:${real.port}//v1/sys/health`,
      `http://[::1]:${real.port}/v1/sys/health`,
      `http://[::1]:${real.port}/v1/sys/health`,
      `http://[::1]:${real.port}//v1/sys/health`,
    ]);
    expect(real.hits()).toBe(0);
  });
});

it("the node:http guard is removed when the last interception stops", async () => {
  const d = start();
  expect(ownedOriginGuardInstalled()).toBe(true);
  await d.close();
  expect(ownedOriginGuardInstalled()).toBe(false);
});
