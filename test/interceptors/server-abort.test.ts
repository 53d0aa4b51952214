// The server aborts a request's signal only when the client goes away while it is in flight
// (test/interceptors/access-control/blocking.test.ts: a blocked read is freed); a response that
// closes normally aborts nothing (an abort builds a DOMException: ~30 us on every request).
import http from "node:http";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DoublesCore } from "../../src/scenarios/doubles-core.js";
import { demoPlugin, type DemoState } from "../support/demo-service.js";

afterEach(() => {
  vi.restoreAllMocks();
});

function get(url: string, agent: http.Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      })
      .on("error", reject);
  });
}

describe("server request signals", () => {
  it("are not aborted when the response is sent (keep-alive and closed connections alike)", async () => {
    const doubles = new DoublesCore([demoPlugin], { seed: 1 });
    doubles.sim.update<DemoState, void>("demo", (ctx) => {
      ctx.state.things.t1 = { id: "t1", name: "x", createdAt: ctx.now, done: false };
    });
    const server = await doubles.listen();
    const aborts = vi.spyOn(AbortController.prototype, "abort");
    const keepAlive = new http.Agent({ keepAlive: true });
    const fresh = new http.Agent({ keepAlive: false });
    try {
      for (let i = 0; i < 10; i++) {
        expect(await get(`${server.url}/demo/api/things/t1`, keepAlive)).toBe(200);
        expect(await get(`${server.url}/demo/api/things/missing`, fresh)).toBe(404);
      }
    } finally {
      keepAlive.destroy();
      fresh.destroy();
      await server.close();
    }
    expect(aborts).not.toHaveBeenCalled();
  });
});
