/**
 * The scheduler of timed moves. A move is plain data (`service`, `kind`, `payload`, `due`), so
 * the schedule is part of a snapshot. Moves fire in due-time order (ties in scheduling order),
 * each at its own due time; nothing here ever calls `setTimeout`.
 */

/** JSON-compatible data carried by a scheduled move. */
export type MovePayload = string | number | boolean | null | MovePayload[] | { [key: string]: MovePayload };

/** One scheduled move. */
export interface ScheduledMove {
  /** Unique, increasing id; also the tie-breaker between moves due at the same time. */
  readonly id: number;
  /** When it fires, ms since the epoch. */
  readonly due: number;
  /** The service whose handler runs it. */
  readonly service: string;
  /** The handler name within the service, e.g. `run.phase-done`. */
  readonly kind: string;
  readonly payload: MovePayload;
}

/** The scheduler's whole state (snapshot-able). */
export interface SchedulerState {
  nextId: number;
  /** Sorted by `due`, then `id`. */
  moves: ScheduledMove[];
}

/**
 * A fresh, empty schedule.
 * @example const schedule = emptySchedule(); // { nextId: 1, moves: [] }
 */
export function emptySchedule(): SchedulerState {
  return { nextId: 1, moves: [] };
}

/**
 * Adds a move and keeps the schedule ordered.
 * @returns the move's id (for {@link cancelMove}).
 * @example scheduleMove(schedule, { due: now + 30_000, service: "runs", kind: "run.phase-done", payload: "run-1" }) // 1
 */
export function scheduleMove(
  state: SchedulerState,
  move: Omit<ScheduledMove, "id">,
): number {
  const id = state.nextId++;
  insertMove(state, { ...move, id });
  return id;
}

/**
 * Puts a move (back) in its place: after every move due earlier or at the same time with a smaller id.
 * @example insertMove(schedule, cancelMove(schedule, id)!) // back in its place
 */
export function insertMove(state: SchedulerState, entry: ScheduledMove): void {
  let low = 0;
  let high = state.moves.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const other = state.moves[middle] as ScheduledMove;
    if (other.due < entry.due || (other.due === entry.due && other.id < entry.id)) low = middle + 1;
    else high = middle;
  }
  state.moves.splice(low, 0, entry);
}

/**
 * Removes a move; returns the removed move, or undefined when it was no longer scheduled.
 * @example cancelMove(schedule, 1) // the move, or undefined when it already fired
 */
export function cancelMove(state: SchedulerState, id: number): ScheduledMove | undefined {
  const index = state.moves.findIndex((move) => move.id === id);
  if (index < 0) return undefined;
  return state.moves.splice(index, 1)[0];
}

/**
 * Removes and returns the earliest move due at or before `until`, if any.
 * @example for (let m = takeDue(schedule, now); m; m = takeDue(schedule, now)) fire(m);
 */
export function takeDue(state: SchedulerState, until: number): ScheduledMove | undefined {
  const first = state.moves[0];
  if (first === undefined || first.due > until) return undefined;
  state.moves.shift();
  return first;
}
