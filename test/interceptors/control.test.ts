import { afterEach, describe, expect, it } from "vitest";
import type { RunningServer } from "../../src/interceptors/server.js";
import { DoublesCore, type DoublesCoreOptions, type ListenOptions } from "../../src/scenarios/doubles-core.js";
import { json } from "../../src/interceptors/http.js";
import { demoPlugin } from "../support/demo-service.js";
import { demoWithControls, type DemoControls } from "./demo-with-controls.js";

const START = Date.UTC(2024, 0, 1);

const servers: RunningServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function start(options: DoublesCoreOptions = {}, listen: (doubles: DoublesCore) => ListenOptions = () => ({})) {
  const doubles = new DoublesCore([demoWithControls], { seed: 9, ...options });
  const server = await doubles.listen(listen(doubles));
  servers.push(server);
  const sim = `${server.url}/_sim`;
  const call = async (method: string, path: string, body?: string) => {
    const response = await fetch(`${sim}${path}`, { method, ...(method === "GET" || method === "HEAD" ? {} : { headers: { "content-type": "application/json" } }), ...(body === undefined ? {} : { body }) });
    const text = await response.text();
    return { status: response.status, type: response.headers.get("content-type"), body: text === "" ? undefined : (JSON.parse(text) as Record<string, unknown>) };
  };
  return { doubles, server, call, base: `${server.url}/demo/api` };
}

describe("the /_sim/ clock", () => {
  it("shows the simulator time as an ISO string and epoch milliseconds", async () => {
    const { call } = await start();
    expect(await call("GET", "/clock")).toEqual({
      status: 200,
      type: "application/json",
      body: { now: "2024-01-01T00:00:00.000Z", epochMs: START, advanceable: true, mode: "manual" },
    });
  });

  it("advances by a duration string or by milliseconds, firing the moves that fall due", async () => {
    const { call, base } = await start();
    const thing = (await (await fetch(`${base}/things`, { method: "POST", body: '{"name":"t"}' })).json()) as { id: string };
    expect(await call("POST", "/clock/advance", '{"by":"30s"}')).toMatchObject({ status: 200, body: { now: "2024-01-01T00:00:30.000Z", epochMs: START + 30_000 } });
    expect(await (await fetch(`${base}/things/${thing.id}`)).json()).toMatchObject({ done: false });
    expect(await call("POST", "/clock/advance", '{"by":30000}')).toMatchObject({ status: 200, body: { epochMs: START + 60_000 } });
    expect(await (await fetch(`${base}/things/${thing.id}`)).json()).toMatchObject({ done: true });
  });

  it("answers bad advance requests with 400 and a JSON error, and leaves the clock alone", async () => {
    const { call } = await start();
    const cases: [string | undefined, string, RegExp][] = [
      ['{"by":', "malformed", /must be JSON/],
      [undefined, "malformed", /must be JSON/],
      ["{}", "invalid", /"by" must be a duration string/],
      ['{"by":true}', "invalid", /"by" must be a duration string/],
      ['{"by":"soon"}', "invalid", /not a duration: "soon"/],
      ['{"by":"-5s"}', "invalid", /cannot go backwards/],
      ['{"by":-5}', "invalid", /cannot go backwards/],
      ["[30]", "invalid", /"by" must be/],
    ];
    for (const [body, code, message] of cases) {
      const answer = await call("POST", "/clock/advance", body);
      expect(answer, String(body)).toMatchObject({ status: 400, type: "application/json", body: { error: { status: 400, code } } });
      expect((answer.body?.error as { message: string }).message, String(body)).toMatch(message);
    }
    expect((await call("GET", "/clock")).body).toMatchObject({ epochMs: START });
  });

  it("refuses to advance past the latest time a Date can hold, and keeps serving at the old time", async () => {
    const { call, base } = await start();
    for (const body of ['{"by":"99999999999h"}', '{"by":1e300}', '{"by":8.64e15}']) {
      const answer = await call("POST", "/clock/advance", body);
      expect(answer, body).toMatchObject({ status: 400, body: { error: { status: 400, code: "invalid" } } });
    }
    expect((await call("GET", "/clock")).body).toMatchObject({ now: "2024-01-01T00:00:00.000Z", epochMs: START });
    expect((await fetch(`${base}/things`, { method: "POST", body: '{"name":"still"}' })).status).toBe(201);
  });

  it("refuses a duration string without a unit, and moves by whole milliseconds", async () => {
    const { call } = await start();
    const unitless = await call("POST", "/clock/advance", '{"by":"600"}');
    expect(unitless).toMatchObject({ status: 400, body: { error: { code: "invalid", message: expect.stringMatching(/"600ms", "90s"/) } } });
    expect(await call("POST", "/clock/advance", '{"by":1.75}')).toMatchObject({ status: 200, body: { epochMs: START + 1 } });
    expect(await call("POST", "/clock/advance", '{"by":"1500us"}')).toMatchObject({ status: 200, body: { epochMs: START + 2, now: "2024-01-01T00:00:00.002Z" } });
  });

  it("answers 409 when the clock follows real time and cannot be advanced", async () => {
    const { call } = await start({ clock: "system" });
    const before = (await call("GET", "/clock")).body as { advanceable: boolean };
    expect(before.advanceable).toBe(false);
    const answer = await call("POST", "/clock/advance", '{"by":"30s"}');
    expect(answer).toMatchObject({ status: 409, body: { error: { status: 409, code: "conflict", message: expect.stringMatching(/cannot be advanced/) } } });
  });
});

describe("POST /_sim/reset", () => {
  it("goes back to the state the server started with, setup included, with the same ids again", async () => {
    let setupThing = "";
    const { doubles, call, base } = await start(
      {},
      (doubles) => ({ setup: (origin) => (setupThing = doubles.controlsOf<DemoControls>("demo").createThing(`made for ${origin}`)) }),
    );
    const create = async () => ((await (await fetch(`${base}/things`, { method: "POST", body: '{"name":"later"}' })).json()) as { id: string }).id;
    const first = await create();
    await create();
    await call("POST", "/clock/advance", '{"by":"1m"}');
    expect(doubles.controlsOf<DemoControls>("demo").count()).toBe(3);
    const answer = await call("POST", "/reset");
    expect(answer).toMatchObject({ status: 200, body: { reset: true, epochMs: START } });
    expect(doubles.controlsOf<DemoControls>("demo").count()).toBe(1);
    expect((await fetch(`${base}/things/${setupThing}`)).status).toBe(200);
    expect((await fetch(`${base}/things/${first}`)).status).toBe(404);
    expect(await create()).toBe(first);
  });

  it("without setup, goes back to the state when listen() was called", async () => {
    const doubles = new DoublesCore([demoWithControls], { seed: 9 });
    doubles.controlsOf<DemoControls>("demo").createThing("before listen");
    const server = await doubles.listen();
    servers.push(server);
    doubles.controlsOf<DemoControls>("demo").createThing("after listen");
    await fetch(`${server.url}/_sim/reset`, { method: "POST", headers: { "content-type": "application/json" } });
    expect(doubles.controlsOf<DemoControls>("demo").count()).toBe(1);
  });
});

describe("the /_sim/ journal", () => {
  it("lists the service requests answered so far, and empties on DELETE and on reset", async () => {
    const { call, base, server } = await start();
    await fetch(`${base}/things/none`);
    await fetch(`${base}/echo/x`, { method: "LIST" });
    await call("POST", "/clock/advance", '{"by":"1s"}');
    const journal = await call("GET", "/journal");
    expect(journal.body).toMatchObject({
      entries: [
        { at: "2024-01-01T00:00:00.000Z", epochMs: START, service: "demo", method: "GET", url: `${base}/things/none`, status: 404, headers: expect.objectContaining({ host: new URL(base).host }) },
        {
          at: "2024-01-01T00:00:00.000Z",
          epochMs: START,
          durationMs: 0,
          service: "demo",
          method: "LIST",
          url: `${base}/echo/x`,
          route: "/echo/*rest",
          status: 200,
          headers: expect.any(Object),
          requestBody: { text: "", size: 0, truncated: false },
          responseHeaders: { "content-type": "application/json" },
          responseBody: { text: expect.stringContaining('"method":"LIST"'), truncated: false },
        },
      ],
    });
    expect((journal.body as { entries: unknown[] }).entries).toHaveLength(2);
    expect(await call("DELETE", "/journal")).toEqual({ status: 204, type: null, body: undefined });
    expect((await call("GET", "/journal")).body).toEqual({ entries: [] });
    await fetch(`${server.url}/nowhere`);
    await call("POST", "/reset");
    expect((await call("GET", "/journal")).body).toEqual({ entries: [] });
  });
});

describe("each service's control routes", () => {
  it("mounts a plugin's control routes under /_sim/<key>/", async () => {
    const { call } = await start();
    expect(await call("POST", "/demo/things/widget")).toMatchObject({ status: 201, body: { id: expect.stringMatching(/^thing-/) } });
    expect(await call("GET", "/demo/count")).toMatchObject({ status: 200, body: { count: 1 } });
  });

  it("answers a scenario control's usage error with 400 and keeps nothing of it", async () => {
    const { call } = await start();
    const answer = await call("POST", "/demo/things");
    expect(answer).toMatchObject({ status: 400, body: { error: { code: "invalid", message: expect.stringMatching(/a thing needs a name/) } } });
    expect((await call("GET", "/demo/count")).body).toEqual({ count: 0 });
  });

  it("answers unknown control routes with 404 and wrong methods with 405, as JSON", async () => {
    const { call } = await start();
    expect(await call("GET", "/nothing")).toMatchObject({ status: 404, body: { error: { code: "not_found" } } });
    expect(await call("GET", "/demo/nothing")).toMatchObject({ status: 404, body: { error: { code: "not_found" } } });
    expect(await call("DELETE", "/clock")).toMatchObject({ status: 405, body: { error: { code: "method_not_allowed", message: expect.stringContaining("GET /_sim/clock") } } });
  });

  it("lists every control route at GET /_sim", async () => {
    const { call } = await start();
    const listing = (await call("GET", "")).body as { routes: { route: string; body?: string; answer?: string }[] };
    expect(listing.routes.map((r) => r.route)).toEqual([
      "POST /_sim/reset",
      "GET /_sim/clock",
      "POST /_sim/clock/advance",
      "GET /_sim/journal",
      "GET /_sim/journal/rows",
      "DELETE /_sim/journal",
      "POST /_sim/faults",
      "GET /_sim/faults",
      "DELETE /_sim/faults",
      "DELETE /_sim/faults/:id",
      "GET /_sim/coverage",
      "GET /_sim/ui",
      "GET /_sim/ui/app.js",
      "GET /_sim/ui/app.css",
      "GET /_sim/ui/favicon.svg",
      "GET /_sim/demo/count",
      "POST /_sim/demo/things/:name",
      "POST /_sim/demo/things",
    ]);
    expect(listing.routes.find((r) => r.route === "POST /_sim/clock/advance")).toMatchObject({ body: '{"by": "30s" | 30000 (ms)}', answer: expect.stringContaining("200") });
  });
});

describe("where the control API is mounted", () => {
  it("is part of every handler built for a server origin, and of no nock handler", async () => {
    const doubles = new DoublesCore([demoPlugin]);
    const handler = doubles.handlerFor("http://127.0.0.1:9999");
    const answer = await handler.handle({ method: "GET", url: new URL("http://127.0.0.1:9999/_sim/clock"), headers: {}, body: new Uint8Array() });
    expect(answer.status).toBe(200);
    expect(JSON.parse(String(answer.body))).toMatchObject({ epochMs: START });
    expect(doubles.handler.origins).toEqual(["https://demo.infra-doubles.test"]);
  });

  it("sits beside the services given by the serverOnly option", async () => {
    const doubles = new DoublesCore([demoPlugin], {
      serverOnly: () => [
        {
          service: { name: "extra", routes: [{ method: "GET", path: "/hello", handler: () => json(200, { hello: true }) }], errorResponse: () => json(500, {}), noRoute: () => json(404, {}) },
          bases: { api: "http://placeholder/extra" },
        },
      ],
    });
    const server = await doubles.listen();
    servers.push(server);
    expect(await (await fetch(`${server.url}/extra/hello`)).json()).toEqual({ hello: true });
    expect((await fetch(`${server.url}/_sim/clock`)).status).toBe(200);
  });
});
