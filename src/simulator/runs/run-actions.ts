/**
 * The five run actions (spec: run-orchestration.md, the run transitions table, "Apply rules",
 * "Force-cancel rules", "Force-execute rules" and the error table): apply, discard, cancel,
 * force-cancel and force-execute, each with its exact preconditions. Permission refusals are 404;
 * a run in the wrong state is 409 `transition not allowed` (force-execute: 403 or 409 as the spec says).
 */
import { isoMillis } from "../kernel/time.js";
import type { OperationContext } from "../kernel/simulator.js";
import { requireCapability, type Caller, type Capability } from "./access.js";
import { conflict, forbidden, notFound } from "./errors.js";
import { indexes } from "./indexes.js";
import { isDiscardable, isPaused, needsWorkspace, reschedule, take } from "./progression.js";
import { RUNNING_STATES, isFinalRunStatus } from "./run-machine.js";
import type { Run, RunsState } from "./state.js";


/** A run action. */
export type RunAction = "apply" | "discard" | "cancel" | "force-cancel" | "force-execute";

const NEEDS: Readonly<Record<RunAction, Capability>> = Object.freeze({
  apply: "apply-runs",
  discard: "apply-runs",
  cancel: "apply-runs",
  "force-cancel": "admin",
  "force-execute": "apply-runs",
});

function actionTarget(ctx: OperationContext<RunsState>, caller: Caller, runId: string, action: RunAction): Run {
  const operation = `${action} run`;
  const run = ctx.state.runs[runId];
  const workspace = run === undefined ? undefined : ctx.state.workspaces[run.workspaceId];
  if (run === undefined || workspace === undefined) throw notFound(operation, runId);
  requireCapability(ctx.state, caller, workspace, NEEDS[action], operation, runId, { organizationTokens: "refused" });
  return run;
}

function comment(ctx: OperationContext<RunsState>, caller: Caller, run: Run, action: RunAction, body: string | null | undefined): void {
  if (body === undefined || body === null) return;
  run.comments = [...run.comments, { id: ctx.ids.prefixed("wsc-"), body, action, by: caller.userId ?? "", at: ctx.now }];
}

/**
 * Applies a run paused for confirmation (overriding a soft-failed policy first): `confirmed`, then
 * `apply_queued` automatically.
 * @throws {DomainError} `not_found` (404) when missing or the caller may not apply runs;
 *   `conflict` (409) when the run was not paused for confirmation.
 * @example
 * applyRun(ctx, caller, "run-abc", "Looks good").status // "confirmed"
 */
export function applyRun(ctx: OperationContext<RunsState>, caller: Caller, runId: string, note?: string | null): Run {
  const run = actionTarget(ctx, caller, runId, "apply");
  if (!isPaused(ctx.state, run)) {
    throw conflict("apply run", run.id, run.status, "Run was not paused for confirmation; apply not allowed");
  }
  comment(ctx, caller, run, "apply", note);
  take(ctx, run, "confirm");
  return run;
}

/**
 * Discards a pending run or one paused for confirmation: `discarded`; later runs may proceed.
 * @throws {DomainError} `not_found` (404); `conflict` (409) when not pending nor paused.
 * @example
 * discardRun(ctx, caller, "run-abc").status // "discarded"
 */
export function discardRun(ctx: OperationContext<RunsState>, caller: Caller, runId: string, note?: string | null): Run {
  const run = actionTarget(ctx, caller, runId, "discard");
  if (!isDiscardable(ctx.state, run)) {
    throw conflict("discard run", run.id, run.status, "Run was not paused for confirmation or priority; discard not allowed");
  }
  comment(ctx, caller, run, "discard", note);
  take(ctx, run, "discard");
  return run;
}

/**
 * Cancels a planning or applying run: the process is interrupted (`canceled-at` set,
 * `force_cancel_available_at` = now + cool-off) and the run becomes `canceled` when the process
 * stops. A repeated cancel changes nothing.
 * @throws {DomainError} `not_found` (404); `conflict` (409) when not planning or applying.
 * @example
 * cancelRun(ctx, caller, "run-abc").forceCancelAvailableAt // now + cool-off (ms)
 */
export function cancelRun(ctx: OperationContext<RunsState>, caller: Caller, runId: string, note?: string | null): Run {
  const run = actionTarget(ctx, caller, runId, "cancel");
  if (!RUNNING_STATES.includes(run.status)) {
    throw conflict("cancel run", run.id, run.status, "Run was not planning or applying; cancel not allowed");
  }
  comment(ctx, caller, run, "cancel", note);
  if (run.canceledAt === null) {
    run.canceledAt = ctx.now;
    run.forceCancelAvailableAt = ctx.now + ctx.state.settings.coolOffMs;
    reschedule(ctx, run);
  }
  return run;
}

/**
 * Force-cancels a run whose process did not stop after a cancel, once the cool-off is over:
 * `force_canceled`, the workspace is unlocked.
 * @throws {DomainError} `not_found` (404) when missing or the caller is not a workspace admin;
 *   `conflict` (409) when not planning or applying, not canceled before, or in the cool-off.
 * @example
 * forceCancelRun(ctx, admin, "run-abc").status // "force_canceled"
 */
export function forceCancelRun(ctx: OperationContext<RunsState>, caller: Caller, runId: string, note?: string | null): Run {
  const run = actionTarget(ctx, caller, runId, "force-cancel");
  const operation = "force-cancel run";
  if (!RUNNING_STATES.includes(run.status)) {
    throw conflict(operation, run.id, run.status, "Run was not planning or applying; force-cancel not allowed");
  }
  if (run.canceledAt === null || run.forceCancelAvailableAt === null) {
    throw conflict(operation, run.id, run.status, "Run was not canceled yet; cancel it before force-canceling");
  }
  if (ctx.now < run.forceCancelAvailableAt) {
    throw conflict(operation, run.id, run.status, `The cool-off period is not over; force-cancel is available at ${isoMillis(run.forceCancelAvailableAt)}`);
  }
  comment(ctx, caller, run, "force-cancel", note);
  take(ctx, run, "force-cancel");
  return run;
}

/**
 * Force-executes a pending run: every prior incomplete run of its workspace (the one holding it,
 * earlier pending runs and earlier confirmed saved plans waiting for it) is canceled, and the
 * workspace goes to the target run, which proceeds.
 * @throws {DomainError} `not_found` (404) when missing or the caller may not apply runs;
 *   403 when the run is not pending, does not wait for the workspace (plan-only, saved plan) or its
 *   workspace is not locked by another run; `conflict`
 *   (409) when the run holding the workspace cannot be discarded.
 * @example
 * forceExecuteRun(ctx, caller, "run-abc"); // earlier runs canceled, run-abc takes the workspace
 */
export function forceExecuteRun(ctx: OperationContext<RunsState>, caller: Caller, runId: string): Run {
  const run = actionTarget(ctx, caller, runId, "force-execute");
  const operation = "force-execute run";
  const workspace = ctx.state.workspaces[run.workspaceId];
  if (workspace === undefined) throw forbidden(operation, run.id, run.status, "Run's workspace association was not found");
  if (run.status !== "pending") throw forbidden(operation, run.id, run.status, "Run is not pending; force-execute not allowed");
  if (!needsWorkspace(run)) {
    throw forbidden(operation, run.id, run.status, "Run does not wait for the workspace lock (plan-only or saved plan); force-execute not allowed");
  }
  const holder = workspace.lockedBy === null ? undefined : ctx.state.runs[workspace.lockedBy];
  if (holder === undefined || holder.id === run.id || isFinalRunStatus(holder.status)) {
    throw forbidden(operation, run.id, run.status, "Run's workspace is not locked by another run; force-execute not allowed");
  }
  if (!isDiscardable(ctx.state, holder)) {
    throw conflict(operation, run.id, run.status, `The run locking the workspace (${holder.id}, "${holder.status}") is not in a discardable state`);
  }
  // Every earlier run waiting for the workspace (pending runs that would apply, confirmed saved
  // plans) is canceled too, so the target is the run the freed workspace goes to.
  const waiting = (r: Run): boolean => (r.status === "pending" && needsWorkspace(r)) || (r.status === "confirmed" && r.savePlan);
  const prior = (indexes(ctx.state).runsByWorkspace[workspace.id] ?? [])
    .map((id) => ctx.state.runs[id])
    .filter((r): r is Run => r !== undefined && r.id !== holder.id && r.seq < run.seq && waiting(r));
  for (const other of prior) take(ctx, other, "supersede");
  take(ctx, holder, "supersede");
  return run;
}
