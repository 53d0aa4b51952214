/**
 * The wire-side mutant operators, derived from the route tables and the services' error tables:
 * a route's success answered with the service's other documented error for it (`status-swapped`),
 * a list the spec leaves unordered answered in another order (`list-reordered`), the members an
 * answer carries as `null` left out (`field-omitted`: one mutant per member the spec names as
 * "or null", else one per route leaving out every `null` member). Each service's answers table
 * (`HttpService.answerTable`, src/interceptors/route-answers.ts) says, per endpoint, what the spec
 * documents; the service's own error function says what each documented error looks like on the
 * wire. See docs/decisions/mutants.md "Wire-side operators".
 */
import { DomainError, type DomainErrorCode } from "../../simulator/kernel/errors.js";
import type { HttpService, RouteAnswers, SimRequest } from "../../interceptors/http.js";
import type { WireMutation } from "../../interceptors/mutation.js";
import { endpointsOf } from "../../interceptors/router.js";
import type { ServicePlugin } from "../plugin.js";
import type { Mutant, MutantOperator } from "./types.js";

/** A request no service reads (the services' error functions take one; none of them looks at it). */
const PROBE: SimRequest = Object.freeze({ method: "GET", url: new URL("http://mutants.invalid/"), headers: Object.freeze({}), body: new Uint8Array() });

/**
 * The status the service's own error function gives a documented error of `code`.
 * @example errorStatus(runsHttp, "conflict") // 409
 */
export function errorStatus(service: HttpService, code: DomainErrorCode): number {
  return service.errorResponse(new DomainError({ code, service: service.name, operation: "mutant", message: service.answerTable?.messages[code] ?? code }), PROBE).status;
}

/** `202`, or `204 or 200` for a route with two success answers. */
function successWords(answers: RouteAnswers): string {
  return answers.success.join(" or ");
}

/** Where a list is, in words: `its items` for the body itself, else the pointer as a dotted path. */
function listWords(pointer: string): string {
  return pointer === "" ? "its items" : `\`${pointer.slice(1).split("/").join(".")}\``;
}

/**
 * Every wire-side mutant of `plugins`, in a stable order (service, operator, endpoint order of the
 * service's endpoints, documented-error order of its answers row). A service without an answers
 * table, or an endpoint without a row, has none.
 * @example wireMutants(plugins).filter((m) => m.operator === "status-swapped")
 * // [{ id: "runs:status-swapped:POST /workspaces/:workspace_id/configuration-versions/not_found", ... }, ...]
 */
export function wireMutants(plugins: readonly ServicePlugin<unknown>[]): Mutant[] {
  const made: Mutant[] = [];
  for (const plugin of plugins) {
    const service = plugin.http;
    const table = service.answerTable;
    if (table === undefined) continue;
    const key = plugin.key;
    const rows = endpointsOf(service).flatMap((label) => {
      const answers = table.routes[label];
      return answers === undefined ? [] : [{ label, answers }];
    });
    const mutant = (operator: MutantOperator, label: string, detail: string, description: string, mutation: WireMutation): Mutant =>
      Object.freeze({
        id: `${key}:${operator}:${detail}`,
        service: key,
        operator,
        description,
        reaches: Object.freeze([Object.freeze({ kind: "endpoint" as const, service: key, label })]),
        change: Object.freeze({ layer: "wire" as const, mutation: Object.freeze(mutation) }),
      });
    for (const { label, answers } of rows) {
      for (const code of answers.errors) {
        const status = errorStatus(service, code);
        made.push(
          mutant("status-swapped", label, `${label}/${code}`, `\`${label}\` answers ${status} (${code.replace(/_/g, " ")}) where it answers ${successWords(answers)}`, {
            kind: "refusal",
            service: key,
            endpoint: label,
            code,
          }),
        );
      }
    }
    for (const { label, answers } of rows) {
      if (answers.unorderedList === undefined) continue;
      made.push(
        mutant("list-reordered", label, label, `\`${label}\` answers ${listWords(answers.unorderedList)} in reverse order`, { kind: "list-order", service: key, endpoint: label }),
      );
    }
    for (const { label, answers } of rows) {
      // Reads only: a client reads the optional fields of what it fetched.
      const fields = answers.nullFields;
      if (fields === undefined || fields === false || !/^(GET|LIST) /.test(label)) continue;
      if (fields === true) {
        made.push(
          mutant("field-omitted", label, label, `\`${label}\` leaves out the members it answers as \`null\` (absent instead of null)`, {
            kind: "omit-null-fields",
            service: key,
            endpoint: label,
          }),
        );
        continue;
      }
      for (const field of fields) {
        made.push(
          mutant("field-omitted", label, `${label}/${field}`, `\`${label}\` leaves out \`${field}\` where it answers it as \`null\` (absent instead of null)`, {
            kind: "omit-null-fields",
            service: key,
            endpoint: label,
            field,
          }),
        );
      }
    }
  }
  return made;
}
