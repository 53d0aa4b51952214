// Packaging smoke test, ESM side: run with `node --test` in a fresh project where the packed
// tarball is installed (see .ci/run). It imports the package the way a user does. .ci/run also
// type-checks this file (checkJs) against the package's ESM declarations.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import nock from "nock";
import { ALL_PLUGINS, DoublesCore, createDoubles, journalMatchers } from "infra-doubles";
import { interceptWithNock } from "infra-doubles/nock";
import { startServer } from "infra-doubles/server";
import { ManualClock, Simulator, parseDuration } from "infra-doubles/simulator";
import { createRunBody, handlerFetch, invalidCreateRunBody, readServiceError } from "infra-doubles/testing";
import fc from "fast-check";
import coverageSetup, { formatCoverageSummary, mergeCoverage } from "infra-doubles/coverage";

// Properties draw from a fixed seed, so this file never fails on a new draw; FC_SEED=<n> replays
// another one (a failure prints its seed and path).
const FC_SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : 22;
fc.configureGlobal({ seed: FC_SEED });
console.log(`fast-check: seed ${FC_SEED}`);

/**
 * A tiny service built only from the public plugin contract.
 * @type {import("infra-doubles").ServicePlugin<Record<string, never>>}
 */
const pingPlugin = {
  key: "ping",
  definition: { name: "ping", initialState: () => ({ pings: 0 }) },
  http: {
    name: "ping",
    routes: [
      {
        method: ["POST", "LIST"],
        path: "/ping",
        handler: ({ sim, request }) => {
          const pings = sim.update("ping", (/** @type {import("infra-doubles/simulator").OperationContext<{ pings: number }>} */ ctx) => ++ctx.state.pings);
          return { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify({ pings, method: request.method, at: sim.now() }) };
        },
      },
    ],
    errorResponse: () => ({ status: 500, headers: {}, body: "error" }),
    noRoute: () => ({ status: 404, headers: { "content-type": "application/json" }, body: '{"error":"no route"}' }),
  },
  defaultBases: { api: "https://ping.infra-doubles.test/api" },
  serverBases: (origin) => ({ api: `${origin}/ping/api` }),
  controls: () => ({}),
};

test("createDoubles() builds every registered service on a manual clock that advance() moves", () => {
  const doubles = createDoubles({ seed: 1 });
  assert.equal(new Date(doubles.now()).toISOString(), "2024-01-01T00:00:00.000Z");
  assert.equal(doubles.advance("10m") - Date.UTC(2024, 0, 1), 600_000);
  assert.deepEqual(Object.keys(doubles.baseUrls()), ALL_PLUGINS.map((p) => p.key));
});

test("infra-doubles/msw is its own entry: msw (an optional peer, not installed here) is needed by it alone", async () => {
  assert.match(import.meta.resolve("infra-doubles/msw"), /\/infra-doubles\/dist\/msw\.js$/);
  const entry = "infra-doubles/msw"; // through a variable: msw's types are not installed here either
  await assert.rejects(
    import(entry),
    (/** @type {NodeJS.ErrnoException} */ error) => error.code === "ERR_MODULE_NOT_FOUND" && /'msw'/.test(error.message),
  );
});

test("infra-doubles/vitest is its own entry: vitest (an optional peer, not installed here) is needed by it alone", async () => {
  assert.match(import.meta.resolve("infra-doubles/vitest"), /\/infra-doubles\/dist\/vitest\.js$/);
  const entry = "infra-doubles/vitest"; // through a variable: vitest's types are not installed here either
  await assert.rejects(
    import(entry),
    (/** @type {NodeJS.ErrnoException} */ error) => error.code === "ERR_MODULE_NOT_FOUND" && /'vitest'/.test(error.message),
  );
});

test("the journal and its matchers come from the main entry (for Jest's expect.extend)", async () => {
  const doubles = createDoubles();
  await doubles.handler.handle({ method: "GET", url: new URL(`${doubles.baseUrls().secrets.api}/sys/health`), headers: {}, body: new Uint8Array() });
  assert.equal(doubles.journal.count({ route: "GET /sys/health" }), 1);
  const context = { isNot: false, equals: (/** @type {unknown} */ a, /** @type {unknown} */ b) => JSON.stringify(a) === JSON.stringify(b) };
  assert.equal(journalMatchers.toHaveReceivedTimes.call(context, doubles, "GET /sys/health", 1).pass, true);
  assert.match(journalMatchers.toHaveReceived.call(context, doubles, "POST /sys/mounts/*path").message(), /Requests received:\n#1 /);
});

test("the simulator subpath gives the clock and the kernel", () => {
  const clock = new ManualClock("2024-05-01T00:00:00Z");
  clock.advance("90s");
  assert.equal(clock.now(), Date.UTC(2024, 4, 1, 0, 1, 30));
  assert.equal(parseDuration("1h30m"), 5_400_000);
  const sim = new Simulator({ clock, services: [] });
  assert.equal(sim.now(), clock.now());
});

test("intercept() answers every service's base URL through nock, and close() removes it", async () => {
  const doubles = createDoubles();
  doubles.intercept();
  for (const [key, bases] of Object.entries(doubles.baseUrls())) {
    const response = await fetch(`${bases.api}/__infra_doubles_smoke__`);
    assert.ok(response.status >= 400 && response.status < 500, `${key}: ${response.status}`);
    assert.equal(response.headers.get("x-infra-doubles-bug"), null, key);
  }
  await doubles.close();
  assert.deepEqual(nock.activeMocks(), []);
});

test("a plugin made from the public contract answers through nock with simulator time", async () => {
  const doubles = new DoublesCore([pingPlugin], { seed: 2 });
  const interception = doubles.intercept();
  doubles.advance("1m");
  const response = await fetch("https://ping.infra-doubles.test/api/ping", { method: "POST" });
  assert.deepEqual(await response.json(), { pings: 1, method: "POST", at: Date.UTC(2024, 0, 1, 0, 1) });
  assert.equal((await fetch("https://ping.infra-doubles.test/api/nope")).status, 404);
  interception.stop();
  assert.deepEqual(nock.activeMocks(), []);
  const direct = interceptWithNock(doubles.handler);
  direct.stop();
});

test("listen() serves LIST and the /_sim/ control API", async () => {
  const doubles = new DoublesCore([pingPlugin]);
  const server = await doubles.listen({ port: 0 });
  try {
    const listed = await fetch(`${server.url}/ping/api/ping`, { method: "LIST" });
    assert.equal((await listed.json()).method, "LIST");
    const advanced = await fetch(`${server.url}/_sim/clock/advance`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"by":"30s"}' });
    assert.equal((await advanced.json()).now, "2024-01-01T00:00:30.000Z");
    const reset = await fetch(`${server.url}/_sim/reset`, { method: "POST", headers: { "content-type": "application/json" } });
    assert.equal(reset.status, 200);
  } finally {
    await server.close();
  }
  const bare = await startServer(() => doubles.handlerFor("http://127.0.0.1:1"));
  await bare.close();
});

test("the infra-doubles binary serves and stops cleanly on SIGTERM", async () => {
  const child = spawn("node_modules/.bin/infra-doubles", ["serve", "--port", "0", "--json"]);
  let stdout = "";
  const line = await new Promise((resolve, reject) => {
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      if (stdout.includes("\n")) resolve(stdout.slice(0, stdout.indexOf("\n")));
    });
    child.on("exit", (code) => reject(new Error(`exited early with ${code}`)));
  });
  const start = JSON.parse(line);
  for (const plugin of ALL_PLUGINS) assert.ok(start[plugin.key], `banner has ${plugin.key}`);
  const clock = await (await fetch(`${start.url}/_sim/clock`)).json();
  assert.equal(clock.advanceable, true);
  const exit = new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal })));
  child.kill("SIGTERM");
  assert.deepEqual(await exit, { code: 0, signal: null });
});

test("a run plans, pauses for confirmation and applies through nock, as the README's quick start", async () => {
  const { configurationArchive } = await import("infra-doubles");
  const doubles = createDoubles({ seed: 1 });
  const interception = doubles.intercept();
  try {
    const { runs } = doubles;
    const ws = runs.addWorkspace(runs.addOrganization("acme"), { name: "prod" });
    const token = runs.issueUserToken(runs.addUser({ permissions: { [ws.id]: "write" } }).id);
    const api = doubles.baseUrls().runs.api;
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/vnd.api+json" };
    const body = JSON.stringify({ data: { type: "configuration-versions" } });
    const cv = await (await fetch(`${api}/workspaces/${ws.id}/configuration-versions`, { method: "POST", headers, body })).json();
    const upload = await fetch(cv.data.attributes["upload-url"], { method: "PUT", body: configurationArchive() });
    assert.equal(upload.ok, true);
    doubles.advance("1m");
    const [run] = runs.runsOf(ws.id);
    assert.equal(run.status, "planned");
    assert.equal((await fetch(`${api}/runs/${run.id}/actions/apply`, { method: "POST", headers })).status, 202);
    doubles.advance("5m");
    assert.equal(runs.run(run.id).status, "applied");
  } finally {
    interception.stop();
  }
});

test("infra-doubles/testing (with fast-check installed): generated create-run bodies are accepted, invalid ones get their labelled error", async () => {
  const doubles = createDoubles({ seed: 4 });
  const { runs } = doubles;
  const ws = runs.addWorkspace(runs.addOrganization("acme"), { name: "prod" });
  const user = runs.addUser({ permissions: { [ws.id]: "write" } });
  runs.uploadConfiguration(ws.id, { as: user.id, autoQueueRuns: false });
  const headers = { authorization: `Bearer ${runs.issueUserToken(user.id)}`, "content-type": "application/vnd.api+json" };
  const send = handlerFetch(doubles);
  const url = `${doubles.baseUrls().runs.api}/runs`;
  await fc.assert(
    fc.asyncProperty(createRunBody({ workspaceId: ws.id }), async (body) => {
      assert.equal((await send(url, { method: "POST", headers, body: JSON.stringify(body) })).status, 201);
    }),
    { numRuns: 10 },
  );
  await fc.assert(
    fc.asyncProperty(invalidCreateRunBody({ workspaceId: ws.id }), async ({ body, expected }) => {
      assert.deepEqual(await readServiceError("runs", await send(url, { method: "POST", headers, body: JSON.stringify(body) })), expected);
    }),
    { numRuns: 10 },
  );
});

test("infra-doubles/coverage: the default export is a global setup; reports merge and summarise", async () => {
  assert.equal(typeof coverageSetup, "function");
  const doubles = createDoubles();
  const report = mergeCoverage([doubles.coverage(), doubles.coverage()]);
  assert.match(formatCoverageSummary(report), /^accessControl: endpoints 0\/\d+; token 0\/8$/m);
  await doubles.close();
});
