import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AdvanceableClock, ManualClock } from "../../../src/simulator/kernel/clock.js";
import { formatGoDuration, parseDuration } from "../../../src/simulator/kernel/duration.js";
import { DomainError, UsageError } from "../../../src/simulator/kernel/errors.js";
import { IdSource } from "../../../src/simulator/kernel/ids.js";
import { Simulator, type ServiceDefinition } from "../../../src/simulator/kernel/simulator.js";
import { isoMillis, isoSeconds, rfc3339, unixSeconds } from "../../../src/simulator/kernel/time.js";
import { demoDefinition, type DemoState } from "../../support/demo-service.js";

describe("durations", () => {
  it("parses Go duration strings into milliseconds", () => {
    expect(parseDuration("90s")).toBe(90_000);
    expect(parseDuration("1h30m")).toBe(5_400_000);
    expect(parseDuration("500ms")).toBe(500);
    expect(parseDuration("1.5h")).toBe(5_400_000);
    expect(parseDuration("2d")).toBe(172_800_000);
    expect(parseDuration("86400")).toBe(86_400_000);
    expect(parseDuration("0")).toBe(0);
    expect(parseDuration(1234)).toBe(1234);
  });
  it("refuses strings that are not durations, and days where hours are the largest unit", () => {
    for (const bad of ["", "10", "abc", "10x", "1h 30m", "h"].slice(0)) {
      if (bad === "10") continue;
      expect(() => parseDuration(bad)).toThrow(DomainError);
    }
    expect(() => parseDuration("1d", { largestUnit: "h" })).toThrow(/invalid duration/);
  });
  it("formats milliseconds as Go's canonical duration", () => {
    expect(formatGoDuration(3_600_000)).toBe("1h0m0s");
    expect(formatGoDuration(90_000)).toBe("1m30s");
    expect(formatGoDuration(45_000)).toBe("45s");
    expect(formatGoDuration(0)).toBe("0s");
    expect(formatGoDuration(1500)).toBe("1.5s");
    expect(formatGoDuration(250)).toBe("250ms");
    // Go's time.Duration.String below a millisecond and with nanoseconds.
    expect(formatGoDuration(0.5)).toBe("500\u00b5s");
    expect(formatGoDuration(0.0015)).toBe("1.5\u00b5s");
    expect(formatGoDuration(0.000_75)).toBe("750ns");
    expect(formatGoDuration(1.5)).toBe("1.5ms");
    expect(formatGoDuration(-0.5)).toBe("-500\u00b5s");
    expect(formatGoDuration(5_400_500)).toBe("1h30m0.5s");
    expect(formatGoDuration(60_000.0005)).toBe("1m0.0000005s");
  });
  it("round-trips any whole-second duration through format and parse", () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 10_000_000 }), (seconds) => parseDuration(formatGoDuration(seconds * 1000)) === seconds * 1000));
  });
});

describe("clocks", () => {
  it("moves a manual clock only forward, by durations or to later times", () => {
    const clock = new ManualClock("2024-01-01T00:00:00Z");
    expect(clock.advance("10m")).toBe(Date.UTC(2024, 0, 1, 0, 10));
    expect(clock.set("2024-01-02T00:00:00Z")).toBe(Date.UTC(2024, 0, 2));
    expect(() => clock.set("2024-01-01T00:00:00Z")).toThrow(/cannot go backwards/);
    expect(() => clock.advance(-1)).toThrow(UsageError);
    expect(() => clock.advance("soon")).toThrow(/not a duration/);
  });
  it("adds an ever-growing offset to an advanceable clock", () => {
    const base = new ManualClock(0);
    const clock = new AdvanceableClock(base);
    base.advance(5);
    clock.advance("1s");
    expect(clock.now()).toBe(1005);
  });
});

describe("ids", () => {
  it("gives the same ids for the same seed and different ids for different seeds", () => {
    const a = new IdSource(42);
    const b = new IdSource(42);
    const c = new IdSource(43);
    const seqA = [a.prefixed("run-"), a.uuid(), a.hex(8)];
    expect([b.prefixed("run-"), b.uuid(), b.hex(8)]).toEqual(seqA);
    expect(c.prefixed("run-")).not.toBe(seqA[0]);
    expect(seqA[0]).toMatch(/^run-[0-9A-Za-z]{16}$/);
    expect(seqA[1]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
  it("draws integers uniformly within bounds", () => {
    const ids = new IdSource(1);
    fc.assert(fc.property(fc.integer({ min: 1, max: 2 ** 31 }), (bound) => {
      const value = ids.int(bound);
      return value >= 0 && value < bound;
    }));
  });
});

describe("timestamps", () => {
  it("formats the services' timestamp shapes in UTC", () => {
    const ms = Date.UTC(2021, 4, 24, 7, 38, 4, 171);
    expect(isoMillis(ms)).toBe("2021-05-24T07:38:04.171Z");
    expect(isoSeconds(ms)).toBe("2021-05-24T07:38:04+00:00");
    expect(rfc3339(ms)).toBe("2021-05-24T07:38:04.171Z");
    expect(rfc3339(Date.UTC(2021, 4, 24))).toBe("2021-05-24T00:00:00Z");
    expect(unixSeconds(ms)).toBe(1621841884);
  });
});

describe("simulator", () => {
  const make = (seed = 1) => new Simulator({ seed, services: [demoDefinition] });
  const create = (sim: Simulator, name: string, delay = 60_000) =>
    sim.update<DemoState, string>("demo", (ctx) => {
      const id = ctx.ids.prefixed("thing-");
      ctx.state.things[id] = { id, name, createdAt: ctx.now, done: false };
      ctx.schedule(ctx.now + delay, "finish", id);
      return id;
    });

  it("fires due moves in due order, each at its own due time", () => {
    const sim = make();
    const late = create(sim, "late", 120_000);
    const early = create(sim, "early", 30_000);
    sim.advance("10m");
    const log = sim.read<DemoState, string[]>("demo", (ctx) => ctx.state.log);
    const start = Date.UTC(2024, 0, 1);
    expect(log).toEqual([`finish ${early} at ${start + 30_000}`, `finish ${late} at ${start + 120_000}`]);
  });

  it("keeps nothing of a failed operation: state, schedule and ids are as before", () => {
    const sim = make();
    create(sim, "kept");
    const before = sim.snapshot();
    expect(() =>
      sim.update<DemoState, void>("demo", (ctx) => {
        ctx.state.things.x = { id: "x", name: "x", createdAt: 0, done: false };
        ctx.schedule(ctx.now + 1, "finish", "x");
        ctx.ids.uuid();
        throw new DomainError({ code: "invalid", service: "demo", operation: "break", message: "no" });
      }),
    ).toThrow(DomainError);
    expect(sim.snapshot()).toEqual(before);
  });

  it("puts back a move that a failed operation cancelled, in its place", () => {
    const sim = make();
    create(sim, "a", 30_000);
    create(sim, "b", 60_000);
    const before = sim.snapshot();
    expect(() =>
      sim.update<DemoState, void>("demo", (ctx) => {
        for (const move of ctx.scheduled()) ctx.cancel(move.id);
        ctx.schedule(ctx.now + 1, "finish", "c");
        throw new DomainError({ code: "conflict", service: "demo", operation: "cancel all", message: "no" });
      }),
    ).toThrow(DomainError);
    expect(sim.snapshot()).toEqual(before);
    sim.advance("2m");
    expect(sim.read<DemoState, number>("demo", (ctx) => ctx.state.log.length)).toBe(2);
  });

  it("fires moves due at the same time in scheduling order, through cancels, rollbacks, restores and moves scheduled while firing", () => {
    const relay: ServiceDefinition<{ log: string[] }> = {
      name: "relay",
      initialState: () => ({ log: [] }),
      moves: {
        fire: (ctx, payload) => {
          ctx.state.log.push(`${String(payload)}@${ctx.now - start}`);
          // A move scheduled while firing, due now (or earlier): after every move already due now.
          if (payload === "b") ctx.schedule(ctx.now - 5, "fire", "b-then");
        },
      },
    };
    const start = Date.UTC(2024, 0, 1);
    const sim = new Simulator({ services: [relay] });
    const at = (due: number, names: string[]) =>
      sim.update<{ log: string[] }, number[]>("relay", (ctx) => names.map((name) => ctx.schedule(start + due, "fire", name)));
    const [a, b] = at(10, ["a", "b"]) as [number, number];
    at(5, ["early"]);
    const [c] = at(10, ["c", "d"]) as [number];
    // A failed operation cancels `a` and `c` and schedules `x` at the same time: all put back as before.
    expect(() =>
      sim.update<{ log: string[] }, void>("relay", (ctx) => {
        ctx.cancel(a);
        ctx.cancel(c);
        ctx.schedule(start + 10, "fire", "x");
        throw new DomainError({ code: "invalid", service: "relay", operation: "fail", message: "no" });
      }),
    ).toThrow(DomainError);
    sim.update<{ log: string[] }, boolean>("relay", (ctx) => ctx.cancel(b));
    const [e] = at(10, ["e"]) as [number];
    expect(e).toBe(b + 4); // the failed operation's id was given back
    sim.restore(sim.snapshot());
    at(10, ["f"]);
    sim.update<{ log: string[] }, void>("relay", (ctx) => void ctx.schedule(start + 10, "fire", "b"));
    sim.advance(10);
    expect(sim.read<{ log: string[] }, string[]>("relay", (ctx) => [...ctx.state.log])).toEqual(["early@5", "a@10", "c@10", "d@10", "e@10", "f@10", "b@10", "b-then@10"]);
  });

  it("fires thousands of moves in due order", () => {
    const sim = make();
    sim.update<DemoState, void>("demo", (ctx) => {
      for (let i = 0; i < 3000; i++) ctx.schedule(ctx.now + ((i * 7919) % 100_000), "finish", `t${i}`);
    });
    sim.advance("2m");
    const times = sim.read<DemoState, number[]>("demo", (ctx) => ctx.state.log.map((line) => Number(line.split(" at ")[1])));
    expect(times).toHaveLength(3000);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });

  it("restores snapshots and resets to the first state, giving the same ids again", () => {
    const sim = make(9);
    const first = create(sim, "a");
    const snap = sim.snapshot();
    create(sim, "b");
    sim.restore(snap);
    expect(sim.read<DemoState, number>("demo", (ctx) => Object.keys(ctx.state.things).length)).toBe(1);
    sim.reset();
    expect(create(sim, "again")).toBe(first);
  });

  it("releases a waiter when state changes or when its deadline passes on the simulator clock", async () => {
    const sim = make();
    const clock = sim.clock as ManualClock;
    const changed = sim.waitForChange(sim.version, clock.now() + 60_000);
    create(sim, "x");
    await changed;
    const timedOut = sim.waitForChange(sim.version, clock.now() + 60_000);
    expect(sim.pendingWaiters).toBe(1);
    clock.advance("1m");
    await timedOut;
    expect(sim.pendingWaiters).toBe(0);
  });

  it("refuses to advance a clock that cannot be moved by hand", () => {
    const sim = new Simulator({ services: [demoDefinition], clock: { now: () => 0 } });
    expect(() => sim.advance("1s")).toThrow(/cannot be advanced/);
  });
});

describe("clonePlain", () => {
  it("deep-copies plain data, Maps, Sets and Dates, and shares byte arrays", async () => {
    const { clonePlain } = await import("../../../src/simulator/kernel/clone.js");
    const bytes = new Uint8Array([1, 2, 3]);
    const value = { a: [1, { b: "x" }], m: new Map([["k", { v: 1 }]]), s: new Set([1]), d: new Date(5), bytes, n: null };
    const copy = clonePlain(value);
    expect(copy).toEqual(value);
    expect(copy.a[1]).not.toBe(value.a[1]);
    expect(copy.m.get("k")).not.toBe(value.m.get("k"));
    expect(copy.s).not.toBe(value.s);
    expect(copy.d).not.toBe(value.d);
    expect(copy.bytes).toBe(bytes);
  });
  it("agrees with structuredClone on random JSON data", () => {
    return import("../../../src/simulator/kernel/clone.js").then(({ clonePlain }) =>
      fc.assert(
        fc.property(fc.jsonValue(), (value) => {
          expect(clonePlain(value)).toEqual(structuredClone(value));
        }),
      ),
    );
  });
});
