/**
 * The catalogue of service mutants: every mutant the operators derive from the services' tables,
 * in a stable order, and the lookup of one by id.
 */
import { UsageError } from "../../simulator/kernel/errors.js";
import type { ServicePlugin } from "../plugin.js";
import { simulatorMutants } from "./simulator-operators.js";
import { MUTANT_OPERATORS, type Mutant, type MutantOperator } from "./types.js";
import { wireMutants } from "./wire-operators.js";

/** Which mutants a listing keeps. */
export interface MutantFilter {
  /** Service keys to keep (`runs`, `accessControl`, `secrets`); absent: all. */
  readonly services?: readonly string[];
  /** Operators to keep; absent: all. */
  readonly operators?: readonly MutantOperator[];
}

const catalogues = new WeakMap<readonly ServicePlugin<unknown>[], readonly Mutant[]>();

/**
 * Every mutant of `plugins`, ordered by service (plugin order), then operator
 * ({@link MUTANT_OPERATORS} order), then table order; built once per plugin list.
 * @example mutantsOf(ALL_PLUGINS, { services: ["runs"] }).length
 */
export function mutantsOf(plugins: readonly ServicePlugin<unknown>[], filter: MutantFilter = {}): readonly Mutant[] {
  let all = catalogues.get(plugins);
  if (all === undefined) {
    const made = [...simulatorMutants(plugins), ...wireMutants(plugins)];
    const serviceOrder = new Map(plugins.map((plugin, index) => [plugin.key, index]));
    const operatorOrder = new Map(MUTANT_OPERATORS.map((operator, index) => [operator, index]));
    const position = new Map(made.map((mutant, index) => [mutant, index]));
    made.sort(
      (a, b) =>
        (serviceOrder.get(a.service) ?? 0) - (serviceOrder.get(b.service) ?? 0) ||
        (operatorOrder.get(a.operator) ?? 0) - (operatorOrder.get(b.operator) ?? 0) ||
        (position.get(a) ?? 0) - (position.get(b) ?? 0),
    );
    const seen = new Set<string>();
    for (const mutant of made) {
      if (seen.has(mutant.id)) throw new Error(`mutants: two mutants share the id "${mutant.id}"`);
      seen.add(mutant.id);
    }
    all = Object.freeze(made);
    catalogues.set(plugins, all);
  }
  const { services, operators } = filter;
  if (services === undefined && operators === undefined) return all;
  return all.filter((mutant) => (services === undefined || services.includes(mutant.service)) && (operators === undefined || operators.includes(mutant.operator)));
}

/**
 * The mutant of `plugins` with this id.
 * @throws {UsageError} naming the id when no mutant has it.
 * @example findMutant(ALL_PLUGINS, "runs:transition-removed:run/planned/confirm").description
 */
export function findMutant(plugins: readonly ServicePlugin<unknown>[], id: string): Mutant {
  const found = mutantsOf(plugins).find((mutant) => mutant.id === id);
  if (found === undefined) throw new UsageError(`mutants: no mutant "${id}" (infra-doubles mutate --list names them all)`);
  return found;
}
