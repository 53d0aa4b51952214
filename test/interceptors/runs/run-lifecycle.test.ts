import { describe, expect, it } from "vitest";
import { RUN_STATUSES } from "../../../src/simulator/runs/run-machine.js";
import type { OutcomeScript } from "../../../src/scenarios/runs/runs-scenario.js";
import { describeEachTransport } from "../../support/transports.js";
import { startRuns, type RunsWorld } from "./support.js";

/** Steps a manual run until it stops moving, reading its status through HTTP after every step. */
async function walk(w: RunsWorld, runId: string, seen: Set<string>): Promise<string> {
  seen.add((await w.getRun(runId)).attributes.status);
  for (let i = 0; i < 40; i++) {
    try {
      w.runs.step(runId);
    } catch {
      break;
    }
    seen.add((await w.getRun(runId)).attributes.status);
  }
  return (await w.getRun(runId)).attributes.status;
}

describeEachTransport("runs: run lifecycle", (h) => {
  it("reaches every run state of the spec through some outcome, observed through GET /runs/:id", async () => {
    const w = await startRuns(h);
    w.runs.setProgression("manual");
    await w.upload({ attributes: { "auto-queue-runs": false } });
    const seen = new Set<string>();
    const scenario = async (script: OutcomeScript, attributes: Record<string, unknown>, finish?: (runId: string) => Promise<void>): Promise<string> => {
      w.runs.nextRun(w.ws.id, script);
      const runId = await w.createRun(attributes);
      await walk(w, runId, seen);
      if (finish) {
        await finish(runId);
        await walk(w, runId, seen);
      }
      return w.runs.run(runId).status;
    };
    const apply = async (runId: string): Promise<void> => {
      expect((await w.api("POST", `/runs/${runId}/actions/apply`)).status).toBe(202);
    };
    expect(await scenario({ prePlanTasks: true, postPlanTasks: true, costEstimation: true, policyCheck: "passes" }, {}, apply)).toBe("applied");
    expect(await scenario({ policyCheck: "soft-fails" }, {}, async (id) => void (await w.api("POST", `/runs/${id}/actions/discard`)))).toBe("discarded");
    expect(await scenario({ policyCheck: "soft-fails" }, { "plan-only": true })).toBe("policy_soft_failed");
    expect(await scenario({ plan: "no-changes" }, {})).toBe("planned_and_finished");
    expect(await scenario({}, { "save-plan": true })).toBe("planned_and_saved");
    await w.api("POST", `/runs/${w.runs.runsOf(w.ws.id)[0]?.id}/actions/discard`);
    expect(await scenario({ plan: "errors" }, {})).toBe("errored");
    const cancel = async (id: string): Promise<void> => {
      while (w.runs.run(id).status !== "planning") w.runs.step(id);
      await w.api("POST", `/runs/${id}/actions/cancel`);
    };
    w.runs.nextRun(w.ws.id, {});
    const toCancel = await w.createRun({});
    await cancel(toCancel);
    await walk(w, toCancel, seen);
    expect(w.runs.run(toCancel).status).toBe("canceled");
    w.runs.nextRun(w.ws.id, { interrupt: "ignored" });
    const toKill = await w.createRun({});
    await cancel(toKill);
    w.doubles.advance("10s");
    expect((await w.api("POST", `/runs/${toKill}/actions/force-cancel`)).status).toBe(202);
    seen.add((await w.getRun(toKill)).attributes.status);
    expect([...seen].sort()).toEqual([...RUN_STATUSES].sort());
  });

  it("offers exactly the spec's actions in every state a run passes through (C confirm, D discard, X cancel, F force-cancel)", async () => {
    const w = await startRuns(h, { workspace: { vcsRepo: { identifier: "acme/infra" } } });
    w.runs.setProgression("manual");
    await w.upload({ attributes: { "auto-queue-runs": false } });
    const flags = (actions: Record<string, boolean>): string =>
      [["is-confirmable", "C"], ["is-discardable", "D"], ["is-cancelable", "X"], ["is-force-cancelable", "F"]]
        .filter(([key]) => actions[key as string])
        .map(([, letter]) => letter)
        .join("");
    /** Steps the run to its end (or until it waits), recording `status:flags` as GET /runs/:id shows them. */
    const trace = async (runId: string, user?: (status: string) => Promise<boolean>): Promise<string[]> => {
      const out: string[] = [];
      for (let i = 0; i < 40; i++) {
        const { attributes } = await w.getRun(runId);
        out.push(`${attributes.status}:${flags(attributes.actions)}`);
        if (user && (await user(attributes.status))) continue;
        try {
          w.runs.step(runId);
        } catch {
          break;
        }
      }
      return out;
    };
    const act = (action: string) => async (runId: string) => expect((await w.api("POST", `/runs/${runId}/actions/${action}`)).status).toBe(202);
    const head = ["pending:D", "fetching:", "fetching-completed:", "queuing:", "plan-queued:", "planning:X"].map((x) => x.replace(/-/g, "_"));
    const tail = ["confirmed:", "apply_queued:", "applying:X", "applied:"];

    // Every stage, paused in policy_checked, then applied by a user.
    w.runs.nextRun(w.ws.id, { prePlanTasks: true, postPlanTasks: true, costEstimation: true, policyCheck: "passes" });
    let id = await w.createRun();
    let applied = false;
    expect(await trace(id, async (status) => status === "policy_checked" && !applied && ((applied = true), await act("apply")(id), true))).toEqual([
      "pending:D", "fetching:", "fetching_completed:", "pre_plan_running:", "pre_plan_completed:", "queuing:", "plan_queued:", "planning:X",
      "planned:", "post_plan_running:", "post_plan_completed:", "cost_estimating:", "cost_estimated:", "policy_checking:", "policy_checked:CD",
      ...tail,
    ]);
    // Paused in planned, post_plan_completed and cost_estimated when each is the last stage.
    for (const [script, pause] of [[{}, "planned"], [{ postPlanTasks: true }, "post_plan_completed"], [{ costEstimation: true }, "cost_estimated"]] as const) {
      w.runs.nextRun(w.ws.id, script);
      id = await w.createRun();
      const seen = await trace(id);
      expect(seen.at(-1)).toBe(`${pause}:CD`);
      await act("discard")(id);
      expect((await w.getRun(id)).attributes.actions).toEqual({ "is-cancelable": false, "is-confirmable": false, "is-discardable": false, "is-force-cancelable": false });
    }
    // Soft-failed policy: policy_override is confirmable (apply overrides) and discardable.
    w.runs.nextRun(w.ws.id, { policyCheck: "soft-fails" });
    id = await w.createRun();
    expect((await trace(id)).at(-1)).toBe("policy_override:CD");
    await act("discard")(id);
    // Saved plan: planned_and_saved can be confirmed or discarded.
    id = await w.createRun({ "save-plan": true });
    expect((await trace(id)).at(-1)).toBe("planned_and_saved:CD");
    await act("discard")(id);
    // Auto-apply: policy_checked is still a discard (and apply) state while the confirmation is pending.
    w.runs.setAutoApply(w.ws.id, true);
    w.runs.nextRun(w.ws.id, { policyCheck: "passes" });
    id = await w.createRun();
    const auto = await trace(id);
    expect(auto).toEqual([...head, "planned:", "policy_checking:", "policy_checked:CD", ...tail]);
    w.runs.nextRun(w.ws.id, { policyCheck: "passes" });
    id = await w.createRun();
    while (w.runs.run(id).status !== "policy_checked") w.runs.step(id);
    await act("discard")(id);
    expect(w.runs.run(id).status).toBe("discarded");
    w.runs.setAutoApply(w.ws.id, false);
    // Plan-only, no changes, errors: nothing to confirm or discard after planning.
    for (const [script, attributes, end] of [
      [{}, { "plan-only": true }, "planned_and_finished"],
      [{ plan: "no-changes" }, {}, "planned_and_finished"],
      [{ plan: "errors" }, {}, "errored"],
      [{ policyCheck: "soft-fails" }, { "plan-only": true }, "policy_soft_failed"],
      [{ policyCheck: "hard-fails" }, {}, "errored"],
    ] as const) {
      w.runs.nextRun(w.ws.id, script);
      id = await w.createRun(attributes);
      const seen = await trace(id);
      expect(seen.slice(0, head.length)).toEqual(head);
      expect(seen.at(-1)).toBe(`${end}:`);
      expect(seen.filter((x) => /:.*[CD]/.test(x))).toEqual(["pending:D"]);
    }
    // Cancel: cancelable while planning; force-cancelable only after the cool-off, while the process ignores the interrupt.
    w.runs.nextRun(w.ws.id, { interrupt: "ignored" });
    id = await w.createRun();
    while (w.runs.run(id).status !== "planning") w.runs.step(id);
    await act("cancel")(id);
    expect(flags((await w.getRun(id)).attributes.actions)).toBe("X");
    w.doubles.advance("9s");
    expect(flags((await w.getRun(id)).attributes.actions)).toBe("X");
    w.doubles.advance("1s");
    expect(flags((await w.getRun(id)).attributes.actions)).toBe("XF");
    await act("force-cancel")(id);
    expect((await w.getRun(id)).attributes.status).toBe("force_canceled");
    expect(flags((await w.getRun(id)).attributes.actions)).toBe("");
  });

  it("gives each status its status-timestamps key, timestamps that never go backwards", async () => {
    const w = await startRuns(h);
    w.runs.nextRun(w.ws.id, { prePlanTasks: true, postPlanTasks: true, costEstimation: true, policyCheck: "passes" });
    const { runId } = await w.upload();
    w.doubles.advance("2m");
    const run = await w.getRun(runId ?? "");
    const stamps = run.attributes["status-timestamps"] as Record<string, string>;
    expect(Object.keys(stamps)).toEqual([
      "plan-queueable-at",
      "fetching-at",
      "fetching-completed-at",
      "pre-plan-running-at",
      "pre-plan-completed-at",
      "queuing-at",
      "plan-queued-at",
      "planning-at",
      "planned-at",
      "post-plan-running-at",
      "post-plan-completed-at",
      "cost-estimating-at",
      "cost-estimated-at",
      "policy-checking-at",
      "policy-checked-at",
    ]);
    const times = Object.values(stamps);
    for (const value of times) expect(value).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
    expect([...times].sort()).toEqual(times);
    expect(run.attributes.actions).toEqual({ "is-cancelable": false, "is-confirmable": true, "is-discardable": true, "is-force-cancelable": false });
  });

  it("includes plan, apply, created_by, cost_estimate, configuration_version and its ingress attributes", async () => {
    const w = await startRuns(h, { workspace: { vcsRepo: { identifier: "acme/infra" } } });
    w.runs.setWorkspaceOutcome(w.ws.id, { costEstimation: true, resources: { add: 4, change: 1, destroy: 2 } });
    const { configurationVersionId, ingressAttributesId } = w.runs.pushCommit(w.ws.id, { senderUsername: "alice" });
    w.doubles.advance("2m");
    const runId = w.runs.runsOf(w.ws.id)[0]?.id ?? "";
    const include = "plan,apply,created_by,cost_estimate,configuration_version,configuration_version.ingress_attributes";
    const response = await w.api("GET", `/runs/${runId}?include=${include}`);
    expect(response.status).toBe(200);
    const byType = Object.fromEntries((response.body.included as { type: string }[]).map((r) => [r.type, r]));
    expect(Object.keys(byType).sort()).toEqual(["applies", "configuration-versions", "cost-estimates", "ingress-attributes", "plans", "users"]);
    expect(byType.plans).toMatchObject({ attributes: { status: "finished", "has-changes": true, "resource-additions": 4, "resource-changes": 1, "resource-destructions": 2 } });
    expect(byType.applies).toMatchObject({ attributes: { status: "pending" } });
    expect(byType.users).toMatchObject({ attributes: { username: "alice" } });
    expect(byType["cost-estimates"]).toMatchObject({ attributes: { status: "finished", "resources-count": expect.any(Number), "delta-monthly-cost": expect.any(String) } });
    expect(byType["configuration-versions"]).toMatchObject({ id: configurationVersionId });
    expect(byType["ingress-attributes"]).toMatchObject({ id: ingressAttributesId });
    const planId = response.body.data.relationships.plan.data.id;
    expect((await w.api("GET", `/plans/${planId}`)).body.data.id).toBe(planId);
    const applyId = response.body.data.relationships.apply.data.id;
    expect((await w.api("GET", `/applies/${applyId}`)).body.data.type).toBe("applies");
    const ceId = response.body.data.relationships["cost-estimate"].data.id;
    expect((await w.api("GET", `/cost-estimates/${ceId}`)).body.data.type).toBe("cost-estimates");
    expect((await w.api("GET", `/plans/${planId}`, { token: w.stranger })).status).toBe(404);
    expect((await w.api("GET", `/runs/${runId}?include=workspace`)).status).toBe(400);
  });

  describe("permissions", () => {
    it("tells each caller what it may do", async () => {
      const w = await startRuns(h);
      const { runId } = await w.upload();
      const permissions = async (token: string) => (await w.getRun(runId ?? "", token)).attributes.permissions;
      const all = (value: boolean) => ({
        "can-apply": value,
        "can-cancel": value,
        "can-comment": value,
        "can-discard": value,
        "can-force-execute": value,
        "can-force-cancel": value,
        "can-override-policy-check": value,
      });
      expect(await permissions(w.admin)).toEqual(all(true));
      expect(await permissions(w.writer)).toEqual({ ...all(true), "can-force-cancel": false, "can-override-policy-check": false });
      expect(await permissions(w.planner)).toEqual({ ...all(false), "can-comment": true });
      expect(await permissions(w.reader)).toEqual(all(false));
      expect(await permissions(w.orgToken)).toEqual(all(false));
      expect((await w.api("GET", `/runs/${runId}`, { token: w.stranger })).status).toBe(404);
    });

    it("gives team tokens and team members the team's permissions", async () => {
      const w = await startRuns(h);
      const member = w.runs.addUser({ username: "tess" });
      const team = w.runs.addTeam(w.org, { name: "ops", members: [member.id], permissions: { [w.ws.id]: "write" } });
      const teamToken = w.runs.issueTeamToken(team.id);
      const memberToken = w.runs.issueUserToken(member.id);
      await w.upload({ attributes: { "auto-queue-runs": false } });
      const runId = await w.createRun({}, { token: teamToken });
      const run = await w.getRun(runId, teamToken);
      expect(run.attributes.permissions["can-apply"]).toBe(true);
      expect(run.attributes.permissions["can-force-cancel"]).toBe(false);
      expect(w.runs.run(runId).createdBy).not.toBe(member.id);
      expect((await w.getRun(runId, memberToken)).attributes.permissions["can-apply"]).toBe(true);
    });
  });

  describe("auto-apply", () => {
    it("applies on its own when the workspace auto-applies and the creator may apply runs", async () => {
      const w = await startRuns(h, { workspace: { autoApply: true } });
      await w.upload({ attributes: { "auto-queue-runs": false } });
      const runId = await w.createRun({}, { token: w.writer });
      expect((await w.getRun(runId)).attributes["auto-apply"]).toBe(true);
      w.doubles.advance("5m");
      expect((await w.getRun(runId)).attributes.status).toBe("applied");
    });

    it("pauses for confirmation when the creator may only queue plans", async () => {
      const w = await startRuns(h, { workspace: { autoApply: true } });
      await w.upload({ attributes: { "auto-queue-runs": false } });
      const runId = await w.createRun({}, { token: w.planner });
      w.doubles.advance("5m");
      expect((await w.getRun(runId)).attributes).toMatchObject({ status: "planned", "auto-apply": true });
    });

    it("follows the run's own auto-apply attribute over the workspace's setting", async () => {
      const w = await startRuns(h);
      await w.upload({ attributes: { "auto-queue-runs": false } });
      const runId = await w.createRun({ "auto-apply": true });
      w.doubles.advance("5m");
      expect((await w.getRun(runId)).attributes.status).toBe("applied");
    });
  });

  describe("workspace queue", () => {
    it("keeps later runs pending while a run that will apply holds the workspace; plan-only runs do not wait", async () => {
      const w = await startRuns(h);
      await w.upload({ attributes: { "auto-queue-runs": false } });
      const first = await w.createRun();
      const second = await w.createRun();
      const speculative = await w.createRun({ "plan-only": true });
      w.doubles.advance("5m");
      expect(w.runs.run(first).status).toBe("planned");
      expect((await w.getRun(second)).attributes.status).toBe("pending");
      expect((await w.getRun(speculative)).attributes.status).toBe("planned_and_finished");
      await w.api("POST", `/runs/${first}/actions/apply`);
      w.doubles.advance("2m");
      expect(w.runs.run(first).status).toBe("applied");
      expect(w.runs.run(second).status).toBe("planned");
    });

    it("lets a saved plan run plan beside the holder, and apply once the workspace is free", async () => {
      const w = await startRuns(h);
      await w.upload({ attributes: { "auto-queue-runs": false } });
      const holder = await w.createRun();
      const saved = await w.createRun({ "save-plan": true });
      w.doubles.advance("5m");
      const savedRun = await w.getRun(saved);
      expect(savedRun.attributes.status).toBe("planned_and_saved");
      expect(savedRun.attributes.actions["is-confirmable"]).toBe(true);
      expect((await w.api("POST", `/runs/${saved}/actions/apply`)).status).toBe(202);
      w.doubles.advance("5m");
      expect(w.runs.run(saved).status).toBe("confirmed");
      await w.api("POST", `/runs/${holder}/actions/discard`);
      w.doubles.advance("5m");
      expect(w.runs.run(saved).status).toBe("applied");
    });
  });

  describe("operations", () => {
    it("plans refresh-only, destroy and empty-apply runs plausibly", async () => {
      const w = await startRuns(h);
      await w.upload({ attributes: { "auto-queue-runs": false } });
      const plan = async (attributes: Record<string, unknown>, script: OutcomeScript = {}) => {
        w.runs.nextRun(w.ws.id, script);
        const id = await w.createRun(attributes);
        w.doubles.advance("2m");
        const response = await w.api("GET", `/runs/${id}?include=plan`);
        await w.api("POST", `/runs/${id}/actions/discard`);
        return { run: response.body.data.attributes, plan: response.body.included[0].attributes };
      };
      const refresh = await plan({ "refresh-only": true });
      expect(refresh.run).toMatchObject({ status: "planned", "has-changes": true, "refresh-only": true });
      expect(refresh.plan).toMatchObject({ "resource-additions": 0, "resource-changes": 0, "resource-destructions": 0 });
      const destroy = await plan({ "is-destroy": true });
      // The configuration's one resource block (configurationArchive()'s null_resource.example).
      expect(destroy.plan).toMatchObject({ "resource-additions": 0, "resource-destructions": 1 });
      const empty = await plan({ "allow-empty-apply": true }, { plan: "no-changes" });
      expect(empty.run).toMatchObject({ status: "planned", "has-changes": false, actions: { "is-confirmable": true } });
      const nothing = await plan({}, { plan: "no-changes" });
      expect(nothing.run).toMatchObject({ status: "planned_and_finished", "has-changes": false });
    });

    it("never applies plan-only runs and errors applies that fail", async () => {
      const w = await startRuns(h, { workspace: { autoApply: true } });
      await w.upload({ attributes: { "auto-queue-runs": false } });
      const planOnly = await w.createRun({ "plan-only": true });
      w.runs.nextRun(w.ws.id, { apply: "errors" });
      const failing = await w.createRun();
      w.doubles.advance("10m");
      expect(w.runs.run(planOnly).status).toBe("planned_and_finished");
      expect((await w.getRun(failing)).attributes.status).toBe("errored");
      expect(w.runs.run(failing).apply?.status).toBe("errored");
    });
  });

  describe("progression modes", () => {
    it("moves a manual run one step per step() and an immediate run as far as it can at once", async () => {
      const w = await startRuns(h);
      await w.upload({ attributes: { "auto-queue-runs": false } });
      w.runs.setProgression("manual", { workspaceId: w.ws.id });
      const manual = await w.createRun({ "plan-only": true });
      w.doubles.advance("1h");
      expect((await w.getRun(manual)).attributes.status).toBe("pending");
      expect(w.runs.step(manual)).toBe("fetching");
      expect((await w.getRun(manual)).attributes.status).toBe("fetching");
      expect(w.runs.stepUntilSettled(manual)).toBe("planned_and_finished");
      w.runs.setProgression("immediate", { workspaceId: w.ws.id });
      const created = await w.api("POST", "/runs", {
        body: { data: { type: "runs", relationships: { workspace: { data: { type: "workspaces", id: w.ws.id } } } } },
      });
      expect(created.body.data.attributes.status).toBe("planned");
    });

    it("finishes any default run well within advance('10m'), with plausible phase durations", async () => {
      const w = await startRuns(h, { workspace: { autoApply: true } });
      w.runs.nextRun(w.ws.id, { prePlanTasks: true, postPlanTasks: true, costEstimation: true, policyCheck: "passes" });
      const { runId } = await w.upload();
      w.doubles.advance("10m");
      const run = await w.getRun(runId ?? "");
      expect(run.attributes.status).toBe("applied");
      const stamps = run.attributes["status-timestamps"];
      const seconds = (key: string) => Date.parse(stamps[key]) / 1000;
      expect(seconds("planned-at") - seconds("planning-at")).toBe(30);
      expect(seconds("applied-at") - seconds("applying-at")).toBe(45);
      w.runs.setDurations({ plan: "2m" });
      const slow = await w.createRun();
      w.doubles.advance("1m");
      expect(w.runs.run(slow).status).toBe("planning");
      w.doubles.advance("2m");
      expect(w.runs.run(slow).status).not.toBe("planning");
    });
  });
});
