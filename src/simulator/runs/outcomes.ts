/**
 * Run outcomes and progression: what a run's phases will produce (changes or not, plan errors,
 * cost estimation, policy results, apply errors, run tasks, whether the process obeys a cancel) and
 * how fast it gets there (`timed` on the simulator clock with per-phase durations, `manual` one
 * step at a time, or `immediate`).
 *
 * Outcomes are set per simulator, per workspace, for the next runs of a workspace, or per run;
 * a run resolves its outcome when it is created (run < next-run < workspace < simulator).
 */
import { peek } from "../kernel/journal.js";

/** How runs move through their automatic phases (`timed`, `manual` or `immediate`). */
export type ProgressionMode = "timed" | "manual" | "immediate";

/** Resource counts of a plan or an apply. */
export interface ResourceCounts {
  readonly add: number;
  readonly change: number;
  readonly destroy: number;
  readonly import: number;
}

/** Phases with a duration (ms) in `timed` progression. */
export interface PhaseDurations {
  /** A pending run that may start waits this long before fetching (default 1 s). */
  readonly queue: number;
  /** `fetching` (default 2 s). */
  readonly fetch: number;
  /** Each short hand-off state (`fetching_completed`, `queuing`, `planned`, `cost_estimated`, `confirmed`, ...) when the run moves on (default 1 s). */
  readonly handoff: number;
  /** `pre_plan_running` (default 5 s). */
  readonly prePlanTasks: number;
  /** `plan_queued` (default 2 s). */
  readonly planQueue: number;
  /** `planning` (default 30 s). */
  readonly plan: number;
  /** `post_plan_running` (default 5 s). */
  readonly postPlanTasks: number;
  /** `cost_estimating` (default 5 s). */
  readonly costEstimate: number;
  /** `policy_checking` (default 5 s). */
  readonly policyCheck: number;
  /** `apply_queued` (default 2 s). */
  readonly applyQueue: number;
  /** `applying` (default 45 s). */
  readonly apply: number;
  /** From a cancel to the interrupted process stopping (default 2 s). */
  readonly cancel: number;
  /** A VCS-created configuration version `fetching` (default 5 s). */
  readonly vcsFetch: number;
}

/** The name of a phase duration. */
export type PhaseName = keyof PhaseDurations;

/**
 * Default phase durations (ms): a run with every stage completes in about two minutes.
 * @example
 * DEFAULT_DURATIONS.plan // 30_000 (ms)
 */
export const DEFAULT_DURATIONS: PhaseDurations = Object.freeze({
  queue: 1_000,
  fetch: 2_000,
  handoff: 1_000,
  prePlanTasks: 5_000,
  planQueue: 2_000,
  plan: 30_000,
  postPlanTasks: 5_000,
  costEstimate: 5_000,
  policyCheck: 5_000,
  applyQueue: 2_000,
  apply: 45_000,
  cancel: 2_000,
  vcsFetch: 5_000,
});

/** What the plan produces. */
export type PlanOutcome = "changes" | "no-changes" | "errors";
/** What the policy check produces (`none`: no policies apply). */
export type PolicyOutcome = "none" | "passes" | "soft-fails" | "hard-fails";
/** What the apply produces. */
export type ApplyOutcome = "succeeds" | "errors";
/** What the running process does on a cancel: stop (after `durations.cancel`) or ignore it (only force-cancel ends it). */
export type InterruptOutcome = "stops" | "ignored";

/** A run's complete outcome. */
export interface RunOutcome {
  readonly plan: PlanOutcome;
  readonly costEstimation: boolean;
  readonly policyCheck: PolicyOutcome;
  readonly apply: ApplyOutcome;
  readonly prePlanTasks: boolean;
  readonly postPlanTasks: boolean;
  readonly interrupt: InterruptOutcome;
  /** Resource counts of a plan with changes; `null`: one per resource block of the run's configuration (to add, or to destroy for a destroy run). */
  readonly resources: ResourceCounts | null;
  readonly progression: ProgressionMode;
  readonly durations: PhaseDurations;
}

/** An outcome override: every field optional, durations merged field by field. */
export type OutcomeOverride = Partial<Omit<RunOutcome, "durations">> & { readonly durations?: Partial<PhaseDurations> };

/**
 * The default outcome: the plan has changes, no cost estimation, no policies, no run tasks, the
 * apply succeeds, a cancel stops the process, timed progression with {@link DEFAULT_DURATIONS}.
 * @example
 * mergeOutcome(DEFAULT_OUTCOME, { plan: "no-changes" }).plan // "no-changes"
 */
export const DEFAULT_OUTCOME: RunOutcome = Object.freeze({
  plan: "changes",
  costEstimation: false,
  policyCheck: "none",
  apply: "succeeds",
  prePlanTasks: false,
  postPlanTasks: false,
  interrupt: "stops",
  resources: null,
  progression: "timed",
  durations: DEFAULT_DURATIONS,
});

/**
 * Applies overrides in order (later ones win), merging `durations` field by field. The result is
 * a frozen value (its `durations` and `resources` too): outcomes are replaced, never written in
 * place. When no override sets anything and `base` is frozen, `base` itself is returned, so the
 * runs of a workspace without overrides share the simulator's outcome: one object for them all
 * instead of two per run (a timed move reads its run's outcome on every step; measured 8-10% of a
 * move in the 10,000-workspace scenario).
 * @example
 * mergeOutcome(DEFAULT_OUTCOME, { durations: { plan: 5_000 } }).durations.apply // 45_000 (kept)
 * mergeOutcome(DEFAULT_OUTCOME, {}, undefined) === DEFAULT_OUTCOME // true
 */
export function mergeOutcome(base: RunOutcome, ...overrides: readonly (OutcomeOverride | undefined)[]): RunOutcome {
  // Read without the journal's traps: the parts are copied, never written through.
  const plain = peek(base);
  if (Object.isFrozen(plain) && overrides.every(overridesNothing)) return plain;
  let out: RunOutcome = { ...plain, durations: { ...peek(plain.durations) } };
  for (const maybe of overrides) {
    const override = peek(maybe);
    if (override === undefined) continue;
    const { durations, ...rest } = override;
    const defined = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)) as Partial<RunOutcome>;
    out = { ...out, ...defined, durations: { ...out.durations, ...stripUndefined(peek(durations) ?? {}) } };
  }
  const resources = peek(out.resources);
  return Object.freeze({ ...out, resources: resources === null ? null : Object.freeze({ ...resources }), durations: Object.freeze(out.durations) });
}

/** Whether an override (possibly a journal proxy) sets no field, durations included. */
function overridesNothing(maybe: OutcomeOverride | undefined): boolean {
  const override = peek(maybe);
  if (override === undefined) return true;
  for (const [key, value] of Object.entries(override)) {
    if (value === undefined) continue;
    if (key !== "durations") return false;
    for (const duration of Object.values(peek(value) as object)) if (duration !== undefined) return false;
  }
  return true;
}

/**
 * Merges two overrides (for storing a workspace's accumulated settings).
 * @example
 * combineOverrides({ plan: "errors" }, { apply: "errors" }) // { plan: "errors", apply: "errors" }
 */
export function combineOverrides(base: OutcomeOverride, next: OutcomeOverride): OutcomeOverride {
  const { durations, ...rest } = next;
  const merged: OutcomeOverride = { ...base, ...stripUndefined(rest) };
  if (durations !== undefined || base.durations !== undefined) {
    return { ...merged, durations: { ...(base.durations ?? {}), ...stripUndefined(durations ?? {}) } };
  }
  return merged;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
