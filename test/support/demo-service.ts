/** A tiny service used to test the kernel and the transports apart from the real services. */
import { createHash } from "node:crypto";
import { bodyText, json, type HttpService } from "../../src/interceptors/http.js";
import { DomainError, isDomainError } from "../../src/simulator/kernel/errors.js";
import type { ServiceDefinition } from "../../src/simulator/kernel/simulator.js";
import type { ServicePlugin } from "../../src/scenarios/plugin.js";

export interface DemoState {
  things: Record<string, { id: string; name: string; createdAt: number; done: boolean }>;
  log: string[];
}

export const demoDefinition: ServiceDefinition<DemoState> = {
  name: "demo",
  initialState: () => ({ things: {}, log: [] }),
  moves: {
    finish: (ctx, payload) => {
      const thing = ctx.state.things[String(payload)];
      if (thing) thing.done = true;
      ctx.state.log.push(`finish ${String(payload)} at ${ctx.now}`);
    },
  },
};

export const demoHttp: HttpService = {
  name: "demo",
  routes: [
    {
      method: "POST",
      path: "/things",
      handler: ({ sim, request }) => {
        let body: { name?: unknown };
        try {
          body = JSON.parse(bodyText(request)) as { name?: unknown };
        } catch (error) {
          throw new DomainError({ code: "malformed", service: "demo", operation: "create thing", message: `bad json: ${(error as Error).message}` });
        }
        const thing = sim.update<DemoState, DemoState["things"][string]>("demo", (ctx) => {
          const id = ctx.ids.prefixed("thing-");
          const created = { id, name: String(body.name), createdAt: ctx.now, done: false };
          ctx.state.things[id] = created;
          ctx.schedule(ctx.now + 60_000, "finish", id);
          if (body.name === "explode") throw new DomainError({ code: "invalid", service: "demo", operation: "create thing", message: "no explosions" });
          return created;
        });
        return json(201, thing);
      },
    },
    {
      method: ["GET", "HEAD"],
      path: "/things/:id",
      handler: ({ sim, params }) =>
        sim.read<DemoState, ReturnType<typeof json>>("demo", (ctx) => {
          const thing = ctx.state.things[params.id ?? ""];
          if (!thing) throw new DomainError({ code: "not_found", service: "demo", operation: "read thing", message: "not found" });
          return json(200, thing);
        }),
    },
    {
      method: ["PUT", "LIST"],
      path: "/echo/*rest",
      handler: ({ request, params }) =>
        json(200, {
          method: request.method,
          rest: params.rest,
          sha256: createHash("sha256").update(request.body).digest("hex"),
          length: request.body.length,
          contentType: request.headers["content-type"] ?? null,
        }),
    },
  ],
  errorResponse: (error) =>
    isDomainError(error)
      ? json(error.code === "not_found" ? 404 : error.code === "malformed" ? 400 : 422, { error: error.detail })
      : json(500, { error: String(error) }),
  noRoute: (_request, nearest, methodMismatch) => json(methodMismatch ? 405 : 404, { error: "no route", nearest }),
};

export const demoPlugin: ServicePlugin<{ count(): number }> = {
  key: "demo",
  definition: demoDefinition,
  http: demoHttp,
  defaultBases: { api: "https://demo.infra-doubles.test/api" },
  serverBases: (origin) => ({ api: `${origin}/demo/api` }),
  controls: (sim) => ({ count: () => sim.read<DemoState, number>("demo", (ctx) => Object.keys(ctx.state.things).length) }),
};
