/**
 * Kernel rows (`npm run bench`, see bench/README.md): the scheduler and transactions of the
 * simulator alone, on the tiny demo service of the tests.
 */
import { Simulator } from "../src/simulator/kernel/simulator.js";
import { demoDefinition, type DemoState } from "../test/support/demo-service.js";
import { row } from "./table.js";

const MOVES = 10_000;
const due = (i: number): number => (i * 7919) % 100_000;

/** The anchor: the same due times through a plain binary min-heap (push all, pop all). */
function heapOfNumbers(): void {
  const heap: number[] = [];
  for (let i = 0; i < MOVES; i++) {
    let at = heap.push(due(i)) - 1;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if ((heap[parent] as number) <= (heap[at] as number)) break;
      [heap[parent], heap[at]] = [heap[at] as number, heap[parent] as number];
      at = parent;
    }
  }
  while (heap.length > 0) {
    const last = heap.pop() as number;
    if (heap.length === 0) break;
    heap[0] = last;
    let at = 0;
    for (;;) {
      const left = 2 * at + 1;
      const right = left + 1;
      let least = at;
      if (left < heap.length && (heap[left] as number) < (heap[least] as number)) least = left;
      if (right < heap.length && (heap[right] as number) < (heap[least] as number)) least = right;
      if (least === at) break;
      [heap[least], heap[at]] = [heap[at] as number, heap[least] as number];
      at = least;
    }
  }
}

row({
  name: "scheduler: schedule and fire 10,000 timed moves",
  clock: "cpu",
  kind: "rate",
  target: ">= 1e6/s",
  setup: () => ({
    figure: {
      label: "kernel",
      ops: MOVES,
      run: () => {
        const sim = new Simulator({ services: [demoDefinition] });
        sim.update<DemoState, void>("demo", (ctx) => {
          for (let i = 0; i < MOVES; i++) ctx.schedule(ctx.now + due(i), "finish", `t${i}`);
        });
        sim.advance("1h");
      },
    },
    anchor: { label: "a binary heap of the same due times", ops: MOVES, run: heapOfNumbers },
  }),
});

function holding(count: number): Simulator {
  const sim = new Simulator({ services: [demoDefinition] });
  sim.update<DemoState, void>("demo", (ctx) => {
    for (let i = 0; i < count; i++) ctx.state.things[`t${i}`] = { id: `t${i}`, name: "x".repeat(40), createdAt: ctx.now, done: false };
  });
  return sim;
}

function toggle(sim: Simulator): void {
  sim.update<DemoState, void>("demo", (ctx) => {
    const thing = ctx.state.things.t1;
    if (thing) thing.done = !thing.done;
  });
}

row({
  name: "transaction: update one of 10,000 stored resources",
  clock: "cpu",
  target: "<= 1.2x",
  setup: () => {
    const big = holding(10_000);
    const small = holding(100);
    return {
      figure: { label: "N=10,000", run: () => toggle(big) },
      anchor: { label: "N=100", run: () => toggle(small) },
    };
  },
});
