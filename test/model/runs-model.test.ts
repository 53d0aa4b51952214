/**
 * Model-based test of the run orchestration simulator: random runs (with random outcomes and
 * progression modes), uploads, clock advances, manual steps and the five actions. After every
 * command: status timestamps never go backwards, final runs never change, every observed change
 * follows the transition table, the workspace lock is held by exactly the run that may apply, and
 * each action is accepted exactly when its `actions` flag (or the force-execute rule) says so.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isDomainError } from "../../src/simulator/kernel/errors.js";
import { reachableStates } from "../../src/simulator/kernel/machine.js";
import { createConfigurationVersion, uploadArchive } from "../../src/simulator/runs/configuration-versions.js";
import { configurationArchive } from "../../src/scenarios/runs/archive.js";
import type { OutcomeOverride } from "../../src/simulator/runs/outcomes.js";
import { isDiscardable, needsWorkspace, nextAutomatic, step } from "../../src/simulator/runs/progression.js";
import { applyRun, cancelRun, discardRun, forceCancelRun, forceExecuteRun } from "../../src/simulator/runs/run-actions.js";
import { isFinalRunStatus, runMachine, type RunStatus } from "../../src/simulator/runs/run-machine.js";
import { runActions } from "../../src/simulator/runs/runs.js";
import { bare, type Bare } from "../simulator/runs/support.js";

/** A real configuration archive: uploads of anything else end errored. */
const ARCHIVE = configurationArchive();

interface Model {
  runs: string[];
  /** Last status seen per run. */
  seen: Map<string, RunStatus>;
}

type Cmd = fc.Command<Model, Bare>;

function check(model: Model, real: Bare): void {
  const state = real.state();
  const now = real.sim.now();
  const workspace = state.workspaces[real.workspaceId];
  for (const id of model.runs) {
    const run = real.run(id);
    const previous = model.seen.get(id);
    if (previous !== undefined) {
      if (isFinalRunStatus(previous)) expect(run.status, `${id} was final in ${previous}`).toBe(previous);
      expect(reachableStates(runMachine, previous).has(run.status), `${id}: ${previous} -> ${run.status}`).toBe(true);
    }
    model.seen.set(id, run.status);
    const stamps = Object.values(run.statusTimestamps) as number[];
    for (let i = 1; i < stamps.length; i++) expect(stamps[i] ?? 0).toBeGreaterThanOrEqual(stamps[i - 1] ?? 0);
    expect(Math.max(...stamps)).toBeLessThanOrEqual(now);
    expect(run.statusTimestamps[run.status]).toBeDefined();
    const holds = workspace?.lockedBy === run.id;
    if (needsWorkspace(run) && !isFinalRunStatus(run.status) && run.status !== "pending") expect(holds, `${id} in ${run.status} must hold the workspace`).toBe(true);
    if (holds) expect(isFinalRunStatus(run.status)).toBe(false);
  }
  if (workspace?.lockedBy === null) {
    const stranded = Object.values(state.runs).filter((r) => r.status === "pending" && needsWorkspace(r));
    expect(stranded.map((r) => r.id), "a free workspace leaves no run waiting").toEqual([]);
  }
}

const outcomeArb: fc.Arbitrary<OutcomeOverride> = fc.record({
  plan: fc.constantFrom("changes", "changes", "no-changes", "errors"),
  costEstimation: fc.boolean(),
  policyCheck: fc.constantFrom("none", "none", "passes", "soft-fails", "hard-fails"),
  apply: fc.constantFrom("succeeds", "errors"),
  prePlanTasks: fc.boolean(),
  postPlanTasks: fc.boolean(),
  interrupt: fc.constantFrom("stops", "ignored"),
  progression: fc.constantFrom("timed", "manual", "immediate"),
});

class CreateRun implements Cmd {
  constructor(
    readonly outcome: OutcomeOverride,
    readonly attributes: { planOnly: boolean; savePlan: boolean; autoApply: boolean },
  ) {}
  check(): boolean {
    return true;
  }
  run(model: Model, real: Bare): void {
    const id = real.update((ctx) => {
      ctx.state.workspaces[real.workspaceId]?.nextRunOutcomes.push(this.outcome);
      return undefined;
    });
    void id;
    const created = real.createRun({ ...this.attributes, savePlan: this.attributes.savePlan && !this.attributes.planOnly });
    model.runs.push(created);
    check(model, real);
  }
  toString(): string {
    return `createRun(${JSON.stringify(this.attributes)}, ${JSON.stringify(this.outcome)})`;
  }
}

class Upload implements Cmd {
  check(): boolean {
    return true;
  }
  run(model: Model, real: Bare): void {
    const runId = real.update((ctx) => {
      const version = createConfigurationVersion(ctx, real.admin, real.workspaceId, {});
      return uploadArchive(ctx, version.uploadToken ?? "", ARCHIVE).run?.id;
    });
    if (runId) model.runs.push(runId);
    check(model, real);
  }
  toString(): string {
    return "upload()";
  }
}

class Advance implements Cmd {
  constructor(readonly ms: number) {}
  check(): boolean {
    return true;
  }
  run(model: Model, real: Bare): void {
    real.clock.advance(this.ms);
    real.sim.catchUp();
    check(model, real);
  }
  toString(): string {
    return `advance(${this.ms}ms)`;
  }
}

class Step implements Cmd {
  constructor(readonly index: number) {}
  check(model: Readonly<Model>): boolean {
    return model.runs.length > 0;
  }
  run(model: Model, real: Bare): void {
    const id = model.runs[this.index % model.runs.length] ?? "";
    const next = nextAutomatic(real.state(), real.run(id));
    if (next === undefined) {
      expect(() => real.update((ctx) => step(ctx, id))).toThrow(/cannot step/);
    } else {
      const target = runMachine.states[real.run(id).status].on?.[next]?.target;
      expect(real.update((ctx) => step(ctx, id))).toBe(target);
    }
    check(model, real);
  }
  toString(): string {
    return `step(#${this.index})`;
  }
}

type ActionName = "apply" | "discard" | "cancel" | "force-cancel" | "force-execute";

class Act implements Cmd {
  constructor(
    readonly action: ActionName,
    readonly index: number,
  ) {}
  check(model: Readonly<Model>): boolean {
    return model.runs.length > 0;
  }
  run(model: Model, real: Bare): void {
    const id = model.runs[this.index % model.runs.length] ?? "";
    const run = real.run(id);
    const flags = runActions(real.state(), run, real.sim.now());
    const holder = real.state().workspaces[real.workspaceId]?.lockedBy ?? null;
    const holderRun = holder === null ? undefined : real.state().runs[holder];
    const expected: Record<ActionName, boolean> = {
      apply: flags.isConfirmable,
      discard: flags.isDiscardable,
      cancel: flags.isCancelable,
      "force-cancel": flags.isForceCancelable,
      "force-execute": run.status === "pending" && needsWorkspace(run) && holderRun !== undefined && holder !== id && isDiscardable(real.state(), holderRun),
    };
    const operations = {
      apply: applyRun,
      discard: discardRun,
      cancel: cancelRun,
      "force-cancel": forceCancelRun,
      "force-execute": (ctx: Parameters<typeof forceExecuteRun>[0], caller: Parameters<typeof forceExecuteRun>[1], runId: string) => forceExecuteRun(ctx, caller, runId),
    };
    let accepted = true;
    try {
      real.update((ctx) => operations[this.action](ctx, real.admin, id));
    } catch (error) {
      if (!isDomainError(error)) throw error;
      accepted = false;
    }
    expect(accepted, `${this.action} on ${run.status}`).toBe(expected[this.action]);
    if (accepted && this.action === "force-execute") {
      // The target run proceeds (spec: force-execute): it takes the workspace and leaves `pending`
      // unless its progression is manual; with `immediate` progression it may also reach a final
      // state within the call and free the workspace again (for the next waiting run, if any).
      const after = real.run(id);
      if (isFinalRunStatus(after.status)) {
        expect(after.statusTimestamps.planning, `the force-executed run ended in ${after.status} without planning`).toBeDefined();
        expect(real.state().workspaces[real.workspaceId]?.lockedBy, "the force-executed run released the workspace").not.toBe(id);
      } else {
        expect(real.state().workspaces[real.workspaceId]?.lockedBy, "the force-executed run takes the workspace").toBe(id);
      }
    }
    check(model, real);
  }
  toString(): string {
    return `${this.action}(#${this.index})`;
  }
}

const commands = [
  fc.tuple(outcomeArb, fc.record({ planOnly: fc.boolean(), savePlan: fc.boolean(), autoApply: fc.boolean() })).map(([o, a]) => new CreateRun(o, a) as Cmd),
  fc.constant(new Upload() as Cmd),
  fc.integer({ min: 0, max: 90_000 }).map((ms) => new Advance(ms) as Cmd),
  fc.nat().map((i) => new Step(i) as Cmd),
  fc.tuple(fc.constantFrom<ActionName>("apply", "discard", "cancel", "force-cancel", "force-execute"), fc.nat()).map(([a, i]) => new Act(a, i) as Cmd),
];

/** Every field of an outcome: `changes` planned, applied, nothing else, moving `immediate`ly. */
const IMMEDIATE: OutcomeOverride = {
  plan: "changes",
  costEstimation: false,
  policyCheck: "none",
  apply: "succeeds",
  prePlanTasks: false,
  postPlanTasks: false,
  interrupt: "stops",
  progression: "immediate",
};

/** Runs fixed commands through the model, from the world the property starts from. */
function replay(cmds: readonly Cmd[]): { model: Model; real: Bare } {
  const real = bare();
  real.uploadVersion();
  const model: Model = { runs: [], seen: new Map() };
  fc.modelRun(() => ({ model, real }), cmds);
  return { model, real };
}

describe("runs: model-based test of runs, actions and time", () => {
  // Counterexamples the property found (issue 22 item 14, seeds -57514018 and 1030195617): an
  // uploaded run holds the workspace, a second run with `immediate` progression waits, and
  // force-executing it lets it proceed within the call, to `applied` (auto-apply) or `errored`
  // (its plan errors), so the workspace is free again when the 202 is answered (spec: force-execute,
  // "target run proceeds"). The model expected the run to still hold the workspace.
  it("a force-executed run with immediate progression may finish and free the workspace within the call (auto-apply)", () => {
    const { model, real } = replay([new Upload(), new CreateRun(IMMEDIATE, { planOnly: false, savePlan: false, autoApply: true }), new Act("force-execute", 1)]);
    expect(model.runs.map((id) => real.run(id).status)).toEqual(["canceled", "applied"]);
    expect(real.state().workspaces[real.workspaceId]?.lockedBy).toBeNull();
  });

  it("a force-executed run with immediate progression may finish and free the workspace within the call (plan errors)", () => {
    const { model, real } = replay([new Upload(), new CreateRun({ ...IMMEDIATE, plan: "errors" }, { planOnly: false, savePlan: false, autoApply: false }), new Act("force-execute", 1)]);
    expect(model.runs.map((id) => real.run(id).status)).toEqual(["canceled", "errored"]);
    expect(real.state().workspaces[real.workspaceId]?.lockedBy).toBeNull();
  });


  it("keeps every invariant through random commands", () => {
    fc.assert(
      fc.property(fc.commands(commands, { maxCommands: 40 }), (cmds) => {
        const real = bare();
        real.uploadVersion();
        fc.modelRun(() => ({ model: { runs: [], seen: new Map() }, real }), cmds);
      }),
      { numRuns: 120 },
    );
  });
});
