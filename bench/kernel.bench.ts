/**
 * Kernel rows (`npm run bench`, see bench/README.md): the scheduler and transactions of the
 * simulator alone, on the tiny demo service of the tests.
 *
 * The scheduler target (issue 9 item 2: >= 1,000,000 timed moves/s) is on the kernel's own cost
 * per move: scheduling a move in an operation, taking it from the heap when due, and calling its
 * handler with the move context. The first row fires a realistic but cheap move (it looks up the
 * stored thing its payload names and flips a field). The demo service's own move also formats a
 * log line per move (a number turned into a string, an array grown): that is the handler's work,
 * not the kernel's, so its row is shown against the cheap move, not judged.
 */
import { Simulator } from "../src/simulator/kernel/simulator.js";
import { demoDefinition, type DemoState } from "../test/support/demo-service.js";
import { KERNEL_MOVES as MOVES, kernelDue as due, kernelMoves } from "./fixtures.js";
import { row } from "./table.js";

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
  name: "scheduler: schedule and fire 10,000 timed moves (a cheap move: look up a stored thing, flip a field)",
  clock: "cpu",
  kind: "rate",
  target: ">= 1e6/s",
  setup: () => ({
    figure: { label: "kernel", ops: MOVES, run: kernelMoves() },
    anchor: { label: "a binary heap of the same due times", ops: MOVES, run: heapOfNumbers },
  }),
});

row({
  name: "scheduler: the same with the demo service's move (it also formats a log line per move)",
  clock: "cpu",
  kind: "rate",
  setup: () => ({
    figure: { label: "kernel, demo move", ops: MOVES, run: kernelMoves({ demoMove: true }) },
    anchor: { label: "kernel, cheap move", ops: MOVES, run: kernelMoves() },
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
