/**
 * The scheduler's heap against a reference model (a list sorted by due time, then scheduling
 * order): random schedules, cancels, failed transactions (rolled back), snapshots and restores
 * fire exactly the moves the model fires, in the model's order, each at its own due time.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DomainError } from "../../src/simulator/kernel/errors.js";
import { Simulator, type ServiceDefinition } from "../../src/simulator/kernel/simulator.js";
import { Schedule, type ScheduledMove } from "../../src/simulator/kernel/scheduler.js";

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

  /**
   * The schedule alone, against the same model, through hundreds of pending moves: enough to grow
   * its queue and heap past their first capacity, to slide the queue, and to compact both. Moves
   * come in firing order (the queue's case), out of order (the heap's) and mixed, with cancels,
   * cancelled moves put back, rollbacks of the newest ids and save/load round trips.
   */
  it("takes moves in (due, id) order from its queue and heap together, through growth, compaction and reloads", () => {
    type Op =
      | { kind: "add"; jitter: number; ahead: number; count: number }
      | { kind: "cancel"; pick: number; count: number; putBack: boolean }
      | { kind: "putBack"; pick: number; count: number }
      | { kind: "take"; by: number }
      | { kind: "discard"; back: number }
      | { kind: "reload" };
    const op: fc.Arbitrary<Op> = fc.oneof(
      // In firing order when jitter is 0 (each a fixed time ahead), else spread around.
      { weight: 6, arbitrary: fc.record({ kind: fc.constant("add" as const), jitter: fc.constantFrom(0, 0, 3, 40), ahead: fc.integer({ min: 0, max: 30 }), count: fc.integer({ min: 1, max: 80 }) }) },
      { weight: 3, arbitrary: fc.record({ kind: fc.constant("cancel" as const), pick: fc.nat(), count: fc.constantFrom(1, 5, 100), putBack: fc.boolean() }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant("putBack" as const), pick: fc.nat(), count: fc.constantFrom(1, 3) }) },
      { weight: 3, arbitrary: fc.record({ kind: fc.constant("take" as const), by: fc.integer({ min: 0, max: 20 }) }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant("discard" as const), back: fc.integer({ min: 0, max: 10 }) }) },
      { weight: 1, arbitrary: fc.constant({ kind: "reload" as const }) },
    );
    fc.assert(
      fc.property(fc.array(op, { minLength: 10, maxLength: 60, size: "max" }), fc.nat(), (ops, seed) => {
        let schedule = new Schedule();
        let now = 1_000;
        let pending: [number, number][] = [];
        // Cancelled moves not put back yet: a later putBack inserts one, after takes and
        // compactions may have dropped its entry from the queue or the heap.
        let cancelled: ScheduledMove[] = [];
        let random = seed;
        const next = (range: number): number => {
          random = (random * 1_103_515_245 + 12_345) % 2_147_483_648;
          return random % range;
        };
        const order = (a: [number, number], b: [number, number]): number => a[0] - b[0] || a[1] - b[1];
        for (const o of ops) {
          if (o.kind === "add") {
            for (let i = 0; i < o.count; i++) {
              const due = now + o.ahead + (o.jitter === 0 ? 0 : next(o.jitter));
              pending.push([due, schedule.add(due, "s", "k", null)]);
            }
          } else if (o.kind === "cancel") {
            // Many at once: enough dead entries for a compaction (which drops them).
            for (let i = 0; i < o.count && pending.length > 0; i++) {
              const target = pending[(o.pick + i * 7) % pending.length] as [number, number];
              const removed = schedule.cancel(target[1]) as ScheduledMove;
              expect([removed.due, removed.id]).toEqual(target);
              expect(schedule.cancel(target[1])).toBeUndefined();
              if (o.putBack) schedule.insert(removed);
              else {
                pending = pending.filter((move) => move !== target);
                cancelled.push(removed);
              }
            }
          } else if (o.kind === "putBack") {
            for (let i = 0; i < o.count && cancelled.length > 0; i++) {
              const move = cancelled[(o.pick + i * 5) % cancelled.length] as ScheduledMove;
              cancelled = cancelled.filter((other) => other !== move);
              schedule.insert(move);
              pending.push([move.due, move.id]);
            }
          } else if (o.kind === "take") {
            now += o.by;
            const expected = pending.filter((move) => move[0] <= now).sort(order);
            pending = pending.filter((move) => move[0] > now);
            const taken: [number, number][] = [];
            for (let move = schedule.takeDue(now); move !== undefined; move = schedule.takeDue(now)) {
              expect(schedule.takenDue).toBe(move.due);
              taken.push([move.due, move.id]);
            }
            expect(taken).toEqual(expected);
          } else if (o.kind === "discard") {
            const from = Math.max(1, schedule.nextId - o.back);
            schedule.discardFrom(from);
            pending = pending.filter((move) => move[1] < from);
            cancelled = cancelled.filter((move) => move.id < from);
          } else {
            const saved = schedule.save();
            schedule = new Schedule();
            schedule.load(saved);
            // A cancelled entry is put back by a rollback of the schedule that cancelled it.
            cancelled = [];
          }
          expect(schedule.size).toBe(pending.length);
          expect(schedule.sorted().map((m) => [m.due, m.id])).toEqual([...pending].sort(order));
        }
        const end = [...pending].sort(order);
        const rest: [number, number][] = [];
        for (let move = schedule.takeDue(Infinity); move !== undefined; move = schedule.takeDue(Infinity)) rest.push([move.due, move.id]);
        expect(rest).toEqual(end);
      }),
      { numRuns: 150 },
    );
  });

  it("puts a cancelled move back before later moves due at the same time, after a compaction dropped its entry", () => {
    const schedule = new Schedule();
    for (let i = 0; i < 80; i++) schedule.add(100, "s", "k", null);
    // 75 of 80 dead: the queue is compacted, the cancelled entries leave it.
    const cancelled = Array.from({ length: 75 }, (_, i) => schedule.cancel(i + 1) as ScheduledMove);
    schedule.insert(cancelled[4] as ScheduledMove);
    const order: number[] = [];
    for (let move = schedule.takeDue(100); move !== undefined; move = schedule.takeDue(100)) order.push(move.id);
    expect(order).toEqual([5, 76, 77, 78, 79, 80]);
  });
});
