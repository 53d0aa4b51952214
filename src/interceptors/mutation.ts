/**
 * Wire mutations: one deliberate change to how a service answers one route, applied by the
 * handler (`createHandler({ mutation })`) at the one point where faults apply, from the route
 * tables and the service's own error function. Route handlers never know a mutation exists.
 *
 * Used by service mutants (`infra-doubles mutate`, src/scenarios/mutants/). See
 * docs/decisions/mutants.md.
 */
import type { DomainErrorCode } from "../simulator/kernel/errors.js";

/**
 * One change to a route's answers (`endpoint` is the route as the spec writes it, e.g.
 * `POST /runs/:run_id/actions/apply`).
 * - `refusal`: a request the route would accept is answered with the service's own error for
 *   `code` (e.g. `conflict`: 409 with the service's error body), before the operation runs, so
 *   nothing is stored;
 * - `list-order`: a list the spec leaves unordered is answered in another legal order (reversed);
 * - `omit-null-fields`: optional fields the answer carries as `null` are left out.
 * @example
 * createHandler({ sim, services, mutation: { kind: "refusal", service: "runs", endpoint: "POST /runs/:run_id/actions/apply", code: "conflict" } })
 */
export type WireMutation =
  | { readonly kind: "refusal"; readonly service: string; readonly endpoint: string; readonly code: DomainErrorCode }
  | { readonly kind: "list-order"; readonly service: string; readonly endpoint: string }
  | { readonly kind: "omit-null-fields"; readonly service: string; readonly endpoint: string };
