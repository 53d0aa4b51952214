/**
 * Service mutants: a mutant is the faithful fake with one deliberate change to its tables as data
 * (transition tables, route tables, error tables, durations and limits, id formats). A suite that
 * still passes against a mutant does not notice that behaviour of the real service.
 *
 * See docs/guides/find-what-your-tests-would-not-notice.md and docs/decisions/mutants.md.
 */
import type { SimulatorMutation } from "../../simulator/kernel/mutation.js";
import type { WireMutation } from "../../interceptors/mutation.js";

/**
 * The environment variable that picks the mutant a process's doubles are built with (a mutant
 * id, see {@link Mutant.id}); `createDoubles()` and `infra-doubles serve` read it when no
 * `mutant` option is given. `infra-doubles mutate` sets it for the test command.
 * @example INFRA_DOUBLES_MUTANT='runs:transition-removed:run/planned/confirm' npx vitest run
 */
export const MUTANT_ENV = "INFRA_DOUBLES_MUTANT";

/** How a mutant was made from the tables. */
export type MutantOperator =
  /** A transition row removed (its event refused as a state conflict, or its timed move never made). */
  | "transition-removed"
  /** A transition row leading to another legal target state. */
  | "transition-redirected"
  /** An accepted action (a user event of a machine) answered with the refusal the spec gives for it elsewhere. */
  | "action-refused"
  /** A route's success answered with the service's other documented error for that route. */
  | "status-swapped"
  /** A duration (TTL, cool-off, plan duration) scaled x0.5 or x2. */
  | "duration-scaled"
  /** A limit (a page size, a maximum) scaled x0.5 or x2. */
  | "limit-scaled"
  /** A list the spec leaves unordered returned in another order. */
  | "list-reordered"
  /** An optional field omitted from a route's answers. */
  | "field-omitted"
  /** An id or secret drawn in another format the spec allows. */
  | "id-format-changed";

/** Every operator, in report order. */
export const MUTANT_OPERATORS: readonly MutantOperator[] = Object.freeze([
  "transition-removed",
  "transition-redirected",
  "action-refused",
  "status-swapped",
  "duration-scaled",
  "limit-scaled",
  "list-reordered",
  "field-omitted",
  "id-format-changed",
]);

/**
 * What a test must exercise for a mutant to change anything it sees: an item of the coverage
 * report (`doubles.coverage()`). A test file that reached none of a mutant's items sees the same
 * answers against the mutant as against the faithful fake.
 * - `transition`: the label of a row in `services[service].machines[machine].transitions`;
 * - `endpoint`: a `METHOD /template` label in `services[service].endpoints`;
 * - `service`: any request to the service (ids, limits read everywhere).
 */
export type MutantReach =
  | { readonly kind: "transition"; readonly service: string; readonly machine: string; readonly label: string }
  | { readonly kind: "endpoint"; readonly service: string; readonly label: string }
  | { readonly kind: "service"; readonly service: string };

/** Where a mutant's change is applied: to the simulator when it is built, or to the handler's answers. */
export type MutantChange =
  | { readonly layer: "simulator"; readonly mutation: SimulatorMutation }
  | { readonly layer: "wire"; readonly mutation: WireMutation };

/**
 * One mutant of the services.
 * @example
 * {
 *   id: "runs:transition-removed:run/planned/confirm",
 *   service: "runs",
 *   operator: "transition-removed",
 *   description: "`POST /runs/:run_id/actions/apply` answers 409 while the run is `planned`",
 *   reaches: [{ kind: "transition", service: "runs", machine: "run", label: "planned -> confirmed" }],
 *   change: { layer: "simulator", mutation: { kind: "transition", service: "runs", machine: "run", from: "planned", event: "confirm", to: null } },
 * }
 */
export interface Mutant {
  /**
   * Stable id: `<service>:<operator>:<detail>`, made of the tables' own names (the same for every
   * process and every run; safe in an environment variable and a URL path segment once encoded).
   */
  readonly id: string;
  /** Service key: `runs`, `accessControl` or `secrets`. */
  readonly service: string;
  readonly operator: MutantOperator;
  /**
   * The behaviour changed, in words a report can print after "your suite passes when ...", e.g.
   * "`POST /runs/:run_id/actions/apply` answers 409 while the run is `planned`".
   */
  readonly description: string;
  /** Coverage items a test must reach for the mutant to matter (any of them). */
  readonly reaches: readonly MutantReach[];
  readonly change: MutantChange;
}
