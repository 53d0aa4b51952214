/**
 * The `interceptors` transport's own guarantees (the contract suite runs every service through it
 * too): it leaves nothing behind, refuses a second live interception of its origins on any
 * transport, passes requests to other hosts through untouched, and coexists with nock loaded before
 * or after it in one process.
 *
 * The order of the tests matters: nock must not be loaded before the first two (this file never
 * imports nock statically).
 */
import http from "node:http";
import https from "node:https";
import { createRequire } from "node:module";
import net, { type AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { socketHooksInstalled } from "../../src/interceptors/client-request-hooks.js";
import { engineInstancesApplied } from "../../src/interceptors/transports/engine.js";
import { DoublesCore } from "../../src/scenarios/doubles-core.js";
import { createDoubles } from "../../src/scenarios/doubles.js";
import { demoPlugin } from "../support/demo-service.js";

const require = createRequire(import.meta.url);
const nockLoaded = (): boolean => Object.keys(require.cache).some((path) => /[\\/]node_modules[\\/]nock[\\/]/.test(path));

interface Answer {
  status: number;
  body: string;
  headers: http.IncomingHttpHeaders;
}

function nodeRequest(url: string, options: http.RequestOptions = {}, body?: string | Buffer): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    const req = (url.startsWith("https:") ? https : http).request(url, options, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), headers: res.headers }));
    });
    req.setTimeout(5_000, () => req.destroy(new Error(`${options.method ?? "GET"} ${url} hung`)));
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * A real local server that keeps the raw bytes of each request (node:http would refuse `LIST`) and
 * answers `real <METHOD>`, to see exactly what passes through.
 */
async function rawServer(): Promise<{ url: string; seen: string[]; close: () => Promise<void> }> {
  const seen: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    let raw = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      raw = Buffer.concat([raw, chunk]);
      const end = raw.indexOf("\r\n\r\n");
      if (end === -1) return;
      const head = raw.subarray(0, end).toString("latin1");
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? "0");
      if (raw.length < end + 4 + length) return;
      const [requestLine = ""] = head.split("\r\n");
      const marker = /\r\nx-marker: *([^\r]*)/i.exec(head)?.[1] ?? "";
      seen.push(`${requestLine} ${marker} ${raw.subarray(end + 4, end + 4 + length).toString("hex")}`);
      const body = `real ${requestLine.split(" ")[0] ?? ""}`;
      socket.end(`HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe("the interceptors transport", () => {
  it("leaves nothing patched or applied once stopped, and never loads nock", async () => {
    const pristine = { fetch: globalThis.fetch, request: http.request, get: http.get, httpsRequest: https.request, ClientRequest: http.ClientRequest };
    const doubles = new DoublesCore([demoPlugin], { seed: 1 });
    const base = doubles.baseUrls().demo?.api ?? "";
    {
      using interception = doubles.intercept({ transport: "interceptors" });
      expect(interception.origins).toEqual([new URL(base).origin]);
      expect(globalThis.fetch).not.toBe(pristine.fetch);
      expect((await fetch(`${base}/things`, { method: "POST", body: '{"name":"a"}' })).status).toBe(201);
      expect((await nodeRequest(`${base}/things`, { method: "POST" }, '{"name":"b"}')).status).toBe(201);
      expect(engineInstancesApplied()).toBe(2);
    }
    expect(engineInstancesApplied()).toBe(0);
    expect(socketHooksInstalled()).toBe(false);
    expect({ fetch: globalThis.fetch, request: http.request, get: http.get, httpsRequest: https.request, ClientRequest: http.ClientRequest }).toEqual(pristine);
    expect(nockLoaded()).toBe(false);
    // Stopped means stopped: the origin is the network's again (nothing answers for it in process).
    await expect(fetch(`${base}/things`)).rejects.toThrow();
    const again = doubles.intercept({ transport: "interceptors" });
    again.stop();
    again.stop();
    await doubles.close();
    expect(engineInstancesApplied()).toBe(0);
  });

  it("applies the ClientRequest interceptor, and its patch of the global Headers, on the first node:http request only", async () => {
    const pristine = { Headers: globalThis.Headers, Request: globalThis.Request, Response: globalThis.Response };
    const doubles = new DoublesCore([demoPlugin], { seed: 1 });
    const base = doubles.baseUrls().demo?.api ?? "";
    const answered = (): number => doubles.handler.journal.length;
    {
      using _interception = doubles.intercept({ transport: "interceptors" });
      expect((await fetch(`${base}/things`, { method: "POST", body: '{"name":"a"}' })).status).toBe(201);
      // fetch alone: only the fetch interceptor, and fetch's own classes untouched.
      expect(engineInstancesApplied()).toBe(1);
      expect({ Headers: globalThis.Headers, Request: globalThis.Request, Response: globalThis.Response }).toEqual(pristine);
      // A client that took node:http's functions before the first request still goes through it.
      const { ClientRequest: TakenClientRequest } = http;
      const { request: takenRequest } = https;
      const constructed = await new Promise<number>((resolve, reject) => {
        const target = new URL(`${base}/things/none`);
        const req = new TakenClientRequest({ protocol: target.protocol, host: target.hostname, path: target.pathname, agent: new https.Agent() }, (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        });
        req.on("error", reject);
        req.end();
      });
      expect(constructed).toBe(404);
      expect(await sendWith(takenRequest)).toBe(404);
      expect(engineInstancesApplied()).toBe(2);
      expect((await nodeRequest(`${base}/things`, { method: "POST" }, '{"name":"b"}')).status).toBe(201);
      expect(answered()).toBe(4);
    }
    expect(engineInstancesApplied()).toBe(0);
    expect({ Headers: globalThis.Headers, Request: globalThis.Request, Response: globalThis.Response }).toEqual(pristine);
    // A transport stopped before any node:http request leaves node:http as it found it.
    const untouched = { request: http.request, get: http.get, ClientRequest: http.ClientRequest, httpsRequest: https.request, httpsGet: https.get };
    doubles.intercept({ transport: "interceptors" }).stop();
    expect({ request: http.request, get: http.get, ClientRequest: http.ClientRequest, httpsRequest: https.request, httpsGet: https.get }).toEqual(untouched);
    await doubles.close();

    /** The status of a GET sent with `request` (a function taken from node:https). */
    function sendWith(request: typeof https.request): Promise<number> {
      return new Promise<number>((resolve, reject) => {
        const sent = request(`${base}/things/none`, (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        });
        sent.on("error", reject);
        sent.end();
      });
    }
  });

  it("passes requests to hosts it does not own through untouched, any method and body included", async () => {
    const real = await rawServer();
    const doubles = new DoublesCore([demoPlugin], { seed: 1 });
    const interception = doubles.intercept({ transport: "interceptors" });
    try {
      expect(await (await fetch(`${real.url}/a?b=1`, { headers: { "x-marker": "fetch" } })).text()).toBe("real GET");
      const put = await fetch(`${real.url}/p`, { method: "PUT", headers: { "x-marker": "fetch-put" }, body: new Uint8Array([0xde, 0xad]) });
      expect(await put.text()).toBe("real PUT");
      expect((await nodeRequest(`${real.url}/l`, { method: "LIST", headers: { "x-marker": "http-list" } }, "xy")).body).toBe("real LIST");
      expect(real.seen).toEqual(["GET /a?b=1 HTTP/1.1 fetch ", "PUT /p HTTP/1.1 fetch-put dead", `LIST /l HTTP/1.1 http-list ${Buffer.from("xy").toString("hex")}`]);
      expect(doubles.handler.journal).toEqual([]);
    } finally {
      interception.stop();
      await real.close();
    }
  });

  it("refuses a second live interception of the same origins, across transports", () => {
    const first = new DoublesCore([demoPlugin], { seed: 1 });
    const second = new DoublesCore([demoPlugin], { seed: 2 });
    const fast = first.intercept({ transport: "interceptors" });
    expect(() => second.intercept({ transport: "interceptors" })).toThrow(/already intercepted.*stop it first/);
    expect(() => second.intercept()).toThrow(/already intercepted.*stop it first/);
    fast.stop();
    const viaNock = second.intercept();
    expect(() => first.intercept({ transport: "interceptors" })).toThrow(/already intercepted.*stop it first/);
    viaNock.stop();
    first.intercept({ transport: "interceptors" }).stop();
    expect(() => first.intercept({ transport: "nokc" } as never)).toThrow(/unknown transport "nokc"/);
  });

  it("answers in front of a nock loaded afterwards, which keeps working after the transport stops (interceptors, then nock)", async () => {
    const fastDoubles = createDoubles({ seed: 3 });
    const fast = fastDoubles.intercept({ transport: "interceptors" });
    const { default: nock } = await import("nock");
    const nockDoubles = new DoublesCore([demoPlugin], { seed: 3 });
    const viaNock = nockDoubles.intercept();
    const user = nock("https://user.test").get("/x").reply(200, "user mock").persist();
    nock.disableNetConnect();
    try {
      const fastHealth = `${fastDoubles.baseUrls().secrets.api}/sys/health`;
      const nockUrl = `${nockDoubles.baseUrls().demo?.api ?? ""}/things/none`;
      expect((await fetch(fastHealth)).status).toBe(200);
      expect((await nodeRequest(fastHealth)).status).toBe(200);
      expect((await nodeRequest(fastHealth, { method: "LIST" })).status).toBe(405);
      expect((await fetch(nockUrl)).status).toBe(404);
      expect(await (await fetch("https://user.test/x")).text()).toBe("user mock");
      expect(fastDoubles.handler.journal.map((entry) => `${entry.method} ${entry.status}`)).toEqual(["GET 200", "GET 200", "LIST 405"]);
      expect(nockDoubles.handler.journal).toHaveLength(1);
      fast.stop();
      // nock still answers its own, and the stopped transport's origin is nock's to refuse now.
      expect((await nodeRequest(nockUrl)).status).toBe(404);
      expect(await (await fetch("https://user.test/x")).text()).toBe("user mock");
      await expect(fetch(fastHealth)).rejects.toThrow();
      expect(fastDoubles.handler.journal).toHaveLength(3);
    } finally {
      fast.stop();
      viaNock.stop();
      user.persist(false);
      nock.cleanAll();
      nock.enableNetConnect();
    }
    await fastDoubles.close();
    await nockDoubles.close();
  });

  it("answers in front of an active nock, and nock keeps working after the transport stops (nock, then interceptors)", async () => {
    const { default: nock } = await import("nock");
    const activatedHere = !nock.isActive();
    if (activatedHere) nock.activate();
    const user = nock("https://user.test").get("/x").reply(200, "user mock").persist();
    const nockDoubles = new DoublesCore([demoPlugin], { seed: 3 });
    const viaNock = nockDoubles.intercept();
    nock.disableNetConnect();
    const fastDoubles = createDoubles({ seed: 3 });
    const fast = fastDoubles.intercept({ transport: "interceptors" });
    try {
      const fastHealth = `${fastDoubles.baseUrls().secrets.api}/sys/health`;
      const nockUrl = `${nockDoubles.baseUrls().demo?.api ?? ""}/things/none`;
      expect((await fetch(fastHealth)).status).toBe(200);
      expect((await nodeRequest(fastHealth, { method: "LIST" })).status).toBe(405);
      expect((await nodeRequest(nockUrl)).status).toBe(404);
      expect(await (await fetch("https://user.test/x")).text()).toBe("user mock");
      expect(fastDoubles.handler.journal).toHaveLength(2);
      // The nock transport stops first: nock stays active while the fast transport listens on it.
      viaNock.stop();
      expect((await fetch(fastHealth)).status).toBe(200);
      expect(await (await fetch("https://user.test/x")).text()).toBe("user mock");
      fast.stop();
      expect(await (await fetch("https://user.test/x")).text()).toBe("user mock");
    } finally {
      viaNock.stop();
      fast.stop();
      user.persist(false);
      nock.cleanAll();
      nock.enableNetConnect();
      if (activatedHere && nock.isActive()) nock.restore();
    }
    await fastDoubles.close();
    await nockDoubles.close();
  });
});
