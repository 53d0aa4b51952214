/**
 * Service mutants, the public face: the catalogue of every mutant of the services `createDoubles()`
 * builds, and the pieces a report or a script needs. See
 * docs/guides/find-what-your-tests-would-not-notice.md.
 */
import { ALL_PLUGINS } from "../doubles.js";
import { mutantsOf, type MutantFilter } from "./catalogue.js";
import type { Mutant } from "./types.js";

/**
 * Every mutant of the services `createDoubles()` builds, ordered by service (`runs`,
 * `accessControl`, `secrets`), operator and table order; the same list in every process. Pick one
 * with `createDoubles({ mutant: id })`, `INFRA_DOUBLES_MUTANT=id`, `serve --mutant id` or a
 * scenario document's `mutant: id`; `infra-doubles mutate` runs a suite against each.
 * @param filter - `services` (service keys) and `operators` to keep; absent: all.
 * @example
 * listMutants({ services: ["runs"], operators: ["action-refused"] }).map((m) => m.description)
 * // ["`POST /runs/:run_id/actions/apply` answers 409 while the run is `planned`", ...]
 */
export function listMutants(filter: MutantFilter = {}): readonly Mutant[] {
  return mutantsOf(ALL_PLUGINS, filter);
}

export type { MutantFilter } from "./catalogue.js";
export { mutantCommandLine, mutantSnippet } from "./snippet.js";
export { MUTANT_ENV, MUTANT_OPERATORS, type Mutant, type MutantChange, type MutantOperator, type MutantReach } from "./types.js";
