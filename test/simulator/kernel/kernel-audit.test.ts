/**
 * Regression tests of the kernel audit: clock range and resolution, fake timers, the scheduler's
 * catch-up, transactions, snapshots and waiters. Each names the defect it pins down.
 */
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { performance as realPerformance } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AdvanceableClock, GlobalDateClock, ManualClock, MAX_EPOCH_MS, SystemClock, type Clock } from "../../../src/simulator/kernel/clock.js";
import { clonePlain } from "../../../src/simulator/kernel/clone.js";
import { parseDuration } from "../../../src/simulator/kernel/duration.js";
import { DomainError, UsageError } from "../../../src/simulator/kernel/errors.js";
import { IdSource } from "../../../src/simulator/kernel/ids.js";
import { Simulator, type ServiceDefinition } from "../../../src/simulator/kernel/simulator.js";
import { demoDefinition, type DemoState } from "../../support/demo-service.js";

const START = Date.UTC(2024, 0, 1);

afterEach(() => {
  vi.useRealTimers();
});

/** A service whose moves log their own time and may schedule further moves. */
interface ChainState {
  log: string[];
  data: Record<string, unknown>;
}
const chainDefinition: ServiceDefinition<ChainState> = {
  name: "chain",
  initialState: () => ({ log: [], data: {} }),
  moves: {
    tick: (ctx, payload) => {
      const { name, then } = payload as { name: string; then?: { name: string; after: number }[] };
      ctx.state.log.push(`${name}@${ctx.now - START}`);
      for (const next of then ?? []) ctx.schedule(ctx.now + next.after, "tick", { name: next.name });
    },
  },
};
const logOf = (sim: Simulator): string[] => sim.read<ChainState, string[]>("chain", (ctx) => [...ctx.state.log]);
const fail = (): never => {
  throw new DomainError({ code: "invalid", service: "chain", operation: "fail", message: "refused" });
};

describe("durations, audited", () => {
  it("reads the issue's examples and refuses empty, unit-less-for-Go and overlong strings", () => {
    expect(parseDuration("1h30m")).toBe(5_400_000);
    expect(parseDuration("90s")).toBe(90_000);
    expect(parseDuration("1.5h")).toBe(5_400_000);
    expect(parseDuration("1d")).toBe(86_400_000);
    expect(parseDuration("-1s")).toBe(-1000);
    expect(parseDuration(".5s")).toBe(500);
    expect(parseDuration("1.s")).toBe(1000);
    expect(() => parseDuration("")).toThrow(/invalid duration ""/);
    expect(() => parseDuration("   ")).toThrow(DomainError);
    expect(() => parseDuration("-")).toThrow(DomainError);
    expect(() => parseDuration("1h-30m")).toThrow(DomainError);
  });

  it("accepts both micro signs Go accepts (U+00B5 and U+03BC)", () => {
    expect(parseDuration("1500\u00b5s")).toBeCloseTo(1.5);
    expect(parseDuration("1500\u03bcs")).toBeCloseTo(1.5);
  });

  it("refuses durations longer than Go's longest (2^63 - 1 ns), as Go's ParseDuration does", () => {
    expect(parseDuration("2562047h")).toBe(2_562_047 * 3_600_000);
    expect(() => parseDuration("2562048h")).toThrow(/invalid duration "2562048h"/);
    expect(() => parseDuration("99999999999h")).toThrow(DomainError);
    expect(() => parseDuration("9999999999999")).toThrow(DomainError);
  });
});

describe("clocks, audited", () => {
  it("refuses a move past the latest time a Date can hold, and keeps its time", () => {
    const clock = new ManualClock();
    expect(() => clock.advance("99999999999h")).toThrow(UsageError);
    expect(() => clock.advance(1e300)).toThrow(/latest time a Date can hold/);
    expect(clock.now()).toBe(START);
    expect(() => clock.set(MAX_EPOCH_MS + 1)).toThrow(/not a valid time/);
    expect(clock.set(MAX_EPOCH_MS)).toBe(MAX_EPOCH_MS);
    expect(() => clock.advance(1)).toThrow(UsageError);
    expect(new Date(clock.now()).toISOString()).toBe("+275760-09-13T00:00:00.000Z");
    const advanceable = new AdvanceableClock(new ManualClock());
    expect(() => advanceable.advance(1e300)).toThrow(UsageError);
    expect(advanceable.now()).toBe(START);
  });

  it("keeps time in whole milliseconds, dropping sub-millisecond parts", () => {
    const clock = new ManualClock(START + 0.7);
    expect(clock.now()).toBe(START);
    expect(clock.advance(1.9)).toBe(START + 1);
    expect(clock.advance("1ns")).toBe(START + 1);
    expect(clock.advance("2.5ms")).toBe(START + 3);
    expect(Number.isInteger(new AdvanceableClock(new ManualClock()).advance(0.5))).toBe(true);
  });

  it("refuses a duration string without a unit instead of reading it as seconds", () => {
    const clock = new ManualClock();
    expect(() => clock.advance("600")).toThrow(/not a duration: "600".*"600ms", "90s"/);
    expect(clock.now()).toBe(START);
    expect(clock.advance("0")).toBe(START);
    expect(clock.advance(600)).toBe(START + 600);
  });

  it("follows real time with a system clock even under vitest's fake timers, and wakes with a real timer", async () => {
    const clock = new SystemClock();
    const wall = (): number => realPerformance.timeOrigin + realPerformance.now();
    vi.useFakeTimers();
    vi.setSystemTime("2000-01-01T00:00:00Z");
    vi.advanceTimersByTime(3_600_000); // fake performance.now() and Date.now() jump an hour
    expect(Math.abs(clock.now() - wall())).toBeLessThan(1000);
    expect(clock.now() - Date.now()).toBeGreaterThan(365 * 86_400_000);
    const woken = new Promise<void>((resolve) => clock.wakeAt(clock.now() + 5, resolve));
    vi.useRealTimers();
    await woken;
  });

  it("passes the base clock's hand-made moves on to an advanceable clock's listeners", () => {
    const base = new ManualClock();
    const clock = new AdvanceableClock(base);
    const seen: number[] = [];
    const stop = clock.onChange((now) => seen.push(now));
    base.advance("1s");
    clock.advance("1s");
    stop();
    base.advance("1s");
    expect(seen).toEqual([START + 1000, START + 2000]);
  });
});

describe("the fake-timers clock", () => {
  it("fires every due move in due order, each at its own time, when the system time jumps", () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(START);
    const sim = new Simulator({ clock: new GlobalDateClock(), services: [chainDefinition] });
    sim.update<ChainState, void>("chain", (ctx) => {
      ctx.schedule(ctx.now + 90_000, "tick", { name: "c" });
      ctx.schedule(ctx.now + 30_000, "tick", { name: "a", then: [{ name: "b", after: 15_000 }] });
    });
    vi.setSystemTime(START + 3_600_000);
    expect(logOf(sim)).toEqual(["a@30000", "b@45000", "c@90000"]);
    expect(sim.now()).toBe(START + 3_600_000);
  });

  it("releases a blocked read when vi.advanceTimersByTime passes its deadline", { timeout: 5000 }, async () => {
    vi.useFakeTimers();
    vi.setSystemTime(START);
    const sim = new Simulator({ clock: new GlobalDateClock(), services: [chainDefinition] });
    let released = false;
    const waiting = sim.waitForChange(sim.version, START + 30_000).then(() => (released = true));
    await vi.advanceTimersByTimeAsync(29_000);
    expect(released).toBe(false);
    await vi.advanceTimersByTimeAsync(1_000);
    await waiting;
    expect(sim.pendingWaiters).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("releases a blocked read on real time when no fake timers are installed", { timeout: 5000 }, async () => {
    const sim = new Simulator({ clock: new GlobalDateClock(), services: [chainDefinition] });
    await sim.waitForChange(sim.version, Date.now() + 20);
    expect(sim.pendingWaiters).toBe(0);
  });
});

describe("the scheduler's catch-up, audited", () => {
  const make = () => new Simulator({ services: [chainDefinition] });

  it("fires moves that a firing move schedules, when already due, in the same catch-up at their own time", () => {
    const sim = make();
    sim.update<ChainState, void>("chain", (ctx) => {
      ctx.schedule(ctx.now + 10, "tick", { name: "first", then: [{ name: "child", after: 5 }, { name: "late", after: 10_000 }] });
      ctx.schedule(ctx.now + 20, "tick", { name: "second" });
    });
    sim.advance(100);
    expect(logOf(sim)).toEqual(["first@10", "child@15", "second@20"]);
    sim.advance("10s");
    expect(logOf(sim)).toEqual(["first@10", "child@15", "second@20", "late@10010"]);
  });

  it("fires moves due at the same time in the order they were scheduled, and never a cancelled one", () => {
    const sim = make();
    const cancelled = sim.update<ChainState, number>("chain", (ctx) => {
      ctx.schedule(ctx.now + 50, "tick", { name: "x" });
      const id = ctx.schedule(ctx.now + 50, "tick", { name: "gone" });
      ctx.schedule(ctx.now + 50, "tick", { name: "y" });
      ctx.schedule(ctx.now + 10, "tick", { name: "w" });
      return id;
    });
    expect(sim.update<ChainState, boolean>("chain", (ctx) => ctx.cancel(cancelled))).toBe(true);
    expect(sim.update<ChainState, boolean>("chain", (ctx) => ctx.cancel(cancelled))).toBe(false);
    sim.advance("1s");
    expect(logOf(sim)).toEqual(["w@10", "x@50", "y@50"]);
  });

  it("keeps the moves fired while catching up before a request that then fails", () => {
    let now = START;
    const clock: Clock = { now: () => now };
    const sim = new Simulator({ clock, services: [chainDefinition] });
    sim.update<ChainState, void>("chain", (ctx) => void ctx.schedule(ctx.now + 1000, "tick", { name: "due" }));
    now += 5000;
    expect(() => sim.update<ChainState, void>("chain", (ctx) => {
      ctx.state.log.push("half-done");
      fail();
    })).toThrow(DomainError);
    expect(logOf(sim)).toEqual(["due@1000"]);
    expect(sim.read("chain", (ctx) => ctx.scheduled())).toEqual([]);
  });
});

describe("transactions, audited", () => {
  const make = () => new Simulator({ services: [chainDefinition] });

  it("keeps no move that a failed operation both scheduled and cancelled", () => {
    const sim = make();
    sim.update<ChainState, void>("chain", (ctx) => void ctx.schedule(ctx.now + 10, "tick", { name: "kept" }));
    const before = sim.snapshot();
    expect(() =>
      sim.update<ChainState, void>("chain", (ctx) => {
        const id = ctx.schedule(ctx.now + 20, "tick", { name: "never" });
        ctx.cancel(id);
        fail();
      }),
    ).toThrow(DomainError);
    expect(sim.snapshot()).toEqual(before);
    sim.update<ChainState, void>("chain", (ctx) => void ctx.schedule(ctx.now + 30, "tick", { name: "next" }));
    const ids = sim.read("chain", (ctx) => ctx.scheduled().map((move) => move.id));
    expect(new Set(ids).size).toBe(ids.length);
    sim.advance("1s");
    expect(logOf(sim)).toEqual(["kept@10", "next@30"]);
  });

  it("keeps no bytes that a failed operation both stored and dropped", () => {
    const sim = make();
    const kept = sim.update<ChainState, string>("chain", (ctx) => ctx.putBlob(new Uint8Array([1])));
    const before = sim.snapshot();
    let key = "";
    expect(() =>
      sim.update<ChainState, void>("chain", (ctx) => {
        key = ctx.putBlob(new Uint8Array([2, 2]));
        ctx.dropBlob(key);
        ctx.dropBlob(kept);
        fail();
      }),
    ).toThrow(DomainError);
    expect(sim.read("chain", (ctx) => ctx.blob(key))).toBeUndefined();
    expect(sim.read("chain", (ctx) => ctx.blob(kept))).toEqual(new Uint8Array([1]));
    expect(sim.snapshot()).toEqual(before);
  });

  it("puts back user data keyed \"__proto__\" as data when an operation fails", () => {
    const sim = make();
    sim.update<ChainState, void>("chain", (ctx) => {
      ctx.state.data = JSON.parse('{"__proto__": {"polluted": true}, "plain": 1}') as Record<string, unknown>;
    });
    const before = sim.snapshot();
    expect(() => sim.update<ChainState, void>("chain", (ctx) => {
      ctx.state.data.plain = 2;
      fail();
    })).toThrow(DomainError);
    const data = sim.read<ChainState, Record<string, unknown>>("chain", (ctx) => ctx.state.data);
    expect(Object.keys(data)).toEqual(["__proto__", "plain"]);
    expect((data as { polluted?: unknown }).polluted).toBeUndefined();
    expect(sim.snapshot()).toEqual(before);
  });

  it("copies any JSON data, \"__proto__\" keys included, exactly as structuredClone does", () => {
    const withProto = fc.oneof(fc.constant("__proto__"), fc.string());
    const data = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: "small" }, fc.jsonValue({ maxDepth: 1 }), fc.dictionary(withProto, tie("value"), { maxKeys: 3 }), fc.array(tie("value"), { maxLength: 3 })),
    })).value;
    fc.assert(fc.property(data, (value) => {
      const copy = clonePlain(value);
      expect(JSON.stringify(copy)).toBe(JSON.stringify(structuredClone(value)));
      expect(copy).toEqual(structuredClone(value));
    }));
  });
});

describe("snapshots and waiters, audited", () => {
  it("refuses a snapshot taken from a simulator with other services", () => {
    const chain = new Simulator({ services: [chainDefinition] });
    const demo = new Simulator({ services: [demoDefinition] });
    expect(() => chain.restore(demo.snapshot())).toThrow(/same services/);
    expect(chain.read("chain", (ctx) => ctx.state)).toEqual({ log: [], data: {} });
  });

  it("releases a blocked read on restore, and keeps time where it is after restoring an older state", async () => {
    const sim = new Simulator({ services: [chainDefinition] });
    const early = sim.snapshot();
    sim.update<ChainState, void>("chain", (ctx) => void ctx.schedule(ctx.now + 60_000, "tick", { name: "later" }));
    const late = sim.snapshot();
    sim.advance("10m");
    const waiting = sim.waitForChange(sim.version, sim.now() + 3_600_000);
    expect(sim.pendingWaiters).toBe(1);
    sim.restore(early);
    await waiting;
    expect(sim.pendingWaiters).toBe(0);
    expect(sim.now()).toBe(START + 600_000);
    sim.restore(late);
    expect(logOf(sim)).toEqual(["later@600000"]);
  });

  it("wakes again when a clock's wake-up fires before the deadline", { timeout: 5000 }, async () => {
    let now = START;
    const wakes: number[] = [];
    const clock: Clock = {
      now: () => now,
      wakeAt: (at, callback) => {
        wakes.push(at);
        const handle = setTimeout(() => {
          now = wakes.length === 1 ? at - 1 : at; // the first wake-up comes 1 ms early
          callback();
        }, 1);
        return () => clearTimeout(handle);
      },
    };
    const sim = new Simulator({ clock, services: [chainDefinition] });
    await sim.waitForChange(sim.version, START + 100);
    expect(wakes).toEqual([START + 100, START + 100]);
    expect(sim.pendingWaiters).toBe(0);
  });

  it("waits for a deadline beyond setTimeout's range without waking at once or warning", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning.name);
    process.on("warning", onWarning);
    try {
      const sim = new Simulator({ clock: new SystemClock(), services: [chainDefinition] });
      const controller = new AbortController();
      let released = false;
      const waiting = sim.waitForChange(sim.version, Number.POSITIVE_INFINITY, controller.signal).then(() => (released = true));
      const far = sim.waitForChange(sim.version, sim.now() + 40 * 86_400_000, controller.signal);
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(released).toBe(false);
      expect(sim.pendingWaiters).toBe(2);
      controller.abort();
      await Promise.all([waiting, far]);
      expect(warnings).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("cancels every wake-up once blocked reads are released, and never keeps the process alive", async () => {
    const system = new SystemClock();
    let live = 0;
    const counting: Clock = {
      now: () => system.now(),
      wakeAt: (at, callback) => {
        live++;
        let done = false;
        const settle = (): void => {
          if (!done) live--;
          done = true;
        };
        const cancel = system.wakeAt(at, () => {
          settle();
          callback();
        });
        return () => {
          settle();
          cancel();
        };
      },
    };
    const timers = (): number => process.getActiveResourcesInfo().filter((name) => name === "Timeout").length;
    const before = timers();
    const sim = new Simulator({ clock: counting, services: [demoDefinition] });
    const controller = new AbortController();
    const byChange = sim.waitForChange(sim.version, sim.now() + 3_600_000);
    const byAbort = sim.waitForChange(sim.version, sim.now() + 3_600_000, controller.signal);
    const byTime = sim.waitForChange(sim.version, sim.now() + 15);
    expect(live).toBe(3);
    expect(timers()).toBe(before); // unref'd: a waiting read never keeps the process alive
    await byTime;
    controller.abort();
    await byAbort;
    sim.update<DemoState, void>("demo", (ctx) => void ctx.state.log.push("x"));
    await byChange;
    expect(sim.pendingWaiters).toBe(0);
    expect(live).toBe(0);
  });
});

describe("a clock shared by many simulators", () => {
  it("does not keep simulators that are gone alive, and still drives the live one", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const clock = new ManualClock();
    let collected = 0;
    const registry = new FinalizationRegistry(() => collected++);
    for (let i = 0; i < 20; i++) registry.register(new Simulator({ clock, services: [chainDefinition] }), i);
    const live = new Simulator({ clock, services: [chainDefinition] });
    live.update<ChainState, void>("chain", (ctx) => void ctx.schedule(ctx.now + 1000, "tick", { name: "live" }));
    for (let round = 0; round < 20 && collected < 20; round++) {
      gc();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(collected).toBe(20);
    clock.advance("1s");
    expect(live.read<ChainState, string[]>("chain", (ctx) => ctx.state.log)).toEqual(["live@1000"]);
  });
});

describe("timers in the library", () => {
  it("calls setTimeout only in the clocks' wake-up for blocked reads and the dev server's idle worlds, setImmediate only in the event-loop yield and the eager coverage sink, and setInterval nowhere", () => {
    const root = resolve(import.meta.dirname, "../../../src");
    const files = readdirSync(root, { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".ts"));
    const timer = /(^|[^.\w])(setTimeout|setInterval|setImmediate)\s*\(|global(This)?\.(setTimeout|setInterval|setImmediate)|["']node:timers/;
    const uses = files.flatMap((file) =>
      readFileSync(resolve(root, file), "utf8")
        .split("\n")
        .map((text, index) => ({ text, at: `${file}:${index + 1}` }))
        .filter(({ text }) => timer.test(text) && !/^\s*(\/\/|\*)/.test(text) && !/^\s*setTimeout\(ms: number.*\): this \{$/.test(text))
        .map(({ at }) => at),
    );
    expect(files.length).toBeGreaterThan(50);
    expect(uses.filter((at) => at.startsWith("simulator/kernel/clock.ts:")).length).toBeGreaterThan(0);
    // interceptors/event-loop.ts: one turn of the event loop between pieces of a long answer (the
    // server's streamed journal, a posted timeline in slices); it reads no time.
    expect(uses.filter((at) => at.startsWith("interceptors/event-loop.ts:"))).toHaveLength(1);
    // cli/worlds.ts: `serve --world-idle` closes a world no request reached for that long in wall
    // time (the server's resource management, never simulated time): one unref'd timer per world.
    expect(uses.filter((at) => at.startsWith("cli/worlds.ts:"))).toHaveLength(1);
    // scenarios/coverage/sink.ts: the eager coverage sink (INFRA_DOUBLES_COVERAGE_EAGER=1, mutate's
    // faithful run) writes its file one turn after something was counted; it reads no time.
    expect(uses.filter((at) => at.startsWith("scenarios/coverage/sink.ts:"))).toHaveLength(1);
    const allowed = ["simulator/kernel/clock.ts:", "interceptors/event-loop.ts:", "cli/worlds.ts:", "scenarios/coverage/sink.ts:"];
    expect(uses.filter((at) => !allowed.some((file) => at.startsWith(file)))).toEqual([]);
  });
});

describe("ids, audited", () => {
  it("refuses a bound no 32-bit draw can cover instead of looping forever", () => {
    const ids = new IdSource(1);
    expect(ids.int(2 ** 32)).toBeLessThan(2 ** 32);
    expect(() => ids.int(2 ** 32 + 1)).toThrow(UsageError);
    expect(() => ids.int(2.5)).toThrow(UsageError);
    expect(ids.int(0)).toBe(0);
  });
});
