/**
 * The library's one way to let other work run in the middle of a long answer: the server's
 * streamed journal and a posted timeline played in slices (issue 24) wait here for one turn of the
 * event loop between pieces. It reads no time and schedules nothing on a clock, so answers stay
 * the same for the same seed and calls; the kernel audit (test/simulator/kernel/kernel-audit.test.ts)
 * allows timers nowhere else but the clocks.
 * @returns a promise settled after pending I/O callbacks have run (Node's `setImmediate`).
 * @example
 * for (const piece of pieces) { res.write(piece); await nextTurn(); }
 */
export function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}
