/**
 * The `/_sim/mutants` control routes of the dev server: the catalogue of service mutants, the
 * mutant this world was built as, and one mutant with its snippet. A mutant is chosen when a
 * world is built (`serve --mutant ID`, a scenario document's `mutant`, `INFRA_DOUBLES_MUTANT`, or
 * `POST /_sim/worlds {"mutant": ID}`), never switched under a running world.
 */
import type { Route } from "../../interceptors/http.js";
import { json } from "../../interceptors/http.js";
import { DomainError } from "../../simulator/kernel/errors.js";
import type { DoublesCore } from "../doubles-core.js";
import { mutantsOf } from "./catalogue.js";
import { mutantSnippet } from "./snippet.js";
import { MUTANT_OPERATORS, type Mutant, type MutantOperator } from "./types.js";

/** A mutant as the control API shows it. */
function view(mutant: Mutant): Record<string, unknown> {
  return { id: mutant.id, service: mutant.service, operator: mutant.operator, description: mutant.description, reaches: mutant.reaches };
}

/** A comma-separated query parameter, or undefined when absent. */
function listParam(query: URLSearchParams, name: string): string[] | undefined {
  const text = query.get(name);
  return text === null ? undefined : text.split(",").map((part) => part.trim()).filter((part) => part !== "");
}

/**
 * `GET /_sim/mutants` (`?service=runs,secrets&operator=transition-removed`): `{"current": mutant | null,
 * "total", "mutants": [...]}` in catalogue order; `GET /_sim/mutants/:id`: one mutant with its
 * scenario-document `snippet` (404 for an unknown id; 400 for an unknown service or operator).
 * @example
 * // curl -s localhost:8080/_sim/mutants?service=runs | jq '.mutants[0].id'
 */
export function mutantControlRoutes(doubles: DoublesCore): Route[] {
  const plugins = doubles.registeredPlugins;
  return [
    {
      method: "GET",
      path: "/",
      doc: { answer: '200 {"current": {"id", "service", "operator", "description", "reaches"} | null, "total", "mutants": [...]} (?service=runs,secrets&operator=transition-removed,...)' },
      handler: ({ query }) => {
        const services = listParam(query, "service");
        const operators = listParam(query, "operator");
        const keys = plugins.map((plugin) => plugin.key);
        const badService = services?.find((service) => !keys.includes(service));
        if (badService !== undefined) throw new DomainError({ code: "invalid", service: "_sim", operation: "list mutants", message: `unknown service "${badService}" (one of ${keys.join(", ")})` });
        const badOperator = operators?.find((operator) => !(MUTANT_OPERATORS as readonly string[]).includes(operator));
        if (badOperator !== undefined) throw new DomainError({ code: "invalid", service: "_sim", operation: "list mutants", message: `unknown operator "${badOperator}" (one of ${MUTANT_OPERATORS.join(", ")})` });
        const mutants = mutantsOf(plugins, { ...(services === undefined ? {} : { services }), ...(operators === undefined ? {} : { operators: operators as MutantOperator[] }) });
        return json(200, { current: doubles.mutant === undefined ? null : view(doubles.mutant), total: mutants.length, mutants: mutants.map(view) });
      },
    },
    {
      method: "GET",
      path: "/:id",
      doc: { answer: '200 {"id", "service", "operator", "description", "reaches", "snippet"}; 404 no such mutant' },
      handler: ({ params }) => {
        const id = params.id ?? "";
        const mutant = mutantsOf(plugins).find((candidate) => candidate.id === id);
        if (mutant === undefined) throw new DomainError({ code: "not_found", service: "_sim", operation: "show mutant", message: `no mutant "${id}" (GET /_sim/mutants lists them)` });
        return json(200, { ...view(mutant), snippet: mutantSnippet(mutant) });
      },
    },
  ];
}
