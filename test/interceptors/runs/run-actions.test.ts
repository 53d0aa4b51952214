import { describe, expect, it } from "vitest";
import { describeEachTransport } from "../../support/transports.js";
import { expectError, startRuns, type RunsWorld } from "./support.js";

/** Uploads configuration (queuing a run) and lets the plan finish: the run pauses in `planned`. */
async function pausedRun(w: RunsWorld): Promise<string> {
  const { runId } = await w.upload();
  w.doubles.advance("1m");
  expect(w.runs.run(runId ?? "").status).toBe("planned");
  return runId ?? "";
}

/** Moves the clock until the run is in `status` (at most `limit` seconds). */
function advanceUntil(w: RunsWorld, runId: string, status: string, limit = 600): void {
  for (let i = 0; i < limit && w.runs.run(runId).status !== status; i++) w.doubles.advance("1s");
  expect(w.runs.run(runId).status).toBe(status);
}

const post = (w: RunsWorld, runId: string, action: string, options: { token?: string | null; body?: unknown; raw?: string } = {}) =>
  w.api("POST", `/runs/${runId}/actions/${action}`, options);

describeEachTransport("runs: run actions", (h) => {
  describe("POST /runs/:run_id/actions/apply", () => {
    it("applies a run paused for confirmation: 202 no body, confirmed, then apply_queued, applying, applied", async () => {
      const w = await startRuns(h);
      const runId = await pausedRun(w);
      expect((await w.getRun(runId)).attributes.actions["is-confirmable"]).toBe(true);
      const response = await post(w, runId, "apply", { body: { comment: "Looks good" }, token: w.writer });
      expect(response.status).toBe(202);
      expect(response.text).toBe("");
      const confirmed = await w.getRun(runId);
      expect(confirmed.attributes.status).toBe("confirmed");
      expect(confirmed.relationships.comments.data).toHaveLength(1);
      w.doubles.advance("1s");
      expect((await w.getRun(runId)).attributes.status).toBe("apply_queued");
      w.doubles.advance("2s");
      expect((await w.getRun(runId)).attributes.status).toBe("applying");
      w.doubles.advance("45s");
      const applied = await w.getRun(runId);
      expect(applied.attributes.status).toBe("applied");
      expect(Object.keys(applied.attributes["status-timestamps"])).toEqual([
        "plan-queueable-at",
        "fetching-at",
        "fetching-completed-at",
        "queuing-at",
        "plan-queued-at",
        "planning-at",
        "planned-at",
        "confirmed-at",
        "apply-queued-at",
        "applying-at",
        "applied-at",
      ]);
    });

    it("answers 409 when the run was not paused for confirmation", async () => {
      const w = await startRuns(h);
      const { runId } = await w.upload();
      const response = await post(w, runId ?? "", "apply");
      expectError(response, 409, "transition not allowed");
      expect(response.body.errors[0].detail).toBe("Run was not paused for confirmation; apply not allowed");
      expect(w.runs.run(runId ?? "").status).toBe("pending");
    });

    it("answers 404 for an unknown run and for callers who may not apply runs", async () => {
      const w = await startRuns(h);
      const runId = await pausedRun(w);
      expectError(await post(w, "run-missing", "apply"), 404, "not found");
      for (const token of [w.planner, w.reader, w.stranger, w.orgToken]) expectError(await post(w, runId, "apply", { token }), 404, "not found");
      expectError(await post(w, runId, "apply", { token: null }), 401, "unauthorized");
      expect(w.runs.run(runId).status).toBe("planned");
    });

    it("answers 422 for a malformed optional body and keeps the run as it was", async () => {
      const w = await startRuns(h);
      const runId = await pausedRun(w);
      expectError(await post(w, runId, "apply", { raw: "{oops" }), 422, "invalid attribute", "");
      expectError(await post(w, runId, "apply", { body: { comment: 5 } }), 422, "invalid attribute", "/comment");
      expectError(await post(w, runId, "apply", { body: "text" }), 422, "invalid attribute", "");
      expect(w.runs.run(runId).status).toBe("planned");
      expect((await post(w, runId, "apply", { body: { comment: null } })).status).toBe(202);
    });

    it("overrides a soft-failed policy first, then applies", async () => {
      const w = await startRuns(h);
      w.runs.nextRun(w.ws.id, { policyCheck: "soft-fails" });
      const { runId } = await w.upload();
      w.doubles.advance("2m");
      expect((await w.getRun(runId ?? "")).attributes.status).toBe("policy_override");
      expect((await post(w, runId ?? "", "apply")).status).toBe(202);
      w.doubles.advance("2m");
      const run = w.runs.run(runId ?? "");
      expect(run.status).toBe("applied");
      expect(run.policyOverridden).toBe(true);
    });
  });

  describe("POST /runs/:run_id/actions/discard", () => {
    it("discards a run paused for confirmation (202) and lets the next run take the workspace", async () => {
      const w = await startRuns(h);
      const first = await pausedRun(w);
      const second = (await w.upload()).runId ?? "";
      w.doubles.advance("1m");
      expect(w.runs.run(second).status).toBe("pending");
      const response = await post(w, first, "discard", { body: { comment: "not now" } });
      expect(response.status).toBe(202);
      expect(response.text).toBe("");
      expect((await w.getRun(first)).attributes.status).toBe("discarded");
      w.doubles.advance("1m");
      expect(w.runs.run(second).status).toBe("planned");
    });

    it("discards a pending run waiting for the workspace", async () => {
      const w = await startRuns(h);
      await pausedRun(w);
      const waiting = (await w.upload()).runId ?? "";
      expect((await w.getRun(waiting)).attributes.actions["is-discardable"]).toBe(true);
      expect((await post(w, waiting, "discard")).status).toBe(202);
      expect((await w.getRun(waiting)).attributes.status).toBe("discarded");
    });

    it("answers 409 while planning and after completion, 404 for callers who may not apply runs", async () => {
      const w = await startRuns(h);
      const { runId } = await w.upload();
      advanceUntil(w, runId ?? "", "planning");
      const response = await post(w, runId ?? "", "discard");
      expectError(response, 409, "transition not allowed");
      expect(response.body.errors[0].detail).toBe("Run was not paused for confirmation or priority; discard not allowed");
      expectError(await post(w, runId ?? "", "discard", { token: w.planner }), 404, "not found");
      expectError(await post(w, runId ?? "", "discard", { token: w.orgToken }), 404, "not found");
      w.doubles.advance("1m");
      await post(w, runId ?? "", "apply");
      w.doubles.advance("5m");
      expectError(await post(w, runId ?? "", "discard"), 409, "transition not allowed");
    });
  });

  describe("POST /runs/:run_id/actions/cancel", () => {
    it("interrupts a planning run: canceled-at and force_cancel_available_at are set, then the run is canceled", async () => {
      const w = await startRuns(h);
      const { runId } = await w.upload();
      advanceUntil(w, runId ?? "", "planning");
      const at = w.doubles.now();
      const response = await post(w, runId ?? "", "cancel", { body: { comment: "stop" } });
      expect(response.status).toBe(202);
      expect(response.text).toBe("");
      const canceling = await w.getRun(runId ?? "");
      expect(canceling.attributes.status).toBe("planning");
      expect(canceling.attributes["canceled-at"]).toBe(new Date(at).toISOString());
      expect(canceling.attributes.force_cancel_available_at).toBe(new Date(at + 10_000).toISOString());
      expect(canceling.attributes.actions).toEqual({ "is-cancelable": true, "is-confirmable": false, "is-discardable": false, "is-force-cancelable": false });
      w.doubles.advance("2s");
      const canceled = await w.getRun(runId ?? "");
      expect(canceled.attributes.status).toBe("canceled");
      expect(canceled.attributes["status-timestamps"]).toHaveProperty("canceled-at");
      expect(canceled.attributes.actions["is-cancelable"]).toBe(false);
    });

    it("interrupts an applying run, and a repeated cancel changes nothing", async () => {
      const w = await startRuns(h);
      const runId = await pausedRun(w);
      await post(w, runId, "apply");
      advanceUntil(w, runId, "applying");
      expect((await post(w, runId, "cancel")).status).toBe(202);
      const first = (await w.getRun(runId)).attributes.force_cancel_available_at;
      w.doubles.advance("1s");
      expect((await post(w, runId, "cancel")).status).toBe(202);
      expect((await w.getRun(runId)).attributes.force_cancel_available_at).toBe(first);
      w.doubles.advance("1s");
      expect(w.runs.run(runId).status).toBe("canceled");
      expect(w.runs.run(runId).apply?.status).toBe("canceled");
    });

    it("answers 409 when the run is not planning or applying, 404 for unknown runs and unauthorized callers", async () => {
      const w = await startRuns(h);
      const runId = await pausedRun(w);
      const response = await post(w, runId, "cancel");
      expectError(response, 409, "transition not allowed");
      expect(response.body.errors[0].detail).toBe("Run was not planning or applying; cancel not allowed");
      expectError(await post(w, "run-missing", "cancel"), 404, "not found");
      expectError(await post(w, runId, "cancel", { token: w.reader }), 404, "not found");
      expectError(await post(w, runId, "cancel", { token: w.orgToken }), 404, "not found");
    });
  });

  describe("POST /runs/:run_id/actions/force-cancel", () => {
    it("ends a run whose process ignores the interrupt once the cool-off is over (workspace admin only)", async () => {
      const w = await startRuns(h);
      w.runs.nextRun(w.ws.id, { interrupt: "ignored" });
      const { runId } = await w.upload();
      const waiting = (await w.upload()).runId ?? "";
      advanceUntil(w, runId ?? "", "planning");
      const early = await post(w, runId ?? "", "force-cancel");
      expectError(early, 409, "transition not allowed");
      expect(early.body.errors[0].detail).toMatch(/not canceled yet/);
      await post(w, runId ?? "", "cancel");
      const cooling = await post(w, runId ?? "", "force-cancel");
      expectError(cooling, 409, "transition not allowed");
      expect(cooling.body.errors[0].detail).toMatch(/cool-off period is not over; force-cancel is available at 2024-/);
      w.doubles.advance("10s");
      const ready = await w.getRun(runId ?? "");
      expect(ready.attributes.status).toBe("planning");
      expect(ready.attributes.actions["is-force-cancelable"]).toBe(true);
      expectError(await post(w, runId ?? "", "force-cancel", { token: w.writer }), 404, "not found");
      expectError(await post(w, runId ?? "", "force-cancel", { token: w.orgToken }), 404, "not found");
      const response = await post(w, runId ?? "", "force-cancel", { body: { comment: "kill it" } });
      expect(response.status).toBe(202);
      expect(response.text).toBe("");
      expect((await w.getRun(runId ?? "")).attributes.status).toBe("force_canceled");
      expect(w.runs.workspace(w.ws.id).lockedBy).toBe(waiting);
    });

    it("follows the cool-off setting and answers 409 when the run is not planning or applying", async () => {
      const w = await startRuns(h);
      w.runs.setCoolOff("1m");
      w.runs.nextRun(w.ws.id, { interrupt: "ignored" });
      const { runId } = await w.upload();
      advanceUntil(w, runId ?? "", "planning");
      await post(w, runId ?? "", "cancel");
      w.doubles.advance("30s");
      expectError(await post(w, runId ?? "", "force-cancel"), 409, "transition not allowed");
      w.doubles.advance("30s");
      expect((await post(w, runId ?? "", "force-cancel")).status).toBe(202);
      const response = await post(w, runId ?? "", "force-cancel");
      expectError(response, 409, "transition not allowed");
      expect(response.body.errors[0].detail).toBe("Run was not planning or applying; force-cancel not allowed");
      expectError(await post(w, "run-missing", "force-cancel"), 404, "not found");
    });
  });

  describe("POST /runs/:run_id/actions/force-execute", () => {
    it("cancels every prior incomplete run and lets the target run proceed (202)", async () => {
      const w = await startRuns(h);
      const holder = await pausedRun(w);
      const middle = (await w.upload()).runId ?? "";
      const target = (await w.upload()).runId ?? "";
      const response = await w.api("POST", `/runs/${target}/actions/force-execute`, { token: w.writer });
      expect(response.status).toBe(202);
      expect(response.text).toBe("");
      expect((await w.getRun(holder)).attributes.status).toBe("canceled");
      expect((await w.getRun(middle)).attributes.status).toBe("canceled");
      expect(w.runs.workspace(w.ws.id).lockedBy).toBe(target);
      w.doubles.advance("1m");
      expect((await w.getRun(target)).attributes.status).toBe("planned");
    });

    it("also cancels an earlier confirmed saved plan waiting for the workspace, so the target run is the one that proceeds", async () => {
      const w = await startRuns(h);
      const holder = await pausedRun(w);
      const saved = await w.createRun({ "save-plan": true });
      w.doubles.advance("1m");
      expect(w.runs.run(saved).status).toBe("planned_and_saved");
      expect((await post(w, saved, "apply")).status).toBe(202);
      expect(w.runs.run(saved).status).toBe("confirmed");
      const target = await w.createRun();
      expect(w.runs.workspaceQueue(w.ws.id)).toEqual({ holder, waiting: [saved, target] });
      expect((await post(w, target, "force-execute")).status).toBe(202);
      expect((await w.getRun(holder)).attributes.status).toBe("canceled");
      expect((await w.getRun(saved)).attributes.status).toBe("canceled");
      expect(w.runs.workspace(w.ws.id).lockedBy).toBe(target);
      w.doubles.advance("1m");
      expect((await w.getRun(target)).attributes.status).toBe("planned");
    });

    it("answers 403 when the run is not pending or its workspace is not locked by another run", async () => {
      const w = await startRuns(h);
      const holder = await pausedRun(w);
      const notPending = await w.api("POST", `/runs/${holder}/actions/force-execute`);
      expectError(notPending, 403, "forbidden");
      expect(notPending.body.errors[0].detail).toMatch(/not pending/);
      await post(w, holder, "discard");
      w.runs.setProgression("manual");
      const { runId } = await w.upload();
      expect(w.runs.workspace(w.ws.id).lockedBy).toBe(runId);
      const unlocked = await w.api("POST", `/runs/${runId}/actions/force-execute`);
      expectError(unlocked, 403, "forbidden");
      expect(unlocked.body.errors[0].detail).toMatch(/not locked by another run/);
      const planOnly = await w.createRun({ "plan-only": true });
      expect(w.runs.run(planOnly).status).toBe("pending");
      const notWaiting = await w.api("POST", `/runs/${planOnly}/actions/force-execute`);
      expectError(notWaiting, 403, "forbidden");
      expect(notWaiting.body.errors[0].detail).toMatch(/does not wait for the workspace/);
      expect(w.runs.run(runId ?? "").status).toBe("pending");
      expect(w.runs.workspace(w.ws.id).lockedBy).toBe(runId);
    });

    it("answers 409 when the run holding the workspace cannot be discarded, 404 for unauthorized callers", async () => {
      const w = await startRuns(h);
      const { runId: holder } = await w.upload();
      const target = (await w.upload()).runId ?? "";
      advanceUntil(w, holder ?? "", "planning");
      const response = await w.api("POST", `/runs/${target}/actions/force-execute`);
      expectError(response, 409, "transition not allowed");
      expect(response.body.errors[0].detail).toMatch(/not in a discardable state/);
      expectError(await w.api("POST", `/runs/${target}/actions/force-execute`, { token: w.planner }), 404, "not found");
      expectError(await w.api("POST", `/runs/${target}/actions/force-execute`, { token: w.orgToken }), 404, "not found");
      expectError(await w.api("POST", "/runs/run-missing/actions/force-execute"), 404, "not found");
      expect(w.runs.run(target).status).toBe("pending");
    });
  });
});
