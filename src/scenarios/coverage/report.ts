/**
 * The coverage report: which endpoints, states, transitions and named events of each service the
 * tests exercised, against the universe the fake itself runs on (route tables, transition tables,
 * event tables). Plain JSON with a stable shape; merging reports (workers, files) is a sum, so
 * its result does not depend on the order of the inputs.
 *
 * See docs/guides/see-what-your-tests-never-exercised.md and docs/decisions/coverage.md.
 */

/** The `format` of every report: bumped if the shape ever changes. */
export const COVERAGE_FORMAT = "infra-doubles-coverage/1";

/**
 * One dimension of coverage (endpoints, a machine's states, an event subject, ...).
 * Every item of the universe is either in `reached` or in `never`.
 */
export interface CoverageTally {
  /** How many items were reached at least once (`Object.keys(reached).length`). */
  readonly exercised: number;
  /** How many items there are (`exercised + never.length`). */
  readonly total: number;
  /** Times each reached item was reached, by label, labels sorted. */
  readonly reached: Readonly<Record<string, number>>;
  /** Labels of the items never reached, sorted. */
  readonly never: readonly string[];
  /**
   * Per reached item, the test files that reached it (paths relative to the project's root,
   * sorted). Present only when the coverage was collected in a test run that names its files (the
   * vitest global setup `infra-doubles/coverage`, Jest, `node --test` with
   * `INFRA_DOUBLES_COVERAGE_DIR` set); an item reached outside any test file (a
   * global setup, a worker's exit) has no entry.
   */
  readonly by?: Readonly<Record<string, readonly string[]>>;
}

/** Endpoint coverage: a {@link CoverageTally} of `METHOD /path` labels with the statuses answered. */
export interface EndpointTally extends CoverageTally {
  /** Per reached endpoint, answers by status code (`{ "GET /runs/:run_id": { "200": 3, "404": 1 } }`). */
  readonly statuses: Readonly<Record<string, Readonly<Record<string, number>>>>;
}

/** Coverage of one state machine: states entered and transitions (`from -> to`) taken. */
export interface MachineCoverage {
  readonly states: CoverageTally;
  /** Labels `from -> to`, or `from -> to (event)` where two events join the same pair of states. */
  readonly transitions: CoverageTally;
}

/** Coverage of one service. */
export interface ServiceCoverage {
  /** Endpoints answered (any status; the statuses are listed per endpoint). */
  readonly endpoints: EndpointTally;
  /** Requests the service answered that reached none of its endpoints (no route, wrong method, ...), by status. */
  readonly unmatched: Readonly<Record<string, number>>;
  /** Per state machine (by its name, e.g. `run`, `configuration version`). */
  readonly machines: Readonly<Record<string, MachineCoverage>>;
  /** Per event subject (`token`, `lease`, `node state`, `health code`). */
  readonly events: Readonly<Record<string, CoverageTally>>;
  /**
   * Answers of user routes (`doubles.<service>.route()`), by route name then status
   * (`{ "GET /secret/data/:path": { "200": 2 } }`): outside the fake's endpoints, so never in
   * `endpoints` or `unmatched`. Present only when a user route answered.
   */
  readonly userRoutes?: Readonly<Record<string, Readonly<Record<string, number>>>>;
  /** Answers a passthrough's real server gave, by status. Present only when one did. */
  readonly passedThrough?: Readonly<Record<string, number>>;
}

/**
 * What `doubles.coverage()` returns, and what the vitest helper merges and writes.
 * @example
 * {
 *   "format": "infra-doubles-coverage/1",
 *   "services": {
 *     "runs": {
 *       "endpoints": { "exercised": 2, "total": 24, "reached": { "GET /runs/:run_id": 3, ... }, "never": [...], "statuses": { "GET /runs/:run_id": { "200": 3 } } },
 *       "unmatched": {},
 *       "machines": { "run": { "states": {...}, "transitions": {...} }, "configuration version": {...} },
 *       "events": {}
 *     }
 *   }
 * }
 */
export interface CoverageReport {
  readonly format: typeof COVERAGE_FORMAT;
  /** Per service key (`runs`, `accessControl`, `secrets`), keys sorted. */
  readonly services: Readonly<Record<string, ServiceCoverage>>;
}

/** Sorted copy of a count record (labels in code-point order, so merging is deterministic). */
function sortedCounts(counts: ReadonlyMap<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const key of [...counts.keys()].sort(compare)) out[key] = counts.get(key) ?? 0;
  return out;
}

/** Code-point order (locale-independent). */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * A tally of `universe` from the counts of reached labels (a reached label outside the universe is
 * kept: it counts towards both `exercised` and `total`).
 * @example tally(["a", "b"], new Map([["a", 2]])) // { exercised: 1, total: 2, reached: { a: 2 }, never: ["b"] }
 */
export function tally(universe: Iterable<string>, counts: ReadonlyMap<string, number>, files?: ReadonlyMap<string, ReadonlySet<string>>): CoverageTally {
  const reached = new Map<string, number>();
  for (const [label, count] of counts) if (count > 0) reached.set(label, count);
  const never = [...new Set(universe)].filter((label) => !reached.has(label)).sort(compare);
  const base = { exercised: reached.size, total: reached.size + never.length, reached: sortedCounts(reached), never };
  if (files === undefined || files.size === 0) return base;
  const by: Record<string, string[]> = {};
  for (const label of [...files.keys()].sort(compare)) {
    const list = [...(files.get(label) ?? [])].sort(compare);
    if (reached.has(label) && list.length > 0) by[label] = list;
  }
  return Object.keys(by).length === 0 ? base : { ...base, by };
}

function addCounts(into: Map<string, number>, from: Readonly<Record<string, number>> | undefined): void {
  for (const [key, count] of Object.entries(from ?? {})) into.set(key, (into.get(key) ?? 0) + count);
}

function mergeTallies(tallies: readonly (CoverageTally | undefined)[]): CoverageTally {
  const counts = new Map<string, number>();
  const universe = new Set<string>();
  const files = new Map<string, Set<string>>();
  for (const t of tallies) {
    if (t === undefined) continue;
    addCounts(counts, t.reached);
    for (const label of t.never) universe.add(label);
    for (const [label, list] of Object.entries(t.by ?? {})) {
      let into = files.get(label);
      if (into === undefined) files.set(label, (into = new Set()));
      for (const file of list) into.add(file);
    }
  }
  return tally(universe, counts, files);
}

function mergeEndpoints(tallies: readonly (EndpointTally | undefined)[]): EndpointTally {
  const base = mergeTallies(tallies);
  const statuses = new Map<string, Map<string, number>>();
  for (const t of tallies) {
    for (const [label, byStatus] of Object.entries(t?.statuses ?? {})) {
      let into = statuses.get(label);
      if (into === undefined) statuses.set(label, (into = new Map()));
      addCounts(into, byStatus);
    }
  }
  const out: Record<string, Record<string, number>> = {};
  for (const label of [...statuses.keys()].sort(compare)) out[label] = sortedCounts(statuses.get(label) ?? new Map());
  return { ...base, statuses: out };
}

function keysOf<T>(records: readonly (Readonly<Record<string, T>> | undefined)[]): string[] {
  return [...new Set(records.flatMap((r) => Object.keys(r ?? {})))].sort(compare);
}

function mergeService(services: readonly (ServiceCoverage | undefined)[]): ServiceCoverage {
  const unmatched = new Map<string, number>();
  for (const s of services) addCounts(unmatched, s?.unmatched);
  const machines: Record<string, MachineCoverage> = {};
  for (const name of keysOf(services.map((s) => s?.machines))) {
    const parts = services.map((s) => s?.machines[name]);
    machines[name] = { states: mergeTallies(parts.map((m) => m?.states)), transitions: mergeTallies(parts.map((m) => m?.transitions)) };
  }
  const events: Record<string, CoverageTally> = {};
  for (const subject of keysOf(services.map((s) => s?.events))) events[subject] = mergeTallies(services.map((s) => s?.events[subject]));
  const outside: { userRoutes?: Record<string, Record<string, number>>; passedThrough?: Record<string, number> } = {};
  const routeNames = keysOf(services.map((s) => s?.userRoutes));
  if (routeNames.length > 0) {
    outside.userRoutes = {};
    for (const name of routeNames) {
      const counts = new Map<string, number>();
      for (const s of services) addCounts(counts, s?.userRoutes?.[name]);
      outside.userRoutes[name] = sortedCounts(counts);
    }
  }
  if (services.some((s) => s?.passedThrough !== undefined)) {
    const counts = new Map<string, number>();
    for (const s of services) addCounts(counts, s?.passedThrough);
    outside.passedThrough = sortedCounts(counts);
  }
  return { endpoints: mergeEndpoints(services.map((s) => s?.endpoints)), unmatched: sortedCounts(unmatched), machines, events, ...outside };
}

/**
 * Merges reports (from several doubles, workers or test files) into one: counts add up, an item
 * reached in any report is reached, and everything is sorted, so the result does not depend on
 * the order of `reports`.
 * @throws {TypeError} for a value that is not a coverage report of this format.
 * @example const all = mergeCoverage([a.coverage(), b.coverage()]);
 */
export function mergeCoverage(reports: readonly CoverageReport[]): CoverageReport {
  for (const report of reports) {
    if (report === null || typeof report !== "object" || report.format !== COVERAGE_FORMAT) {
      throw new TypeError(`infra-doubles: not a coverage report of format ${COVERAGE_FORMAT}`);
    }
  }
  const services: Record<string, ServiceCoverage> = {};
  for (const key of keysOf(reports.map((r) => r.services))) services[key] = mergeService(reports.map((r) => r.services[key]));
  return { format: COVERAGE_FORMAT, services };
}

/** Options of {@link formatCoverageSummary}. */
export interface SummaryOptions {
  /** At most this many never-reached items are named per service (default 8; the rest are counted). */
  readonly maxNever?: number;
}

/**
 * A short text summary, one line per service and one line of never-reached items, e.g.
 * `runs: endpoints 5/24; run 9/27 states, 8/41 transitions; ...` then
 * `  never reached: run: policy_checking -> policy_override, ..., and 31 more`.
 * Never-reached transitions come first, then states, events and endpoints.
 * @example console.log(formatCoverageSummary(doubles.coverage()));
 */
export function formatCoverageSummary(report: CoverageReport, options: SummaryOptions = {}): string {
  const maxNever = options.maxNever ?? 8;
  const lines: string[] = [];
  for (const [key, service] of Object.entries(report.services)) {
    const parts = [`endpoints ${service.endpoints.exercised}/${service.endpoints.total}`];
    const never: string[] = [];
    for (const [name, machine] of Object.entries(service.machines)) {
      parts.push(`${name} ${machine.states.exercised}/${machine.states.total} states, ${machine.transitions.exercised}/${machine.transitions.total} transitions`);
      never.push(...machine.transitions.never.map((label) => `${name}: ${label}`));
    }
    for (const [name, machine] of Object.entries(service.machines)) never.push(...machine.states.never.map((label) => `${name}: ${label}`));
    for (const [subject, events] of Object.entries(service.events)) {
      parts.push(`${subject} ${events.exercised}/${events.total}`);
      never.push(...events.never.map((label) => `${subject}: ${label}`));
    }
    never.push(...service.endpoints.never);
    const userRoutes = Object.keys(service.userRoutes ?? {});
    if (userRoutes.length > 0) parts.push(`user routes: ${userRoutes.join(", ")}`);
    const passed = Object.values(service.passedThrough ?? {}).reduce((a, b) => a + b, 0);
    if (passed > 0) parts.push(`passed through ${passed}`);
    lines.push(`${key}: ${parts.join("; ")}`);
    if (never.length > 0) {
      const shown = never.slice(0, maxNever).join(", ");
      lines.push(`  never reached: ${shown}${never.length > maxNever ? `, and ${never.length - maxNever} more` : ""}`);
    }
  }
  return lines.join("\n");
}
