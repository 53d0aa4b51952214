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

/** A fresh, empty schedule. */
export function emptySchedule(): SchedulerState {
  return { nextId: 1, moves: [] };
}

/**
 * Adds a move and keeps the schedule ordered.
 * @returns the move's id (for {@link cancelMove}).
 */
export function scheduleMove(
  state: SchedulerState,
  move: Omit<ScheduledMove, "id">,
): number {
  const id = state.nextId++;
  const entry: ScheduledMove = { ...move, id };
  let index = state.moves.length;
  while (index > 0) {
    const before = state.moves[index - 1];
    if (before === undefined || before.due <= entry.due) break;
    index--;
  }
  state.moves.splice(index, 0, entry);
  return id;
}

/** Removes a move; returns whether it was still scheduled. */
export function cancelMove(state: SchedulerState, id: number): boolean {
  const index = state.moves.findIndex((move) => move.id === id);
  if (index < 0) return false;
  state.moves.splice(index, 1);
  return true;
}

/** Removes and returns the earliest move due at or before `until`, if any. */
export function takeDue(state: SchedulerState, until: number): ScheduledMove | undefined {
  const first = state.moves[0];
  if (first === undefined || first.due > until) return undefined;
  state.moves.shift();
  return first;
}
