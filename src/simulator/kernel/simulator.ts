/**
 * The simulator: the services' states, one clock, one seeded id source and one scheduler of timed
 * moves. It knows nothing of HTTP.
 *
 * Every change goes through {@link Simulator.update}, which first catches up with the clock (firing
 * due moves, each at its own due time) and is transactional: if the operation throws, the service's
 * state, the schedule and the id source are exactly as before. A transaction costs what the
 * operation touches: its writes are journaled and undone on failure, nothing is copied.
 */
import { ManualClock, type Clock } from "./clock.js";
import { clonePlain, cloneSealed, cloneSharingFrozen, isSealed } from "./clone.js";
import { parseDuration, type Duration } from "./duration.js";
import { UsageError, isDomainError } from "./errors.js";
import { IdSource, type IdKind, type IdState } from "./ids.js";
import { LIMIT_VALUES, findLimit, scaleLimit, type ServiceLimit } from "./limits.js";
import { Journal } from "./journal.js";
import { Schedule, type MovePayload, type ScheduledMove, type SchedulerState } from "./scheduler.js";
import { MACHINE_TABLES, mutateMachine, type Machine } from "./machine.js";
import type { SimulatorMutation } from "./mutation.js";
import type { TraceEvent, TraceListener, Tracer } from "./trace.js";

/**
 * What a service can trace, as data: the machines whose states and transitions it takes, and per
 * subject the names of its events. Coverage counts against these (never against a hand-kept list).
 */
export interface TraceUniverse {
  // Machines of different state and event types.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly machines?: readonly Machine<any, any>[];
  /** Per subject, every event name it may trace, e.g. `{ token: ["created", "used", ...] }`. */
  readonly events?: Readonly<Record<string, readonly string[]>>;
}

/** What a read-only operation sees. */
export interface ReadContext<S> extends Tracer {
  /** Simulator time, ms since the epoch (never goes backwards). */
  readonly now: number;
  readonly state: Readonly<S>;
  /** Moves of this service still scheduled, in due order. */
  scheduled(): readonly ScheduledMove[];
  /** Bytes stored with {@link OperationContext.putBlob}. */
  blob(key: string): Uint8Array | undefined;
}

/** What a state-changing operation (or a firing move) sees. */
export interface OperationContext<S> extends ReadContext<S> {
  readonly state: S;
  readonly ids: IdSource;
  /** Schedules a move of this service at `at` (ms since the epoch). Returns its id. */
  schedule(at: number, kind: string, payload?: MovePayload): number;
  /** Cancels a scheduled move; returns whether it was still pending. */
  cancel(moveId: number): boolean;
  /** Stores bytes (kept exactly) under a new key and returns the key. */
  putBlob(bytes: Uint8Array): string;
  /** Forgets stored bytes. */
  dropBlob(key: string): void;
}

/** A handler for a timed move, run at the move's due time. */
export type MoveHandler<S> = (ctx: OperationContext<S>, payload: MovePayload) => void;

/**
 * A simulated service: its initial state and the handlers of its timed moves. State must be plain
 * data: objects, arrays and scalars, changed in place by operations (a transaction records each
 * write in a journal to undo it; see `journal.ts`), with byte arrays replaced rather than edited.
 * Snapshots copy it with `clonePlain`.
 */
export interface ServiceDefinition<S> {
  readonly name: string;
  initialState(ctx: { readonly now: number; readonly ids: IdSource }): S;
  readonly moves?: Readonly<Record<string, MoveHandler<S>>>;
  /** What the service traces (its machines, its named events): the universe coverage counts against. */
  readonly traced?: TraceUniverse;
  /**
   * Whether `initialState` depends on nothing but its `now` and the ids it draws, and returns plain
   * data no two places of which share a writable object (default false). Then a simulator builds
   * it once per process for each start time and id-source state, keeps that copy untouched, and
   * gives each new simulator its own copy of it, made when the service is first used: the state
   * and the ids drawn are the same as a build, byte for byte, at the price of a copy (frozen
   * values inside it are shared, as a build shares them). Leave it unset for a state read from
   * anything else (a mutable option, the environment, a counter).
   * @example const definition: ServiceDefinition<S> = { name: "demo", initialState: () => ({ things: {} }), cacheInitialState: true };
   */
  readonly cacheInitialState?: boolean;
  /**
   * The service's named durations and limits as data (TTLs, cool-offs, phase durations, maxima),
   * each read by the service through `limitValue(ctx, limit)` (kernel/limits.ts). A service mutant
   * scales one of them (x0.5, x2) without the service knowing.
   * @example limits: [{ name: "force-cancel-cool-off", unit: "ms", value: 10_000, description: "the force-cancel cool-off", readAt: "POST /runs/:run_id/actions/force-cancel" }]
   */
  readonly limits?: readonly ServiceLimit[];
  /**
   * The kinds of ids and secrets the service draws (`ids.prefixed(key)`, `ids.named(key, n)`), with
   * what the spec fixes of their format. A service mutant draws one of them in another format the
   * spec allows.
   * @example idKinds: [{ kind: "run", key: "run-", length: 16, spec: "the prefix `run-`", formats: [{ name: "suffix-24", length: 24 }] }]
   */
  readonly idKinds?: readonly IdKind[];
}

/**
 * The whole simulator state, as returned by {@link Simulator.snapshot}. Opaque; plain data. Each
 * service's state in it is frozen all through (a snapshot cannot be changed, so restoring it can
 * wait to copy a service's state until the service is used); a snapshot built some other way (read
 * from JSON, say) may be restored too, and is copied at once.
 */
export interface SimulatorSnapshot {
  readonly services: Readonly<Record<string, unknown>>;
  readonly schedule: SchedulerState;
  readonly ids: IdState;
  readonly blobs: Readonly<Record<string, Uint8Array>>;
  readonly lastNow: number;
  readonly blobSeq: number;
}

/** Options of {@link Simulator}. */
export interface SimulatorOptions {
  /** The clock (default: a {@link ManualClock} at 2024-01-01T00:00:00Z). */
  clock?: Clock;
  /** Seed of the id source (default 1). Same seed and same calls give the same ids. */
  seed?: number | string;
  // The array holds definitions of different state types.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  services: readonly ServiceDefinition<any>[];
  /**
   * One deliberate change to the services' tables (a service mutant; see
   * src/simulator/kernel/mutation.ts), applied when the simulator is built: a mutated copy of a
   * machine's table, a scaled limit or an id format, seen only by the named service. Absent: the
   * faithful services. A mutant's simulator never shares the per-process cache of initial states.
   * @throws {UsageError} (from the constructor) naming the service, machine, row, state, limit, id
   *   kind or format the mutation names and the services do not have.
   * @example new Simulator({ services: [runsDefinition], mutation: { kind: "limit", service: "runs", limit: "force-cancel-cool-off", factor: 0.5 } })
   */
  mutation?: SimulatorMutation;
}

/** What a transaction changed outside the service state, to put back on failure (each list made on first use). */
interface Undo {
  cancelled: ScheduledMove[] | undefined;
  addedBlobs: string[] | undefined;
  droppedBlobs: Map<string, Uint8Array> | undefined;
}

/**
 * A context kept for reuse: one per service for firing moves, and one per service and nesting depth
 * for transactions (its `now`, `state` and `undo` set anew by each), so an operation does not build
 * a context object and its closures every time.
 */
interface ContextSlot {
  readonly ctx: OperationContext<unknown> & { now: number; state: unknown };
  /** The open transaction's undo record; undefined for a firing move (nothing to put back). */
  undo: Undo | undefined;
}

interface Waiter {
  since: number;
  until: number;
  resolve: () => void;
  cancelWake: (() => void) | undefined;
}

/**
 * The simulator kernel shared by all services.
 *
 * @example
 * const sim = new Simulator({ seed: 7, services: [runsService] });
 * sim.update("runs", (ctx) => createRun(ctx, input));
 * sim.advance("10m"); // fires every due move in order
 */
export class Simulator {
  readonly clock: Clock;
  readonly seed: number | string;
  private readonly definitions = new Map<string, ServiceDefinition<unknown>>();
  private states = new Map<string, unknown>();
  /**
   * Services whose state is still one nothing changes: their cached initial state (see
   * {@link ServiceDefinition.cacheInitialState}), or a snapshot's sealed state (see `cloneSealed`)
   * after a `restore` or `reset`. Copied into `states` on first use (a cached state with
   * `cloneSharingFrozen`, as a build shares frozen values; a sealed one with `clonePlain`), never
   * changed.
   */
  private bases = new Map<string, unknown>();
  private readonly schedule = new Schedule();
  private ids: IdSource;
  private blobs = new Map<string, Uint8Array>();
  private blobSeq = 0;
  private lastNow: number;
  private changeVersion = 0;
  /** How many times {@link Simulator.restore} replaced the states (a firing loop's cached state is then stale). */
  private restores = 0;
  private catchingUp = false;
  private readonly waiters = new Set<Waiter>();
  private readonly moveContexts = new Map<string, ContextSlot>();
  /** Per service, the transaction contexts by nesting depth. */
  private readonly transactionContexts = new Map<string, ContextSlot[]>();
  private transactionDepth = 0;
  private readonly journal = new Journal();
  private readonly changeListeners = new Set<() => void>();
  private readonly traceListeners = new Set<TraceListener>();
  /** Events traced inside the open transaction(s), delivered when the outermost one commits. */
  private traceBuffer: [string, TraceEvent][] = [];
  private readonly initial: SimulatorSnapshot;
  /** Whether `initial.services` are the cached initial states themselves (every service caches it). */
  private readonly initialCached: boolean;
  /** The service a mutation changes, and what its contexts carry for it (mutated tables, scaled limits). */
  private readonly mutated: { readonly service: string; readonly fields: Readonly<Record<symbol, unknown>> } | undefined;
  /** Whether timed moves run as transactions whose refusal drops the move (a transition mutant's simulator). */
  private readonly guardMoves: boolean;

  constructor(options: SimulatorOptions) {
    this.clock = options.clock ?? new ManualClock();
    this.seed = options.seed ?? 1;
    this.ids = new IdSource(this.seed);
    this.lastNow = this.clock.now();
    let cached = true;
    const initialStates: Record<string, unknown> = {};
    for (const definition of options.services) {
      if (this.definitions.has(definition.name)) {
        throw new UsageError(`service "${definition.name}" is registered twice`);
      }
      this.definitions.set(definition.name, definition as ServiceDefinition<unknown>);
    }
    this.mutated = options.mutation === undefined ? undefined : this.mutate(options.mutation);
    this.guardMoves = options.mutation?.kind === "transition";
    for (const definition of options.services) {
      // A mutant's simulator neither reads nor fills the per-process cache of initial states: its
      // states may be built from scaled limits or drawn in other id formats (docs/decisions/mutants.md).
      if (definition.cacheInitialState === true && this.mutated === undefined) {
        const base = cachedInitialState(definition as ServiceDefinition<unknown>, this.lastNow, this.ids);
        this.bases.set(definition.name, base);
        initialStates[definition.name] = base;
      } else {
        cached = false;
        const fields = this.mutated?.service === definition.name ? this.mutated.fields : undefined;
        this.states.set(definition.name, definition.initialState({ now: this.lastNow, ids: this.ids, ...fields }));
      }
    }
    // With every state a cached one, the reset point is the bases themselves (never changed: a
    // reset makes them the bases again, copied on first use as after construction); otherwise a
    // snapshot, whose states are sealed.
    this.initial = cached
      ? { services: initialStates, schedule: this.schedule.save(), ids: this.ids.save(), blobs: {}, lastNow: this.lastNow, blobSeq: this.blobSeq }
      : this.snapshot();
    this.initialCached = cached;
    // A clock shared by many simulators (one per test) must not keep the old ones alive: the
    // listener holds the simulator weakly and removes itself once the simulator is gone.
    const self = new WeakRef(this);
    const unsubscribe = this.clock.onChange?.(() => {
      const sim = self.deref();
      if (sim === undefined) {
        unsubscribe?.();
        return;
      }
      sim.catchUp();
      sim.releaseWaiters();
    });
  }

  /** Names of the registered services. */
  get services(): readonly string[] {
    return [...this.definitions.keys()];
  }

  /** Increases on every change of state (operations and fired moves). */
  get version(): number {
    return this.changeVersion;
  }

  /** Simulator time after catching up with the clock, ms since the epoch. */
  now(): number {
    this.catchUp();
    return this.lastNow;
  }

  /**
   * Fires every move due by the clock's current time, in due order, each at its own due time.
   * Called before every operation; call it yourself to observe state without a request.
   */
  catchUp(): void {
    if (this.catchingUp) return;
    this.catchingUp = true;
    try {
      const target = Math.max(this.clock.now(), this.lastNow);
      // The handler, context and state of the last move's service and kind, looked up again only
      // when the next move names another or a restore replaced the states (a change listener may
      // restore): consecutive moves mostly share them, three map lookups a move less.
      let service: string | undefined;
      let kind: string | undefined;
      let restores = -1;
      let handler = undefined as unknown as MoveHandler<unknown>;
      let ctx = undefined as unknown as ContextSlot["ctx"];
      let state: unknown;
      for (;;) {
        const move = this.schedule.takeDue(target);
        if (move === undefined) break;
        const due = this.schedule.takenDue;
        if (due > this.lastNow) this.lastNow = due;
        if (move.service !== service || move.kind !== kind || restores !== this.restores) {
          const found = this.definitions.get(move.service)?.moves?.[move.kind];
          if (found === undefined) {
            throw new UsageError(`no handler for move "${move.kind}" of service "${move.service}"`);
          }
          service = move.service;
          kind = move.kind;
          restores = this.restores;
          handler = found;
          ctx = this.moveContext(service);
          state = this.stateOf(service);
        }
        if (this.guardMoves) {
          // A mutant's table may refuse a row a timed move takes: the move runs as a transaction,
          // and one refused with a domain error is dropped, its writes undone (the resource stays
          // where it was; docs/decisions/mutants.md). The faithful fake never pays for this.
          restores = -1;
          try {
            this.transact(move.service, (c) => handler(c as OperationContext<unknown>, move.payload));
          } catch (error) {
            if (!isDomainError(error)) throw error;
            this.changed();
          }
          continue;
        }
        ctx.now = this.lastNow;
        ctx.state = state;
        // A move handler that throws is a library bug, not a refused request: nothing to put back.
        handler(ctx, move.payload);
        this.changed();
      }
      this.lastNow = target;
    } finally {
      this.catchingUp = false;
    }
  }

  /**
   * Moves a hand-driven clock forward and fires every move that falls due.
   * @param by - milliseconds or a duration string (`"10m"`, `"1h30m"`).
   * @throws {UsageError} when the clock cannot be advanced (a system clock) or `by` is negative.
   */
  advance(by: Duration): number {
    const clock = this.clock as Clock & { advance?: (by: Duration) => number };
    if (typeof clock.advance !== "function") {
      throw new UsageError("this simulator's clock cannot be advanced; use a ManualClock or AdvanceableClock");
    }
    clock.advance(by);
    this.catchUp();
    return this.lastNow;
  }

  /**
   * Runs a state-changing operation of `service` after catching up. Transactional: if `operation`
   * throws, nothing it did is kept.
   * @throws whatever `operation` throws (typically a {@link DomainError}).
   */
  update<S, R>(service: string, operation: (ctx: OperationContext<S>) => R): R {
    this.catchUp();
    return this.transact(service, operation);
  }

  /** Runs a read-only operation of `service` after catching up. */
  read<S, R>(service: string, operation: (ctx: ReadContext<S>) => R): R {
    this.catchUp();
    return operation(this.readContext<S>(service));
  }

  /**
   * Resolves when the state changes after `since` (a {@link Simulator.version}) or when simulator
   * time reaches `until` (ms since the epoch), whichever is first. Used by blocking queries.
   * Advancing a manual clock releases it; on a real-time clock a timer does.
   */
  waitForChange(since: number, until: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (this.version !== since || this.now() >= until || signal?.aborted) {
        resolve();
        return;
      }
      const waiter: Waiter = { since, until, resolve, cancelWake: undefined };
      const finish = (): void => {
        waiter.cancelWake?.();
        waiter.cancelWake = undefined;
        signal?.removeEventListener("abort", finish);
        this.waiters.delete(waiter);
        resolve();
      };
      waiter.resolve = finish;
      // A timer may fire a little before the clock reads `until` (real timers round, and a
      // fake-timers clock looks again at most every second): wake up again until it does.
      const arm = (): void => {
        waiter.cancelWake = this.clock.wakeAt?.(until, () => {
          waiter.cancelWake = undefined;
          try {
            this.catchUp();
          } finally {
            this.releaseWaiters();
          }
          if (this.waiters.has(waiter)) arm();
        });
      };
      this.waiters.add(waiter);
      signal?.addEventListener("abort", finish, { once: true });
      arm();
    });
  }

  /** Number of blocked reads waiting (for tests and leak checks). */
  get pendingWaiters(): number {
    return this.waiters.size;
  }

  /** Calls `listener` after every change of state. Returns the unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /**
   * Calls `listener` with every traced event (states entered, transitions taken, named events) of
   * every service; an event traced by an operation that fails is never delivered. Returns the
   * unsubscribe function. Listeners observe: they must not change the simulator.
   * @example const stop = sim.onTrace((service, event) => console.log(service, event.kind));
   */
  onTrace(listener: TraceListener): () => void {
    this.traceListeners.add(listener);
    return () => this.traceListeners.delete(listener);
  }

  /** What `service` traces, from its definition (empty when it declares nothing). */
  tracedBy(service: string): TraceUniverse {
    return this.definitions.get(service)?.traced ?? {};
  }

  private emitTrace(service: string, event: TraceEvent): void {
    if (this.traceListeners.size === 0) return;
    if (this.journal.active) this.traceBuffer.push([service, event]);
    else for (const listener of this.traceListeners) listener(service, event);
  }

  private flushTrace(): void {
    if (this.journal.active || this.traceBuffer.length === 0) return;
    const buffered = this.traceBuffer;
    this.traceBuffer = [];
    for (const [service, event] of buffered) for (const listener of this.traceListeners) listener(service, event);
  }

  /**
   * A deep copy of the whole state: services, schedule, id source, stored bytes. Each service's
   * state is copied frozen all through (`cloneSealed`; a service not used since a `restore` hands
   * out the sealed state it was restored from, which nothing can change), keeping the null
   * prototype of stored collections (see `dict.ts`); stored bytes are shared, never changed in
   * place.
   */
  snapshot(): SimulatorSnapshot {
    const services: Record<string, unknown> = {};
    for (const name of this.definitions.keys()) {
      const state = this.states.get(name);
      if (state !== undefined) services[name] = cloneSealed(state);
      else {
        const base = this.bases.get(name);
        services[name] = isSealed(base) ? base : cloneSealed(base);
      }
    }
    return {
      services,
      ...clonePlain({ schedule: this.schedule.save(), ids: this.ids.save(), blobs: Object.fromEntries(this.blobs) }),
      lastNow: this.lastNow,
      blobSeq: this.blobSeq,
    };
  }

  /**
   * Puts back a state taken by {@link Simulator.snapshot}. By default time does not go back: the
   * clock is not touched, and simulator time stays at least where it is (moves that fell due in
   * between fire on the next catch-up, at the current time). With `rewind` and a clock that can
   * be set back (`ManualClock`, `AdvanceableClock`), the clock goes back to the snapshot's time
   * too, so the moves the snapshot had scheduled fire at their own times again (what a reset of
   * the doubles does). Blocked reads are released to look again. A service's state is copied from
   * the snapshot when the service is first used (a snapshot's states are frozen: see
   * {@link SimulatorSnapshot}); one from elsewhere is copied at once.
   * @param options.rewind - set the clock back to the snapshot's time when it can (default false).
   * @throws {UsageError} when the snapshot comes from a simulator with other services.
   */
  restore(snapshot: SimulatorSnapshot, options: { readonly rewind?: boolean } = {}): void {
    const names = Object.keys(snapshot.services ?? {});
    if (names.length !== this.definitions.size || names.some((name) => !this.definitions.has(name))) {
      throw new UsageError(
        `this snapshot holds the services ${JSON.stringify(names)}, but this simulator runs ${JSON.stringify(this.services)}: restore a snapshot taken from a simulator with the same services`,
      );
    }
    this.put(snapshot, options, false);
  }

  /**
   * Back to the state right after construction (same seed, so the same ids again).
   * @param options.rewind - also set the clock back to the construction time when it can.
   */
  reset(options: { readonly rewind?: boolean } = {}): void {
    // The reset point of cached states is the cache itself: its states become the bases again,
    // copied on first use exactly as after construction (frozen values shared as a build shares them).
    this.put(this.initial, options, this.initialCached);
  }

  /**
   * Puts back `snapshot` (see {@link Simulator.restore}); with `cached`, its services are the cached
   * initial states themselves.
   */
  private put(snapshot: SimulatorSnapshot, options: { readonly rewind?: boolean }, cached: boolean): void {
    const copy = clonePlain({ schedule: snapshot.schedule, ids: snapshot.ids, blobs: snapshot.blobs, lastNow: snapshot.lastNow, blobSeq: snapshot.blobSeq });
    this.load(snapshot.services, cached);
    this.schedule.load(copy.schedule);
    this.ids.load(copy.ids);
    this.blobs = new Map(Object.entries(copy.blobs));
    this.blobSeq = copy.blobSeq;
    if (options.rewind === true && typeof this.clock.rewind === "function") {
      // lastNow first: the catch-up the clock's listeners run then sees the snapshot's time.
      this.lastNow = copy.lastNow;
      this.clock.rewind(copy.lastNow);
    } else {
      this.lastNow = Math.max(this.lastNow, copy.lastNow);
    }
    this.changed();
  }

  /**
   * Makes `services` the services' states to come: a sealed state (or, with `cached`, the cached
   * initial state) is kept as a base, copied on first use; any other is copied now.
   */
  private load(services: Readonly<Record<string, unknown>>, cached: boolean): void {
    this.states = new Map();
    this.restores++;
    this.bases = new Map();
    for (const name of Object.keys(services)) {
      const state = services[name];
      if (cached || isSealed(state)) this.bases.set(name, state);
      else this.states.set(name, clonePlain(state));
    }
  }

  private transact<S, R>(service: string, operation: (ctx: OperationContext<S>) => R): R {
    if (!this.definitions.has(service)) throw new UsageError(`unknown service "${service}"`);
    const slot = this.transactionContext(service);
    const undo: Undo = { cancelled: undefined, addedBlobs: undefined, droppedBlobs: undefined };
    slot.undo = undo;
    const mark = this.journal.begin();
    const traceMark = this.traceBuffer.length;
    const savedIds = this.ids.save();
    const savedBlobSeq = this.blobSeq;
    const savedNextMove = this.schedule.nextId;
    const ctx = slot.ctx;
    ctx.now = this.lastNow;
    // The operation sees the state through the journal's membrane: writes are recorded, not copied.
    ctx.state = this.journal.wrap(this.stateOf(service));
    this.transactionDepth++;
    let result: R;
    try {
      result = this.journal.unwrap(operation(ctx as OperationContext<S>));
    } catch (error) {
      this.journal.rollback(mark);
      this.traceBuffer.length = traceMark;
      this.ids.load(savedIds);
      this.blobSeq = savedBlobSeq;
      // The moves this operation scheduled go (their ids are given back); a move both scheduled
      // and cancelled by it never existed before it.
      this.schedule.discardFrom(savedNextMove);
      if (undo.cancelled !== undefined) for (const move of undo.cancelled) if (move.id < savedNextMove) this.schedule.insert(move);
      if (undo.addedBlobs !== undefined) for (const key of undo.addedBlobs) this.blobs.delete(key);
      if (undo.droppedBlobs !== undefined) for (const [key, bytes] of undo.droppedBlobs) this.blobs.set(key, bytes);
      throw error;
    } finally {
      this.transactionDepth--;
      slot.undo = undefined;
      ctx.state = undefined;
    }
    this.journal.commit();
    this.flushTrace();
    this.changed();
    return result;
  }

  private readContext<S>(service: string): ReadContext<S> {
    if (!this.definitions.has(service)) throw new UsageError(`unknown service "${service}"`);
    const now = this.lastNow;
    const ctx: ReadContext<S> = {
      now,
      state: this.stateOf(service) as S,
      scheduled: () => this.schedule.sorted(service),
      blob: (key) => this.blobs.get(key),
      trace: (event) => this.emitTrace(service, event),
    };
    if (this.mutated?.service === service) Object.assign(ctx, this.mutated.fields);
    return ctx;
  }

  /**
   * The context of a firing move: one object per service, kept and brought up to date (time and
   * state) before each move, since moves fire one at a time and nothing of them is rolled back.
   */
  private moveContext(service: string): ContextSlot["ctx"] {
    let slot = this.moveContexts.get(service);
    if (slot === undefined) {
      slot = this.contextSlot(service);
      this.moveContexts.set(service, slot);
    }
    return slot.ctx;
  }

  /** The context of a transaction of `service` at the current nesting depth (made on first use). */
  private transactionContext(service: string): ContextSlot {
    let slots = this.transactionContexts.get(service);
    if (slots === undefined) {
      slots = [];
      this.transactionContexts.set(service, slots);
    }
    let slot = slots[this.transactionDepth];
    if (slot === undefined) {
      slot = this.contextSlot(service);
      slots[this.transactionDepth] = slot;
    }
    return slot;
  }

  /** A context of `service` whose changes outside the state go to `slot.undo` (when set). */
  private contextSlot(service: string): ContextSlot {
    const slot = { undo: undefined } as { ctx: ContextSlot["ctx"]; undo: Undo | undefined };
    slot.ctx = {
      now: this.lastNow,
      state: undefined,
      scheduled: () => this.schedule.sorted(service),
      blob: (key) => this.blobs.get(key),
      trace: (event) => this.emitTrace(service, event),
      ids: this.ids,
      // Proxies exist only while a transaction is open: a firing move sees the state itself, and its
      // payloads (fresh objects, one per timed move) need no unwrapping (about 10% of a timed move).
      schedule: (at, kind, payload = null) => this.schedule.add(Math.max(at, this.lastNow), service, kind, this.journal.active ? this.journal.unwrap(payload) : payload),
      cancel: (moveId) => {
        const removed = this.schedule.cancel(moveId);
        if (removed !== undefined && slot.undo !== undefined) (slot.undo.cancelled ??= []).push(removed);
        return removed !== undefined;
      },
      putBlob: (bytes) => {
        const key = `blob-${++this.blobSeq}`;
        this.blobs.set(key, Uint8Array.from(bytes));
        if (slot.undo !== undefined) (slot.undo.addedBlobs ??= []).push(key);
        return key;
      },
      dropBlob: (key) => {
        const bytes = this.blobs.get(key);
        const undo = slot.undo;
        // Bytes stored by this same operation are not put back by a rollback: they never existed.
        if (undo !== undefined && bytes !== undefined && !undo.droppedBlobs?.has(key) && !undo.addedBlobs?.includes(key)) (undo.droppedBlobs ??= new Map()).set(key, bytes);
        this.blobs.delete(key);
      },
    };
    if (this.mutated?.service === service) Object.assign(slot.ctx, this.mutated.fields);
    return slot;
  }

  /**
   * Applies a service mutant's change: a mutated copy of a machine's table, a scaled limit (both
   * carried by the service's contexts), or an id format (set on the id source).
   * @throws {UsageError} when the mutation names no registered service, machine, row, limit or id kind.
   */
  private mutate(mutation: SimulatorMutation): { readonly service: string; readonly fields: Readonly<Record<symbol, unknown>> } {
    const definition = this.definitions.get(mutation.service);
    if (definition === undefined) throw new UsageError(`mutation: unknown service "${mutation.service}"`);
    switch (mutation.kind) {
      case "transition": {
        const machine = definition.traced?.machines?.find((m) => m.name === mutation.machine);
        if (machine === undefined) throw new UsageError(`mutation: service "${mutation.service}" has no machine "${mutation.machine}"`);
        const table = mutateMachine(machine, mutation.from, mutation.event, mutation.to);
        return { service: mutation.service, fields: { [MACHINE_TABLES]: new Map([[machine, table]]) } };
      }
      case "limit": {
        const limit = findLimit(definition.limits, mutation.limit);
        if (limit === undefined) throw new UsageError(`mutation: service "${mutation.service}" has no limit "${mutation.limit}"`);
        if (!(mutation.factor > 0) || !Number.isFinite(mutation.factor)) throw new UsageError(`mutation: a limit's factor must be a positive number, not ${String(mutation.factor)}`);
        return { service: mutation.service, fields: { [LIMIT_VALUES]: Object.freeze({ [limit.name]: scaleLimit(limit, mutation.factor) }) } };
      }
      case "id-format": {
        const kind = definition.idKinds?.find((k) => k.kind === mutation.idKind);
        const format = kind?.formats.find((f) => f.name === mutation.format);
        if (kind === undefined || format === undefined) throw new UsageError(`mutation: service "${mutation.service}" has no id kind "${mutation.idKind}" with format "${mutation.format}"`);
        this.ids.setFormat(kind.key, format);
        return { service: mutation.service, fields: {} };
      }
      default:
        throw new UsageError(`mutation: unknown kind "${(mutation as { kind?: unknown }).kind as string}"`);
    }
  }

  /** The live state of `service`, copied from its cached initial state on first use. */
  private stateOf(service: string): unknown {
    const state = this.states.get(service);
    if (state !== undefined || this.bases.size === 0) return state;
    const base = this.bases.get(service);
    if (base === undefined) return undefined;
    const copy = isSealed(base) ? clonePlain(base) : cloneSharingFrozen(base);
    this.states.set(service, copy);
    this.bases.delete(service);
    return copy;
  }

  private changed(): void {
    this.changeVersion++;
    if (this.changeListeners.size > 0) for (const listener of [...this.changeListeners]) listener();
    this.releaseWaiters();
  }

  private releaseWaiters(): void {
    if (this.waiters.size === 0) return;
    for (const waiter of [...this.waiters]) {
      if (this.changeVersion !== waiter.since || this.lastNow >= waiter.until) waiter.resolve();
    }
  }
}

/** A cached initial state: the state built, and the id source's state after building it. */
interface CachedInitialState {
  readonly state: unknown;
  readonly idsAfter: IdState;
}

/** How many (start time, id state) entries each definition keeps; a system clock starts at a new time each simulator. */
const INITIAL_STATES_KEPT = 16;

/** Per definition, its initial states built so far, by start time and id-source state. */
const initialStates = new WeakMap<ServiceDefinition<unknown>, Map<string, CachedInitialState>>();

/**
 * `definition`'s initial state for a simulator starting at `now` with `ids` (built on the first
 * call with these, then kept untouched; `ids` is left as the build leaves it).
 */
function cachedInitialState(definition: ServiceDefinition<unknown>, now: number, ids: IdSource): unknown {
  let entries = initialStates.get(definition);
  if (entries === undefined) initialStates.set(definition, (entries = new Map()));
  const key = `${now} ${ids.save().join(" ")}`;
  let entry = entries.get(key);
  if (entry === undefined) {
    const state = definition.initialState({ now, ids });
    entry = { state, idsAfter: ids.save() };
    entries.set(key, entry);
    if (entries.size > INITIAL_STATES_KEPT) entries.delete(entries.keys().next().value as string);
  } else {
    ids.load(entry.idsAfter);
  }
  return entry.state;
}

/**
 * Parses a duration for simulator-facing APIs (ms or a duration string).
 * @throws {DomainError} `invalid` when `by` is not a duration.
 * @example durationMs("1h30m") // 5_400_000
 */
export function durationMs(by: Duration): number {
  return parseDuration(by);
}
