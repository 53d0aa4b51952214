/**
 * Latency under a clock that follows real time: the answer really waits, through the clock's own
 * wake-up (a `setTimeout` looked up when the request arrives), so `vi.useFakeTimers()` holds it
 * until the test moves time. Through every transport. Issue 10 item 1.
 */
import { afterEach, expect, it, vi } from "vitest";
import { createDoubles } from "../../../src/scenarios/doubles.js";
import { describeEachTransport } from "../../support/transports.js";

describeEachTransport("faults: latency on a fake-timers clock", (h) => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("holds the answer until the fake timers pass the latency", async () => {
    const t = await h.startWith(createDoubles({ seed: 1, clock: "fake-timers" }));
    t.doubles.faults.add({ service: "secrets", route: "GET /sys/health", latency: "30s" });
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    let answered = false;
    const pending = fetch(`${t.base("secrets")}/sys/health`).then(async (response) => {
      answered = true;
      return response.status;
    });
    // Real time passes (the fake timers do not move): the answer is held.
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    await vi.advanceTimersByTimeAsync(29_000);
    expect(answered).toBe(false);
    await vi.advanceTimersByTimeAsync(1_000);
    vi.useRealTimers();
    expect(await pending).toBe(200);
    expect(t.doubles.handler.journal.at(-1)).toMatchObject({ status: 200, fault: "fault-1" });
  });
});
