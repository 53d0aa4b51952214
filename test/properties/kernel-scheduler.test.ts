/**
 * The scheduler's heap against a reference model (a list sorted by due time, then scheduling
 * order): random schedules, cancels, failed transactions (rolled back), snapshots and restores
 * fire exactly the moves the model fires, in the model's order, each at its own due time.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DomainError } from "../../src/simulator/kernel/errors.js";
import { Simulator, type ServiceDefinition } from "../../src/simulator/kernel/simulator.js";

interface LogState {
  fired: string[];
}

const definition: ServiceDefinition<LogState> = {
  name: "log",
  initialState: () => ({ fired: [] }),
  moves: { fire: (ctx, payload) => void ctx.state.fired.push(`${String(payload)}@${ctx.now}`) },
};

type Step =
  | { kind: "schedule"; delay: number; fail: boolean }
  | { kind: "cancel"; pick: number; fail: boolean }
  | { kind: "advance"; by: number }
  | { kind: "snapshot-restore" };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant("schedule" as const), delay: fc.integer({ min: 0, max: 50 }), fail: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("cancel" as const), pick: fc.nat(), fail: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("advance" as const), by: fc.integer({ min: 0, max: 30 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: "snapshot-restore" as const }) },
);

describe("kernel: the scheduler heap", () => {
  it("fires what a sorted reference list fires, in the same order, through rollbacks and restores", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 120 }), (steps) => {
        const sim = new Simulator({ services: [definition] });
        const start = sim.now();
        let now = start;
        // The model: pending moves as [due, id, label], and what fired.
        let pending: [number, number, string][] = [];
        const fired: string[] = [];
        let nextId = 1;
        let label = 0;
        const fireModel = (until: number): void => {
          pending.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
          while (pending.length > 0 && (pending[0] as [number, number, string])[0] <= until) {
            const [due, , name] = pending.shift() as [number, number, string];
            fired.push(`${name}@${due}`);
          }
        };
        for (const s of steps) {
          if (s.kind === "schedule") {
            const name = `m${label++}`;
            const run = () =>
              sim.update<LogState, number>("log", (ctx) => {
                const id = ctx.schedule(ctx.now + s.delay, "fire", name);
                if (s.fail) throw new DomainError({ code: "invalid", service: "log", operation: "schedule", message: "no" });
                return id;
              });
            if (s.fail) expect(run).toThrow(DomainError);
            else {
              expect(run()).toBe(nextId);
              pending.push([now + s.delay, nextId++, name]);
            }
          } else if (s.kind === "cancel") {
            if (pending.length === 0) continue;
            const target = pending[s.pick % pending.length] as [number, number, string];
            const run = () =>
              sim.update<LogState, boolean>("log", (ctx) => {
                const removed = ctx.cancel(target[1]);
                if (s.fail) throw new DomainError({ code: "invalid", service: "log", operation: "cancel", message: "no" });
                return removed;
              });
            if (s.fail) expect(run).toThrow(DomainError);
            else {
              expect(run()).toBe(true);
              pending = pending.filter((move) => move !== target);
            }
          } else if (s.kind === "advance") {
            now = sim.advance(s.by);
            fireModel(now);
          } else {
            const snap = sim.snapshot();
            sim.restore(snap);
          }
          // Every read catches up first: a move due by now (a delay of 0) has fired.
          fireModel(now);
          const scheduled = sim.read<LogState, [number, number][]>("log", (ctx) => ctx.scheduled().map((m) => [m.due, m.id]));
          expect(scheduled).toEqual([...pending].sort((a, b) => a[0] - b[0] || a[1] - b[1]).map(([due, id]) => [due, id]));
        }
        now = sim.advance(1000);
        fireModel(now);
        expect(sim.read<LogState, string[]>("log", (ctx) => [...ctx.state.fired])).toEqual(fired);
      }),
      { numRuns: 200 },
    );
  });
});
