/**
 * Run progression: which automatic move a run makes next (from its state and outcome), taking an
 * event through the transition table with its side effects (plan, apply, cost estimate and policy
 * check records, status timestamps, the workspace lock, auto-archiving), and when the next move
 * happens: scheduled on the simulator clock (`timed`), at once (`immediate`) or on `step` (`manual`).
 *
 * Workspace queue (FIDELITY.md): a run that will apply holds the workspace from its start until it
 * completes; later such runs stay `pending`. Plan-only and saved-plan runs neither wait for nor take
 * the workspace (a confirmed saved plan waits for it before applying).
 */
import { UsageError } from "../kernel/errors.js";
import { PEEK } from "../kernel/journal.js";
import { acceptsNow, takeTransition } from "../kernel/machine.js";
import type { MovePayload } from "../kernel/scheduler.js";
import type { OperationContext } from "../kernel/simulator.js";
import type { PhaseName } from "./outcomes.js";
import { PAUSE_STATES, RUNNING_STATES, isFinalRunStatus, runMachine, type RunEvent, type RunStatus } from "./run-machine.js";
import { configurationVersionMachine } from "./configuration-version-machine.js";
import { indexes } from "./indexes.js";
import { configurationResources } from "./configuration-resources.js";
import { type ResourceCounts, type Run, type RunsIndexes, type RunsState, type Workspace } from "./state.js";


/**
 * Name of the timed move that makes a run's next automatic step.
 * @example
 * ctx.schedule(ctx.now + 1_000, RUN_STEP_MOVE, { runId: run.id, status: run.status });
 */
export const RUN_STEP_MOVE = "run-step";

/**
 * Whether a run takes the workspace (it may apply): not plan-only, not a saved plan.
 * @example
 * needsWorkspace(run) // false for plan-only and saved-plan runs
 */
export function needsWorkspace(run: Run): boolean {
  return !run.planOnly && !run.savePlan;
}

/**
 * Whether the run applies on its own after planning (spec: "Apply rules").
 * @example
 * autoApplies(run) // true: the run confirms itself after planning
 */
export function autoApplies(run: Run): boolean {
  return run.autoApply && run.queuedByApplier && !run.planOnly && !run.savePlan;
}

type Stage = "post-plan-start" | "cost-estimate-start" | "policy-check-start";

/** How many post-plan stages are over in each state after planning (the next stage starts at that position). */
const STAGES_DONE: Partial<Record<RunStatus, number>> = { planned: 0, post_plan_completed: 1, cost_estimated: 2, policy_checked: 3 };

/** The first post-plan stage the run's outcome includes that has not happened by `status`, if any (allocates nothing: it runs on every timed move). */
function nextStage(run: Run, status: RunStatus): Stage | undefined {
  const position = STAGES_DONE[status] ?? 0;
  const outcome = run.outcome;
  if (position <= 0 && outcome.postPlanTasks) return "post-plan-start";
  if (position <= 1 && outcome.costEstimation) return "cost-estimate-start";
  if (position <= 2 && outcome.policyCheck !== "none") return "policy-check-start";
  return undefined;
}

/** What happens once every post-plan stage is over: finish, save, confirm (auto-apply) or pause. */
function endOfPlan(run: Run, hasChanges: boolean): RunEvent | undefined {
  if (run.planOnly) return "finish";
  if (!hasChanges && !run.allowEmptyApply) return "finish";
  if (run.savePlan) return "save";
  if (autoApplies(run)) return "confirm";
  return undefined;
}

/**
 * The automatic event the run takes next, or undefined when it waits (for the workspace, for a
 * user's confirmation, for a process that ignores a cancel) or is final.
 * @example
 * nextAutomatic(ctx.state, run) // "plan-start" for a run in plan_queued
 */
export function nextAutomatic(state: RunsState, run: Run): RunEvent | undefined {
  const outcome = run.outcome;
  switch (run.status) {
    case "pending":
      return !needsWorkspace(run) || holdsWorkspace(state, run) ? "start" : undefined;
    case "fetching":
      return "fetch-done";
    case "fetching_completed":
      return outcome.prePlanTasks ? "pre-plan-start" : "queue";
    case "pre_plan_running":
      return "pre-plan-done";
    case "pre_plan_completed":
      return "queue";
    case "queuing":
      return "plan-queue";
    case "plan_queued":
      return "plan-start";
    case "planning": {
      if (run.canceledAt !== null) return outcome.interrupt === "stops" ? "cancel" : undefined;
      if (outcome.plan === "errors") return "plan-error";
      const nothingFollows = nextStage(run, "planned") === undefined && endOfPlan(run, outcome.plan === "changes") === "finish";
      return nothingFollows ? "finish" : "plan-done";
    }
    case "planned":
    case "post_plan_completed":
    case "cost_estimated":
    case "policy_checked":
      return nextStage(run, run.status) ?? endOfPlan(run, run.hasChanges);
    case "post_plan_running":
      return "post-plan-done";
    case "cost_estimating":
      return "cost-estimate-done";
    case "policy_checking":
      switch (outcome.policyCheck) {
        case "soft-fails":
          return run.planOnly ? "policy-soft-fail-final" : "policy-soft-fail";
        case "hard-fails":
          return "policy-hard-fail";
        default:
          return "policy-pass";
      }
    case "confirmed":
      return holdsWorkspace(state, run) ? "apply-queue" : undefined;
    case "apply_queued":
      return "apply-start";
    case "applying":
      if (run.canceledAt !== null) return outcome.interrupt === "stops" ? "cancel" : undefined;
      return outcome.apply === "errors" ? "apply-error" : "apply-done";
    default:
      return undefined;
  }
}

/** Whether the run holds its workspace (read only in the states that wait for it: every timed move asks for the next step). */
function holdsWorkspace(state: RunsState, run: Run): boolean {
  return state.workspaces[run.workspaceId]?.lockedBy === run.id;
}

/**
 * Whether the run is paused for confirmation: it sits in a pause state (`planned`,
 * `post_plan_completed`, `cost_estimated`, `policy_checked`, `policy_override`, `planned_and_saved`)
 * and its next step is a confirmation, by a user's apply or by auto-apply (spec: the apply and
 * discard rows name `policy_checked` whatever the workspace's auto-apply setting, so a run waiting
 * for its automatic confirmation can still be applied or discarded).
 * @example
 * isPaused(ctx.state, run) // true for a run waiting in "planned"; false while a cost estimate follows
 */
export function isPaused(state: RunsState, run: Run): boolean {
  if (!PAUSE_STATES.includes(run.status)) return false;
  const next = nextAutomatic(state, run);
  return next === undefined || next === "confirm";
}

/**
 * Whether discard would be accepted now: pending, or paused for confirmation.
 * @example
 * isDiscardable(ctx.state, run) // true for pending and paused runs
 */
export function isDiscardable(state: RunsState, run: Run): boolean {
  return run.status === "pending" || isPaused(state, run);
}

/**
 * Why a run makes no automatic move now (for {@link step}'s error).
 * @example
 * waitingReason(ctx.state, run) // 'it is "planned", paused for confirmation: apply or discard it'
 */
export function waitingReason(state: RunsState, run: Run): string {
  if (isFinalRunStatus(run.status)) return `it is "${run.status}", a final state`;
  if (run.status === "pending" || run.status === "confirmed") {
    const workspace = state.workspaces[run.workspaceId];
    const holder = workspace?.lockedBy ?? (workspace?.lock ? `${workspace.lock.id} (locked through the API)` : null);
    return `it waits for workspace ${run.workspaceId}, held by ${holder ?? "nobody"}`;
  }
  if (RUNNING_STATES.includes(run.status)) return `it was canceled and its process ignores the interrupt: force-cancel it`;
  return `it is "${run.status}", paused for confirmation: apply or discard it`;
}

const DWELL: Partial<Record<RunStatus, PhaseName>> = {
  pending: "queue",
  fetching: "fetch",
  fetching_completed: "handoff",
  pre_plan_running: "prePlanTasks",
  pre_plan_completed: "handoff",
  queuing: "handoff",
  plan_queued: "planQueue",
  planning: "plan",
  planned: "handoff",
  post_plan_running: "postPlanTasks",
  post_plan_completed: "handoff",
  cost_estimating: "costEstimate",
  cost_estimated: "handoff",
  policy_checking: "policyCheck",
  policy_checked: "handoff",
  confirmed: "handoff",
  apply_queued: "applyQueue",
  applying: "apply",
};

/**
 * How long (ms) the run stays in its current state before its next automatic move (timed mode).
 * @example
 * dwellMs(run) // 30_000 while planning with default durations
 */
export function dwellMs(run: Run): number {
  if (run.canceledAt !== null && RUNNING_STATES.includes(run.status)) return run.outcome.durations.cancel;
  const phase = DWELL[run.status];
  return phase === undefined ? 0 : run.outcome.durations[phase];
}

/** The plain records behind journal proxies, each read at a load site of its own (see `PEEK`). */
type Peekable<T> = T & { readonly [PEEK]?: T };
function plainRun(run: Run): Run {
  return (run as Peekable<Run>)[PEEK] ?? run;
}
function plainState(state: RunsState): RunsState {
  return (state as Peekable<RunsState>)[PEEK] ?? state;
}
function plainWorkspace(workspace: Workspace): Workspace {
  return (workspace as Peekable<Workspace>)[PEEK] ?? workspace;
}
function plainIndexes(index: RunsIndexes): RunsIndexes {
  return (index as Peekable<RunsIndexes>)[PEEK] ?? index;
}

/**
 * Plans the run's next automatic move after any change: cancels the scheduled one, then schedules
 * the next (`timed`), takes it at once (`immediate`), or leaves it to {@link step} (`manual`).
 * @example
 * run.outcome = mergeOutcome(run.outcome, { progression: "immediate" }); reschedule(ctx, run);
 */
export function reschedule(ctx: OperationContext<RunsState>, run: Run): void {
  // Reads go through the plain records (`peek`), writes through `run` (a journal proxy inside a
  // transaction): the reading functions then see one shape of object whether a request or a timed
  // move calls them, and V8 compiles their loads for it (docs/decisions/kernel.md, issue 25).
  const plain = plainRun(run);
  if (plain.pendingMove !== null) {
    ctx.cancel(plain.pendingMove);
    run.pendingMove = null;
  }
  const next = nextAutomatic(plainState(ctx.state), plain);
  if (next === undefined) return;
  switch (plain.outcome.progression) {
    case "immediate":
      // A move the table has no row for is not made (the run stays where it is; see acceptsNow).
      if (acceptsNow(ctx, runMachine, plain.status, next)) take(ctx, run, next);
      return;
    case "timed":
      run.pendingMove = ctx.schedule(ctx.now + dwellMs(plain), RUN_STEP_MOVE, { runId: plain.id, status: plain.status });
      return;
    case "manual":
      return;
  }
}

/**
 * The timed move handler: the run makes its next automatic step if it is still where it was.
 * @example
 * const definition = { ...runsDefinition, moves: { [RUN_STEP_MOVE]: runStepMove } };
 */
export function runStepMove(ctx: OperationContext<RunsState>, payload: MovePayload): void {
  const { runId, status } = payload as { runId: string; status: string };
  const run = ctx.state.runs[runId];
  if (run === undefined || run.status !== status) return;
  run.pendingMove = null;
  const next = nextAutomatic(ctx.state, run);
  // (A mutant's table may have no row for it: the kernel then drops the move, its writes undone.)
  if (next !== undefined) take(ctx, run, next);
}

/**
 * Makes the run's next automatic move now, whatever its progression mode.
 * @returns the run's new status.
 * @throws {UsageError} when the run makes no automatic move now (paused, waiting, final).
 * @example
 * step(ctx, "run-abc") // "fetching"
 */
export function step(ctx: OperationContext<RunsState>, runId: string): RunStatus {
  const run = ctx.state.runs[runId];
  if (run === undefined) throw new UsageError(`runs: no run "${runId}"`);
  const next = nextAutomatic(ctx.state, run);
  if (next === undefined) throw new UsageError(`runs: run ${runId} cannot step: ${waitingReason(ctx.state, run)}`);
  if (!acceptsNow(ctx, runMachine, run.status, next)) throw new UsageError(`runs: run ${runId} cannot step: the run table has no row "${run.status}" --${next}-->`);
  take(ctx, run, next);
  return run.status;
}

/**
 * Takes `event` from the run's state through the table, applies its side effects, and plans the
 * next automatic move.
 * @throws {DomainError} `conflict` when the table has no such transition.
 * @example
 * take(ctx, run, "discard"); // run.status === "discarded"
 */
export function take(ctx: OperationContext<RunsState>, run: Run, event: RunEvent): void {
  const from = run.status;
  const to = takeTransition(ctx, runMachine, from, event, { resource: run.id });
  run.status = to;
  stampRun(run.statusTimestamps, to, ctx.now);
  enter(ctx, run, from, to);
  if (isFinalRunStatus(to)) {
    if (run.pendingMove !== null) {
      ctx.cancel(run.pendingMove);
      run.pendingMove = null;
    }
    finished(ctx, run);
    return;
  }
  reschedule(ctx, run);
  if (to === "confirmed") {
    const workspace = ctx.state.workspaces[run.workspaceId];
    if (workspace && workspace.lockedBy !== run.id) dispatch(ctx, workspace);
  }
}

type PlanStatus = RunsState["plans"][string]["status"];
type ApplyStatus = RunsState["applies"][string]["status"];
type PolicyCheck = RunsState["policyChecks"][string];

type Phase = RunsState["plans"][string];

/**
 * Records when a run entered `status`. A store of a key chosen at run time that adds a property
 * is a megamorphic keyed store (a map transition found in the runtime, some 380 instructions,
 * 1.6 per timed move); a named store per status is a transition each site learns once.
 */
function stampRun(stamps: Run["statusTimestamps"], status: RunStatus, now: number): void {
  switch (status) {
    case "pending":
      stamps.pending = now;
      return;
    case "fetching":
      stamps.fetching = now;
      return;
    case "fetching_completed":
      stamps.fetching_completed = now;
      return;
    case "pre_plan_running":
      stamps.pre_plan_running = now;
      return;
    case "pre_plan_completed":
      stamps.pre_plan_completed = now;
      return;
    case "queuing":
      stamps.queuing = now;
      return;
    case "plan_queued":
      stamps.plan_queued = now;
      return;
    case "planning":
      stamps.planning = now;
      return;
    case "planned":
      stamps.planned = now;
      return;
    case "cost_estimating":
      stamps.cost_estimating = now;
      return;
    case "cost_estimated":
      stamps.cost_estimated = now;
      return;
    case "policy_checking":
      stamps.policy_checking = now;
      return;
    case "policy_override":
      stamps.policy_override = now;
      return;
    case "policy_soft_failed":
      stamps.policy_soft_failed = now;
      return;
    case "policy_checked":
      stamps.policy_checked = now;
      return;
    case "confirmed":
      stamps.confirmed = now;
      return;
    case "post_plan_running":
      stamps.post_plan_running = now;
      return;
    case "post_plan_completed":
      stamps.post_plan_completed = now;
      return;
    case "planned_and_finished":
      stamps.planned_and_finished = now;
      return;
    case "planned_and_saved":
      stamps.planned_and_saved = now;
      return;
    case "apply_queued":
      stamps.apply_queued = now;
      return;
    case "applying":
      stamps.applying = now;
      return;
    case "applied":
      stamps.applied = now;
      return;
    case "discarded":
      stamps.discarded = now;
      return;
    case "errored":
      stamps.errored = now;
      return;
    case "canceled":
      stamps.canceled = now;
      return;
    case "force_canceled":
      stamps.force_canceled = now;
      return;
    default:
      (stamps as Record<string, number>)[status as string] = now;
  }
}

/** Records when a plan or apply entered `status` (named stores, as {@link stampRun}). */
function stampPhase(stamps: Phase["statusTimestamps"], status: PlanStatus, now: number): void {
  switch (status) {
    case "pending":
      stamps.pending = now;
      return;
    case "queued":
      stamps.queued = now;
      return;
    case "running":
      stamps.running = now;
      return;
    case "finished":
      stamps.finished = now;
      return;
    case "errored":
      stamps.errored = now;
      return;
    case "canceled":
      stamps.canceled = now;
      return;
    case "unreachable":
      stamps.unreachable = now;
      return;
    default:
      (stamps as Record<string, number>)[status as string] = now;
  }
}

/** Sets a plan's or apply's status and its timestamp (nothing when the record is gone). */
function setPhase(phase: Phase | undefined, status: PlanStatus, now: number): void {
  if (phase) {
    phase.status = status;
    stampPhase(phase.statusTimestamps, status, now);
  }
}

function setPlan(ctx: OperationContext<RunsState>, run: Run, status: PlanStatus): void {
  setPhase(ctx.state.plans[run.planId], status, ctx.now);
}

function setApply(ctx: OperationContext<RunsState>, run: Run, status: ApplyStatus): void {
  setPhase(ctx.state.applies[run.applyId], status, ctx.now);
}

/** Sets the status of the run's policy checks (those `only` accepts, when given). */
function setChecks(ctx: OperationContext<RunsState>, run: Run, status: PolicyCheck["status"], only?: (check: PolicyCheck) => boolean): void {
  for (const id of run.policyCheckIds) {
    const check = ctx.state.policyChecks[id];
    if (check === undefined || (only !== undefined && !only(check))) continue;
    check.status = status;
    check.statusTimestamps[status] = ctx.now;
  }
}

/** The side effects of entering `to` from `from`; it reads only the records the transition changes (it runs on every timed move). */
function enter(ctx: OperationContext<RunsState>, run: Run, from: RunStatus, to: RunStatus): void {
  const now = ctx.now;
  // Leaving `planning` for anything but an error or a cancel finishes the plan (the table's
  // `planned` and `planned_and_finished`; a mutant's table may lead elsewhere, e.g. straight to
  // `cost_estimating`, and the plan is then finished all the same).
  if (from === "planning" && to !== "errored" && to !== "canceled" && to !== "force_canceled" && to !== "discarded") finishPlan(ctx, run, now);
  switch (to) {
    case "plan_queued":
      setPlan(ctx, run, "queued");
      return;
    case "planning":
      setPlan(ctx, run, "running");
      return;
    case "planned":
    case "planned_and_finished":
      if (to === "planned_and_finished") setApply(ctx, run, "unreachable");
      return;
    case "cost_estimating":
      run.costEstimateId = createCostEstimate(ctx, run);
      return;
    case "cost_estimated": {
      const estimate = run.costEstimateId === null ? undefined : ctx.state.costEstimates[run.costEstimateId];
      if (estimate) {
        estimate.status = "finished";
        estimate.statusTimestamps.finished = now;
      }
      return;
    }
    case "policy_checking":
      run.policyCheckIds = [...run.policyCheckIds, createPolicyCheck(ctx, run)];
      return;
    case "policy_checked":
    case "policy_override":
    case "policy_soft_failed":
      setChecks(ctx, run, to === "policy_checked" ? "passed" : "soft_failed");
      if (to === "policy_soft_failed") setApply(ctx, run, "unreachable");
      return;
    case "confirmed":
      if (from === "policy_override") {
        run.policyOverridden = true;
        setChecks(ctx, run, "overridden");
      }
      return;
    case "apply_queued":
      setApply(ctx, run, "queued");
      return;
    case "applying": {
      const plan = ctx.state.plans[run.planId];
      const apply = ctx.state.applies[run.applyId];
      if (apply && plan) apply.addresses = [...(plan.addresses ?? [])];
      setPhase(apply, "running", now);
      return;
    }
    case "applied": {
      const plan = ctx.state.plans[run.planId];
      const apply = ctx.state.applies[run.applyId];
      if (apply && plan) apply.resources = { ...plan.resources };
      setPhase(apply, "finished", now);
      applied(ctx, run);
      return;
    }
    case "errored":
      if (from === "planning") setPlan(ctx, run, "errored");
      if (from === "policy_checking") setChecks(ctx, run, "hard_failed");
      setApply(ctx, run, from === "applying" ? "errored" : "unreachable");
      return;
    case "canceled":
    case "force_canceled":
    case "discarded": {
      if (to !== "discarded" && run.canceledAt === null) run.canceledAt = now;
      const plan = ctx.state.plans[run.planId];
      if (plan && (plan.status === "running" || plan.status === "queued")) setPlan(ctx, run, "canceled");
      else if (plan && plan.status === "pending") setPlan(ctx, run, "unreachable");
      const apply = ctx.state.applies[run.applyId];
      if (apply && (apply.status === "running" || apply.status === "queued")) setApply(ctx, run, "canceled");
      else if (apply && apply.status === "pending") setApply(ctx, run, "unreachable");
      const estimate = run.costEstimateId === null ? undefined : ctx.state.costEstimates[run.costEstimateId];
      if (estimate && estimate.status !== "finished") {
        estimate.status = "canceled";
        estimate.statusTimestamps.canceled = now;
      }
      setChecks(ctx, run, "canceled", (check) => check.status === "pending" || check.status === "queued");
      return;
    }
    default:
      return;
  }
}

/** The plan is over: whether it has changes, its resources, `finished`. */
function finishPlan(ctx: OperationContext<RunsState>, run: Run, now: number): void {
  run.hasChanges = run.outcome.plan === "changes";
  const plan = ctx.state.plans[run.planId];
  if (plan) {
    const planned = run.hasChanges ? plannedResources(ctx, run) : { counts: zero(), addresses: [] };
    plan.hasChanges = run.hasChanges;
    plan.resources = planned.counts;
    plan.addresses = planned.addresses;
  }
  // The record already in hand (each lookup among 10,000 plans is a cache miss or two).
  setPhase(plan, "finished", now);
}

function zero(): ResourceCounts {
  return { add: 0, change: 0, destroy: 0, import: 0 };
}

/**
 * Resource counts of a plan with changes, and the addresses behind them: the outcome's counts when
 * it gives them (no addresses); none for a refresh-only run; otherwise one per resource block of the
 * run's configuration (docs/decisions/runs.md, "Plan and apply logs"), to destroy for a destroy run
 * and to add for any other. A configuration whose archive is gone or unreadable falls back to
 * plausible counts (2 to add and 1 to change; 3 to destroy for a destroy run).
 * @example
 * plannedResources(ctx, run) // { counts: { add: 1, change: 0, destroy: 0, import: 0 }, addresses: ["null_resource.example"] }
 */
export function plannedResources(ctx: OperationContext<RunsState>, run: Run): { counts: ResourceCounts; addresses: string[] } {
  if (run.outcome.resources) return { counts: { ...run.outcome.resources }, addresses: [] };
  if (run.refreshOnly) return { counts: zero(), addresses: [] };
  const version = ctx.state.configurationVersions[run.configurationVersionId];
  const archive = version?.blobKey == null ? undefined : ctx.blob(version.blobKey);
  const addresses = archive === undefined ? undefined : configurationResources(archive);
  if (addresses === undefined) {
    return { counts: run.isDestroy ? { add: 0, change: 0, destroy: 3, import: 0 } : { add: 2, change: 1, destroy: 0, import: 0 }, addresses: [] };
  }
  const n = addresses.length;
  return { counts: run.isDestroy ? { add: 0, change: 0, destroy: n, import: 0 } : { add: n, change: 0, destroy: 0, import: 0 }, addresses };
}

function createCostEstimate(ctx: OperationContext<RunsState>, run: Run): string {
  const id = ctx.ids.prefixed("ce-");
  const plan = ctx.state.plans[run.planId];
  const counts = run.hasChanges && plan ? plan.resources : zero();
  const resourcesCount = counts.add + counts.change + counts.destroy + 2;
  const prior = 12.5 * (counts.change + counts.destroy + 2);
  const proposed = prior + 9.125 * counts.add - 12.5 * counts.destroy;
  ctx.state.costEstimates[id] = {
    id,
    runId: run.id,
    status: "queued",
    statusTimestamps: { pending: run.statusTimestamps.planned ?? ctx.now, queued: ctx.now },
    priorMonthlyCost: prior.toFixed(2),
    proposedMonthlyCost: proposed.toFixed(2),
    deltaMonthlyCost: (proposed - prior).toFixed(2),
    matchedResourcesCount: resourcesCount - 1,
    unmatchedResourcesCount: 1,
    resourcesCount,
  };
  return id;
}

function createPolicyCheck(ctx: OperationContext<RunsState>, run: Run): string {
  const id = ctx.ids.prefixed("polchk-");
  ctx.state.policyChecks[id] = { id, runId: run.id, status: "queued", statusTimestamps: { queued: ctx.now } };
  return id;
}

/** A run was applied: its configuration version becomes current (provisional ones unless a newer one exists). */
function applied(ctx: OperationContext<RunsState>, run: Run): void {
  const workspace = ctx.state.workspaces[run.workspaceId];
  const version = ctx.state.configurationVersions[run.configurationVersionId];
  if (!workspace || !version) return;
  const latest = workspace.latestConfigurationVersionId === null ? undefined : ctx.state.configurationVersions[workspace.latestConfigurationVersionId];
  // Only a provisional version changes the default here (spec: it becomes current when its run is
  // applied, unless a newer one exists); any other version became the default when it was created
  // or used, and applying an older run must not bring it back.
  if (version.provisional && (latest === undefined || latest.seq <= version.seq)) {
    workspace.latestConfigurationVersionId = version.id;
  }
  const current = workspace.currentConfigurationVersionId === null ? undefined : ctx.state.configurationVersions[workspace.currentConfigurationVersionId];
  if (current === undefined || current.seq <= version.seq) workspace.currentConfigurationVersionId = version.id;
}

/** A run reached a final state: release the workspace, let the next run go, archive a VCS version whose runs are done. */
function finished(ctx: OperationContext<RunsState>, run: Run): void {
  const workspace = ctx.state.workspaces[run.workspaceId];
  if (workspace && workspace.lockedBy === run.id) {
    workspace.lockedBy = null;
    dispatch(ctx, workspace);
  }
  const version = ctx.state.configurationVersions[run.configurationVersionId];
  if (version && version.vcs && version.status === "uploaded") {
    const busy = (indexes(ctx.state).runsByConfigurationVersion[version.id] ?? []).some((id) => {
      const r = ctx.state.runs[id];
      return r !== undefined && !isFinalRunStatus(r.status);
    });
    if (!busy && acceptsNow(ctx, configurationVersionMachine, version.status, "auto-archive")) {
      version.status = takeTransition(ctx, configurationVersionMachine, version.status, "auto-archive", { resource: version.id });
      version.statusTimestamps.archived = ctx.now;
    }
  }
}

/**
 * Gives a free workspace to its oldest waiting run (a pending run that will apply, or a confirmed
 * saved plan), which then starts. A workspace a user or team locked is given to no run.
 * @example
 * dispatch(ctx, workspace); // the oldest waiting run takes the workspace
 */
export function dispatch(ctx: OperationContext<RunsState>, workspace: Workspace): void {
  // Reads through the plain records, writes through `workspace` and the state (see reschedule).
  // (A key deleted earlier in the transaction reads as the journal's marker, not an object.)
  const runs = plainState(ctx.state).runs;
  const plain = plainWorkspace(workspace);
  if (plain.lockedBy !== null) {
    const holder = runs[plain.lockedBy];
    if (typeof holder === "object" && !isFinalRunStatus(holder.status)) return;
    workspace.lockedBy = null;
  }
  // A user's or team's lock keeps every run out until it is unlocked (which dispatches again).
  if (plain.lock !== null) return;
  // The workspace's runs in creation (= seq) order: the first waiting one is the oldest. (The
  // indexes are looked up through the state: a first lookup builds them, a write to record.)
  let waiting: string | undefined;
  for (const id of plainIndexes(indexes(ctx.state)).runsByWorkspace[plain.id] ?? []) {
    const r = runs[id];
    if (typeof r === "object" && ((r.status === "pending" && needsWorkspace(r)) || (r.status === "confirmed" && r.savePlan))) {
      waiting = id;
      break;
    }
  }
  if (waiting === undefined) return;
  workspace.lockedBy = waiting;
  workspace.currentRunId = waiting;
  const run = ctx.state.runs[waiting];
  if (run !== undefined) reschedule(ctx, run);
}
