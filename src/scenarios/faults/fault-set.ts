/**
 * `doubles.faults`: the faults of one doubles instance, applied to requests through every
 * transport at one point of the handler pipeline (the handler asks {@link FaultSet.plan} once per
 * routed request). Counting, windows and probability draws happen here, on the simulator's clock
 * and from a random stream seeded by the doubles' seed; the bytes of every answer come from the
 * service's own error writer (`src/interceptors/<service>/fault-answers.ts`).
 *
 * Implements issue 10 item 1; DESIGN.md "Faults".
 */
import type { FaultPlan, FaultQuery, FaultSource } from "../../interceptors/faults.js";
import { MAX_EPOCH_MS } from "../../simulator/kernel/clock.js";
import { IdSource, type IdState } from "../../simulator/kernel/ids.js";
import type { Simulator } from "../../simulator/kernel/simulator.js";
import { isoMillis } from "../../simulator/kernel/time.js";
import { checkFault, type CheckedFault, type FaultDefinition, type FaultTarget } from "./fault-definition.js";

/** A fault as `list()` (and `GET /_sim/faults`) shows it. */
export interface FaultView extends Omit<FaultDefinition, "from" | "until" | "id"> {
  readonly id: string;
  /** Start of the active window, ISO 8601 simulated time (absent: from the start). */
  readonly from?: string;
  /** End of the active window (excluded), ISO 8601 simulated time (absent: no end). */
  readonly until?: string;
  /** Matching requests seen so far (inside the window). */
  readonly seen: number;
  /** Times the fault was applied. */
  readonly applied: number;
  /** Whether `times` is used up. */
  readonly exhausted: boolean;
}

/** What `faults.add()` returns. */
export interface FaultHandle {
  /** The fault's id (named in journal entries). */
  readonly id: string;
  /** Times applied so far. */
  readonly applied: number;
  /** Matching requests seen so far. */
  readonly seen: number;
  /** Removes the fault. Safe to call twice. */
  remove(): void;
}

/** Faults as {@link FaultSet.save} took them (opaque: give it back to {@link FaultSet.load}). */
export interface SavedFaults {
  /** The checked faults, in order (internal form). */
  readonly faults: readonly unknown[];
  readonly nextId: number;
  readonly random: Readonly<IdState>;
}

/** Faults as a state document holds them (see {@link FaultSet.document}). */
export interface FaultsDocument {
  /** The number of the next fault added without an id (`fault-<nextId>`). */
  readonly nextId: number;
  /** The state of the probability draws. */
  readonly random: readonly number[];
  /** Every fault as {@link FaultSet.list} shows it, in the order they apply. */
  readonly list: readonly FaultView[];
}

interface LiveFault {
  readonly checked: CheckedFault;
  /** Place in the order faults apply (grows with each add; {@link FaultSet.load} renumbers). */
  readonly order: number;
  seen: number;
  applied: number;
}

/**
 * Where a fault is filed: by the route it names, else by the operation it names, else under every
 * request of its service. A request looks in its route's, its operation's and its service's
 * buckets only, so it costs what may match it, not how many faults are defined (issue 24 item 7).
 */
function bucketOf(checked: CheckedFault): string {
  if (checked.route !== undefined) return `route ${checked.route}`;
  if (checked.definition.operation !== undefined) return `operation ${checked.definition.operation}`;
  return "service";
}

/** A change to the faults, as {@link FaultSet} reports it to its `changed` listener. */
export type FaultChange = { readonly kind: "fault.add"; readonly definition: FaultDefinition } | { readonly kind: "fault.remove"; readonly id: string } | { readonly kind: "fault.clear" };

/** The faults of one service, by bucket; each bucket in the order its faults apply. */
type ServiceIndex = Map<string, LiveFault[]>;

/**
 * The faults of one doubles instance. Tests add faults for one test and clear them after it:
 *
 * @example
 * afterEach(() => doubles.faults.clear());
 * it("retries a rate-limited apply", async () => {
 *   doubles.faults.add({ service: "runs", route: "POST /runs/:run_id/actions/apply", answer: "rate-limited", retryAfter: "2s", times: 1 });
 *   // the first apply gets 429 with Retry-After: 2, the retry goes through
 * });
 */
export class FaultSet implements FaultSource {
  private readonly faults: LiveFault[] = [];
  /** The same faults, by service key, then by {@link bucketOf}. */
  private readonly index = new Map<string, ServiceIndex>();
  private nextOrder = 0;
  private nextId = 1;
  private readonly random: IdSource;
  /** Releases of waits in progress (latency and never-answered requests), run on `close()`. */
  private readonly waits = new Set<() => void>();

  /**
   * @param sim - the simulator whose clock times the windows and latency, and whose seed seeds the draws.
   * @param targets - the services faults can target.
   */
  constructor(
    private readonly sim: Simulator,
    private readonly targets: () => readonly FaultTarget[],
    /** Told of every fault added, removed or cleared (the replay-bundle recorder). */
    private readonly changed?: (change: FaultChange) => void,
  ) {
    this.random = new IdSource(`${String(sim.seed)}/faults`);
  }

  /** Whether any fault is defined. */
  get active(): boolean {
    return this.faults.length > 0;
  }

  /**
   * Adds a fault (see {@link FaultDefinition}). Faults apply in the order added: the first whose
   * conditions hold decides a request.
   * @returns a handle: its `id`, counts, and `remove()`.
   * @throws {TypeError} for a bad definition, naming the field (an unknown service, route,
   *   operation or answer comes with the valid or nearest ones), or an id in use.
   * @example
   * const fault = doubles.faults.add({ service: "secrets", answer: "sealed", times: 2 });
   * fault.remove();
   */
  add(definition: FaultDefinition): FaultHandle {
    const checked = checkFault(definition, this.targets(), this.sim.now(), `fault-${this.nextId}`);
    if (this.faults.some((f) => f.checked.id === checked.id)) throw new TypeError(`infra-doubles: faults.add: id "${checked.id}" is in use`);
    if (definition.id === undefined) this.nextId++;
    const live: LiveFault = { checked, order: this.nextOrder++, seen: 0, applied: 0 };
    this.push(live);
    this.changed?.({ kind: "fault.add", definition });
    return {
      id: checked.id,
      get applied() {
        return live.applied;
      },
      get seen() {
        return live.seen;
      },
      remove: () => {
        this.remove(checked.id);
      },
    };
  }

  /**
   * The faults, in the order they apply.
   * @example doubles.faults.list() // [{ id: "fault-1", service: "runs", answer: "rate-limited", seen: 1, applied: 1, exhausted: true }]
   */
  list(): FaultView[] {
    return this.faults.map(({ checked, seen, applied }) => {
      const { from: _from, until: _until, id: _id, ...rest } = checked.definition;
      return {
        id: checked.id,
        ...rest,
        ...(Number.isFinite(checked.from) ? { from: isoMillis(checked.from) } : {}),
        ...(Number.isFinite(checked.until) ? { until: isoMillis(checked.until) } : {}),
        seen,
        applied,
        exhausted: checked.definition.times !== undefined && applied >= checked.definition.times,
      };
    });
  }

  /**
   * Removes one fault.
   * @returns whether a fault had this id.
   */
  remove(id: string): boolean {
    const index = this.faults.findIndex((f) => f.checked.id === id);
    if (index < 0) return false;
    const [live] = this.faults.splice(index, 1) as [LiveFault];
    const service = this.index.get(live.checked.target.key);
    const key = bucketOf(live.checked);
    const bucket = service?.get(key) ?? [];
    bucket.splice(bucket.indexOf(live), 1);
    if (bucket.length === 0) service?.delete(key);
    if (service?.size === 0) this.index.delete(live.checked.target.key);
    this.changed?.({ kind: "fault.remove", id });
    return true;
  }

  /** Removes every fault (call it in `afterEach`). Ids start again at `fault-1`. */
  clear(): void {
    this.faults.length = 0;
    this.index.clear();
    this.nextId = 1;
    this.changed?.({ kind: "fault.clear" });
  }

  /**
   * The faults as they stand (definitions, ids, order, the next id, the probability draws), for
   * {@link FaultSet.load}: what a reset of the doubles goes back to.
   * @example const saved = doubles.faults.save();
   */
  save(): SavedFaults {
    return { faults: this.faults.map((f) => f.checked), nextId: this.nextId, random: this.random.save() };
  }

  /**
   * Puts back faults taken by {@link FaultSet.save}: every fault added since is removed, and the
   * saved ones count from 0 again (`seen`, `applied`, `times`).
   * @example doubles.faults.load(saved);
   */
  load(saved: SavedFaults): void {
    this.faults.length = 0;
    this.index.clear();
    this.nextOrder = 0;
    for (const checked of saved.faults as readonly CheckedFault[]) this.push({ checked, order: this.nextOrder++, seen: 0, applied: 0 });
    this.nextId = saved.nextId;
    this.random.load([...saved.random] as IdState);
  }

  /**
   * The faults as a state document holds them (plain JSON): each as {@link FaultSet.list} shows
   * it (its counts included), the next id and the probability draws. See `exportState()`.
   * @example doubles.faults.document() // { nextId: 2, random: [...], list: [{ id: "fault-1", ..., seen: 0, applied: 0, exhausted: false }] }
   */
  document(): FaultsDocument {
    return { nextId: this.nextId, random: [...this.random.save()], list: this.list() };
  }

  /**
   * Checks the faults of a state document and returns what puts them in place (replacing every
   * fault, counts as saved); nothing changes until it is called.
   * @throws {TypeError} for a bad fault, with `index` (its place in `list`) and `field` when known.
   * @example doubles.faults.prepareDocument(saved.faults)();
   */
  prepareDocument(document: FaultsDocument): () => void {
    const now = this.sim.now();
    const prepared = document.list.map((view, index) => {
      const { seen, applied, exhausted: _exhausted, ...definition } = view;
      try {
        return { checked: checkFault(definition, this.targets(), now, view.id), seen, applied };
      } catch (error) {
        throw Object.assign(error as Error, { index });
      }
    });
    return () => {
      this.clear();
      this.nextOrder = 0;
      for (const { checked, seen, applied } of prepared) this.push({ checked, order: this.nextOrder++, seen, applied });
      this.nextId = document.nextId;
      this.random.load([...document.random] as IdState);
    };
  }

  /**
   * Ends every wait in progress (latency, requests never answered): called by `doubles.close()`,
   * so no fault keeps the process or the test runner alive.
   */
  release(): void {
    for (const release of [...this.waits]) release();
    this.waits.clear();
  }

  /** Files a fault at the end of the order and of its bucket. */
  private push(live: LiveFault): void {
    this.faults.push(live);
    const key = live.checked.target.key;
    let service = this.index.get(key);
    if (service === undefined) this.index.set(key, (service = new Map()));
    const bucket = bucketOf(live.checked);
    const list = service.get(bucket);
    if (list === undefined) service.set(bucket, [live]);
    else list.push(live);
  }

  /**
   * The plan for one routed request (counts it). Called by the handler. Looks only at the faults
   * filed under the request's route, its operation and its whole service, merged back into the
   * order they were added, so the first whose conditions hold decides, as if every fault were
   * looked at in order.
   */
  plan(query: FaultQuery): FaultPlan | undefined {
    const service = this.index.get(query.service);
    if (service === undefined) return undefined;
    const byRoute = query.route === undefined ? undefined : service.get(`route ${query.route}`);
    const byOperation = query.operation === undefined ? undefined : service.get(`operation ${query.operation}`);
    const anyRequest = service.get("service");
    const buckets = [byRoute, byOperation, anyRequest].filter((bucket): bucket is LiveFault[] => bucket !== undefined);
    if (buckets.length === 0) return undefined;
    const next = buckets.map(() => 0);
    let now: number | undefined;
    for (;;) {
      // The earliest-added fault at the head of the buckets.
      let from = -1;
      for (let b = 0; b < buckets.length; b++) {
        const head = (buckets[b] as LiveFault[])[next[b] as number];
        if (head !== undefined && (from < 0 || head.order < ((buckets[from] as LiveFault[])[next[from] as number] as LiveFault).order)) from = b;
      }
      if (from < 0) return undefined;
      const fault = (buckets[from] as LiveFault[])[next[from] as number] as LiveFault;
      next[from] = (next[from] as number) + 1;
      const { checked } = fault;
      now ??= this.sim.now();
      if (!this.matches(checked, query, now)) continue;
      fault.seen++;
      const { times, after, probability } = checked.definition;
      if (after !== undefined && fault.seen <= after) continue;
      if (times !== undefined && fault.applied >= times) continue;
      if (probability !== undefined && !(this.random.float() < probability)) continue;
      fault.applied++;
      return this.planOf(checked);
    }
  }

  private matches(checked: CheckedFault, query: FaultQuery, now: number): boolean {
    if (query.service !== checked.target.key) return false;
    if (now < checked.from || now >= checked.until) return false;
    const { definition } = checked;
    if (definition.operation !== undefined && query.operation !== definition.operation) return false;
    // The route's name, as the handler names the request's route (`POST /ssh/creds/:name`).
    if (checked.route !== undefined && query.route !== checked.route) return false;
    if (checked.answer?.appliesTo !== undefined && !checked.answer.appliesTo(query.request)) return false;
    return true;
  }

  private planOf(checked: CheckedFault): FaultPlan {
    const { definition } = checked;
    const latency = checked.latencyMs;
    return {
      id: checked.id,
      commit: definition.commit === true,
      ...(definition.answer === undefined ? {} : { answer: definition.answer }),
      ...(checked.retryAfterMs === undefined ? {} : { answerOptions: { retryAfterMs: checked.retryAfterMs } }),
      ...(definition.connection === undefined ? {} : { connection: definition.connection }),
      ...(latency === undefined || latency === 0 ? {} : { delay: (signal: AbortSignal | undefined) => this.delay(latency, signal) }),
      ...(definition.connection === "no-response" ? { hold: (signal: AbortSignal | undefined) => this.wait(undefined, signal) } : {}),
    };
  }

  /**
   * Latency: a clock that moves only by hand (manual) is advanced by `ms`; a clock that follows
   * real time (system, fake timers, advanceable) is waited on through the clock's wake-up, until
   * the clock reads `ms` later (so `vi.useFakeTimers()` controls it).
   */
  private async delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
    const clock = this.sim.clock as { wakeAt?: unknown; advance?: unknown };
    if (typeof clock.wakeAt !== "function" && typeof clock.advance === "function") {
      // A clock already near the last time a Date holds stops there rather than failing the request.
      this.sim.advance(Math.min(ms, MAX_EPOCH_MS - this.sim.now()));
      return;
    }
    await this.wait(ms, signal);
  }

  /**
   * Waits `ms` of the simulator's clock (or forever), ended early by `signal` or by
   * {@link FaultSet.release}. The wait goes through the clock's own wake-up (`Clock.wakeAt`, the
   * one blocking queries use), so fake timers drive it and no timer lives outside the clocks; a
   * wake-up that comes early (fake-timers clocks look again every second) waits again.
   */
  private wait(ms: number | undefined, signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve) => {
      if (signal?.aborted === true) {
        resolve();
        return;
      }
      let cancelWake: (() => void) | undefined;
      const done = (): void => {
        cancelWake?.();
        cancelWake = undefined;
        signal?.removeEventListener("abort", done);
        this.waits.delete(done);
        resolve();
      };
      if (ms !== undefined && this.sim.clock.wakeAt === undefined) {
        resolve(); // a custom clock that can neither wake nor be advanced: latency cannot be waited on
        return;
      }
      if (ms !== undefined) {
        const until = this.sim.now() + ms;
        const arm = (): void => {
          cancelWake = this.sim.clock.wakeAt?.(until, () => {
            cancelWake = undefined;
            if (this.sim.now() >= until) done();
            else arm();
          });
        };
        arm();
      }
      signal?.addEventListener("abort", done, { once: true });
      this.waits.add(done);
    });
  }

}
