/**
 * The wire-side mutant operators, derived from the route tables and the services' error tables:
 * an accepted request answered with the service's documented refusal, a list the spec leaves
 * unordered answered in another order, optional fields omitted.
 */
import type { ServicePlugin } from "../plugin.js";
import type { Mutant } from "./types.js";

/**
 * Every wire-side mutant of `plugins`, in a stable order (service, operator, route table order).
 * @example wireMutants(plugins).filter((m) => m.operator === "status-swapped")
 */
export function wireMutants(plugins: readonly ServicePlugin<unknown>[]): Mutant[] {
  void plugins;
  return []; // filled in by the wire-operators work (issue 27)
}
