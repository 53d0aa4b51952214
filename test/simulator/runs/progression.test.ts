import { describe, expect, it } from "vitest";
import { UsageError } from "../../../src/simulator/kernel/errors.js";
import { DEFAULT_DURATIONS, mergeOutcome, DEFAULT_OUTCOME, combineOverrides } from "../../../src/simulator/runs/outcomes.js";
import { dwellMs, isPaused, nextAutomatic, step } from "../../../src/simulator/runs/progression.js";
import { applyRun, cancelRun, discardRun } from "../../../src/simulator/runs/run-actions.js";
import type { RunStatus } from "../../../src/simulator/runs/run-machine.js";
import { bare } from "./support.js";

/** Steps a manual run until it stops; returns every status it went through. */
function path(b: ReturnType<typeof bare>, runId: string): RunStatus[] {
  const seen: RunStatus[] = [b.run(runId).status];
  for (let i = 0; i < 40; i++) {
    if (nextAutomatic(b.state(), b.run(runId)) === undefined) break;
    seen.push(b.update((ctx) => step(ctx, runId)));
  }
  return seen;
}

describe("runs simulator: progression by outcome", () => {
  const start = ["pending", "fetching", "fetching_completed", "queuing", "plan_queued", "planning"];

  it("pauses a run with changes in planned (default outcome)", () => {
    const b = bare({ outcome: { progression: "manual" } });
    b.uploadVersion();
    const id = b.createRun();
    expect(path(b, id)).toEqual([...start, "planned"]);
    expect(isPaused(b.state(), b.run(id))).toBe(true);
    expect(b.run(id).hasChanges).toBe(true);
  });

  it("finishes a run without changes in planned_and_finished and a failed plan in errored", () => {
    const b = bare({ outcome: { progression: "manual", plan: "no-changes" } });
    b.uploadVersion();
    expect(path(b, b.createRun())).toEqual([...start, "planned_and_finished"]);
    const e = bare({ outcome: { progression: "manual", plan: "errors" } });
    e.uploadVersion();
    const failed = e.createRun();
    expect(path(e, failed)).toEqual([...start, "errored"]);
    expect(e.state().plans[e.run(failed).planId]?.status).toBe("errored");
    expect(e.state().applies[e.run(failed).applyId]?.status).toBe("unreachable");
  });

  it("runs pre-plan tasks, post-plan tasks, cost estimation and policies in that order, pausing in policy_checked", () => {
    const b = bare({ outcome: { progression: "manual", prePlanTasks: true, postPlanTasks: true, costEstimation: true, policyCheck: "passes" } });
    b.uploadVersion();
    const id = b.createRun();
    expect(path(b, id)).toEqual([
      "pending",
      "fetching",
      "fetching_completed",
      "pre_plan_running",
      "pre_plan_completed",
      "queuing",
      "plan_queued",
      "planning",
      "planned",
      "post_plan_running",
      "post_plan_completed",
      "cost_estimating",
      "cost_estimated",
      "policy_checking",
      "policy_checked",
    ]);
    const run = b.run(id);
    expect(b.state().costEstimates[run.costEstimateId ?? ""]?.status).toBe("finished");
    expect(b.state().policyChecks[run.policyCheckIds[0] ?? ""]?.status).toBe("passed");
  });

  it("pauses in cost_estimated when cost estimation is the last stage", () => {
    const b = bare({ outcome: { progression: "manual", costEstimation: true } });
    b.uploadVersion();
    expect(path(b, b.createRun()).at(-1)).toBe("cost_estimated");
  });

  it("soft-fails into policy_override (or policy_soft_failed when plan-only) and hard-fails into errored", () => {
    const soft = bare({ outcome: { progression: "manual", policyCheck: "soft-fails" } });
    soft.uploadVersion();
    expect(path(soft, soft.createRun()).at(-1)).toBe("policy_override");
    expect(path(soft, soft.createRun({ planOnly: true })).at(-1)).toBe("policy_soft_failed");
    const hard = bare({ outcome: { progression: "manual", policyCheck: "hard-fails" } });
    hard.uploadVersion();
    const id = hard.createRun();
    expect(path(hard, id).at(-1)).toBe("errored");
    expect(hard.state().policyChecks[hard.run(id).policyCheckIds[0] ?? ""]?.status).toBe("hard_failed");
  });

  it("auto-applies through confirmed, apply_queued and applying when the workspace auto-applies", () => {
    const b = bare({ autoApply: true, outcome: { progression: "manual" } });
    b.uploadVersion();
    const id = b.createRun();
    expect(path(b, id)).toEqual([...start, "planned", "confirmed", "apply_queued", "applying", "applied"]);
    // One resource block in the uploaded configuration: one to add.
    expect(b.state().applies[b.run(id).applyId]?.resources).toEqual({ add: 1, change: 0, destroy: 0, import: 0 });
    expect(b.state().workspaces[b.workspaceId]?.lockedBy).toBeNull();
  });

  it("counts a run waiting for its automatic confirmation as paused, but not one with a stage or the finish still to come", () => {
    const b = bare({ autoApply: true, outcome: { progression: "manual", policyCheck: "passes" } });
    b.uploadVersion();
    const id = b.createRun();
    const stopAt = (status: RunStatus): void => {
      while (b.run(id).status !== status) b.update((ctx) => step(ctx, id));
    };
    stopAt("planned");
    expect(nextAutomatic(b.state(), b.run(id))).toBe("policy-check-start");
    expect(isPaused(b.state(), b.run(id))).toBe(false);
    stopAt("policy_checked");
    expect(nextAutomatic(b.state(), b.run(id))).toBe("confirm");
    expect(isPaused(b.state(), b.run(id))).toBe(true);
    b.update((ctx) => discardRun(ctx, b.admin, id));
    expect(b.run(id).status).toBe("discarded");
    const planOnly = b.createRun({ planOnly: true });
    while (b.run(planOnly).status !== "policy_checked") b.update((ctx) => step(ctx, planOnly));
    expect(nextAutomatic(b.state(), b.run(planOnly))).toBe("finish");
    expect(isPaused(b.state(), b.run(planOnly))).toBe(false);
  });

  it("saves a saved-plan run in planned_and_saved", () => {
    const b = bare({ outcome: { progression: "manual" } });
    b.uploadVersion();
    expect(path(b, b.createRun({ savePlan: true })).at(-1)).toBe("planned_and_saved");
  });

  it("gives each state its phase duration and the cancel duration after a cancel", () => {
    const b = bare({ outcome: { progression: "manual" } });
    b.uploadVersion();
    const id = b.createRun();
    expect(dwellMs(b.run(id))).toBe(DEFAULT_DURATIONS.queue);
    while (b.run(id).status !== "planning") b.update((ctx) => step(ctx, id));
    expect(dwellMs(b.run(id))).toBe(DEFAULT_DURATIONS.plan);
    b.update((ctx) => cancelRun(ctx, b.admin, id));
    expect(dwellMs(b.run(id))).toBe(DEFAULT_DURATIONS.cancel);
    expect(b.update((ctx) => step(ctx, id))).toBe("canceled");
  });

  it("refuses to step a run that waits for a user, the workspace, or is final", () => {
    const b = bare({ outcome: { progression: "manual" } });
    b.uploadVersion();
    const first = b.createRun();
    const second = b.createRun();
    expect(() => b.update((ctx) => step(ctx, second))).toThrow(/waits for workspace .* held by run-/);
    path(b, first);
    expect(() => b.update((ctx) => step(ctx, first))).toThrow(/paused for confirmation: apply or discard it/);
    b.update((ctx) => discardRun(ctx, b.admin, first));
    expect(() => b.update((ctx) => step(ctx, first))).toThrow(UsageError);
    expect(() => b.update((ctx) => step(ctx, first))).toThrow(/final state/);
    expect(() => b.update((ctx) => step(ctx, "run-nope"))).toThrow(/no run/);
    expect(b.run(second).status).toBe("pending");
    expect(b.state().workspaces[b.workspaceId]?.lockedBy).toBe(second);
  });

  it("times every phase on the clock in timed mode", () => {
    const b = bare();
    b.uploadVersion();
    const id = b.createRun();
    b.clock.advance(999);
    b.sim.catchUp();
    expect(b.run(id).status).toBe("pending");
    b.clock.advance(1);
    b.sim.catchUp();
    expect(b.run(id).status).toBe("fetching");
    b.clock.advance("2m");
    b.sim.catchUp();
    expect(b.run(id).status).toBe("planned");
    b.update((ctx) => applyRun(ctx, b.admin, id));
    b.clock.advance("2m");
    b.sim.catchUp();
    expect(b.run(id).status).toBe("applied");
    const stamps = Object.values(b.run(id).statusTimestamps) as number[];
    expect([...stamps].sort((x, y) => x - y)).toEqual(stamps);
  });
});

describe("runs simulator: outcomes", () => {
  it("merges overrides field by field, durations included", () => {
    const merged = mergeOutcome(DEFAULT_OUTCOME, { plan: "errors", durations: { plan: 5 } }, undefined, { durations: { apply: 7 } });
    expect(merged.plan).toBe("errors");
    expect(merged.durations).toEqual({ ...DEFAULT_DURATIONS, plan: 5, apply: 7 });
    expect(DEFAULT_OUTCOME.durations.plan).toBe(30_000);
    expect(combineOverrides({ plan: "errors", durations: { plan: 1 } }, { apply: "errors", durations: { apply: 2 } })).toEqual({
      plan: "errors",
      apply: "errors",
      durations: { plan: 1, apply: 2 },
    });
    expect(combineOverrides({ plan: "errors" }, { apply: "errors" })).toEqual({ plan: "errors", apply: "errors" });
  });

  it("gives frozen values, and the base itself when nothing overrides a frozen base", () => {
    for (const nothing of [[], [undefined], [{}], [{ plan: undefined }], [{ durations: {} }], [{ durations: { plan: undefined } }]]) {
      expect(mergeOutcome(DEFAULT_OUTCOME, ...(nothing as [])), JSON.stringify(nothing)).toBe(DEFAULT_OUTCOME);
    }
    const merged = mergeOutcome(DEFAULT_OUTCOME, { resources: { add: 1, change: 0, destroy: 0, import: 0 } });
    expect(merged).not.toBe(DEFAULT_OUTCOME);
    expect([Object.isFrozen(merged), Object.isFrozen(merged.durations), Object.isFrozen(merged.resources)]).toEqual([true, true, true]);
    expect(() => ((merged as { plan: string }).plan = "errors")).toThrow(TypeError);
    expect(() => ((merged.durations as { plan: number }).plan = 1)).toThrow(TypeError);
    // A base that is not frozen (a state restored from a snapshot is a copy) is never shared.
    const thawed = { ...DEFAULT_OUTCOME, durations: { ...DEFAULT_DURATIONS } };
    const copy = mergeOutcome(thawed);
    expect(copy).not.toBe(thawed);
    expect(copy).toEqual(thawed);
    expect(Object.isFrozen(copy)).toBe(true);
  });

  it("lets runs without overrides share the simulator's outcome, and gives an overridden run its own", () => {
    const b = bare();
    b.uploadVersion();
    const first = b.createRun();
    const second = b.createRun();
    expect(b.run(first).outcome).toBe(b.state().settings.outcome);
    expect(b.run(second).outcome).toBe(b.run(first).outcome);
    const other = bare({ outcome: { plan: "no-changes" } });
    other.uploadVersion();
    const own = other.run(other.createRun()).outcome;
    expect(own).not.toBe(other.state().settings.outcome);
    expect([own.plan, Object.isFrozen(own)]).toEqual(["no-changes", true]);
    // After a restore the state is a copy: runs still follow the simulator's outcome.
    b.sim.restore(b.sim.snapshot());
    const third = b.createRun();
    expect(b.run(third).outcome).toEqual(DEFAULT_OUTCOME);
    expect(b.run(first).outcome).toEqual(DEFAULT_OUTCOME);
  });
});
