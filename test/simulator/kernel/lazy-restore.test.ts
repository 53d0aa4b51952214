/**
 * `restore(snapshot)` and `reset()` copy a service's state only when the service is first used
 * (issue 25): a snapshot's service states are frozen all through, so a simulator can hold one
 * until then; the cached initial states are the reset point of a fresh world. What must hold:
 * - the same states, ids and snapshots, byte for byte, as when everything was copied at once,
 *   whatever order the services are used in;
 * - no writable object shared between two simulators, a simulator and a snapshot, or a simulator
 *   and the cache: a write through one never shows in another;
 * - a service not used since a restore is not copied (its snapshot hands out the restored state).
 */
import { describe, expect, it } from "vitest";
import { isSealed } from "../../../src/simulator/kernel/clone.js";
import { Simulator, type ServiceDefinition, type SimulatorSnapshot } from "../../../src/simulator/kernel/simulator.js";

const FROZEN = Object.freeze({ mode: "shared" });

interface State {
  token: string;
  items: Record<string, { id: string; tags: string[] }>;
  list: string[];
  frozen: typeof FROZEN;
  bytes: Uint8Array;
}

function service(name: string, cache: boolean): ServiceDefinition<State> {
  return {
    name,
    initialState: ({ ids }) => {
      const id = ids.prefixed("item-");
      const items = Object.create(null) as Record<string, { id: string; tags: string[] }>;
      items[id] = { id, tags: ["t"] };
      return { token: ids.hex(8), items, list: [id], frozen: FROZEN, bytes: ids.bytes(4) };
    },
    moves: {
      tick: (ctx) => void ctx.state.list.push(`tick-${ctx.now}`),
    },
    cacheInitialState: cache,
  };
}

const stateOf = (sim: Simulator, name: string): State => sim.read<State, State>(name, (ctx) => ctx.state);
const change = (sim: Simulator, name: string, mark: string): void =>
  sim.update<State, void>(name, (ctx) => {
    ctx.state.list.push(mark);
    ctx.state.items[ctx.ids.prefixed("new-")] = { id: mark, tags: [mark] };
    Object.values(ctx.state.items)[0]?.tags.push(mark);
    ctx.schedule(ctx.now + 1000, "tick");
  });

/** Every writable object reachable from `value` (frozen and byte arrays left out). */
function writables(value: unknown, out = new Set<object>()): Set<object> {
  if (value === null || typeof value !== "object" || ArrayBuffer.isView(value) || Object.isFrozen(value)) return out;
  if (out.has(value)) return out;
  out.add(value);
  for (const key of Object.keys(value)) writables((value as Record<string, unknown>)[key], out);
  return out;
}

function sharedWritable(a: unknown, b: unknown): boolean {
  const left = writables(a);
  for (const object of writables(b)) if (left.has(object)) return true;
  return false;
}

/** A world with both services changed, and its snapshot. */
function changedWorld(cache: boolean, seed: number): { sim: Simulator; snap: SimulatorSnapshot; definitions: ServiceDefinition<State>[] } {
  const definitions = [service("a", cache), service("b", cache)];
  const sim = new Simulator({ seed, services: definitions });
  change(sim, "a", "one");
  change(sim, "b", "two");
  return { sim, snap: sim.snapshot(), definitions };
}

describe("lazy restore and reset", () => {
  it("hands out snapshots frozen all through, which a write cannot change", () => {
    const { snap } = changedWorld(true, 1);
    for (const name of ["a", "b"]) {
      const state = snap.services[name] as State;
      expect(isSealed(state)).toBe(true);
      expect(writables(state).size).toBe(0);
      expect(() => state.list.push("x")).toThrow(TypeError);
    }
  });

  for (const cache of [true, false]) {
    it(`restores the same bytes as an eager copy, in any order of first use (cacheInitialState: ${cache})`, () => {
      const { sim, snap, definitions } = changedWorld(cache, 2);
      const expected = JSON.stringify(snap);
      // The same calls after the restore give the same bytes, whichever service was copied first.
      const after: string[] = [];
      for (const order of [["a", "b"], ["b", "a"], ["b"], []]) {
        const other = new Simulator({ seed: 2, services: definitions });
        other.restore(snap);
        for (const name of order) stateOf(other, name);
        expect(JSON.stringify(other.snapshot())).toBe(expected);
        change(other, "b", "later");
        change(other, "a", "later");
        after.push(JSON.stringify(other.snapshot()));
      }
      sim.restore(snap);
      change(sim, "b", "later");
      change(sim, "a", "later");
      for (const bytes of after) expect(bytes).toBe(JSON.stringify(sim.snapshot()));
      // A snapshot from JSON (not sealed) is copied at once and restores the same.
      const fromJson = new Simulator({ seed: 2, services: definitions });
      const parsed = JSON.parse(expected) as SimulatorSnapshot;
      (parsed.services.a as State).bytes = (snap.services.a as State).bytes;
      (parsed.services.b as State).bytes = (snap.services.b as State).bytes;
      fromJson.restore(parsed);
      (parsed.services.a as State).list.push("changed after restore");
      expect(JSON.stringify(fromJson.snapshot())).toBe(expected);
    });

    it(`shares no writable object between worlds, snapshots and the cache (cacheInitialState: ${cache})`, () => {
      const { sim, snap, definitions } = changedWorld(cache, 3);
      const expected = JSON.stringify(snap);
      const one = new Simulator({ seed: 3, services: definitions });
      const two = new Simulator({ seed: 3, services: definitions });
      one.restore(snap);
      two.restore(snap);
      // Untouched since the restore: its snapshot is the restored one, nothing copied.
      expect(one.snapshot().services.a).toBe(snap.services.a);
      for (const name of ["a", "b"]) {
        expect(sharedWritable(stateOf(one, name), stateOf(two, name))).toBe(false);
        expect(sharedWritable(stateOf(one, name), stateOf(sim, name))).toBe(false);
        expect(sharedWritable(stateOf(one, name), snap.services[name])).toBe(false);
      }
      change(one, "a", "only one");
      one.advance("2s");
      expect(JSON.stringify(two.snapshot())).toBe(expected);
      expect(JSON.stringify(snap)).toBe(expected);
      // A snapshot taken after a change is a new sealed copy; the older one stays as it was.
      const later = one.snapshot();
      expect(later.services.a).not.toBe(snap.services.a);
      expect(sharedWritable(later, stateOf(one, "a"))).toBe(false);
      two.restore(later);
      expect(JSON.stringify(two.snapshot())).toBe(JSON.stringify(later));
    });

    it(`resets to the starting world lazily, as a new simulator has it, and keeps the cache untouched (cacheInitialState: ${cache})`, () => {
      const definitions = [service("a", cache), service("b", cache)];
      const fresh = JSON.stringify(new Simulator({ seed: 4, services: definitions }).snapshot());
      const sim = new Simulator({ seed: 4, services: definitions });
      for (let round = 0; round < 3; round++) {
        change(sim, round % 2 === 0 ? "a" : "b", `round-${round}`);
        const before = sim.snapshot();
        sim.reset();
        expect(JSON.stringify(sim.snapshot())).toBe(fresh);
        expect(JSON.stringify(before)).not.toBe(fresh);
        // After a reset, writes reach this world only: not a new one (the cache), not another.
        const other = new Simulator({ seed: 4, services: definitions });
        change(sim, "a", "after reset");
        change(sim, "b", "after reset");
        expect(JSON.stringify(other.snapshot())).toBe(fresh);
        for (const name of ["a", "b"]) {
          expect(sharedWritable(stateOf(sim, name), stateOf(other, name))).toBe(false);
          // A reset to the cached states shares frozen values as a build does.
          if (cache) expect(stateOf(sim, name).frozen).toBe(FROZEN);
        }
        sim.reset();
      }
      // Ids after a reset are drawn as in a new world.
      const other = new Simulator({ seed: 4, services: definitions });
      sim.reset();
      change(sim, "b", "same");
      change(other, "b", "same");
      expect(JSON.stringify(sim.snapshot())).toBe(JSON.stringify(other.snapshot()));
    });
  }
});
