/**
 * The state tables the diagrams draw: the run and configuration version machines (read from their
 * frozen transition tables, `runMachine` and `configurationVersionMachine`), and the lifecycles of
 * access-control tokens, secrets tokens, leases and the secrets node, whose transitions are the
 * named events the simulator traces (`ACL_TOKEN_EVENTS`, `SECRETS_TOKEN_EVENTS`, `LEASE_EVENTS`,
 * `NODE_STATES`). Each table says how coverage counts its rows (a machine's transition labels, or
 * an event subject's names) and how many stored items are in each state now.
 *
 * See docs/decisions/coverage.md "State diagrams".
 */
import { machineTransitions, type Machine } from "../../simulator/kernel/machine.js";
import type { Simulator } from "../../simulator/kernel/simulator.js";
import { ACL_TOKEN_EVENTS, ACL_TOKEN_SUBJECT } from "../../simulator/access-control/token-events.js";
import { isExpired } from "../../simulator/access-control/authorization.js";
import { ACCESS_CONTROL, type AccessControlState } from "../../simulator/access-control/state.js";
import { runMachine } from "../../simulator/runs/run-machine.js";
import { configurationVersionMachine } from "../../simulator/runs/configuration-version-machine.js";
import { RUNS } from "../../simulator/runs/errors.js";
import type { RunsState } from "../../simulator/runs/state.js";
import { LEASE_EVENTS, SECRETS_TOKEN_EVENTS } from "../../simulator/secrets/lifecycle-events.js";
import { NODE_STATE_SUBJECT, NODE_STATES } from "../../simulator/secrets/node-state.js";
import { SECRETS } from "../../simulator/secrets/errors.js";
import type { SecretsState } from "../../simulator/secrets/state.js";
import { transitionLabels } from "../coverage/collector.js";
import type { CoverageReport } from "../coverage/report.js";

/** The pseudo-state a diagram's entries start from (Mermaid's `[*]`). */
export const START = "[*]";

/** How the coverage report counts a row: a machine's transition label, or a named event of a subject. */
export type CountedBy = { readonly machine: string; readonly label: string } | { readonly subject: string; readonly name: string };

/** One arrow of a diagram. */
export interface DiagramTransition {
  /** A state of the table, or `[*]` for an entry (where items start). */
  readonly from: string;
  readonly to: string;
  /** The event that takes it (absent for an entry the simulator does not name). */
  readonly event?: string;
  /** The condition checked before taking it (the machine table's `guard`). */
  readonly guard?: string;
  /** Where coverage counts it; absent: not traced (drawn neutral, never "never reached"). */
  readonly counted?: CountedBy;
}

/** One state table as the diagrams draw it. */
export interface StateTable {
  /** The name `infra-doubles diagram <name>` and `GET /_sim/diagrams/<name>` take (`runs`, `leases`, ...). */
  readonly name: string;
  /** What it is a table of, e.g. `run` (the machine's name) or `access-control token`. */
  readonly title: string;
  /** The service key (`runs`, `accessControl`, `secrets`). */
  readonly service: string;
  /** Every state, in table order. */
  readonly states: readonly string[];
  /** States nothing leaves. */
  readonly final: readonly string[];
  /** Every arrow, entries first, then in table order. */
  readonly transitions: readonly DiagramTransition[];
  /** Where coverage counts states entered: a machine's states, or an event subject's names; absent: the sum of the counted arrows into each state. */
  readonly statesCounted?: { readonly machine: string } | { readonly subject: string };
  /** A sentence drawn under the diagram (how the table is entered outside its arrows). */
  readonly note?: string;
  /** The stored items in each state now (states with none are left out). */
  current(sim: Simulator): Map<string, number>;
}

/** Counts of a table's rows and states: what a diagram marks. */
export interface DiagramMarks {
  /** Times each counted arrow was taken, by its index in {@link StateTable.transitions}; absent: no coverage to show. */
  readonly transitions?: readonly (number | undefined)[];
  /** Times each state was reached (coverage), by state. */
  readonly states?: ReadonlyMap<string, number>;
  /** Stored items in each state now, by state. */
  readonly current?: ReadonlyMap<string, number>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyMachine = Machine<any, any>;

/** A machine's table: `[*]` into the initial state and into every state no row enters, then every row in table order. */
function machineTable(name: string, machine: AnyMachine, current: (sim: Simulator) => Map<string, number>): StateTable {
  const rows = machineTransitions(machine);
  const labels = transitionLabels(machine);
  const states = Object.keys(machine.states);
  const entered = new Set(rows.filter((row) => row.from !== row.to).map((row) => row.to as string));
  const entries = states.filter((state) => state === machine.initial || !entered.has(state));
  const transitions: DiagramTransition[] = entries.map((to) => ({ from: START, to }));
  for (const row of rows) {
    const spec = (machine.states[row.from]?.on ?? {})[row.event] as { guard?: string } | undefined;
    transitions.push({
      from: row.from,
      to: row.to,
      event: row.event,
      ...(spec?.guard === undefined ? {} : { guard: spec.guard }),
      counted: { machine: machine.name, label: labels.get(`${row.from}\t${row.event}`) ?? `${row.from} -> ${row.to}` },
    });
  }
  const final = states.filter((state) => machine.states[state]?.final === true || Object.keys(machine.states[state]?.on ?? {}).length === 0);
  return { name, title: machine.name, service: machine.service, states, final, transitions, statesCounted: { machine: machine.name }, current };
}

/** Counts of `items` by `stateOf`. */
function countBy<T>(items: Iterable<T>, stateOf: (item: T) => string): Map<string, number> {
  const out = new Map<string, number>();
  for (const item of items) {
    const state = stateOf(item);
    out.set(state, (out.get(state) ?? 0) + 1);
  }
  return out;
}

/** `read(state, now)` on `service` of `sim`, or no counts when the simulator does not run it. */
function reading<S>(service: string, read: (state: S, now: number) => Map<string, number>): (sim: Simulator) => Map<string, number> {
  return (sim) => (sim.services.includes(service) ? sim.read<S, Map<string, number>>(service, (ctx) => read(ctx.state as S, ctx.now)) : new Map());
}

/** An arrow counted by a named event of `subject`. */
function eventArrow(subject: string, from: string, to: string, event: string): DiagramTransition {
  return { from, to, event, counted: { subject, name: event } };
}

const aclEvents = ACL_TOKEN_EVENTS;
const leaseEvents = LEASE_EVENTS;
const secretsTokenEvents = SECRETS_TOKEN_EVENTS;

/**
 * Every state table, in `--list` order: `runs`, `configuration-versions`, `acl-tokens`,
 * `secrets-tokens`, `leases`, `node-states`.
 * @example STATE_TABLES.map((t) => t.name) // ["runs", "configuration-versions", "acl-tokens", "secrets-tokens", "leases", "node-states"]
 */
export const STATE_TABLES: readonly StateTable[] = Object.freeze([
  machineTable(
    "runs",
    runMachine,
    reading<RunsState>(RUNS, (state) => countBy(Object.values(state.runs), (run) => run.status)),
  ),
  machineTable(
    "configuration-versions",
    configurationVersionMachine,
    reading<RunsState>(RUNS, (state) => countBy(Object.values(state.configurationVersions), (version) => version.status)),
  ),
  {
    name: "acl-tokens",
    title: "access-control token",
    service: "accessControl",
    states: ["live", "expired", "deleted"],
    final: ["expired", "deleted"],
    transitions: [
      eventArrow(ACL_TOKEN_SUBJECT, START, "live", pick(aclEvents, "created")),
      eventArrow(ACL_TOKEN_SUBJECT, START, "live", pick(aclEvents, "cloned")),
      eventArrow(ACL_TOKEN_SUBJECT, START, "live", pick(aclEvents, "logged-in")),
      eventArrow(ACL_TOKEN_SUBJECT, "live", "live", pick(aclEvents, "used")),
      eventArrow(ACL_TOKEN_SUBJECT, "live", "live", pick(aclEvents, "updated")),
      eventArrow(ACL_TOKEN_SUBJECT, "live", "expired", pick(aclEvents, "expired")),
      eventArrow(ACL_TOKEN_SUBJECT, "live", "deleted", pick(aclEvents, "deleted")),
      eventArrow(ACL_TOKEN_SUBJECT, "live", "deleted", pick(aclEvents, "logged-out")),
    ],
    note: "Scenario fixtures store live tokens without tracing created; an expired or deleted token is no longer stored.",
    current: reading<AccessControlState>(ACCESS_CONTROL, (state, now) => countBy(Object.values(state.tokens), (token) => (isExpired(token, now) ? "expired" : "live"))),
  },
  {
    name: "secrets-tokens",
    title: "secrets token",
    service: "secrets",
    states: ["live", "expired"],
    final: ["expired"],
    transitions: [
      { from: START, to: "live" },
      eventArrow("token", "live", "live", pick(secretsTokenEvents, "used")),
      eventArrow("token", "live", "expired", pick(secretsTokenEvents, "expired")),
    ],
    note: "Tokens come from fixtures, sys/init and logins; expired is counted when a request presents a token past its TTL.",
    current: reading<SecretsState>(SECRETS, (state, now) => countBy(Object.values(state.tokens), (token) => (token.expiresAt !== null && now >= token.expiresAt ? "expired" : "live"))),
  },
  {
    name: "leases",
    title: "lease",
    service: "secrets",
    states: ["live", "revoked", "expired"],
    final: ["revoked", "expired"],
    transitions: [
      eventArrow("lease", START, "live", pick(leaseEvents, "issued")),
      eventArrow("lease", "live", "live", pick(leaseEvents, "renewed")),
      eventArrow("lease", "live", "revoked", pick(leaseEvents, "revoked")),
      eventArrow("lease", "live", "expired", pick(leaseEvents, "expired")),
    ],
    note: "A revoked or expired lease is no longer stored.",
    current: reading<SecretsState>(SECRETS, (state) => countBy(Object.values(state.leases), () => "live")),
  },
  {
    name: "node-states",
    title: "node state",
    service: "secrets",
    states: [...NODE_STATES],
    final: [],
    transitions: [
      { from: START, to: "active" },
      { from: "not-initialized", to: "sealed", event: "init", guard: "PUT /sys/init" },
    ],
    statesCounted: { subject: NODE_STATE_SUBJECT },
    note: "A scenario or POST /_sim/secrets/node-state sets any state, and coverage counts the states requests were answered in.",
    current: reading<SecretsState>(SECRETS, (state) => new Map([[state.node.state, 1]])),
  },
]);

/** `name`, checked against the event list it must come from (a renamed event fails at load, not in a drawing). */
function pick<E extends string>(events: readonly E[], name: E): E {
  if (!events.includes(name)) throw new Error(`infra-doubles: no traced event "${name}"`);
  return name;
}

/**
 * The table called `name`, or `undefined`.
 * @example stateTable("runs")?.title // "run"
 */
export function stateTable(name: string): StateTable | undefined {
  return STATE_TABLES.find((table) => table.name === name);
}

/**
 * The coverage marks of `table` in `report`: each counted arrow's count (0 when never taken),
 * and each state's (a machine's states tally, an event subject's, or the sum of the counted arrows
 * into it). A service missing from the report counts nothing for any row.
 * @example coverageMarks(stateTable("runs")!, doubles.coverage()).transitions?.[1] // times pending -> fetching was taken
 */
export function coverageMarks(table: StateTable, report: CoverageReport): Pick<DiagramMarks, "transitions" | "states"> {
  const service = report.services[table.service];
  const counted = (by: CountedBy): number => {
    if ("machine" in by) return service?.machines[by.machine]?.transitions.reached[by.label] ?? 0;
    return service?.events[by.subject]?.reached[by.name] ?? 0;
  };
  const transitions = table.transitions.map((row) => (row.counted === undefined ? undefined : counted(row.counted)));
  const states = new Map<string, number>();
  const source = table.statesCounted;
  for (const state of table.states) {
    if (source !== undefined && "machine" in source) states.set(state, service?.machines[source.machine]?.states.reached[state] ?? 0);
    else if (source !== undefined) states.set(state, service?.events[source.subject]?.reached[state] ?? 0);
    else {
      let sum = 0;
      table.transitions.forEach((row, index) => {
        if (row.to === state && row.from !== state) sum += transitions[index] ?? 0;
      });
      states.set(state, sum);
    }
  }
  return { transitions, states };
}

/** What `GET /_sim/diagrams` and `infra-doubles diagram --list` show of a table. */
export interface StateTableSummary {
  readonly name: string;
  readonly title: string;
  readonly service: string;
  /** How many states. */
  readonly states: number;
  /** How many arrows carry an event (entries from `[*]` without one are not counted). */
  readonly transitions: number;
}

/**
 * The summary of `table`.
 * @example tableSummary(stateTable("leases")!) // { name: "leases", title: "lease", service: "secrets", states: 3, transitions: 4 }
 */
export function tableSummary(table: StateTable): StateTableSummary {
  return { name: table.name, title: table.title, service: table.service, states: table.states.length, transitions: table.transitions.filter((row) => row.event !== undefined).length };
}
