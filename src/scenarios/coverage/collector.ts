/**
 * The coverage collector: counts, per service, the endpoints answered (by status), the states
 * entered and transitions taken (from the simulator's trace) and the named events traced (token
 * and lease lifecycles, node states, health codes). Observation only: it reads what the handler
 * answered and what the simulator traced, and never changes either. A request or a traced event
 * costs a few lookups in nested maps (O(1), no key string built); the universes are read once from
 * the route and transition tables, and labels are made when a report is.
 */
import { machineTransitions, type Machine } from "../../simulator/kernel/machine.js";
import type { Simulator } from "../../simulator/kernel/simulator.js";
import type { TraceEvent } from "../../simulator/kernel/trace.js";
import type { AnswerObserver } from "../../interceptors/handler.js";
import { endpointsOf } from "../../interceptors/router.js";
import type { ServicePlugin } from "../plugin.js";
import { COVERAGE_FORMAT, compare, tally, type CoverageReport, type CoverageTally, type EndpointTally, type MachineCoverage, type ServiceCoverage } from "./report.js";

/** One machine's universe and the label of each of its rows. */
interface MachineUniverse {
  readonly states: readonly string[];
  /** `from\tevent` -> label (`from -> to`, or `from -> to (event)` when two events join the pair). */
  readonly transitionLabels: ReadonlyMap<string, string>;
}

/** One service's universe and counters. */
interface ServiceCounters {
  readonly key: string;
  readonly endpoints: ReadonlySet<string>;
  readonly machines: ReadonlyMap<string, MachineUniverse>;
  readonly events: ReadonlyMap<string, readonly string[]>;
  /** label -> status -> count (nested maps: counting an answer builds no key string). */
  readonly answers: Map<string, Map<number, number>>;
  /** status -> count, for answers outside the endpoints. */
  readonly unmatched: Map<number, number>;
  /** user route name -> status -> count (answers of routes users added). */
  readonly userRoutes: Map<string, Map<number, number>>;
  /** status -> count, for answers of a passthrough's real server. */
  readonly passedThrough: Map<number, number>;
  /** machine -> state -> count (nested maps: a traced event builds no key string). */
  readonly states: Map<string, Map<string, number>>;
  /** machine -> from -> event -> the row's count (its label is read when a report is made). */
  readonly transitions: Map<string, Map<string, Map<string, TransitionCount>>>;
  /** subject -> name -> count. */
  readonly named: Map<string, Map<string, number>>;
  /**
   * The test files that reached each row, when the collector has a {@link CoverageCollectorOptions.testFile}
   * source (same nesting as the counts; a transition's files are on its {@link TransitionCount}).
   */
  readonly answersBy: Map<string, Set<string>>;
  readonly statesBy: Map<string, Map<string, Set<string>>>;
  readonly namedBy: Map<string, Map<string, Set<string>>>;
  /**
   * A traced row's counts by its event object: the kernel traces one frozen event per row
   * (`takeTransition`), so a row taken again is counted after one lookup instead of four in the
   * nested maps. Emptied with the counts.
   */
  rows: WeakMap<TraceEvent, RowCell>;
}

/** Where a traced row's counts are (see {@link ServiceCounters.rows}). */
interface RowCell {
  readonly row: TransitionCount;
  /** The machine's state counts (`to` is counted there too). */
  readonly states: Map<string, number>;
}

/** How often one row of a machine was taken, and where it led (for a row outside the table's labels). */
interface TransitionCount {
  readonly to: string;
  count: number;
  /** The test files that took it (only with a test-file source). */
  files?: Set<string>;
}

/** Options of {@link CoverageCollector}. */
export interface CoverageCollectorOptions {
  /**
   * The test file running now (a path relative to the project's root), or `undefined` outside a
   * test file: called once per answer and per traced event, so it must be cheap (a property read).
   * With it, every row of the report names the test files that reached it (`CoverageTally.by`).
   */
  readonly testFile?: () => string | undefined;
}

/**
 * The rows of `machine` with their labels: `from -> to`, and `from -> to (event)` for rows whose
 * pair of states another event also joins.
 * @example transitionLabels(configurationVersionMachine).get("uploaded\tauto-archive") // "uploaded -> archived (auto-archive)"
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function transitionLabels(machine: Machine<any, any>): Map<string, string> {
  const rows = machineTransitions(machine);
  const pairs = new Map<string, number>();
  for (const row of rows) pairs.set(`${row.from}\t${row.to}`, (pairs.get(`${row.from}\t${row.to}`) ?? 0) + 1);
  const labels = new Map<string, string>();
  for (const row of rows) {
    const shared = (pairs.get(`${row.from}\t${row.to}`) ?? 0) > 1;
    labels.set(`${row.from}\t${row.event}`, `${row.from} -> ${row.to}${shared ? ` (${row.event})` : ""}`);
  }
  return labels;
}

/** What a service can exercise: read from its tables, the same for every collector. */
interface ServiceUniverse {
  readonly endpoints: ReadonlySet<string>;
  readonly machines: ReadonlyMap<string, MachineUniverse>;
  readonly events: ReadonlyMap<string, readonly string[]>;
}

/**
 * Each plugin's universe, read once per process: the route and transition tables do not change,
 * and reading them was a quarter of `createDoubles()` (about 150 us of 600 us, measured).
 */
const universes = new WeakMap<ServicePlugin<unknown>, ServiceUniverse>();

function universeOf(plugin: ServicePlugin<unknown>): ServiceUniverse {
  let universe = universes.get(plugin);
  if (universe === undefined) {
    const traced = plugin.definition.traced ?? {};
    const machines = new Map<string, MachineUniverse>();
    for (const machine of traced.machines ?? []) {
      machines.set(machine.name, { states: Object.keys(machine.states), transitionLabels: transitionLabels(machine) });
    }
    universe = { endpoints: new Set(endpointsOf(plugin.http)), machines, events: new Map(Object.entries(traced.events ?? {})) };
    universes.set(plugin, universe);
  }
  return universe;
}

/**
 * Counts what tests exercised in one simulator, against the universes of `plugins`.
 * @example
 * const collector = new CoverageCollector(sim, plugins);
 * createHandler({ sim, mounts, observe: collector.observe });
 * collector.report().services.runs.endpoints.exercised // 1
 */
export class CoverageCollector {
  /** Per service name, its universe and its counters (made on its first count: 11 maps a service). */
  private readonly byService = new Map<string, { readonly key: string; readonly universe: ServiceUniverse; counters: ServiceCounters | undefined }>();
  private readonly stopTrace: () => void;
  private readonly testFile: (() => string | undefined) | undefined;
  /**
   * Called after each count (an answer or a traced event), when set: the coverage sink's eager
   * mode writes the coverage file soon after (`infra-doubles mutate`'s faithful run).
   */
  onCount: (() => void) | undefined = undefined;

  constructor(sim: Simulator, plugins: readonly ServicePlugin<unknown>[], options: CoverageCollectorOptions = {}) {
    this.testFile = options.testFile;
    for (const plugin of plugins) this.byService.set(plugin.definition.name, { key: plugin.key, universe: universeOf(plugin), counters: undefined });
    this.stopTrace = sim.onTrace((service, event) => this.traced(service, event));
  }

  /** The handler's observer: counts one answer of `service`. */
  readonly observe: AnswerObserver = (service, endpoint, status, answeredBy) => {
    const counters = this.countersOf(service);
    if (counters === undefined) return; // the control API, extra server-only services
    if (answeredBy === "passthrough") bump(counters.passedThrough, status);
    else if (answeredBy === "user route" && endpoint !== undefined) {
      let byStatus = counters.userRoutes.get(endpoint);
      if (byStatus === undefined) counters.userRoutes.set(endpoint, (byStatus = new Map()));
      bump(byStatus, status);
    }
    else if (endpoint !== undefined && counters.endpoints.has(endpoint)) {
      let byStatus = counters.answers.get(endpoint);
      if (byStatus === undefined) counters.answers.set(endpoint, (byStatus = new Map()));
      bump(byStatus, status);
      const file = this.testFile?.();
      if (file !== undefined) addFile(counters.answersBy, endpoint, file);
    } else bump(counters.unmatched, status);
    this.onCount?.();
  };

  /** Stops observing the simulator's trace (answers are observed only by handlers built with {@link CoverageCollector.observe}). */
  stop(): void {
    this.stopTrace();
  }

  /** Forgets every count (the universes stay). */
  clear(): void {
    for (const entry of this.byService.values()) entry.counters = undefined;
  }

  /** The counts so far as a {@link CoverageReport} (a new object each call, sorted). */
  report(): CoverageReport {
    const services: Record<string, ServiceCoverage> = {};
    const ordered = [...this.byService.values()].sort((a, b) => compare(a.key, b.key));
    for (const entry of ordered) services[entry.key] = serviceReport(entry.counters ?? newCounters(entry.key, entry.universe));
    return { format: COVERAGE_FORMAT, services };
  }

  /** The counters of service `service` (made on first use); undefined for a service not counted here. */
  private countersOf(service: string): ServiceCounters | undefined {
    const entry = this.byService.get(service);
    if (entry === undefined) return undefined;
    return (entry.counters ??= newCounters(entry.key, entry.universe));
  }

  private traced(service: string, event: TraceEvent): void {
    const counters = this.countersOf(service);
    if (counters === undefined) return;
    this.onCount?.();
    const file = this.testFile?.();
    switch (event.kind) {
      case "state":
        bump(inner(counters.states, event.machine), event.state);
        if (file !== undefined) addFile(inner(counters.statesBy, event.machine), event.state, file);
        return;
      case "transition": {
        let cell = counters.rows.get(event);
        if (cell === undefined) {
          const byEvent = inner(inner(counters.transitions, event.machine), event.from);
          let row = byEvent.get(event.event);
          if (row === undefined) byEvent.set(event.event, (row = { to: event.to, count: 0 }));
          cell = { row, states: inner(counters.states, event.machine) };
          // Only the kernel's shared (frozen) events come back; remembering others would cost more than it saves.
          if (Object.isFrozen(event)) counters.rows.set(event, cell);
        }
        const row = cell.row;
        row.count++;
        if (file !== undefined) (row.files ??= new Set()).add(file);
        bump(cell.states, event.to);
        if (file !== undefined) addFile(inner(counters.statesBy, event.machine), event.to, file);
        return;
      }
      case "event":
        bump(inner(counters.named, event.subject), event.name);
        if (file !== undefined) addFile(inner(counters.namedBy, event.subject), event.name, file);
        return;
    }
  }
}

/** Empty counters of one service. */
function newCounters(key: string, universe: ServiceUniverse): ServiceCounters {
  return {
    key,
    endpoints: universe.endpoints,
    machines: universe.machines,
    events: universe.events,
    answers: new Map(),
    unmatched: new Map(),
    userRoutes: new Map(),
    passedThrough: new Map(),
    states: new Map(),
    transitions: new Map(),
    named: new Map(),
    answersBy: new Map(),
    statesBy: new Map(),
    namedBy: new Map(),
    rows: new WeakMap(),
  };
}

function bump<K>(map: Map<K, number>, key: K): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

function addFile(map: Map<string, Set<string>>, key: string, file: string): void {
  let files = map.get(key);
  if (files === undefined) map.set(key, (files = new Set()));
  files.add(file);
}

/** The map `outer` holds under `key` (made on first use). */
function inner<V>(outer: Map<string, Map<string, V>>, key: string): Map<string, V> {
  let map = outer.get(key);
  if (map === undefined) outer.set(key, (map = new Map()));
  return map;
}

/** The counts of one machine's rows, keyed by label (`from -> to`, or `from -> to (event)`). */
function transitionCounts(rows: ReadonlyMap<string, ReadonlyMap<string, TransitionCount>> | undefined, universe: MachineUniverse): { counts: Map<string, number>; files: Map<string, Set<string>> } {
  const out = new Map<string, number>();
  const files = new Map<string, Set<string>>();
  for (const [from, byEvent] of rows ?? []) {
    for (const [event, row] of byEvent) {
      const label = universe.transitionLabels.get(`${from}\t${event}`) ?? `${from} -> ${row.to} (${event})`;
      out.set(label, (out.get(label) ?? 0) + row.count);
      for (const file of row.files ?? []) addFile(files, label, file);
    }
  }
  return { counts: out, files };
}

function serviceReport(counters: ServiceCounters): ServiceCoverage {
  const perEndpoint = new Map<string, number>();
  const statuses = new Map<string, Map<string, number>>();
  for (const [label, counts] of counters.answers) {
    const byStatus = new Map<string, number>();
    let sum = 0;
    for (const [status, count] of counts) {
      byStatus.set(String(status), count);
      sum += count;
    }
    perEndpoint.set(label, sum);
    statuses.set(label, byStatus);
  }
  const base = tally(counters.endpoints, perEndpoint, counters.answersBy);
  const statusRecord: Record<string, Record<string, number>> = {};
  for (const label of [...statuses.keys()].sort(compare)) {
    const byStatus = statuses.get(label) ?? new Map<string, number>();
    statusRecord[label] = Object.fromEntries([...byStatus.keys()].sort(compare).map((status) => [status, byStatus.get(status) ?? 0]));
  }
  const endpoints: EndpointTally = { ...base, statuses: statusRecord };
  const unmatched: Record<string, number> = {};
  for (const status of [...counters.unmatched.keys()].sort((a, b) => a - b)) unmatched[String(status)] = counters.unmatched.get(status) ?? 0;
  const machines: Record<string, MachineCoverage> = {};
  for (const name of [...counters.machines.keys()].sort(compare)) {
    const universe = counters.machines.get(name) as MachineUniverse;
    const taken = transitionCounts(counters.transitions.get(name), universe);
    machines[name] = {
      states: tally(universe.states, counters.states.get(name) ?? new Map(), counters.statesBy.get(name)),
      transitions: tally(universe.transitionLabels.values(), taken.counts, taken.files),
    };
  }
  const events: Record<string, CoverageTally> = {};
  for (const subject of [...counters.events.keys()].sort(compare)) {
    events[subject] = tally(counters.events.get(subject) ?? [], counters.named.get(subject) ?? new Map(), counters.namedBy.get(subject));
  }
  const outside: { userRoutes?: Record<string, Record<string, number>>; passedThrough?: Record<string, number> } = {};
  if (counters.userRoutes.size > 0) {
    outside.userRoutes = Object.fromEntries(
      [...counters.userRoutes.keys()].sort(compare).map((label) => {
        const byStatus = counters.userRoutes.get(label) ?? new Map<number, number>();
        return [label, Object.fromEntries([...byStatus.keys()].sort((a, b) => a - b).map((status) => [String(status), byStatus.get(status) ?? 0]))];
      }),
    );
  }
  if (counters.passedThrough.size > 0) {
    outside.passedThrough = Object.fromEntries([...counters.passedThrough.keys()].sort((a, b) => a - b).map((status) => [String(status), counters.passedThrough.get(status) ?? 0]));
  }
  return { endpoints, unmatched, machines, events, ...outside };
}
