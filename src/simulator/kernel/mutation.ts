/**
 * Simulator mutations: one deliberate change to a service's tables as data (a transition row
 * removed or redirected, a duration or limit scaled, an id or secret format changed), applied when
 * a simulator is built (`new Simulator({ mutation })`). Service code never knows a mutation exists:
 * the kernel reads the mutated table, limit or id format where it reads the faithful one.
 *
 * Used by service mutants (`infra-doubles mutate`, src/scenarios/mutants/). See
 * docs/decisions/mutants.md.
 */

/**
 * One change to what a simulator runs on. `service` is the simulator's service name (a
 * definition's `name`: `runs`, `access-control`, `secrets`).
 * - `transition`: the row `from --event-->` of `machine` (a {@link Machine}'s `name`, e.g. `run`)
 *   leads to `to` instead of its own target, or is removed when `to` is `null` (the row's event is
 *   then refused as a state conflict, as the table refuses any event it has no row for);
 * - `limit`: the service's named duration or limit (its definition's `limits` table, see
 *   kernel/limits.ts) multiplied by `factor` (0.5 or 2; rounded, at least 1);
 * - `id-format`: the ids or secrets of kind `idKind` (its definition's `idKinds`) drawn in the
 *   format named `format` (one of that kind's `formats`).
 *
 * `new Simulator` throws a `UsageError` naming what it cannot find (service, machine, row,
 * state, limit, id kind or format).
 * @example
 * new Simulator({ services, mutation: { kind: "transition", service: "runs", machine: "run", from: "planning", event: "plan-done", to: "cost_estimating" } })
 */
export type SimulatorMutation =
  | { readonly kind: "transition"; readonly service: string; readonly machine: string; readonly from: string; readonly event: string; readonly to: string | null }
  | { readonly kind: "limit"; readonly service: string; readonly limit: string; readonly factor: number }
  | { readonly kind: "id-format"; readonly service: string; readonly idKind: string; readonly format: string };
