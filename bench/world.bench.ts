/**
 * A fresh world per test at msw's price (issue 25): what a test pays for its own doubles, against
 * what it pays for a handler of msw 2's with the server listening once for the whole file, as a
 * user's suite does (`server.use(handler)` in the test, `server.resetHandlers()` after it).
 *
 * - The per-test cycle: `createDoubles({ seed })` + `intercept({ transport: "interceptors" })` +
 *   one GET through fetch + `close()`, against `server.use(handler)` + the same GET +
 *   `server.resetHandlers()`, the static handler answering the same bytes. A fresh world holds
 *   what the services hold at start (the secrets root token, the access-control bootstrap token,
 *   the runs service's engine versions) and no run: the first row reads a stored token
 *   (`GET /v1/auth/token/lookup-self`), the second (the one with the target, <= 1.0x) a
 *   stored run, put in each world by `restore()` of a snapshot taken once for the file (the
 *   restore copies a service's state on its first use: the GET copies the runs service's, the
 *   other two are never copied).
 *
 * The doubles side pays what msw's listening server does not: `close()` leaves nothing patched,
 * so in a process nothing else intercepts in each cycle applies and disposes @mswjs/interceptors'
 * fetch interceptor (docs/decisions/kernel.md).
 * - `createDoubles()` alone (target 0.1 ms), with msw's `server.use(handler)` +
 *   `server.resetHandlers()` as the anchor.
 * - `intercept()` + `stop()` in a process another doubles already intercepts in (the engine
 *   applied, the guards installed; target 0.03 ms), with the same anchor.
 * - The nock transport's cycle, shown without a target.
 */
import { fetchText, staticReply, type StaticReply } from "./anchors.js";
import { storeFinishedRun } from "./fixtures.js";
import { row, type Measure } from "./table.js";
import { createDoubles, type Doubles } from "../src/scenarios/doubles.js";
import type { SimulatorSnapshot } from "../src/simulator/kernel/simulator.js";

/** The GET a cycle sends to a fresh world, and the bytes it answers. */
interface WorldGet {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly reply: StaticReply;
}

/** `GET /v1/auth/token/lookup-self` with the root token: a token every fresh world (seed 1) stores. */
async function tokenGet(): Promise<WorldGet> {
  const doubles = createDoubles({ seed: 1 });
  const url = `${doubles.baseUrls().secrets.api}/auth/token/lookup-self`;
  const headers = { "x-secrets-token": doubles.secrets.rootToken };
  const response = await doubles.handler.handle({ method: "GET", url: new URL(url), headers, body: new Uint8Array() });
  if (response.status !== 200) throw new Error(`bench: lookup-self answered ${response.status}`);
  return { url, headers, reply: staticReply(response) };
}

/** A world (seed 1) holding one finished run, as a snapshot, and the GET of that run. */
async function storedRun(): Promise<WorldGet & { readonly world: SimulatorSnapshot }> {
  const doubles = createDoubles({ seed: 1 });
  const { run, token } = storeFinishedRun(doubles);
  const url = `${doubles.baseUrls().runs.api}/runs/${run.id}`;
  const headers = { authorization: `Bearer ${token}` };
  const response = await doubles.handler.handle({ method: "GET", url: new URL(url), headers, body: new Uint8Array() });
  if (response.status !== 200) throw new Error(`bench: GET run answered ${response.status}`);
  return { url, headers, reply: staticReply(response), world: doubles.snapshot() };
}

/** msw 2 listening once for the row; each call adds the static handler, sends the GET, and resets the handlers. */
async function mswCycle(get: WorldGet): Promise<Measure & { close: () => void }> {
  const { setupServer } = await import("msw/node");
  const { http } = await import("msw");
  const server = setupServer();
  server.listen({ onUnhandledRequest: "bypass" });
  const { reply } = get;
  return {
    label: "msw: server.use(handler) + GET + resetHandlers()",
    run: async () => {
      server.use(http.get(get.url, () => new Response(reply.body as Uint8Array<ArrayBuffer>, { status: reply.status, headers: reply.headers })));
      await fetchText(get.url, get.headers);
      server.resetHandlers();
    },
    close: () => server.close(),
  };
}

/** msw 2 listening once: `server.use(handler)` + `server.resetHandlers()`, no request (what a test pays for its handler). */
async function mswUse(get: WorldGet): Promise<Measure & { close: () => void }> {
  const { setupServer } = await import("msw/node");
  const { http } = await import("msw");
  const server = setupServer();
  server.listen({ onUnhandledRequest: "bypass" });
  const { reply } = get;
  return {
    label: "msw: server.use(handler) + resetHandlers()",
    run: () => {
      server.use(http.get(get.url, () => new Response(reply.body as Uint8Array<ArrayBuffer>, { status: reply.status, headers: reply.headers })));
      server.resetHandlers();
    },
    close: () => server.close(),
  };
}

/** One test's doubles: created, intercepting, one GET, closed. */
async function doublesCycle(get: WorldGet, transport: "interceptors" | "nock", world?: SimulatorSnapshot): Promise<void> {
  const doubles: Doubles = createDoubles({ seed: 1 });
  if (world !== undefined) doubles.restore(world);
  doubles.intercept({ transport });
  await fetchText(get.url, get.headers);
  await doubles.close();
}

row({
  name: "per-test cycle: createDoubles + intercept (interceptors) + GET stored token + close vs msw server.use + GET + resetHandlers",
  clock: "cpu",
  setup: async () => {
    const get = await tokenGet();
    const anchor = await mswCycle(get);
    return {
      figure: { label: 'createDoubles({ seed }) + intercept({ transport: "interceptors" }) + GET + close()', run: () => doublesCycle(get, "interceptors") },
      anchor,
      teardown: anchor.close,
    };
  },
});

row({
  name: "per-test cycle with a stored run: createDoubles + restore(world) + intercept (interceptors) + GET run + close vs msw server.use + GET + resetHandlers",
  target: "<= 1.0x",
  clock: "cpu",
  setup: async () => {
    const get = await storedRun();
    const anchor = await mswCycle(get);
    return {
      figure: { label: "createDoubles({ seed }) + restore(world) + intercept + GET run + close()", run: () => doublesCycle(get, "interceptors", get.world) },
      anchor,
      teardown: anchor.close,
    };
  },
});

row({
  name: "createDoubles() with the default scenario vs msw server.use(handler) + resetHandlers()",
  target: "<= 100us",
  clock: "cpu",
  setup: async () => {
    const get = await tokenGet();
    const anchor = await mswUse(get);
    return {
      figure: { label: "createDoubles()", run: () => createDoubles() },
      anchor,
      teardown: anchor.close,
    };
  },
});

row({
  name: "intercept() + stop() with another doubles intercepting vs msw server.use(handler) + resetHandlers()",
  target: "<= 30us",
  clock: "cpu",
  setup: async () => {
    const get = await tokenGet();
    // Another doubles, on origins of its own, keeps the engine applied and the guards installed.
    const other = createDoubles({ seed: 2, uniqueOrigins: true });
    other.intercept({ transport: "interceptors" });
    const doubles = createDoubles({ seed: 1 });
    void doubles.handler; // built once, as the first intercept() of a test builds it
    const anchor = await mswUse(get);
    return {
      figure: { label: 'intercept({ transport: "interceptors" }) + stop()', run: () => doubles.intercept({ transport: "interceptors" }).stop() },
      anchor,
      teardown: async () => {
        anchor.close();
        await other.close();
      },
    };
  },
});

row({
  name: "per-test cycle, nock transport: createDoubles + intercept (nock) + GET stored token + close vs msw server.use + GET + resetHandlers",
  setup: async () => {
    const get = await tokenGet();
    const anchor = await mswCycle(get);
    return {
      figure: { label: "createDoubles({ seed }) + intercept() + GET + close()", run: () => doublesCycle(get, "nock") },
      anchor,
      teardown: anchor.close,
    };
  },
});
