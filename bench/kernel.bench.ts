/**
 * Kernel benchmarks (`npm run bench`). Targets, measured on the 2-core CI machine kind:
 * - scheduling and firing 10 000 timed moves: well under 100 ms;
 * - a transactional update on a service with 1 000 resources: under 1 ms;
 * - a request through the transport-free handler: under 0.1 ms; through nock: ~2 ms (nock's own timers).
 */
import { bench, describe } from "vitest";
import { DoublesCore } from "../src/scenarios/doubles-core.js";
import { Simulator } from "../src/simulator/kernel/simulator.js";
import { demoDefinition, demoPlugin, type DemoState } from "../test/support/demo-service.js";

describe("scheduler", () => {
  bench("schedule and fire 10 000 moves", () => {
    const sim = new Simulator({ services: [demoDefinition] });
    sim.update<DemoState, void>("demo", (ctx) => {
      for (let i = 0; i < 10_000; i++) ctx.schedule(ctx.now + ((i * 7919) % 100_000), "finish", `t${i}`);
    });
    sim.advance("1h");
  });
});

describe("transactions", () => {
  const sim = new Simulator({ services: [demoDefinition] });
  sim.update<DemoState, void>("demo", (ctx) => {
    for (let i = 0; i < 1000; i++) ctx.state.things[`t${i}`] = { id: `t${i}`, name: "x".repeat(40), createdAt: ctx.now, done: false };
  });
  bench("update a service holding 1 000 resources", () => {
    sim.update<DemoState, void>("demo", (ctx) => {
      const thing = ctx.state.things.t1;
      if (thing) thing.done = !thing.done;
    });
  });
});

describe("transports", () => {
  const doubles = new DoublesCore([demoPlugin]);
  const base = doubles.baseUrls().demo?.api ?? "";
  const id = doubles.sim.update<DemoState, string>("demo", (ctx) => {
    ctx.state.things.t1 = { id: "t1", name: "x", createdAt: ctx.now, done: false };
    return "t1";
  });
  const request = { method: "GET", url: new URL(`${base}/things/${id}`), headers: {}, body: new Uint8Array() };
  bench("handler.handle (no transport)", async () => {
    await doubles.handler.handle(request);
  });
  bench("fetch through nock", async () => {
    const interception = doubles.intercept();
    try {
      await (await fetch(`${base}/things/${id}`)).text();
    } finally {
      interception.stop();
    }
  });
});
