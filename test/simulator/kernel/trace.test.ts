/**
 * The simulator's trace: delivered to observers when an operation commits, dropped when it fails,
 * delivered at once from reads and timed moves, and free when nobody observes.
 */
import { describe, expect, it } from "vitest";
import { defineMachine, enterState, takeTransition } from "../../../src/simulator/kernel/machine.js";
import { Simulator, type ServiceDefinition } from "../../../src/simulator/kernel/simulator.js";
import type { TraceEvent } from "../../../src/simulator/kernel/trace.js";

const door = defineMachine<"shut" | "open", "open" | "shut">({
  name: "door",
  service: "demo",
  initial: "shut",
  states: { shut: { on: { open: { target: "open" } } }, open: { on: { shut: { target: "shut" } } } },
});

interface DemoState {
  status: "shut" | "open";
}

const demo: ServiceDefinition<DemoState> = {
  name: "demo",
  initialState: () => ({ status: "shut" }),
  moves: { close: (ctx) => void (ctx.state.status = takeTransition(ctx, door, ctx.state.status, "shut")) },
  traced: { machines: [door], events: { bell: ["rung"] } },
};

function observed(sim: Simulator): [string, TraceEvent][] {
  const seen: [string, TraceEvent][] = [];
  sim.onTrace((service, event) => seen.push([service, event]));
  return seen;
}

describe("simulator trace", () => {
  it("delivers the events of a committed operation, and none of an operation that fails", () => {
    const sim = new Simulator({ services: [demo] });
    const seen = observed(sim);
    expect(() =>
      sim.update<DemoState, void>("demo", (ctx) => {
        ctx.state.status = takeTransition(ctx, door, ctx.state.status, "open");
        throw new Error("refused after the transition");
      }),
    ).toThrow("refused");
    expect(seen).toEqual([]);
    expect(sim.read<DemoState, string>("demo", (ctx) => ctx.state.status)).toBe("shut");
    sim.update<DemoState, void>("demo", (ctx) => {
      enterState(ctx, door, "shut");
      ctx.state.status = takeTransition(ctx, door, ctx.state.status, "open");
    });
    expect(seen).toEqual([
      ["demo", { kind: "state", machine: "door", state: "shut" }],
      ["demo", { kind: "transition", machine: "door", from: "shut", event: "open", to: "open" }],
    ]);
  });

  it("delivers events of reads and timed moves at once", () => {
    const sim = new Simulator({ services: [demo] });
    const seen = observed(sim);
    sim.update<DemoState, void>("demo", (ctx) => {
      ctx.state.status = "open";
      ctx.schedule(ctx.now + 1000, "close");
    });
    sim.read<DemoState, void>("demo", (ctx) => ctx.trace({ kind: "event", subject: "bell", name: "rung" }));
    sim.advance(1000);
    expect(seen).toEqual([
      ["demo", { kind: "event", subject: "bell", name: "rung" }],
      ["demo", { kind: "transition", machine: "door", from: "open", event: "shut", to: "shut" }],
    ]);
    expect(sim.tracedBy("demo").events).toEqual({ bell: ["rung"] });
  });

  it("stops delivering once unsubscribed", () => {
    const sim = new Simulator({ services: [demo] });
    const seen: TraceEvent[] = [];
    const stop = sim.onTrace((_service, event) => seen.push(event));
    stop();
    sim.update<DemoState, void>("demo", (ctx) => void (ctx.state.status = takeTransition(ctx, door, ctx.state.status, "open")));
    expect(seen).toEqual([]);
  });
});
