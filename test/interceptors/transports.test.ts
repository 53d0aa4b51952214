import { createHash, randomBytes } from "node:crypto";
import http from "node:http";
import https from "node:https";
import axios from "axios";
import nock from "nock";
import { afterEach, describe, expect, it } from "vitest";
import { DoublesCore } from "../../src/scenarios/doubles-core.js";
import { demoPlugin } from "../support/demo-service.js";

const transports = [
  {
    name: "nock",
    async start(doubles: DoublesCore) {
      const interception = doubles.intercept();
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
      const bytes = new Uint8Array([0x1f, 0x8b, 0x08, 0x00, ...randomBytes(4096), 0x00, 0xff]);
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

describe("base URL options", () => {
  it("refuses a baseUrls key that names no service", () => {
    expect(() => new DoublesCore([demoPlugin], { baseUrls: { demoo: "https://x.test/api" } })).toThrow(/baseUrls names no service: demoo \(services: demo\)/);
  });
});
