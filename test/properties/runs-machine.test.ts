import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { accepts, lookupTransition, reachableStates } from "../../src/simulator/kernel/machine.js";
import { isDomainError } from "../../src/simulator/kernel/errors.js";
import {
  CONFIGURATION_VERSION_STATUSES,
  configurationVersionMachine,
} from "../../src/simulator/runs/configuration-version-machine.js";
import { nextAutomatic, step } from "../../src/simulator/runs/progression.js";
import { applyRun, cancelRun, discardRun, forceCancelRun } from "../../src/simulator/runs/run-actions.js";
import { RUN_EVENTS, RUN_STATUSES, isFinalRunStatus, runMachine, type RunEvent, type RunStatus } from "../../src/simulator/runs/run-machine.js";
import { runActions } from "../../src/simulator/runs/runs.js";
import { bare } from "../simulator/runs/support.js";

describe("runs: the run transition table", () => {
  it("reaches every run state of the spec from pending", () => {
    expect([...reachableStates(runMachine)].sort()).toEqual([...RUN_STATUSES].sort());
  });

  it("gives final states no exits and every other state at least one", () => {
    for (const status of RUN_STATUSES) {
      const exits = Object.keys(runMachine.states[status].on ?? {});
      if (isFinalRunStatus(status)) expect(exits, status).toEqual([]);
      else expect(exits.length, status).toBeGreaterThan(0);
    }
    expect(RUN_STATUSES.filter(isFinalRunStatus).sort()).toEqual(
      ["applied", "canceled", "discarded", "errored", "force_canceled", "planned_and_finished", "policy_soft_failed"].sort(),
    );
  });

  it("only names known states and events, and every event is used somewhere", () => {
    const used = new Set<string>();
    for (const status of RUN_STATUSES) {
      for (const [event, spec] of Object.entries(runMachine.states[status].on ?? {})) {
        expect(RUN_EVENTS).toContain(event);
        expect(RUN_STATUSES).toContain(spec?.target);
        used.add(event);
      }
    }
    expect([...used].sort()).toEqual([...RUN_EVENTS].sort());
  });

  it("is frozen", () => {
    expect(Object.isFrozen(runMachine)).toBe(true);
    expect(Object.isFrozen(runMachine.states.planned.on)).toBe(true);
  });

  it("ends every random walk through the table in a final state", () => {
    fc.assert(
      fc.property(fc.array(fc.nat(), { minLength: 60, maxLength: 60 }), (choices) => {
        let status: RunStatus = runMachine.initial;
        for (const choice of choices) {
          const exits = Object.values(runMachine.states[status].on ?? {});
          if (exits.length === 0) break;
          status = exits[choice % exits.length]?.target ?? status;
        }
        return isFinalRunStatus(status) || Object.keys(runMachine.states[status].on ?? {}).length > 0;
      }),
    );
  });
});

describe("runs: the configuration version transition table", () => {
  it("reaches every state from pending or fetching, and final states have no exits", () => {
    const reached = new Set([...reachableStates(configurationVersionMachine, "pending"), ...reachableStates(configurationVersionMachine, "fetching")]);
    expect([...reached].sort()).toEqual([...CONFIGURATION_VERSION_STATUSES].sort());
    for (const status of CONFIGURATION_VERSION_STATUSES) {
      const exits = Object.keys(configurationVersionMachine.states[status].on ?? {});
      if (configurationVersionMachine.states[status].final === true) expect(exits, status).toEqual([]);
      else expect(exits.length, status).toBeGreaterThan(0);
    }
    expect(CONFIGURATION_VERSION_STATUSES.filter((s) => configurationVersionMachine.states[s].final).sort()).toEqual(["archived", "errored"]);
    expect(lookupTransition(configurationVersionMachine, "uploaded", "archive")).toBe("archived");
    expect(accepts(configurationVersionMachine, "pending", "archive")).toBe(false);
  });
});

const ACTION_EVENT: Readonly<Record<string, RunEvent>> = { apply: "confirm", discard: "discard", cancel: "cancel", "force-cancel": "force-cancel" };

describe("runs: actions are accepted exactly where the table and the guards say", () => {
  it("accepts an action iff its actions flag says so, and only from a state whose table row has the event", () => {
    const outcome = fc.record({
      plan: fc.constantFrom("changes", "no-changes", "errors"),
      costEstimation: fc.boolean(),
      policyCheck: fc.constantFrom("none", "passes", "soft-fails", "hard-fails"),
      apply: fc.constantFrom("succeeds", "errors"),
      prePlanTasks: fc.boolean(),
      postPlanTasks: fc.boolean(),
      interrupt: fc.constantFrom("stops", "ignored"),
    });
    fc.assert(
      fc.property(
        outcome,
        fc.record({ planOnly: fc.boolean(), savePlan: fc.boolean(), autoApply: fc.boolean(), allowEmptyApply: fc.boolean() }),
        fc.nat({ max: 25 }),
        fc.constantFrom("apply", "discard", "cancel", "force-cancel"),
        fc.boolean(),
        fc.boolean(),
        (script, attributes, steps, action, cancelFirst, waitCoolOff) => {
          const b = bare({ outcome: { ...script, progression: "manual" } });
          b.uploadVersion();
          const id = b.createRun({ ...attributes, savePlan: attributes.savePlan && !attributes.planOnly });
          for (let i = 0; i < steps && nextAutomatic(b.state(), b.run(id)) !== undefined; i++) b.update((ctx) => step(ctx, id));
          if (cancelFirst && ["planning", "applying"].includes(b.run(id).status)) b.update((ctx) => cancelRun(ctx, b.admin, id));
          if (waitCoolOff) b.clock.advance("10s");
          const before = b.run(id).status;
          const flags = runActions(b.state(), b.run(id), b.sim.now());
          const flag = { apply: flags.isConfirmable, discard: flags.isDiscardable, cancel: flags.isCancelable, "force-cancel": flags.isForceCancelable }[action];
          const operations = { apply: applyRun, discard: discardRun, cancel: cancelRun, "force-cancel": forceCancelRun };
          let accepted = true;
          try {
            b.update((ctx) => operations[action](ctx, b.admin, id));
          } catch (error) {
            if (!isDomainError(error) || error.code !== "conflict") throw error;
            accepted = false;
          }
          expect(accepted, `${action} from ${before}`).toBe(flag);
          if (accepted) expect(accepts(runMachine, before, ACTION_EVENT[action] ?? "start"), `${action} from ${before}`).toBe(true);
          else expect(b.run(id).status).toBe(before);
        },
      ),
      { numRuns: 300 },
    );
  });
});
