/**
 * Cached initial states (issue 25, "a fresh world per test at msw's price"): a definition with
 * `cacheInitialState` has its initial state built once per process for each start time and
 * id-source state, and each simulator gets its own copy of it, made when the service is first used.
 * Same seed and start: the same state and the same ids drawn afterwards as a build; nothing one
 * simulator does reaches another; frozen values stay shared, as a build shares them.
 */
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/simulator/kernel/clock.js";
import { Simulator, type ServiceDefinition } from "../../../src/simulator/kernel/simulator.js";

const START = Date.UTC(2024, 0, 1);
const FROZEN = Object.freeze({ mode: "shared", durations: Object.freeze({ plan: 1 }) });

interface CountedState {
  token: string;
  createdAt: number;
  items: Record<string, { id: string }>;
  list: string[];
  frozen: typeof FROZEN;
  bytes: Uint8Array;
}

/** A definition whose initial state draws ids and reads `now`, counting its builds. */
function counted(name: string, cache: boolean): { definition: ServiceDefinition<CountedState>; builds: () => number } {
  let builds = 0;
  const definition: ServiceDefinition<CountedState> = {
    name,
    initialState: ({ now, ids }) => {
      builds++;
      const id = ids.prefixed("item-");
      const items = Object.create(null) as Record<string, { id: string }>;
      items[id] = { id };
      return { token: ids.hex(16), createdAt: now, items, list: [id], frozen: FROZEN, bytes: ids.bytes(8) };
    },
    cacheInitialState: cache,
  };
  return { definition, builds: () => builds };
}

const stateOf = (sim: Simulator, name: string): CountedState => sim.read<CountedState, CountedState>(name, (ctx) => ctx.state as CountedState);
const nextId = (sim: Simulator, name: string): string => sim.update<CountedState, string>(name, (ctx) => ctx.ids.prefixed("next-"));

describe("cached initial states", () => {
  it("builds a cacheable initial state once per seed and start, and every other definition's each time", () => {
    const cached = counted("svc", true);
    const built = counted("svc", false);
    for (let i = 0; i < 3; i++) new Simulator({ seed: 5, services: [cached.definition] });
    for (let i = 0; i < 3; i++) new Simulator({ seed: 5, services: [built.definition] });
    expect(cached.builds()).toBe(1);
    expect(built.builds()).toBe(3);
    new Simulator({ seed: 6, services: [cached.definition] });
    new Simulator({ seed: "5", services: [cached.definition] }); // the string "5" seeds as the number 5
    new Simulator({ seed: 5, clock: new ManualClock(START + 1000), services: [cached.definition] });
    expect(cached.builds()).toBe(3);
  });

  it("gives the same state, the same later ids and the same snapshot as a build, whatever the order services are first used in", () => {
    const a = counted("a", true);
    const b = counted("b", true);
    const eagerA = counted("a", false);
    const eagerB = counted("b", false);
    const eager = new Simulator({ seed: 9, services: [eagerA.definition, eagerB.definition] });
    const first = new Simulator({ seed: 9, services: [a.definition, b.definition] }); // builds the cache
    const again = new Simulator({ seed: 9, services: [a.definition, b.definition] }); // copies it
    for (const sim of [eager, first, again]) expect(sim.snapshot()).toEqual(eager.snapshot());
    // Used in another order than built ("b" copied before "a"): the same ids drawn, the same states.
    const drawn = [eager, first, again].map((sim) => [nextId(sim, "b"), nextId(sim, "a"), nextId(sim, "b")]);
    expect(drawn[1]).toEqual(drawn[0]);
    expect(drawn[2]).toEqual(drawn[0]);
    expect(stateOf(again, "a")).toEqual(stateOf(eager, "a"));
    expect(JSON.stringify(again.snapshot())).toBe(JSON.stringify(eager.snapshot()));
    expect(JSON.stringify(first.snapshot())).toBe(JSON.stringify(eager.snapshot()));
    // Key order, null prototypes and bytes as built.
    expect(Object.getPrototypeOf(stateOf(again, "a").items)).toBeNull();
    expect(Object.keys(stateOf(again, "a"))).toEqual(Object.keys(stateOf(eager, "a")));
    expect(stateOf(again, "a").bytes).toEqual(stateOf(eager, "a").bytes);
  });

  it("keeps each simulator's state its own: changes, rollbacks and resets never reach the cached state", () => {
    const svc = counted("svc", true);
    const one = new Simulator({ seed: 11, services: [svc.definition] });
    const pristine = one.snapshot();
    one.update<CountedState, void>("svc", (ctx) => {
      ctx.state.list.push("changed");
      ctx.state.token = "changed";
      ctx.state.items.extra = { id: "extra" };
    });
    expect(() =>
      one.update<CountedState, void>("svc", (ctx) => {
        ctx.state.list.splice(0, 1, "rolled back");
        throw new Error("rolled back");
      }),
    ).toThrow("rolled back");
    const two = new Simulator({ seed: 11, services: [svc.definition] });
    expect(two.snapshot()).toEqual(pristine);
    expect(stateOf(one, "svc").list).toEqual([...(pristine.services.svc as CountedState).list, "changed"]);
    one.reset();
    expect(one.snapshot()).toEqual(pristine);
    one.update<CountedState, void>("svc", (ctx) => void ctx.state.list.push("after reset"));
    expect(new Simulator({ seed: 11, services: [svc.definition] }).snapshot()).toEqual(pristine);
    expect(svc.builds()).toBe(1);
  });

  it("shares frozen values as a build does, and copies everything writable", () => {
    const svc = counted("svc", true);
    const one = new Simulator({ seed: 12, services: [svc.definition] });
    const two = new Simulator({ seed: 12, services: [svc.definition] });
    expect(stateOf(one, "svc").frozen).toBe(FROZEN);
    expect(stateOf(two, "svc").frozen).toBe(FROZEN);
    expect(stateOf(one, "svc").items).not.toBe(stateOf(two, "svc").items);
    expect(stateOf(one, "svc").list).not.toBe(stateOf(two, "svc").list);
  });
});
