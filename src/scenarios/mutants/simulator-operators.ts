/**
 * The simulator-side mutant operators, derived from the services' tables as data: transition rows
 * removed or redirected (transition tables), durations and limits scaled (limits tables), id and
 * secret formats changed (id kinds).
 */
import type { ServicePlugin } from "../plugin.js";
import type { Mutant } from "./types.js";

/**
 * Every simulator-side mutant of `plugins`, in a stable order (service, operator, table order).
 * @example simulatorMutants(plugins).find((m) => m.operator === "transition-removed")
 */
export function simulatorMutants(plugins: readonly ServicePlugin<unknown>[]): Mutant[] {
  void plugins;
  return []; // filled in by the simulator-operators work (issue 27)
}
