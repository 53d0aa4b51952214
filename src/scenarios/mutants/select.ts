/**
 * Which mutant a doubles is built as: the `mutant` option, else the environment variable
 * {@link MUTANT_ENV} (set by `infra-doubles mutate` for the test command), else none.
 */
import { SERVICE_KEYS } from "../../interceptors/vocabulary.js";
import { UsageError } from "../../simulator/kernel/errors.js";
import type { ServicePlugin } from "../plugin.js";
import { findMutant } from "./catalogue.js";
import { MUTANT_ENV, type Mutant } from "./types.js";

/**
 * The mutant named by `option` (an id or a {@link Mutant}), by {@link MUTANT_ENV} when `option` is
 * `undefined`, or none (`null`, or an empty or unset variable, or a variable naming a mutant of a
 * service these plugins do not simulate).
 * @throws {UsageError} naming the id (and the variable, when it came from there) when no mutant
 *   of `plugins` has it, or when `option` is neither a string nor a mutant.
 * @example selectMutant(ALL_PLUGINS, undefined) // process.env.INFRA_DOUBLES_MUTANT's mutant, or undefined
 */
export function selectMutant(plugins: readonly ServicePlugin<unknown>[], option: string | Mutant | null | undefined): Mutant | undefined {
  if (option === null) return undefined;
  if (option === undefined) {
    const id = process.env[MUTANT_ENV];
    if (id === undefined || id === "") return undefined;
    // Doubles of some services only (a test's own DoublesCore) are faithful to a mutant of another.
    const service = id.slice(0, id.indexOf(":"));
    if (id.includes(":") && !plugins.some((plugin) => plugin.key === service) && (SERVICE_KEYS as readonly string[]).includes(service)) return undefined;
    try {
      return findMutant(plugins, id);
    } catch (error) {
      throw new UsageError(`${(error as Error).message} (from the environment variable ${MUTANT_ENV})`);
    }
  }
  if (typeof option === "string") return findMutant(plugins, option);
  if (typeof option === "object" && typeof (option as { id?: unknown }).id === "string") return findMutant(plugins, (option as Mutant).id);
  throw new UsageError(`createDoubles: option "mutant" must be a mutant id, a mutant or null, not ${typeof option}`);
}
