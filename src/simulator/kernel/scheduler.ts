/**
 * The scheduler of timed moves. A move is plain data (`service`, `kind`, `payload`, `due`), so
 * the schedule is part of a snapshot. Moves fire in due-time order (ties in scheduling order),
 * each at its own due time; nothing here ever calls `setTimeout`.
 *
 * The pending moves live in a binary min-heap ordered by (`due`, `id`), and in a list ordered by
 * id (ids only grow, so a new move goes at its end) where a cancel finds its move by binary search.
 * Scheduling costs O(log n) and allocates one object; taking the next due move O(log n); cancelling
 * O(log n). A fired or cancelled move is only marked: it leaves the heap when it reaches the top,
 * the id list when dead entries outnumber live ones (one pass keeps the live ones), so no operation
 * searches, shifts or rehashes every pending move. (An id-keyed `Map` cost more than the heap work
 * itself: filling and emptying it per move was 5x a bare heap of the same due times.)
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

/** A move as the schedule holds it: the move plus where it stands (never handed out as data). */
class Entry implements ScheduledMove {
  /** Neither fired nor cancelled. */
  live = true;
  /** Still in the heap (a dead entry stays there until it reaches the top or a compaction). */
  inHeap = true;
  /** Still in the id list (a dead entry stays there until a compaction). */
  inIndex = true;
  constructor(
    readonly id: number,
    readonly due: number,
    readonly service: string,
    readonly kind: string,
    readonly payload: MovePayload,
  ) {}

  /** The move as plain data (for snapshots and reads). */
  plain(): ScheduledMove {
    return { id: this.id, due: this.due, service: this.service, kind: this.kind, payload: this.payload };
  }
}

/** Entries in firing order. */
function byFiringOrder(a: Entry, b: Entry): number {
  return a.due - b.due || a.id - b.id;
}

/** Dead entries a structure may hold before a compaction, beyond as many as live ones. */
const SLACK = 64;

/**
 * The pending moves: a binary min-heap on (`due`, `id`) plus the same moves in id order. The
 * simulator takes moves with {@link Schedule.takeDue} and cancels them by id; a rollback puts a
 * cancelled move back with {@link Schedule.insert} and forgets the moves it scheduled with
 * {@link Schedule.discardFrom}.
 *
 * @example
 * const schedule = new Schedule();
 * const id = schedule.add(now + 30_000, "runs", "run.phase-done", "run-1");
 * schedule.takeDue(now + 30_000); // the move
 */
export class Schedule {
  /** Id of the next move scheduled. */
  nextId = 1;
  /**
   * The heap, as parallel arrays: the entries, and their due times and ids (the sort keys) in
   * typed arrays, so comparing two heap slots reads two numbers next to each other in memory
   * instead of two objects anywhere in the heap.
   */
  private heap: Entry[] = [];
  private dues = new Float64Array(SLACK);
  private ids = new Float64Array(SLACK);
  /** Every live entry (and some dead ones), in increasing id order. */
  private index: Entry[] = [];
  private live = 0;

  /** Number of pending moves. */
  get size(): number {
    return this.live;
  }

  /**
   * Adds a new move with the next id.
   * @param due - when it fires, ms since the epoch.
   * @returns the move's id (for {@link Schedule.cancel}).
   */
  add(due: number, service: string, kind: string, payload: MovePayload): number {
    const id = this.nextId++;
    const entry = new Entry(id, due, service, kind, payload);
    this.live++;
    // Ids only grow, so the id list stays sorted (a rollback drops the ids it gave back first).
    this.index.push(entry);
    this.push(entry);
    return id;
  }

  /**
   * Puts back a move this schedule cancelled (a rollback), with its id and in its place. A move
   * that is still pending is left as it is.
   */
  insert(move: ScheduledMove): void {
    const entry = move instanceof Entry ? move : new Entry(move.id, move.due, move.service, move.kind, move.payload);
    if (entry.live) return;
    entry.live = true;
    this.live++;
    if (!entry.inHeap) {
      entry.inHeap = true;
      this.push(entry);
    }
    if (!entry.inIndex) {
      entry.inIndex = true;
      const at = this.search(entry.id);
      this.index.splice(at, 0, entry);
    }
  }

  /** Removes a move; returns it, or undefined when it was no longer scheduled. */
  cancel(id: number): ScheduledMove | undefined {
    const entry = this.index[this.search(id)];
    if (entry === undefined || entry.id !== id || !entry.live) return undefined;
    this.kill(entry);
    if (this.heap.length > 2 * this.live + SLACK) this.compactHeap();
    return entry;
  }

  /**
   * Forgets every move with an id at or above `id` and gives those ids back (`nextId = id`): a
   * failed transaction's own moves, which no one else has seen.
   */
  discardFrom(id: number): void {
    const index = this.index;
    for (let last = index[index.length - 1]; last !== undefined && last.id >= id; last = index[index.length - 1]) {
      index.pop();
      last.inIndex = false;
      if (last.live) this.kill(last);
    }
    this.nextId = id;
    if (this.heap.length > 2 * this.live + SLACK) this.compactHeap();
  }

  /** Removes and returns the earliest move due at or before `until`, if any. */
  takeDue(until: number): ScheduledMove | undefined {
    const heap = this.heap;
    for (;;) {
      const first = heap[0];
      if (first === undefined || first.due > until) return undefined;
      this.pop();
      first.inHeap = false;
      if (first.live) {
        this.kill(first);
        return first;
      }
    }
  }

  /** The pending moves (of one service, or all), in firing order, as plain data. O(n log n): for reads, not the hot path. */
  sorted(service?: string): ScheduledMove[] {
    const entries: Entry[] = [];
    for (const entry of this.index) if (entry.live && (service === undefined || entry.service === service)) entries.push(entry);
    return entries.sort(byFiringOrder).map((entry) => entry.plain());
  }

  /** The schedule as plain data (moves in firing order). */
  save(): SchedulerState {
    return { nextId: this.nextId, moves: this.sorted() };
  }

  /** Replaces the schedule with one taken by {@link Schedule.save} (a sorted array is already a heap). */
  load(state: SchedulerState): void {
    this.nextId = state.nextId;
    const entries = state.moves.map((move) => new Entry(move.id, move.due, move.service, move.kind, move.payload));
    this.setHeap([...entries].sort(byFiringOrder));
    this.index = entries.sort((a, b) => a.id - b.id);
    this.live = entries.length;
  }

  /** Marks a live entry dead; the id list drops its dead entries once they outnumber the live. */
  private kill(entry: Entry): void {
    entry.live = false;
    this.live--;
    if (this.index.length > 2 * this.live + SLACK) this.compactIndex();
  }

  /** Position in the id list of `id`, or of the first greater id. */
  private search(id: number): number {
    const index = this.index;
    let low = 0;
    let high = index.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((index[middle] as Entry).id < id) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** Drops the id list's dead entries in place (no new array: one per compaction was 5% of a timed move's allocation). */
  private compactIndex(): void {
    const index = this.index;
    let kept = 0;
    for (let i = 0; i < index.length; i++) {
      const entry = index[i] as Entry;
      if (entry.live) index[kept++] = entry;
      else entry.inIndex = false;
    }
    index.length = kept;
  }

  /** Drops dead entries: the live ones in firing order form a valid heap. */
  private compactHeap(): void {
    const kept: Entry[] = [];
    for (const entry of this.heap) {
      if (entry.live) kept.push(entry);
      else entry.inHeap = false;
    }
    this.setHeap(kept.sort(byFiringOrder));
  }

  /** Removes the root: the hole goes down to a leaf along the smaller children, the last entry up from there. */
  private pop(): void {
    const heap = this.heap;
    const dues = this.dues;
    const ids = this.ids;
    const lastAt = heap.length - 1;
    const last = heap.pop() as Entry;
    if (lastAt === 0) return;
    const length = lastAt;
    let hole = 0;
    for (;;) {
      let child = 2 * hole + 1;
      if (child >= length) break;
      const right = child + 1;
      if (right < length) {
        const dr = dues[right] as number;
        const dl = dues[child] as number;
        if (dr < dl || (dr === dl && (ids[right] as number) < (ids[child] as number))) child = right;
      }
      heap[hole] = heap[child] as Entry;
      dues[hole] = dues[child] as number;
      ids[hole] = ids[child] as number;
      hole = child;
    }
    this.place(hole, last);
  }

  /** Appends an entry to the heap and sifts it up. */
  private push(entry: Entry): void {
    const at = this.heap.length;
    this.heap.push(entry);
    if (at >= this.dues.length) {
      const dues = new Float64Array(2 * this.dues.length);
      dues.set(this.dues);
      this.dues = dues;
      const ids = new Float64Array(2 * this.ids.length);
      ids.set(this.ids);
      this.ids = ids;
    }
    this.place(at, entry);
  }

  /** Puts `entry` in the free slot `hole`, moving it up past every parent it fires before. */
  private place(hole: number, entry: Entry): void {
    const heap = this.heap;
    const dues = this.dues;
    const ids = this.ids;
    const due = entry.due;
    const id = entry.id;
    while (hole > 0) {
      const parent = (hole - 1) >>> 1;
      const dp = dues[parent] as number;
      if (dp < due || (dp === due && (ids[parent] as number) < id)) break;
      heap[hole] = heap[parent] as Entry;
      dues[hole] = dp;
      ids[hole] = ids[parent] as number;
      hole = parent;
    }
    heap[hole] = entry;
    dues[hole] = due;
    ids[hole] = id;
  }

  /** Makes `entries`, sorted in firing order (so already a heap), the heap. */
  private setHeap(entries: Entry[]): void {
    this.heap = entries;
    const capacity = Math.max(SLACK, 2 * entries.length);
    this.dues = new Float64Array(capacity);
    this.ids = new Float64Array(capacity);
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i] as Entry;
      this.dues[i] = entry.due;
      this.ids[i] = entry.id;
    }
  }
}
