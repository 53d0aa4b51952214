/**
 * `clock: "fake-timers"` end to end: vitest's fake timers drive the services through nock, blocked
 * reads included (before the audit, a blocking query's `wait` never passed on this clock: with
 * fake timers or without).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { createDoubles, type Doubles } from "../../src/scenarios/doubles.js";

/** A real pause, for the steps of fetch and nock that run on real timers taken before faking. */
const realSetTimeout = globalThis.setTimeout;
const realPause = (): Promise<void> => new Promise((resolve) => realSetTimeout(resolve, 1));

let doubles: Doubles | undefined;
afterEach(async () => {
  await doubles?.close();
  doubles = undefined;
  vi.useRealTimers();
});

async function blockingSetup(): Promise<{ list: (query: string) => Promise<Response>; index: string }> {
  doubles = createDoubles({ clock: "fake-timers" });
  doubles.intercept();
  const base = doubles.baseUrls().accessControl.api;
  const root = doubles.accessControl.bootstrapToken.secretId;
  const list = (query: string): Promise<Response> => fetch(`${base}/acl/tokens${query}`, { headers: { "X-Acl-Token": root } });
  const first = await list("");
  await first.arrayBuffer();
  return { list, index: first.headers.get("x-acl-index") ?? "" };
}

describe('createDoubles({ clock: "fake-timers" })', () => {
  it("answers a blocking query when vi.advanceTimersByTime passes its wait", { timeout: 10_000 }, async () => {
    vi.useFakeTimers();
    vi.setSystemTime("2024-03-01T00:00:00Z");
    const { list, index } = await blockingSetup();
    let answered = false;
    const pending = list(`?index=${index}&wait=30s`).then((response) => {
      answered = true;
      return response;
    });
    const start = Date.now();
    await vi.advanceTimersByTimeAsync(20_000);
    expect(answered).toBe(false);
    // Under full fake timers nock's own steps (setImmediate) need the timers moved too.
    for (let step = 0; step < 60 && !answered; step++) {
      await vi.advanceTimersByTimeAsync(1_000);
      await realPause();
    }
    expect(answered).toBe(true);
    expect(Date.now() - start).toBeGreaterThanOrEqual(30_000);
    const response = await pending;
    expect(response.status).toBe(200);
    expect(response.headers.get("x-acl-index")).toBe(index);
    expect(doubles?.sim.pendingWaiters).toBe(0);
  });

  it("answers a blocking query when its wait passes on real time (no fake timers installed)", { timeout: 10_000 }, async () => {
    const { list, index } = await blockingSetup();
    const started = performance.now();
    const response = await list(`?index=${index}&wait=50ms`);
    expect(response.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(40);
    expect(doubles?.sim.pendingWaiters).toBe(0);
  });

  it("answers a blocking query at once when the system time jumps past its wait (Date-only fake timers)", { timeout: 10_000 }, async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime("2024-03-01T00:00:00Z");
    const { list, index } = await blockingSetup();
    const pending = list(`?index=${index}&wait=5m`);
    while (doubles?.sim.pendingWaiters === 0) await new Promise((resolve) => setImmediate(resolve));
    vi.setSystemTime("2024-03-01T00:06:00Z");
    // Answered within the test's timeout, not after five real minutes: the wake-up looks at
    // Date.now() every second.
    expect((await pending).status).toBe(200);
  });

  it("revokes a token whose expiration time the system time jumps past", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime("2024-03-01T00:00:00Z");
    doubles = createDoubles({ clock: "fake-timers" });
    doubles.intercept();
    const token = doubles.accessControl.createToken({ expirationTtl: "5m" });
    const self = (): Promise<Response> => fetch(`${doubles?.baseUrls().accessControl.api ?? ""}/acl/token/self`, { headers: { "X-Acl-Token": token.secretId } });
    expect((await self()).status).toBe(200);
    vi.setSystemTime("2024-03-01T00:05:00Z");
    expect((await self()).status).toBe(403);
  });
});
