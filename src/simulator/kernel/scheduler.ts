/**
 * The scheduler of timed moves. A move is plain data (`service`, `kind`, `payload`, `due`), so
 * the schedule is part of a snapshot. Moves fire in due-time order (ties in scheduling order),
 * each at its own due time; nothing here ever calls `setTimeout`.
 *
 * The pending moves live in a binary min-heap ordered by (`due`, `id`): scheduling and taking the
 * next due move cost O(log n), cancelling O(1) (amortized), so firing order is exact and no
 * operation moves every pending move (a sorted array did).
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

/** The scheduler's whole state as it appears in a snapshot (plain data). */
export interface SchedulerState {
  nextId: number;
  /** Sorted by `due`, then `id`. */
  moves: ScheduledMove[];
}

/** Whether `a` fires before `b`: earlier due time, then smaller id. */
function before(a: ScheduledMove, b: ScheduledMove): boolean {
  return a.due < b.due || (a.due === b.due && a.id < b.id);
}

/**
 * The pending moves: a binary min-heap on (`due`, `id`) plus the pending moves by id. A cancelled
 * move leaves the map at once and the heap when it reaches the top (or when cancelled moves
 * outnumber pending ones, by a rebuild), so no operation searches or shifts the heap.
 *
 * @example
 * const schedule = new Schedule();
 * const id = schedule.add({ due: now + 30_000, service: "runs", kind: "run.phase-done", payload: "run-1" });
 * schedule.takeDue(now + 30_000); // the move
 */
export class Schedule {
  /** Id of the next move scheduled. */
  nextId = 1;
  private heap: ScheduledMove[] = [];
  private readonly pending = new Map<number, ScheduledMove>();

  /** Number of pending moves. */
  get size(): number {
    return this.pending.size;
  }

  /**
   * Adds a new move with the next id.
   * @returns the move's id (for {@link Schedule.cancel}).
   */
  add(move: Omit<ScheduledMove, "id">): number {
    const id = this.nextId++;
    this.insert({ id, due: move.due, service: move.service, kind: move.kind, payload: move.payload });
    return id;
  }

  /** Puts a move (back) in its place, keeping its id (a rollback puts back cancelled moves). */
  insert(move: ScheduledMove): void {
    // A move put back while its cancelled entry still waits in the heap has two entries: the first
    // taken fires it, the other is skipped (no longer pending).
    this.pending.set(move.id, move);
    const heap = this.heap;
    heap.push(move);
    this.up(heap.length - 1);
  }

  /** Removes a move; returns it, or undefined when it was no longer scheduled. */
  cancel(id: number): ScheduledMove | undefined {
    const move = this.pending.get(id);
    if (move === undefined) return undefined;
    this.pending.delete(id);
    if (this.heap.length > 64 && this.heap.length > 2 * this.pending.size) this.compact();
    return move;
  }

  /** Removes and returns the earliest move due at or before `until`, if any. */
  takeDue(until: number): ScheduledMove | undefined {
    for (;;) {
      const first = this.heap[0];
      if (first === undefined || first.due > until) return undefined;
      this.pop();
      if (this.pending.get(first.id) === first) {
        this.pending.delete(first.id);
        return first;
      }
    }
  }

  /** The pending moves (of one service, or all), in firing order. O(n log n): for reads, not the hot path. */
  sorted(service?: string): ScheduledMove[] {
    const moves: ScheduledMove[] = [];
    for (const move of this.pending.values()) if (service === undefined || move.service === service) moves.push(move);
    return moves.sort((a, b) => a.due - b.due || a.id - b.id);
  }

  /** The schedule as plain data (moves in firing order). */
  save(): SchedulerState {
    return { nextId: this.nextId, moves: this.sorted() };
  }

  /** Replaces the schedule with one taken by {@link Schedule.save} (a sorted array is already a heap). */
  load(state: SchedulerState): void {
    this.nextId = state.nextId;
    this.heap = [...state.moves].sort((a, b) => a.due - b.due || a.id - b.id);
    this.pending.clear();
    for (const move of this.heap) this.pending.set(move.id, move);
  }

  /** Drops cancelled entries: the pending moves in firing order form a valid heap. */
  private compact(): void {
    this.heap = this.sorted();
  }

  private pop(): void {
    const heap = this.heap;
    const last = heap.pop() as ScheduledMove;
    if (heap.length === 0) return;
    // Sift `last` down from the root.
    const length = heap.length;
    let index = 0;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= length) break;
      const right = left + 1;
      let child = left;
      if (right < length && before(heap[right] as ScheduledMove, heap[left] as ScheduledMove)) child = right;
      const smallest = heap[child] as ScheduledMove;
      if (!before(smallest, last)) break;
      heap[index] = smallest;
      index = child;
    }
    heap[index] = last;
  }

  private up(index: number): void {
    const heap = this.heap;
    const move = heap[index] as ScheduledMove;
    while (index > 0) {
      const parentIndex = (index - 1) >>> 1;
      const parent = heap[parentIndex] as ScheduledMove;
      if (!before(move, parent)) break;
      heap[index] = parent;
      index = parentIndex;
    }
    heap[index] = move;
  }
}
