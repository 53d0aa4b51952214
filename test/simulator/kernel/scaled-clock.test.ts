/**
 * The clock of `infra-doubles soak`: real time compressed `speed` times, standing still until it
 * runs, under an advanceable clock that starts at the given time. Lower bounds only (a loaded
 * machine makes wall time longer, never shorter).
 */
import { expect, it } from "vitest";
import { AdvanceableClock, ScaledClock } from "../../../src/simulator/kernel/clock.js";

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it("stands still while paused, then runs speed times wall time from where it stood", async () => {
  const scaled = new ScaledClock(10_000, { paused: true });
  const clock = new AdvanceableClock(scaled, "2024-01-01T00:00:00Z");
  await wait(30);
  expect(clock.now()).toBe(Date.UTC(2024, 0, 1));
  scaled.run();
  await wait(30);
  expect(clock.now() - Date.UTC(2024, 0, 1)).toBeGreaterThanOrEqual(290_000); // >= 29 ms x 10,000
});

it("wakes a waiter after the wall time that makes the simulated wait", async () => {
  const scaled = new ScaledClock(1_000);
  const clock = new AdvanceableClock(scaled, "2024-01-01T00:00:00Z");
  const due = clock.now() + 20_000; // 20 simulated seconds: about 20 ms of wall time
  await new Promise<void>((resolve) => clock.wakeAt(due, resolve));
  expect(clock.now()).toBeGreaterThanOrEqual(due - 1_000);
  expect(() => new ScaledClock(0.5)).toThrow(/clock speed must be a number of at least 1/);
});
