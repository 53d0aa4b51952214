/**
 * The run state machine as a frozen transition table (spec: run-orchestration.md, "Run states").
 *
 * Automatic events (`start`, `plan-done`, `confirm` under auto-apply, ...) are taken by the
 * progression engine (`progression.ts`) according to the run's outcome; user events (`confirm` by
 * apply, `discard`, `cancel`, `force-cancel`, `supersede` by force-execute) are taken by the action
 * operations (`run-actions.ts`) after checking the guards named here.
 */
import { defineMachine, type Machine } from "../kernel/machine.js";

/**
 * Every run state of the spec, in the spec's order.
 * @example
 * RUN_STATUSES.length // 27
 */
export const RUN_STATUSES = Object.freeze([
  "pending",
  "fetching",
  "fetching_completed",
  "pre_plan_running",
  "pre_plan_completed",
  "queuing",
  "plan_queued",
  "planning",
  "planned",
  "cost_estimating",
  "cost_estimated",
  "policy_checking",
  "policy_override",
  "policy_soft_failed",
  "policy_checked",
  "confirmed",
  "post_plan_running",
  "post_plan_completed",
  "planned_and_finished",
  "planned_and_saved",
  "apply_queued",
  "applying",
  "applied",
  "discarded",
  "errored",
  "canceled",
  "force_canceled",
] as const);

/** A run state (`data.attributes.status`). */
export type RunStatus = (typeof RUN_STATUSES)[number];

/**
 * Events of the run machine.
 * @example
 * RUN_EVENTS.includes("force-cancel") // true
 */
export const RUN_EVENTS = Object.freeze([
  "start",
  "fetch-done",
  "pre-plan-start",
  "pre-plan-done",
  "queue",
  "plan-queue",
  "plan-start",
  "plan-done",
  "plan-error",
  "finish",
  "post-plan-start",
  "post-plan-done",
  "cost-estimate-start",
  "cost-estimate-done",
  "policy-check-start",
  "policy-pass",
  "policy-soft-fail",
  "policy-soft-fail-final",
  "policy-hard-fail",
  "save",
  "confirm",
  "apply-queue",
  "apply-start",
  "apply-done",
  "apply-error",
  "discard",
  "cancel",
  "force-cancel",
  "supersede",
] as const);

/** An event of the run machine. */
export type RunEvent = (typeof RUN_EVENTS)[number];

/**
 * Events only a user action takes (the rest are automatic, taken by progression).
 * @example
 * USER_EVENTS.includes("discard") // true
 */
export const USER_EVENTS: readonly RunEvent[] = Object.freeze(["discard", "force-cancel", "supersede"]);

/**
 * States a run can pause in, waiting for confirmation (apply) or a policy override.
 * @example
 * PAUSE_STATES.includes("policy_override") // true
 */
export const PAUSE_STATES: readonly RunStatus[] = Object.freeze([
  "planned",
  "post_plan_completed",
  "cost_estimated",
  "policy_checked",
  "policy_override",
  "planned_and_saved",
]);

/**
 * States in which cancel and force-cancel act (a process is running).
 * @example
 * RUNNING_STATES // ["planning", "applying"]
 */
export const RUNNING_STATES: readonly RunStatus[] = Object.freeze(["planning", "applying"]);

const pauseExits = {
  confirm: { target: "confirmed", guard: "paused for confirmation and caller may apply runs, or auto-apply" },
  discard: { target: "discarded", guard: "paused for confirmation; caller may apply runs" },
  supersede: { target: "canceled", guard: "force-execute of a later run" },
  finish: { target: "planned_and_finished", guard: "plan-only, or no changes and empty apply not allowed" },
  save: { target: "planned_and_saved", guard: "saved plan run" },
} as const;

/**
 * The run machine. Final states: `planned_and_finished`, `policy_soft_failed`, `applied`,
 * `discarded`, `errored`, `canceled`, `force_canceled`.
 *
 * @example
 * transition(runMachine, "planned", "confirm"); // "confirmed"
 * accepts(runMachine, "applied", "cancel");     // false
 */
export const runMachine: Machine<RunStatus, RunEvent> = defineMachine<RunStatus, RunEvent>({
  name: "run",
  service: "runs",
  initial: "pending",
  // Spec "Run actions": the route of each user action that takes an event of this table (the
  // `cancel` row is taken once the canceled process stops, not by the cancel action itself).
  actions: {
    confirm: "POST /runs/:run_id/actions/apply",
    discard: "POST /runs/:run_id/actions/discard",
    "force-cancel": "POST /runs/:run_id/actions/force-cancel",
    supersede: "POST /runs/:run_id/actions/force-execute",
  },
  states: {
    pending: {
      on: {
        start: { target: "fetching", guard: "run holds the workspace, or does not need it (plan-only, saved plan)" },
        discard: { target: "discarded", guard: "caller may apply runs" },
        supersede: { target: "canceled", guard: "force-execute of a later run" },
      },
    },
    fetching: { on: { "fetch-done": { target: "fetching_completed" } } },
    fetching_completed: {
      on: {
        "pre-plan-start": { target: "pre_plan_running", guard: "pre-plan tasks configured" },
        queue: { target: "queuing", guard: "no pre-plan tasks" },
      },
    },
    pre_plan_running: { on: { "pre-plan-done": { target: "pre_plan_completed" } } },
    pre_plan_completed: { on: { queue: { target: "queuing" } } },
    queuing: { on: { "plan-queue": { target: "plan_queued" } } },
    plan_queued: { on: { "plan-start": { target: "planning" } } },
    planning: {
      on: {
        "plan-done": { target: "planned", guard: "plan succeeded and later stages or a confirmation follow" },
        finish: { target: "planned_and_finished", guard: "plan succeeded; plan-only or no changes, and nothing follows" },
        "plan-error": { target: "errored", guard: "plan outcome errors" },
        cancel: { target: "canceled", guard: "an initial cancel was asked and the process stopped" },
        "force-cancel": { target: "force_canceled", guard: "canceled before, cool-off over, caller is workspace admin" },
      },
    },
    planned: {
      on: {
        "post-plan-start": { target: "post_plan_running", guard: "post-plan tasks configured" },
        "cost-estimate-start": { target: "cost_estimating", guard: "cost estimation enabled" },
        "policy-check-start": { target: "policy_checking", guard: "policies configured" },
        ...pauseExits,
      },
    },
    post_plan_running: { on: { "post-plan-done": { target: "post_plan_completed" } } },
    post_plan_completed: {
      on: {
        "cost-estimate-start": { target: "cost_estimating", guard: "cost estimation enabled" },
        "policy-check-start": { target: "policy_checking", guard: "policies configured" },
        ...pauseExits,
      },
    },
    cost_estimating: { on: { "cost-estimate-done": { target: "cost_estimated" } } },
    cost_estimated: {
      on: {
        "policy-check-start": { target: "policy_checking", guard: "policies configured" },
        ...pauseExits,
      },
    },
    policy_checking: {
      on: {
        "policy-pass": { target: "policy_checked" },
        "policy-soft-fail": { target: "policy_override", guard: "soft failure on a run that can apply" },
        "policy-soft-fail-final": { target: "policy_soft_failed", guard: "soft failure on a plan-only run" },
        "policy-hard-fail": { target: "errored" },
      },
    },
    policy_checked: { on: { ...pauseExits } },
    policy_override: {
      on: {
        confirm: { target: "confirmed", guard: "caller may apply runs; the soft failure is overridden first" },
        discard: pauseExits.discard,
        supersede: pauseExits.supersede,
      },
    },
    policy_soft_failed: { final: true },
    planned_and_finished: { final: true },
    planned_and_saved: {
      on: {
        confirm: { target: "confirmed", guard: "caller may apply runs" },
        discard: pauseExits.discard,
      },
    },
    confirmed: {
      on: {
        "apply-queue": { target: "apply_queued", guard: "run holds the workspace" },
        supersede: { target: "canceled", guard: "force-execute of a later run while this confirmed saved plan waits for the workspace" },
      },
    },
    apply_queued: { on: { "apply-start": { target: "applying" } } },
    applying: {
      on: {
        "apply-done": { target: "applied" },
        "apply-error": { target: "errored", guard: "apply outcome errors" },
        cancel: { target: "canceled", guard: "an initial cancel was asked and the process stopped" },
        "force-cancel": { target: "force_canceled", guard: "canceled before, cool-off over, caller is workspace admin" },
      },
    },
    applied: { final: true },
    discarded: { final: true },
    errored: { final: true },
    canceled: { final: true },
    force_canceled: { final: true },
  },
});

/**
 * Whether `status` is final (no transition leaves it).
 * @example
 * isFinalRunStatus("planned_and_finished") // true
 */
export function isFinalRunStatus(status: RunStatus): boolean {
  return runMachine.states[status].final === true;
}
