/**
 * What each route of a service answers, as its spec documents it: the success status, the other
 * documented errors, the lists whose order the spec leaves open and whether answers carry `null`
 * members. Data only (no service code reads it); the wire-side service mutants are derived from it
 * (src/scenarios/mutants/wire-operators.ts). See docs/decisions/mutants.md "Wire-side operators".
 */
import type { DomainErrorCode } from "../simulator/kernel/errors.js";
import type { RouteAnswers } from "./http.js";

export type { RouteAnswers } from "./http.js";

/**
 * A service's answers table (`HttpService.answerTable`): one row per endpoint label (`POST /runs/:run_id/actions/apply`), and
 * the message the service's error function is given when a mutant answers one of its documented
 * errors (the service's own words for that kind of refusal; unused where its error body shows none).
 * @example { routes: { "GET /runs/:run_id": { success: [200], errors: ["not_found"], nullFields: true } }, messages: { not_found: "not found" } }
 */
export interface RouteAnswersTable {
  readonly routes: Readonly<Record<string, RouteAnswers>>;
  readonly messages: Readonly<Partial<Record<DomainErrorCode, string>>>;
}

/**
 * A row of an answers table.
 * @param success - the documented success status (or statuses).
 * @param errors - the other documented errors, as domain error codes.
 * @param extra - `unorderedList` (a JSON pointer), `nullFields` and the route's own `messages`.
 * @example answersRow(202, ["conflict"]) // { success: [202], errors: ["conflict"] }
 */
export function answersRow(success: number | readonly number[], errors: readonly DomainErrorCode[] = [], extra: Omit<RouteAnswers, "success" | "errors"> = {}): RouteAnswers {
  return Object.freeze({ success: Object.freeze(typeof success === "number" ? [success] : [...success]), errors: Object.freeze([...errors]), ...extra });
}
