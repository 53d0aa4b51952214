/**
 * How a report shows a survivor: the scenario-document lines that build the mutant's world (load
 * it with `createDoubles({ scenario })`, `infra-doubles serve --scenario FILE` or
 * `PUT /_sim/scenario`), and the environment line that runs a suite against it.
 */
import { MUTANT_ENV, type Mutant } from "./types.js";

/** A string as a YAML double-quoted scalar (JSON's escapes are YAML's). */
function yamlString(text: string): string {
  return JSON.stringify(text);
}

/** A string as one POSIX shell word (single quotes; a quote inside closed, escaped, reopened). */
export function shellWord(text: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The scenario-document snippet that reproduces `mutant`: a comment with its behaviour in words and
 * the `mutant` key (YAML, also valid inside a JSON document as `"mutant": "<id>"`).
 * @example
 * mutantSnippet(mutant)
 * // # your suite passes when `POST /runs/:run_id/actions/apply` answers 409 while the run is `planned`
 * // mutant: "runs:action-refused:run/planned/confirm"
 */
export function mutantSnippet(mutant: Mutant): string {
  return `# your suite passes when ${mutant.description}\nmutant: ${yamlString(mutant.id)}\n`;
}

/**
 * The shell line that runs `command` against `mutant` (the variable {@link MUTANT_ENV}).
 * @example mutantCommandLine(mutant, ["npx", "vitest", "run"]) // "INFRA_DOUBLES_MUTANT='runs:...' npx vitest run"
 */
export function mutantCommandLine(mutant: Mutant, command: readonly string[]): string {
  return `${MUTANT_ENV}=${shellWord(mutant.id)} ${command.map(shellWord).join(" ")}`;
}
