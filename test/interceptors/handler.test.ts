/** The transport-free handler's promise: it always answers, a bug included. */
import { describe, expect, it } from "vitest";
import { createHandler } from "../../src/interceptors/handler.js";
import { json, type HttpService } from "../../src/interceptors/http.js";
import type { Clock } from "../../src/simulator/kernel/clock.js";
import { Simulator, type ServiceDefinition } from "../../src/simulator/kernel/simulator.js";

const broken: ServiceDefinition<{ armed: number }> = {
  name: "broken",
  initialState: () => ({ armed: 0 }),
  moves: {
    boom: () => {
      throw new Error("a move handler that throws");
    },
  },
};

const brokenHttp: HttpService = {
  name: "broken",
  routes: [
    {
      method: "POST",
      path: "/arm",
      handler: ({ sim }) => json(200, sim.update<{ armed: number }, number>("broken", (ctx) => {
        ctx.schedule(ctx.now + 10, "boom");
        ctx.schedule(ctx.now + 10, "boom");
        return ++ctx.state.armed;
      })),
    },
  ],
  errorResponse: () => json(400, {}),
  noRoute: () => json(404, {}),
};

describe("the handler", () => {
  it("answers a library-bug 500, never a rejection, when a timed move throws while catching up", async () => {
    let now = Date.UTC(2024, 0, 1);
    const clock: Clock = { now: () => now };
    const sim = new Simulator({ clock, services: [broken] });
    const handler = createHandler({ sim, mounts: [{ service: brokenHttp, bases: { api: "https://broken.test/api" } }] });
    const call = (method: string, path: string) => handler.handle({ method, url: new URL(`https://broken.test${path}`), headers: {}, body: new Uint8Array() });
    expect((await call("POST", "/api/arm")).status).toBe(200);
    now += 60_000;
    for (const path of ["/elsewhere", "/api/nothing"]) {
      const answer = await call("GET", path);
      expect(answer, path).toMatchObject({ status: 500, headers: { "x-infra-doubles-bug": "1" } });
      expect(String(answer.body)).toContain("a move handler that throws");
    }
    expect((await call("GET", "/elsewhere")).status).toBe(404);
    expect(handler.journal.map((entry) => entry.status)).toEqual([200, 500, 500, 404]);
    expect(handler.journal.map((entry) => entry.at)).toEqual([Date.UTC(2024, 0, 1), now, now, now]);
  });
});
