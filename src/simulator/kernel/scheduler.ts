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
 *
 * Beside the heap, a queue takes every move due at or after the last one it took: moves scheduled
 * in firing order (the common case: a run's next step is due a fixed time after the batch of
 * steps firing now) go in and come out in O(1), in memory order, and the heap holds the others.
 * The earlier of the two fronts fires first, so the order is the heap's order either way.
 *
 * Both hold numbers only: each move's due time and id (its sort keys) side by side in a typed
 * array, and the place of its entry in a table where the entry stays put while pending. A sift
 * moves numbers; an entry (a young object) stored into an array that has lived long enough to be
 * old costs V8 a write barrier that records the slot for the next scavenge, and when the heap held
 * the entries themselves, every level of every sift paid one. In a 10,000-workspace `advance()`
 * (callgrind, November 2026; docs/decisions/kernel.md) taking a move from the 10,000 pending was
 * 13% of the instructions and its barriers 7% more.
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

/** {@link Entry.flags}: neither fired nor cancelled. */
const LIVE = 1;
/** {@link Entry.flags}: still in the heap (a dead entry stays there until it reaches the top or a compaction). */
const IN_HEAP = 2;
/** {@link Entry.flags}: still in the id list (a dead entry stays there until a compaction). */
const IN_INDEX = 4;

/** A move as the schedule holds it: the move plus where it stands (never handed out as data). */
class Entry implements ScheduledMove {
  /**
   * {@link LIVE}, {@link IN_HEAP}, {@link IN_INDEX}: one small integer, not three booleans (one
   * entry is allocated per timed move; 16 bytes less each).
   */
  flags = LIVE | IN_HEAP | IN_INDEX;
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
 * The pending moves: a queue of moves in firing order and a binary min-heap on (`due`, `id`) for
 * the rest, plus the same moves in id order. The simulator takes moves with
 * {@link Schedule.takeDue} and cancels them by id; a rollback puts a cancelled move back with
 * {@link Schedule.insert} and forgets the moves it scheduled with {@link Schedule.discardFrom}.
 *
 * @example
 * const schedule = new Schedule();
 * const id = schedule.add(now + 30_000, "runs", "run.phase-done", "run-1");
 * schedule.takeDue(now + 30_000); // the move
 */
export class Schedule {
  /** Id of the next move scheduled. */
  nextId = 1;
  /** The due time of the move {@link Schedule.takeDue} returned last. */
  takenDue = 0;
  /** Nodes in the heap (node 1 is the root, node n's children 2n and 2n + 1). */
  private count = 0;
  /**
   * Node n's sort keys: its due time at `2n`, its id at `2n + 1` (a node's keys and its sibling's
   * share a cache line), so comparing two nodes reads numbers next to each other in memory
   * instead of two objects anywhere in the heap.
   */
  private keys = new Float64Array(2 * SLACK);
  /** Node n's entry, as its place in {@link Schedule.entries}. */
  private refs = new Int32Array(SLACK);
  /** The queue's moves are its slots `head` (the earliest) to `tail - 1`. */
  private head = 0;
  private tail = 0;
  /** Queue slot i's sort keys (due time at `2i`, id at `2i + 1`), in firing order. */
  private queueKeys = new Float64Array(2 * SLACK);
  /** Queue slot i's entry, as its place in {@link Schedule.entries}. */
  private queueRefs = new Int32Array(SLACK);
  /** The entries in the heap or the queue, each at its place while it is there (undefined: a free place). */
  private entries: (Entry | undefined)[] = [];
  /** Free places of {@link Schedule.entries}. */
  private free: number[] = [];
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
    if (entry.flags & LIVE) return;
    entry.flags |= LIVE;
    this.live++;
    if (!(entry.flags & IN_HEAP)) {
      entry.flags |= IN_HEAP;
      this.push(entry);
    }
    if (!(entry.flags & IN_INDEX)) {
      entry.flags |= IN_INDEX;
      const at = this.search(entry.id);
      this.index.splice(at, 0, entry);
    }
  }

  /** Removes a move; returns it, or undefined when it was no longer scheduled. */
  cancel(id: number): ScheduledMove | undefined {
    const entry = this.index[this.search(id)];
    if (entry === undefined || entry.id !== id || !(entry.flags & LIVE)) return undefined;
    this.kill(entry);
    this.compactIfSparse();
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
      last.flags &= ~IN_INDEX;
      if (last.flags & LIVE) this.kill(last);
    }
    this.nextId = id;
    this.compactIfSparse();
  }

  /**
   * Removes and returns the earliest move due at or before `until`, if any. Its due time is also
   * left in {@link Schedule.takenDue}, read from the sort keys: the move's own `due` is a boxed
   * number elsewhere in memory, one more cache miss per timed move.
   */
  takeDue(until: number): ScheduledMove | undefined {
    for (;;) {
      const queued = this.head < this.tail;
      let fromQueue: boolean;
      if (this.count === 0) {
        if (!queued) return undefined;
        fromQueue = true;
      } else if (!queued) fromQueue = false;
      else {
        const keys = this.keys;
        const queueKeys = this.queueKeys;
        const dq = queueKeys[2 * this.head] as number;
        const dh = keys[2] as number;
        fromQueue = dq < dh || (dq === dh && (queueKeys[2 * this.head + 1] as number) < (keys[3] as number));
      }
      let due: number;
      let place: number;
      if (fromQueue) {
        due = this.queueKeys[2 * this.head] as number;
        if (due > until) return undefined;
        place = this.queueRefs[this.head++] as number;
        if (this.head === this.tail) this.head = this.tail = 0;
      } else {
        due = this.keys[2] as number;
        if (due > until) return undefined;
        place = this.refs[1] as number;
        this.pop();
      }
      const first = this.entries[place] as Entry;
      this.entries[place] = undefined;
      this.free.push(place);
      const flags = first.flags & ~IN_HEAP;
      first.flags = flags;
      if (flags & LIVE) {
        this.takenDue = due;
        this.kill(first);
        return first;
      }
    }
  }

  /** The pending moves (of one service, or all), in firing order, as plain data. O(n log n): for reads, not the hot path. */
  sorted(service?: string): ScheduledMove[] {
    const entries: Entry[] = [];
    for (const entry of this.index) if (entry.flags & LIVE && (service === undefined || entry.service === service)) entries.push(entry);
    return entries.sort(byFiringOrder).map((entry) => entry.plain());
  }

  /** The schedule as plain data (moves in firing order). */
  save(): SchedulerState {
    return { nextId: this.nextId, moves: this.sorted() };
  }

  /** Replaces the schedule with one taken by {@link Schedule.save} (its moves, in firing order, fill the queue). */
  load(state: SchedulerState): void {
    this.nextId = state.nextId;
    const entries = state.moves.map((move) => new Entry(move.id, move.due, move.service, move.kind, move.payload));
    this.refill([...entries].sort(byFiringOrder));
    this.index = entries.sort((a, b) => a.id - b.id);
    this.live = entries.length;
  }

  /** Marks a live entry dead; the id list drops its dead entries once they outnumber the live. */
  private kill(entry: Entry): void {
    entry.flags &= ~LIVE;
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
      if (entry.flags & LIVE) index[kept++] = entry;
      else entry.flags &= ~IN_INDEX;
    }
    index.length = kept;
  }

  /** Drops the dead entries of the heap and the queue once they outnumber the live ones. */
  private compactIfSparse(): void {
    if (this.count + this.tail - this.head > 2 * this.live + SLACK) this.compactHeap();
  }

  /** Drops dead entries: the live ones, in firing order, refill the queue. */
  private compactHeap(): void {
    const kept: Entry[] = [];
    for (const entry of this.entries) {
      if (entry === undefined) continue;
      if (entry.flags & LIVE) kept.push(entry);
      else entry.flags &= ~IN_HEAP;
    }
    this.refill(kept.sort(byFiringOrder));
  }

  /**
   * Adds an entry: a free place in the table, then the queue's end when it fires after every
   * queued move (or the queue is empty), else a new last node of the heap, sifted up.
   */
  private push(entry: Entry): void {
    let place = this.free.pop();
    if (place === undefined) {
      place = this.entries.length;
      this.entries.push(entry);
    } else this.entries[place] = entry;
    const due = entry.due;
    const id = entry.id;
    const tail = this.tail;
    if (tail === this.head) {
      this.head = 0;
      this.enqueue(0, due, id, place);
      return;
    }
    const last = this.queueKeys[2 * tail - 2] as number;
    if (last < due || (last === due && (this.queueKeys[2 * tail - 1] as number) < id)) {
      this.enqueue(tail, due, id, place);
      return;
    }
    const at = ++this.count;
    if (at >= this.refs.length) {
      const keys = new Float64Array(2 * this.keys.length);
      keys.set(this.keys);
      this.keys = keys;
      const refs = new Int32Array(2 * this.refs.length);
      refs.set(this.refs);
      this.refs = refs;
    }
    this.place(at, due, id, place);
  }

  /** Writes a move at the queue's slot `at` (its end), first sliding the queue to its start or growing it when full. */
  private enqueue(at: number, due: number, id: number, place: number): void {
    if (at >= this.queueRefs.length) {
      const used = at - this.head;
      const keys = used * 2 >= this.queueRefs.length ? new Float64Array(2 * this.queueKeys.length) : this.queueKeys;
      const refs = keys === this.queueKeys ? this.queueRefs : new Int32Array(2 * this.queueRefs.length);
      keys.set(this.queueKeys.subarray(2 * this.head, 2 * at));
      refs.set(this.queueRefs.subarray(this.head, at));
      this.queueKeys = keys;
      this.queueRefs = refs;
      this.head = 0;
      at = used;
    }
    this.queueKeys[2 * at] = due;
    this.queueKeys[2 * at + 1] = id;
    this.queueRefs[at] = place;
    this.tail = at + 1;
  }

  /**
   * Removes the heap's root node: the hole goes down to a leaf along the earlier children, the
   * last node up from there. Moves numbers only (see the file's comment).
   */
  private pop(): void {
    const keys = this.keys;
    const refs = this.refs;
    const last = this.count--;
    const length = last - 1;
    if (length === 0) return;
    let hole = 1;
    for (;;) {
      let child = 2 * hole;
      if (child > length) break;
      const right = child + 1;
      if (right <= length) {
        const dr = keys[2 * right] as number;
        const dl = keys[2 * child] as number;
        if (dr < dl || (dr === dl && (keys[2 * right + 1] as number) < (keys[2 * child + 1] as number))) child = right;
      }
      keys[2 * hole] = keys[2 * child] as number;
      keys[2 * hole + 1] = keys[2 * child + 1] as number;
      refs[hole] = refs[child] as number;
      hole = child;
    }
    this.place(hole, keys[2 * last] as number, keys[2 * last + 1] as number, refs[last] as number);
  }

  /** Puts a node (its keys and entry place) in the free node `hole`, moving it up past every parent it fires before. */
  private place(hole: number, due: number, id: number, ref: number): void {
    const keys = this.keys;
    const refs = this.refs;
    while (hole > 1) {
      const parent = hole >>> 1;
      const dp = keys[2 * parent] as number;
      if (dp < due || (dp === due && (keys[2 * parent + 1] as number) < id)) break;
      keys[2 * hole] = dp;
      keys[2 * hole + 1] = keys[2 * parent + 1] as number;
      refs[hole] = refs[parent] as number;
      hole = parent;
    }
    keys[2 * hole] = due;
    keys[2 * hole + 1] = id;
    refs[hole] = ref;
  }

  /** Makes `entries`, in firing order, the whole schedule: the queue holds them (entry n at place n), the heap none. */
  private refill(entries: Entry[]): void {
    this.entries = entries;
    this.free = [];
    this.count = 0;
    const capacity = Math.max(SLACK, 2 * entries.length);
    this.queueKeys = new Float64Array(2 * capacity);
    this.queueRefs = new Int32Array(capacity);
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i] as Entry;
      this.queueKeys[2 * i] = entry.due;
      this.queueKeys[2 * i + 1] = entry.id;
      this.queueRefs[i] = i;
    }
    this.head = 0;
    this.tail = entries.length;
  }
}
