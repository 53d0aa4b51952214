/**
 * The simulator-side mutant operators, derived from the services' tables as data: transition rows
 * removed or redirected (transition tables), user actions refused (transition rows a route takes,
 * from the machines' `actions`), durations and limits scaled (limits tables), id and secret
 * formats changed (id kinds). Nothing here is written per row: ids, descriptions and reaches are
 * all read from the tables. See docs/decisions/mutants.md, "Simulator-side operators".
 */
import type { IdKind } from "../../simulator/kernel/ids.js";
import type { ServiceLimit } from "../../simulator/kernel/limits.js";
import { machineTransitions, type Machine } from "../../simulator/kernel/machine.js";
import type { SimulatorMutation } from "../../simulator/kernel/mutation.js";
import { endpointsOf } from "../../interceptors/router.js";
import { transitionLabels } from "../coverage/collector.js";
import type { ServicePlugin } from "../plugin.js";
import type { Mutant, MutantOperator, MutantReach } from "./types.js";

/**
 * The factors a duration or a limit is scaled by, each one mutant.
 * @example LIMIT_FACTORS // [0.5, 2]
 */
export const LIMIT_FACTORS: readonly number[] = Object.freeze([0.5, 2]);

/**
 * Every simulator-side mutant of `plugins`, in a stable order (service, then per service:
 * transition rows in table order with their removal or refusal then their redirections, limits in
 * table order, id kinds in table order). Same plugins, same list, in every process.
 * @example simulatorMutants(ALL_PLUGINS).find((m) => m.id === "runs:action-refused:run/planned/confirm")?.description
 * // "`POST /runs/:run_id/actions/apply` answers 409 while the run is `planned`"
 */
export function simulatorMutants(plugins: readonly ServicePlugin<unknown>[]): Mutant[] {
  const out: Mutant[] = [];
  for (const plugin of plugins) {
    const definition = plugin.definition;
    const endpoints = new Set(endpointsOf(plugin.http));
    for (const machine of definition.traced?.machines ?? []) out.push(...transitionMutants(plugin.key, definition.name, machine));
    for (const limit of definition.limits ?? []) out.push(...limitMutants(plugin.key, definition.name, limit, endpoints));
    for (const kind of definition.idKinds ?? []) out.push(...idFormatMutants(plugin.key, definition.name, kind));
  }
  return out;
}

/** A machine's name as an id segment (`configuration version` -> `configuration-version`). */
function slug(name: string): string {
  return name.replaceAll(" ", "-");
}

function mutant(service: string, operator: MutantOperator, detail: string, description: string, reaches: readonly MutantReach[], mutation: SimulatorMutation): Mutant {
  return Object.freeze({
    id: `${service}:${operator}:${detail}`,
    service,
    operator,
    description,
    reaches: Object.freeze(reaches.map((reach) => Object.freeze(reach))),
    change: Object.freeze({ layer: "simulator" as const, mutation: Object.freeze(mutation) }),
  });
}

/**
 * The mutants of one machine's rows: each row removed (`transition-removed` for an automatic row,
 * `action-refused` for a row a user action takes, by the machine's `actions`), and each row
 * redirected to every other legal target: the targets of the other rows leaving the same state,
 * and the targets one step beyond the row's own (a state skipped), never the row's own target nor
 * its source state.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function transitionMutants(service: string, simService: string, machine: Machine<any, any>): Mutant[] {
  const rows = machineTransitions(machine as Machine<string, string>);
  const labels = transitionLabels(machine);
  const actions = (machine.actions ?? {}) as Readonly<Record<string, string | undefined>>;
  const out: Mutant[] = [];
  for (const row of rows) {
    const label = labels.get(`${row.from}\t${row.event}`) ?? `${row.from} -> ${row.to}`;
    const reaches: MutantReach[] = [{ kind: "transition", service, machine: machine.name, label }];
    const where = `${slug(machine.name)}/${row.from}/${row.event}`;
    const action = actions[row.event];
    const removal = { kind: "transition" as const, service: simService, machine: machine.name, from: row.from, event: row.event, to: null };
    if (action !== undefined) {
      out.push(mutant(service, "action-refused", where, `\`${action}\` answers 409 while the ${machine.name} is \`${row.from}\``, reaches, removal));
    } else {
      out.push(mutant(service, "transition-removed", where, `the ${machine.name} never goes from \`${row.from}\` to \`${row.to}\` on \`${row.event}\` (it stays \`${row.from}\`)`, reaches, removal));
    }
    const targets = new Set<string>();
    for (const other of rows) if (other.from === row.from) targets.add(other.to);
    for (const beyond of rows) if (beyond.from === row.to) targets.add(beyond.to);
    targets.delete(row.to);
    targets.delete(row.from);
    for (const target of targets) {
      out.push(
        mutant(
          service,
          "transition-redirected",
          `${where}/${target}`,
          `the ${machine.name} goes from \`${row.from}\` to \`${target}\` on \`${row.event}\` instead of \`${row.to}\``,
          reaches,
          { kind: "transition", service: simService, machine: machine.name, from: row.from, event: row.event, to: target },
        ),
      );
    }
  }
  return out;
}

/**
 * A value of `unit` in words: `5 s`, `2.5 min`, `384 h`, `20` (a count).
 * @example formatLimit(5_000, "ms") // "5 s"
 */
export function formatLimit(value: number, unit: ServiceLimit["unit"]): string {
  if (unit === "count") return String(value);
  const ms = unit === "s" ? value * 1000 : value;
  if (ms >= 3_600_000 && ms % 360_000 === 0) return `${ms / 3_600_000} h`;
  if (ms >= 60_000 && ms % 6_000 === 0) return `${ms / 60_000} min`;
  if (ms >= 1000 && ms % 100 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}

/** A limit's mutants: its value x0.5 and x2 (`duration-scaled` for a duration, `limit-scaled` for a count). */
function limitMutants(service: string, simService: string, limit: ServiceLimit, endpoints: ReadonlySet<string>): Mutant[] {
  const operator: MutantOperator = limit.unit === "count" ? "limit-scaled" : "duration-scaled";
  const reaches: MutantReach[] = endpoints.has(limit.readAt) ? [{ kind: "endpoint", service, label: limit.readAt }] : [{ kind: "service", service }];
  return LIMIT_FACTORS.map((factor) => {
    const scaled = Math.max(1, Math.round(limit.value * factor));
    return mutant(
      service,
      operator,
      `${limit.name}/x${factor}`,
      `${limit.description} is ${formatLimit(scaled, limit.unit)} instead of ${formatLimit(limit.value, limit.unit)}`,
      reaches,
      { kind: "limit", service: simService, limit: limit.name, factor },
    );
  });
}

/** An id kind's mutants: one per other format the spec allows (the id names the format when there are several). */
function idFormatMutants(service: string, simService: string, kind: IdKind): Mutant[] {
  return kind.formats.map((format) =>
    mutant(
      service,
      "id-format-changed",
      kind.formats.length === 1 ? kind.kind : `${kind.kind}/${format.name}`,
      `${kind.kind} ids end in ${format.length} random characters${format.alphabet === undefined ? "" : ` of \`${format.alphabet}\``} instead of ${kind.length}; the spec fixes only ${kind.spec}`,
      [{ kind: "service", service }],
      { kind: "id-format", service: simService, idKind: kind.kind, format: format.name },
    ),
  );
}
