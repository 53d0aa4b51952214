/**
 * The demo service with what the dev server uses: scenario controls that build fixtures, a default
 * scenario, and control routes under `/_sim/demo/`.
 */
import { json } from "../../src/interceptors/http.js";
import { UsageError } from "../../src/simulator/kernel/errors.js";
import type { Simulator } from "../../src/simulator/kernel/simulator.js";
import type { ServicePlugin } from "../../src/scenarios/plugin.js";
import { demoDefinition, demoHttp, type DemoState } from "../support/demo-service.js";

export interface DemoControls {
  count(): number;
  createThing(name: string): string;
}

function demoControls(sim: Simulator): DemoControls {
  return {
    count: () => sim.read<DemoState, number>("demo", (ctx) => Object.keys(ctx.state.things).length),
    createThing: (name) =>
      sim.update<DemoState, string>("demo", (ctx) => {
        if (name === "") throw new UsageError("demo: a thing needs a name");
        const id = ctx.ids.prefixed("thing-");
        ctx.state.things[id] = { id, name, createdAt: ctx.now, done: false };
        return id;
      }),
  };
}

export const demoWithControls: ServicePlugin<DemoControls> = {
  key: "demo",
  definition: demoDefinition,
  http: demoHttp,
  defaultBases: { api: "https://demo.infra-doubles.test/api" },
  serverBases: (origin) => ({ api: `${origin}/demo/api` }),
  controls: demoControls,
  defaultScenario: (controls, bases) => ({ baseUrl: bases.api, thingId: controls.createThing("default"), token: "demo-token" }),
  controlRoutes: (controls) => [
    { method: "GET", path: "/count", handler: () => json(200, { count: controls.count() }) },
    {
      method: "POST",
      path: "/things/:name",
      handler: ({ params }) => json(201, { id: controls.createThing(params.name ?? "") }),
    },
    {
      method: "POST",
      path: "/things",
      handler: () => json(201, { id: controls.createThing("") }),
    },
  ],
};
