/**
 * State machines as data. A machine is a frozen table: for each state, whether it is final and
 * which events it accepts, with the target state. Lookup is a table read; a miss is a typed
 * `conflict` error naming the state and the event. Property tests run on the tables themselves.
 */
import { DomainError, UsageError } from "./errors.js";
import type { TraceEvent, Tracer } from "./trace.js";

/** One accepted event: where it leads. */
export interface TransitionSpec<State extends string> {
  readonly target: State;
  /** A name for the condition checked by the operation before taking it (documentation only). */
  readonly guard?: string;
}

/** A state's row of the table. */
export interface StateSpec<State extends string, Event extends string> {
  readonly final?: boolean;
  readonly on?: { readonly [E in Event]?: TransitionSpec<State> };
}

/** A whole machine. */
export interface Machine<State extends string, Event extends string> {
  /** Used in error messages, e.g. `run`. */
  readonly name: string;
  readonly service: string;
  readonly initial: State;
  readonly states: { readonly [S in State]: StateSpec<State, Event> };
  /**
   * The route (as the spec writes it, `METHOD /template`) of the user action that takes each event
   * it names, e.g. `{ confirm: "POST /runs/:run_id/actions/apply" }`; events it does not name are
   * automatic (taken by the service on its own). Data for reports and service mutants.
   */
  readonly actions?: { readonly [E in Event]?: string };
}

/**
 * Freezes a machine definition deeply (so tests and code share one immutable table).
 * @example
 * const m = defineMachine({ name: "door", service: "demo", initial: "shut",
 *   states: { shut: { on: { open: { target: "open" } } }, open: { final: true } } });
 */
export function defineMachine<State extends string, Event extends string>(
  machine: Machine<State, Event>,
): Machine<State, Event> {
  return deepFreeze(machine);
}

/**
 * The target of `event` from `state`, or `undefined` when the table has no such row.
 * @example lookupTransition(door, "shut", "open") // "open"
 */
export function lookupTransition<State extends string, Event extends string>(
  machine: Machine<State, Event>,
  state: State,
  event: Event,
): State | undefined {
  return machine.states[state].on?.[event]?.target;
}

/**
 * Whether `state` accepts `event`.
 * @example accepts(door, "open", "open") // false
 */
export function accepts<State extends string, Event extends string>(
  machine: Machine<State, Event>,
  state: State,
  event: Event,
): boolean {
  return lookupTransition(machine, state, event) !== undefined;
}

/**
 * The target of `event` from `state`.
 * @throws {DomainError} `conflict` naming the machine, resource, state and event when the table
 * has no such row; `message` overrides the default wording.
 * @example transition(runMachine, run.status, "apply", { resource: run.id, operation: "apply run" })
 */
export function transition<State extends string, Event extends string>(
  machine: Machine<State, Event>,
  state: State,
  event: Event,
  details: { resource?: string; operation?: string; message?: string } = {},
): State {
  const target = lookupTransition(machine, state, event);
  if (target === undefined) {
    throw new DomainError({
      code: "conflict",
      service: machine.service,
      operation: details.operation ?? `${event} ${machine.name}`,
      ...(details.resource !== undefined ? { resource: details.resource } : {}),
      state,
      message: details.message ?? `${machine.name} in state "${state}" does not accept "${event}"`,
    });
  }
  return target;
}

/**
 * Kernel-private: the key under which a simulator context carries the tables it runs on in place of
 * faithful ones (a service mutant's; see mutation.ts), faithful machine -> mutated machine.
 * Service code never sets nor reads it: {@link takeTransition} and {@link acceptsNow} do.
 */
export const MACHINE_TABLES: unique symbol = Symbol("infra-doubles.machine-tables");

/** A context that may carry mutated tables (see {@link MACHINE_TABLES}). */
type TableCarrier = { readonly [MACHINE_TABLES]?: ReadonlyMap<Machine<string, string>, Machine<string, string>> };

/**
 * The table `ctx` runs on for `machine`: `machine` itself, or the mutated copy a mutant's simulator
 * carries (under a kernel-private key, `MACHINE_TABLES`).
 * @example tableOf(ctx, runMachine).states.planning.on?.["plan-done"]?.target // "planned" unless mutated
 */
export function tableOf<State extends string, Event extends string>(ctx: Tracer, machine: Machine<State, Event>): Machine<State, Event> {
  const tables = (ctx as TableCarrier)[MACHINE_TABLES];
  if (tables === undefined) return machine;
  return (tables.get(machine as Machine<string, string>) as Machine<State, Event> | undefined) ?? machine;
}

/**
 * Whether the table `ctx` runs on for `machine` accepts `event` in `state` (see {@link tableOf}).
 * Automatic moves ask it before taking an event: a timed move the table has no row for is dropped
 * (the resource stays where it is), never thrown out of a firing move.
 * @example if (acceptsNow(ctx, runMachine, run.status, "plan-start")) take(ctx, run, "plan-start");
 */
export function acceptsNow<State extends string, Event extends string>(ctx: Tracer, machine: Machine<State, Event>, state: State, event: Event): boolean {
  return tableOf(ctx, machine).states[state].on?.[event] !== undefined;
}

/**
 * A copy of `machine` with the row `from` --`event`--> led to `to` instead, or removed when `to` is
 * `null` (frozen; same name and service, same final states).
 * @throws {UsageError} when the machine has no such row, or `to` is not one of its states.
 * @example mutateMachine(runMachine, "planning", "plan-done", "cost_estimating").states.planning.on?.["plan-done"]?.target // "cost_estimating"
 */
export function mutateMachine<State extends string, Event extends string>(machine: Machine<State, Event>, from: string, event: string, to: string | null): Machine<State, Event> {
  const states = machine.states as Readonly<Record<string, StateSpec<State, Event>>>;
  const row = Object.hasOwn(states, from) ? (states[from]?.on as Readonly<Record<string, TransitionSpec<State>>> | undefined)?.[event] : undefined;
  if (row === undefined) throw new UsageError(`mutation: the ${machine.name} machine has no row "${from}" --${event}-->`);
  if (to !== null && !Object.hasOwn(states, to)) throw new UsageError(`mutation: the ${machine.name} machine has no state "${to}"`);
  const copy: Record<string, StateSpec<State, Event>> = {};
  for (const [name, spec] of Object.entries(states)) {
    if (name !== from) {
      copy[name] = spec;
      continue;
    }
    const on: Record<string, TransitionSpec<State>> = { ...(spec.on as Record<string, TransitionSpec<State>>) };
    if (to === null) delete on[event];
    else on[event] = { ...row, target: to as State };
    copy[name] = { ...spec, on: on as StateSpec<State, Event>["on"] };
  }
  return defineMachine({ ...machine, states: copy as Machine<State, Event>["states"] });
}

/** Each row's trace event, by the row's spec (see {@link rowEvent}). */
const ROW_EVENTS = new WeakMap<TransitionSpec<string>, TraceEvent & { readonly kind: "transition" }>();

/**
 * The trace event of the row `state` --`event`--> `spec.target`: one frozen object per row, made
 * on first use and shared by every taking, so a traced transition allocates nothing (it ran on
 * every timed move: 64 of the 400 bytes a move allocated) and an observer can remember a row by
 * its event (coverage does). A spec object that several rows share gets a new event each time.
 */
function rowEvent(machine: Machine<string, string>, state: string, event: string, spec: TransitionSpec<string>): TraceEvent {
  const known = ROW_EVENTS.get(spec);
  if (known !== undefined && known.from === state && known.event === event && known.machine === machine.name) return known;
  const made = Object.freeze({ kind: "transition" as const, machine: machine.name, from: state, event, to: spec.target });
  if (known === undefined) ROW_EVENTS.set(spec, made);
  return made;
}

/**
 * {@link transition}, traced: the row taken is recorded on `ctx`'s trace (coverage counts it only
 * if the operation commits). The event traced is frozen and the same object for every taking of
 * the row. The table read is the one `ctx` carries (see {@link tableOf}): `machine` itself, or a
 * service mutant's copy of it, whose removed row is refused as any missing row is.
 * @throws {DomainError} as {@link transition}.
 * @example version.status = takeTransition(ctx, configurationVersionMachine, version.status, "upload", { resource: version.id });
 */
export function takeTransition<State extends string, Event extends string>(
  ctx: Tracer,
  machine: Machine<State, Event>,
  state: State,
  event: Event,
  details: { resource?: string; operation?: string; message?: string } = {},
): State {
  const table = tableOf(ctx, machine);
  const spec = table.states[state].on?.[event];
  if (spec === undefined) return transition(table, state, event, details); // throws the conflict
  ctx.trace(rowEvent(table, state, event, spec));
  return spec.target;
}

/**
 * Traces that a resource of `machine` was created in `state` (its first state), and returns it.
 * @example status: enterState(ctx, runMachine, "pending")
 */
export function enterState<State extends string, Event extends string>(ctx: Tracer, machine: Machine<State, Event>, state: State): State {
  ctx.trace({ kind: "state", machine: machine.name, state });
  return state;
}

/**
 * Every transition of the table as `{ from, event, to }`, in table order.
 * @example machineTransitions(door) // [{ from: "shut", event: "open", to: "open" }]
 */
export function machineTransitions<State extends string, Event extends string>(
  machine: Machine<State, Event>,
): { from: State; event: Event; to: State }[] {
  const out: { from: State; event: Event; to: State }[] = [];
  for (const from of Object.keys(machine.states) as State[]) {
    const on = (machine.states[from].on ?? {}) as Partial<Record<Event, TransitionSpec<State>>>;
    for (const event of Object.keys(on) as Event[]) {
      const spec = on[event];
      if (spec) out.push({ from, event, to: spec.target });
    }
  }
  return out;
}

/**
 * Every state reachable from the initial state through the table.
 * @example reachableStates(door) // Set { "shut", "open" }
 */
export function reachableStates<State extends string, Event extends string>(
  machine: Machine<State, Event>,
  from: State = machine.initial,
): Set<State> {
  const seen = new Set<State>([from]);
  const queue: State[] = [from];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const on = machine.states[next].on ?? {};
    for (const spec of Object.values(on) as (TransitionSpec<State> | undefined)[]) {
      if (spec && !seen.has(spec.target)) {
        seen.add(spec.target);
        queue.push(spec.target);
      }
    }
  }
  return seen;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
