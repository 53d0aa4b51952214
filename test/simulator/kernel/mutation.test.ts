/**
 * Simulator mutations (issue 27, service mutants) in the kernel: a mutated copy of a machine's
 * table carried by the mutated service's contexts and read by takeTransition, a timed move the
 * mutated table refuses dropped (never thrown out of advance), scaled limits read through
 * limitValue, id formats drawn by the id source; and the per-process cache of initial states never
 * shared between a mutant's simulator and a faithful one, in either order.
 */
import { describe, expect, it } from "vitest";
import { IdSource } from "../../../src/simulator/kernel/ids.js";
import { limitValue, type ServiceLimit } from "../../../src/simulator/kernel/limits.js";
import { acceptsNow, defineMachine, mutateMachine, takeTransition, tableOf } from "../../../src/simulator/kernel/machine.js";
import { DomainError, UsageError } from "../../../src/simulator/kernel/errors.js";
import { Simulator, type OperationContext, type ServiceDefinition } from "../../../src/simulator/kernel/simulator.js";
import type { TraceEvent } from "../../../src/simulator/kernel/trace.js";
import { runsDefinition } from "../../../src/simulator/runs/definition.js";
import type { RunsState } from "../../../src/simulator/runs/state.js";

const door = defineMachine<"shut" | "ajar" | "open" | "gone", "push" | "pull" | "lose">({
  name: "door",
  service: "demo",
  initial: "shut",
  states: {
    shut: { on: { push: { target: "ajar" }, lose: { target: "gone" } } },
    ajar: { on: { push: { target: "open" } } },
    open: { final: true },
    gone: { final: true },
  },
});

const WAIT: ServiceLimit = { name: "wait", unit: "ms", value: 10_000, description: "the wait", readAt: "demo" };

interface DoorState {
  status: "shut" | "ajar" | "open" | "gone";
  wait: number;
  id: string;
  log: string[];
}

/** A demo service: a door pushed by a timed move after `wait`, its id drawn as `door-`. */
function doorService(cache = false): ServiceDefinition<DoorState> {
  return {
    name: "demo",
    initialState: (ctx) => ({ status: "shut", wait: limitValue(ctx, WAIT), id: ctx.ids.prefixed("door-"), log: [] }),
    cacheInitialState: cache,
    moves: {
      push: (ctx: OperationContext<DoorState>) => {
        ctx.state.log.push("pushing");
        ctx.state.status = takeTransition(ctx, door, ctx.state.status, "push");
      },
    },
    traced: { machines: [door] },
    limits: [WAIT],
    idKinds: [{ kind: "door", key: "door-", length: 16, spec: "the prefix `door-`", formats: [{ name: "suffix-24", length: 24 }] }],
  };
}

describe("mutated transition tables", () => {
  it("mutateMachine removes or redirects one row and keeps the rest", () => {
    const removed = mutateMachine(door, "shut", "push", null);
    expect(removed.states.shut.on?.push).toBeUndefined();
    expect(removed.states.shut.on?.lose?.target).toBe("gone");
    expect(Object.isFrozen(removed.states.shut.on)).toBe(true);
    const redirected = mutateMachine(door, "shut", "push", "open");
    expect(redirected.states.shut.on?.push?.target).toBe("open");
    expect(door.states.shut.on?.push?.target).toBe("ajar");
    expect(() => mutateMachine(door, "shut", "pull", null)).toThrow(UsageError);
    expect(() => mutateMachine(door, "shut", "push", "nowhere")).toThrow(UsageError);
  });

  it("takeTransition reads the table the context carries: a removed row is the table's conflict, a redirected one leads elsewhere and is traced so", () => {
    const traced: TraceEvent[] = [];
    const sim = new Simulator({ services: [doorService()], mutation: { kind: "transition", service: "demo", machine: "door", from: "shut", event: "push", to: "open" } });
    sim.onTrace((_, event) => traced.push(event));
    expect(sim.update<DoorState, string>("demo", (ctx) => takeTransition(ctx, door, "shut", "push"))).toBe("open");
    expect(traced).toContainEqual({ kind: "transition", machine: "door", from: "shut", event: "push", to: "open" });
    const refused = new Simulator({ services: [doorService()], mutation: { kind: "transition", service: "demo", machine: "door", from: "shut", event: "push", to: null } });
    let error: unknown;
    try {
      refused.update<DoorState, void>("demo", (ctx) => {
        ctx.state.log.push("half-changed");
        expect(acceptsNow(ctx, door, "shut", "push")).toBe(false);
        expect(tableOf(ctx, door)).not.toBe(door);
        ctx.state.status = takeTransition(ctx, door, ctx.state.status, "push");
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe("conflict");
    expect(refused.read<DoorState, string[]>("demo", (ctx) => [...ctx.state.log])).toEqual([]);
    // A faithful simulator is untouched.
    const faithful = new Simulator({ services: [doorService()] });
    expect(faithful.update<DoorState, string>("demo", (ctx) => takeTransition(ctx, door, "shut", "push"))).toBe("ajar");
  });

  it("a timed move the mutated table refuses is dropped with its writes undone; advance keeps going", () => {
    const sim = new Simulator({ services: [doorService()], mutation: { kind: "transition", service: "demo", machine: "door", from: "shut", event: "push", to: null } });
    sim.update<DoorState, void>("demo", (ctx) => {
      ctx.schedule(ctx.now + 1_000, "push");
      ctx.schedule(ctx.now + 2_000, "push");
    });
    expect(() => sim.advance("1m")).not.toThrow();
    expect(sim.read<DoorState, [string, string[]]>("demo", (ctx) => [ctx.state.status, [...ctx.state.log]])).toEqual(["shut", []]);
    expect(sim.now()).toBe(Date.UTC(2024, 0, 1) + 60_000);
  });

  it("names what it cannot mutate", () => {
    expect(() => new Simulator({ services: [doorService()], mutation: { kind: "transition", service: "nope", machine: "door", from: "shut", event: "push", to: null } })).toThrow(/unknown service "nope"/);
    expect(() => new Simulator({ services: [doorService()], mutation: { kind: "transition", service: "demo", machine: "window", from: "shut", event: "push", to: null } })).toThrow(/no machine "window"/);
    expect(() => new Simulator({ services: [doorService()], mutation: { kind: "limit", service: "demo", limit: "nope", factor: 2 } })).toThrow(/no limit "nope"/);
    expect(() => new Simulator({ services: [doorService()], mutation: { kind: "limit", service: "demo", limit: "wait", factor: 0 } })).toThrow(UsageError);
    expect(() => new Simulator({ services: [doorService()], mutation: { kind: "id-format", service: "demo", idKind: "door", format: "nope" } })).toThrow(/no id kind "door" with format "nope"/);
  });
});

describe("scaled limits and id formats", () => {
  it("limitValue answers the table's value, or the scaled one in the mutated service's contexts (initial state included)", () => {
    expect(limitValue({}, WAIT)).toBe(10_000);
    const sim = new Simulator({ services: [doorService()], mutation: { kind: "limit", service: "demo", limit: "wait", factor: 0.5 } });
    expect(sim.read<DoorState, number>("demo", (ctx) => ctx.state.wait)).toBe(5_000);
    expect(sim.read<DoorState, number>("demo", (ctx) => limitValue(ctx, WAIT))).toBe(5_000);
    expect(sim.update<DoorState, number>("demo", (ctx) => limitValue(ctx, WAIT))).toBe(5_000);
  });

  it("the id source draws a kind in its mutated format, deterministically; other draws keep theirs", () => {
    const ids = new IdSource(3);
    ids.setFormat("door-", { name: "suffix-24", length: 24 });
    const again = new IdSource(3);
    again.setFormat("door-", { name: "suffix-24", length: 24 });
    const id = ids.prefixed("door-");
    expect(id).toMatch(/^door-[0-9A-Za-z]{24}$/);
    expect(again.prefixed("door-")).toBe(id);
    expect(ids.prefixed("run-")).toMatch(/^run-[0-9A-Za-z]{16}$/);
    ids.setFormat("lease", { name: "hex", length: 8, alphabet: "0123456789abcdef" });
    expect(ids.named("lease", 24)).toMatch(/^[0-9a-f]{8}$/);
    // named() without a format is string() itself, draw for draw.
    const a = new IdSource(5);
    const b = new IdSource(5);
    expect(a.named("token", 24)).toBe(b.string(24));
  });
});

describe("the cache of initial states and mutants", () => {
  const coolOff = (sim: Simulator): number => sim.read<RunsState, number>("runs", (ctx) => ctx.state.settings.coolOffMs);
  const toolIds = (sim: Simulator): string[] => sim.read<RunsState, string[]>("runs", (ctx) => Object.keys(ctx.state.engineVersions));
  const scaled = { kind: "limit", service: "runs", limit: "force-cancel-cool-off", factor: 0.5 } as const;
  const longIds = { kind: "id-format", service: "runs", idKind: "engine-version", format: "suffix-24" } as const;

  it("a faithful simulator first, then mutants, then faithful again: none sees another's state", () => {
    const before = new Simulator({ seed: 4, services: [runsDefinition] });
    expect(coolOff(before)).toBe(10_000);
    const faithfulIds = toolIds(before);
    expect(coolOff(new Simulator({ seed: 4, services: [runsDefinition], mutation: scaled }))).toBe(5_000);
    const mutatedIds = toolIds(new Simulator({ seed: 4, services: [runsDefinition], mutation: longIds }));
    expect(mutatedIds.every((id) => /^tool-[0-9A-Za-z]{24}$/.test(id))).toBe(true);
    const after = new Simulator({ seed: 4, services: [runsDefinition] });
    expect(coolOff(after)).toBe(10_000);
    expect(toolIds(after)).toEqual(faithfulIds);
    expect(JSON.stringify(after.snapshot())).toBe(JSON.stringify(before.snapshot()));
  });

  it("mutants first (a seed no simulator used yet), then faithful: the faithful state is the faithful one", () => {
    expect(coolOff(new Simulator({ seed: 77, services: [runsDefinition], mutation: scaled }))).toBe(5_000);
    expect(toolIds(new Simulator({ seed: 77, services: [runsDefinition], mutation: longIds }))[0]).toMatch(/^tool-[0-9A-Za-z]{24}$/);
    const faithful = new Simulator({ seed: 77, services: [runsDefinition] });
    expect(coolOff(faithful)).toBe(10_000);
    expect(toolIds(faithful)[0]).toMatch(/^tool-[0-9A-Za-z]{16}$/);
    // A reset of a mutant's simulator keeps the mutant (its reset point is its own initial state).
    const mutant = new Simulator({ seed: 77, services: [runsDefinition], mutation: scaled });
    mutant.update<RunsState, void>("runs", (ctx) => {
      ctx.state.settings.coolOffMs = 1;
    });
    mutant.reset();
    expect(coolOff(mutant)).toBe(5_000);
  });
});
