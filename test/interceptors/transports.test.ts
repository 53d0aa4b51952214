import { createHash } from "node:crypto";
import http from "node:http";
import https from "node:https";
import axios from "axios";
import fc from "fast-check";
import nock from "nock";
import { afterEach, describe, expect, it } from "vitest";
import { recoverBytes } from "../../src/interceptors/nock-adapter.js";
import { DoublesCore } from "../../src/scenarios/doubles-core.js";
import { Prng } from "../fuzz/harness/prng.js";
import { demoPlugin } from "../support/demo-service.js";

/** `size` bytes that look random but are the same for the same `seed` (a failure replays). */
function seededBytes(size: number, seed: number): Uint8Array<ArrayBuffer> {
  const prng = new Prng(seed, size);
  return Uint8Array.from({ length: size }, () => prng.next() & 0xff);
}

const transports = [
  {
    name: "nock",
    async start(doubles: DoublesCore) {
      const interception = doubles.intercept();
      return { base: doubles.baseUrls().demo?.api ?? "", stop: async () => interception.stop() };
    },
  },
  {
    name: "interceptors",
    async start(doubles: DoublesCore) {
      const interception = doubles.intercept({ transport: "interceptors" });
      return { base: doubles.baseUrls().demo?.api ?? "", stop: async () => interception.stop() };
    },
  },
  {
    name: "server",
    async start(doubles: DoublesCore) {
      const server = await doubles.listen();
      return { base: `${server.url}/demo/api`, stop: () => server.close() };
    },
  },
] as const;

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

for (const transport of transports) {
  describe(`the ${transport.name} transport`, () => {
    const start = async () => {
      const doubles = new DoublesCore([demoPlugin], { seed: 3 });
      const t = await transport.start(doubles);
      cleanup = t.stop;
      return { doubles, base: t.base };
    };

    it("answers JSON requests from fetch through the handler", async () => {
      const { base, doubles } = await start();
      const created = await fetch(`${base}/things`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"name":"a"}' });
      expect(created.status).toBe(201);
      const thing = (await created.json()) as { id: string };
      const read = await fetch(`${base}/things/${thing.id}`);
      expect(await read.json()).toMatchObject({ id: thing.id, done: false });
      doubles.advance("2m");
      expect(await (await fetch(`${base}/things/${thing.id}`)).json()).toMatchObject({ done: true });
    });

    it("answers a malformed JSON body with the service's error instead of crashing", async () => {
      const { base, doubles } = await start();
      const response = await fetch(`${base}/things`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"name":' });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: expect.stringMatching(/^bad json/) });
      expect(doubles.sim.read("demo", (ctx) => ctx.state)).toEqual({ things: {}, log: [] });
    });

    it("keeps nothing of a request that fails half way", async () => {
      const { base, doubles } = await start();
      const response = await fetch(`${base}/things`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"name":"explode"}' });
      expect(response.status).toBe(422);
      expect(doubles.sim.read("demo", (ctx) => ctx.state)).toEqual({ things: {}, log: [] });
    });

    it("delivers binary bodies byte for byte", async () => {
      const { base } = await start();
      const bytes = new Uint8Array([0x1f, 0x8b, 0x08, 0x00, ...seededBytes(4096, 1), 0x00, 0xff]);
      const response = await fetch(`${base}/echo/archive.tar.gz`, { method: "PUT", headers: { "content-type": "application/octet-stream" }, body: bytes });
      expect(await response.json()).toEqual({
        method: "PUT",
        rest: "archive.tar.gz",
        sha256: createHash("sha256").update(bytes).digest("hex"),
        length: bytes.length,
        contentType: "application/octet-stream",
      });
    });

    it("keeps a text body that happens to look like hex as text", async () => {
      const { base } = await start();
      const response = await fetch(`${base}/echo/x`, { method: "PUT", headers: { "content-type": "text/plain" }, body: "ff" });
      expect(await response.json()).toMatchObject({ length: 2 });
    });

    it("serves node:http and axios clients", async () => {
      const { base } = await start();
      const viaAxios = await axios.post(`${base}/things`, { name: "b" });
      expect(viaAxios.status).toBe(201);
      const viaHttp = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const url = `${base}/things/${(viaAxios.data as { id: string }).id}`;
        const req = (url.startsWith("https:") ? https : http).request(url, (res) => {
          let body = "";
          res.on("data", (c: Buffer) => (body += c.toString()));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on("error", reject);
        req.end();
      });
      expect(viaHttp).toMatchObject({ status: 200 });
    });

    it("names the nearest routes when a request matches none", async () => {
      const { base } = await start();
      const response = await fetch(`${base}/thingz`, { method: "POST", body: "{}" });
      expect(response.status).toBe(404);
      expect(((await response.json()) as { nearest: string[] }).nearest[0]).toMatch(/POST .*\/things$/);
      const wrongMethod = await fetch(`${base}/things`, { method: "DELETE" });
      expect(wrongMethod.status).toBe(405);
    });

    it("accepts the LIST method from fetch", async () => {
      const { base } = await start();
      const response = await fetch(`${base}/echo/keys`, { method: "LIST" });
      expect(await response.json()).toMatchObject({ method: "LIST", rest: "keys" });
    });

    it("answers every method from fetch, LIST included, as the route table says", async () => {
      const { base } = await start();
      const statuses: Record<string, number> = {};
      for (const method of ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "LIST"]) {
        const response = await fetch(`${base}/echo/m`, { method, ...(method === "GET" || method === "HEAD" ? {} : { body: "x" }) });
        statuses[method] = response.status;
        await response.arrayBuffer();
      }
      expect(statuses).toEqual({ GET: 405, HEAD: 405, POST: 405, PUT: 200, PATCH: 405, DELETE: 405, OPTIONS: 405, LIST: 200 });
    });

    it("answers HEAD with the GET headers, Content-Length included, and no body", async () => {
      const { base } = await start();
      const created = (await (await fetch(`${base}/things`, { method: "POST", body: '{"name":"h"}' })).json()) as { id: string };
      const get = await fetch(`${base}/things/${created.id}`);
      const getBody = await get.text();
      const head = await fetch(`${base}/things/${created.id}`, { method: "HEAD" });
      expect(head.status).toBe(200);
      expect(head.headers.get("content-type")).toBe("application/json");
      expect(head.headers.get("content-length")).toBe(String(Buffer.byteLength(getBody)));
      expect(get.headers.get("content-length")).toBe(String(Buffer.byteLength(getBody)));
      expect(await head.text()).toBe("");
    });

    it("keeps a path that starts with // on the services' origin", async () => {
      const { base } = await start();
      const url = new URL(base);
      const response = await fetch(`${url.origin}/${url.pathname}/things/x`);
      expect(response.status).toBe(404);
      const text = await response.text();
      expect(text.startsWith(`infra-doubles: no service is mounted at ${url.origin}/${url.pathname}/things/x; mounted bases: `)).toBe(true);
      expect(text).toContain(base);
    });

    it("delivers any body byte for byte, UTF-8 or not, hex-looking or not, with and without a content type", async () => {
      const { base } = await start();
      const hexText = fc.array(fc.constantFrom(..."0123456789abcdef"), { minLength: 2, maxLength: 64 }).map((chars) => new TextEncoder().encode(chars.join("")));
      const utf8 = fc.string({ unit: "binary", maxLength: 200 }).map((text) => new TextEncoder().encode(text));
      const bytes = fc.oneof(fc.uint8Array({ maxLength: 300 }), hexText, utf8, fc.tuple(fc.integer({ min: 1, max: 300_000 }), fc.integer()).map(([size, seed]) => seededBytes(size, seed)));
      const contentType = fc.constantFrom(undefined, "application/octet-stream", "application/x-tar", "text/plain", "application/json", "application/json; charset=utf-8");
      await fc.assert(
        fc.asyncProperty(bytes, contentType, async (body, type) => {
          const response = await fetch(`${base}/echo/bytes`, { method: "PUT", body, ...(type ? { headers: { "content-type": type } } : {}) });
          expect(await response.json()).toEqual({
            method: "PUT",
            rest: "bytes",
            sha256: createHash("sha256").update(body).digest("hex"),
            length: body.length,
            contentType: type ?? null,
          });
        }),
        { numRuns: 60 },
      );
    });

    it("delivers bytes from node:http clients byte for byte, with a Content-Length and chunked", async () => {
      const { base } = await start();
      for (const body of [Buffer.from("deadbeef"), Buffer.from([0xde, 0xad, 0xbe, 0xef]), Buffer.from("ff"), Buffer.from([0xff])]) {
        for (const chunked of [false, true]) {
          const answer = await new Promise<{ length: number; sha256: string }>((resolve, reject) => {
            const url = `${base}/echo/raw`;
            const req = (url.startsWith("https:") ? https : http).request(url, { method: "PUT", headers: chunked ? {} : { "content-length": String(body.length) } }, (res) => {
              let text = "";
              res.on("data", (chunk: Buffer) => (text += chunk.toString()));
              res.on("end", () => resolve(JSON.parse(text) as { length: number; sha256: string }));
            });
            req.on("error", reject);
            if (chunked) {
              req.write(body.subarray(0, 1));
              req.end(body.subarray(1));
            } else req.end(body);
          });
          expect(answer, `${body.toString("hex")} chunked=${chunked}`).toMatchObject({ length: body.length, sha256: createHash("sha256").update(body).digest("hex") });
        }
      }
    });
  });
}

describe("nock teardown", () => {
  it("refuses a second interception of the same origins until the first is stopped", async () => {
    const first = new DoublesCore([demoPlugin], { seed: 1 });
    const second = new DoublesCore([demoPlugin], { seed: 2 });
    const interception = first.intercept();
    expect(() => second.intercept()).toThrow(/already intercepted.*stop it first/);
    interception.stop();
    const again = second.intercept();
    again.stop();
  });

  it("accepts a new interception once nock.cleanAll() removed the old one's interceptors", async () => {
    const first = new DoublesCore([demoPlugin], { seed: 1 });
    first.intercept();
    nock.cleanAll();
    const second = new DoublesCore([demoPlugin], { seed: 1 });
    const interception = second.intercept();
    try {
      const response = await fetch(`${second.baseUrls().demo?.api ?? ""}/things`, { method: "POST", body: '{"name":"x"}' });
      expect(response.status).toBe(201);
      expect(second.controlsOf<{ count(): number }>("demo").count()).toBe(1);
      expect(first.controlsOf<{ count(): number }>("demo").count()).toBe(0);
    } finally {
      interception.stop();
      await first.close();
    }
    expect(nock.activeMocks()).toEqual([]);
    expect(nock.isDone()).toBe(true);
  });

  it("leaves no interceptor behind after stop or disposal", async () => {
    const doubles = new DoublesCore([demoPlugin]);
    {
      using _interception = doubles.intercept();
      expect(nock.activeMocks().length).toBeGreaterThan(0);
    }
    expect(nock.activeMocks()).toEqual([]);
    const again = doubles.intercept();
    again.stop();
    again.stop();
    expect(nock.activeMocks()).toEqual([]);
  });
});

describe("what a test leaves behind", () => {
  it("leaves no handle and no timer once the doubles are closed, blocked reads included, on both transports", async () => {
    const { createDoubles } = await import("../../src/scenarios/doubles.js");
    const settle = async (): Promise<void> => {
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    };
    const active = (): string[] => process.getActiveResourcesInfo().filter((name) => name !== "Immediate").sort();
    await settle();
    const before = active();
    const doubles = createDoubles({ seed: 2, clock: "advanceable" });
    const server = await doubles.listen();
    const interception = doubles.intercept();
    const root = doubles.accessControl.bootstrapToken.secretId;
    for (const base of [doubles.baseUrls().accessControl.api, `${server.url}/v1`]) {
      const first = await fetch(`${base}/acl/tokens`, { headers: { "X-Acl-Token": root } });
      await first.arrayBuffer();
      const blocked = fetch(`${base}/acl/tokens?index=${first.headers.get("x-acl-index") ?? ""}&wait=10m`, { headers: { "X-Acl-Token": root } });
      while (doubles.sim.pendingWaiters === 0) await new Promise((resolve) => setImmediate(resolve));
      doubles.advance("10m");
      expect((await blocked).status).toBe(200);
    }
    interception.stop();
    await doubles.close();
    await settle();
    expect(doubles.sim.pendingWaiters).toBe(0);
    expect(active()).toEqual(before);
  });
});

describe("recovering bytes from nock's string form (nock versions that keep no written chunks)", () => {
  it("reads a hex-looking body by its declared Content-Length, and by the content type without one", () => {
    const ascii = new Uint8Array(Buffer.from("deadbeef"));
    const binary = new Uint8Array([0xde, 0xad, 0xbe, 0xef]);
    expect(recoverBytes("deadbeef", "application/octet-stream", "8")).toEqual(ascii);
    expect(recoverBytes("deadbeef", "application/octet-stream", "4")).toEqual(binary);
    expect(recoverBytes("deadbeef", "", "4")).toEqual(binary);
    expect(recoverBytes("80", "application/json", "1")).toEqual(new Uint8Array([0x80]));
    expect(recoverBytes("deadbeef", "application/octet-stream")).toEqual(binary);
    expect(recoverBytes("deadbeef", "text/plain")).toEqual(ascii);
    expect(recoverBytes("héllo", "", "6")).toEqual(new Uint8Array(Buffer.from("héllo")));
    expect(recoverBytes("", "application/json", "0")).toEqual(new Uint8Array());
  });
});

describe("clock options", () => {
  it("refuses a start time with a clock that keeps its own time, instead of ignoring it", () => {
    for (const clock of ["fake-timers", "system"] as const) {
      expect(() => new DoublesCore([demoPlugin], { clock, start: "2030-01-01T00:00:00Z" })).toThrow(/"start" sets the first time of a manual or advanceable clock/);
    }
    expect(new DoublesCore([demoPlugin], { clock: "manual", start: "2030-01-01T00:00:00Z" }).now()).toBe(Date.UTC(2030, 0, 1));
    expect(new DoublesCore([demoPlugin], { start: "2030-01-01T00:00:00Z" }).now()).toBe(Date.UTC(2030, 0, 1));
  });

  it("starts an advanceable clock at the start time and runs it in real time from there", () => {
    const doubles = new DoublesCore([demoPlugin], { clock: "advanceable", start: "2030-01-01T00:00:00Z" });
    const now = doubles.now();
    expect(now).toBeGreaterThanOrEqual(Date.UTC(2030, 0, 1));
    expect(now).toBeLessThan(Date.UTC(2030, 0, 1) + 60_000);
    expect(doubles.advance("1h")).toBeGreaterThanOrEqual(Date.UTC(2030, 0, 1, 1));
  });
});

describe("base URL options", () => {
  it("refuses a baseUrls key that names no service", () => {
    expect(() => new DoublesCore([demoPlugin], { baseUrls: { demoo: "https://x.test/api" } })).toThrow(/unknown option "baseUrls.demoo" \(did you mean "demo"\?\); valid keys of "baseUrls": demo/);
  });
});
