import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { UsageError } from "../../../src/simulator/kernel/errors.js";
import { DoublesCore } from "../../../src/scenarios/doubles-core.js";
import { createDoubles } from "../../../src/scenarios/doubles.js";
import { configurationArchive, DEFAULT_MAIN_TF } from "../../../src/scenarios/runs/archive.js";
import { runsDefaultScenario } from "../../../src/scenarios/runs/default-scenario.js";
import { RUNS_DEFAULT_BASES, runsPlugin } from "../../../src/scenarios/runs/plugin.js";
import type { RunsScenario } from "../../../src/scenarios/runs/runs-scenario.js";
import type { RunsState } from "../../../src/simulator/runs/state.js";

function world(options: { autoApply?: boolean } = {}) {
  const doubles = new DoublesCore([runsPlugin], { seed: 5 });
  const runs = doubles.controlsOf<RunsScenario>("runs");
  const org = runs.addOrganization("acme");
  const ws = runs.addWorkspace(org, { name: "prod", ...(options.autoApply !== undefined ? { autoApply: options.autoApply } : {}) });
  const user = runs.addUser({ username: "alice", permissions: { [ws.id]: "admin" } });
  return { doubles, runs, org, ws, user };
}

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

describe("runs scenario controls", () => {
  it("gives the default archive's bytes on every call, each call its own copy", () => {
    const first = configurationArchive();
    expect(Buffer.from(first).equals(Buffer.from(configurationArchive({ "main.tf": DEFAULT_MAIN_TF })))).toBe(true);
    first.fill(0);
    const second = configurationArchive();
    expect(second).not.toBe(first);
    expect(Buffer.from(second).equals(Buffer.from(configurationArchive({ "main.tf": DEFAULT_MAIN_TF })))).toBe(true);
  });

  it("is the runs getter of createDoubles(), with the plugin's default bases", () => {
    const doubles = createDoubles({ seed: 1 });
    expect(doubles.runs.addOrganization("x")).toBe("x");
    expect(doubles.baseUrls().runs).toEqual(RUNS_DEFAULT_BASES);
  });

  it("hands next-run scripts out first in first out, set before the runs exist", () => {
    const w = world();
    w.runs.setProgression("immediate");
    w.runs.nextRun(w.ws.id, { plan: "no-changes" });
    w.runs.nextRun(w.ws.id, { plan: "errors" });
    const { runId } = w.runs.uploadConfiguration(w.ws.id, { as: w.user.id });
    const second = w.runs.queueRun(w.ws.id, { as: w.user.id });
    const third = w.runs.queueRun(w.ws.id, { as: w.user.id });
    expect(w.runs.run(runId ?? "").status).toBe("planned_and_finished");
    expect(w.runs.run(second).status).toBe("errored");
    expect(w.runs.run(third).status).toBe("planned");
    expect(w.runs.workspace(w.ws.id).nextRunOutcomes).toEqual([]);
  });

  it("changes a live run's outcome and progression, re-planning its next move", () => {
    const w = world();
    w.runs.setProgression("manual");
    const { runId } = w.runs.uploadConfiguration(w.ws.id, { as: w.user.id });
    const id = runId ?? "";
    w.doubles.advance("1h");
    expect(w.runs.run(id).status).toBe("pending");
    w.runs.setRunOutcome(id, { plan: "no-changes" });
    w.runs.setProgression("timed", { runId: id });
    w.doubles.advance("2m");
    expect(w.runs.run(id).status).toBe("planned_and_finished");
  });

  it("reads runs with their operation, pause, actions, plan and apply, and the workspace queue", () => {
    const w = world();
    const { runId } = w.runs.uploadConfiguration(w.ws.id, { as: w.user.id });
    const waiting = w.runs.queueRun(w.ws.id, { as: w.user.id, source: "svc-ui" });
    const speculative = w.runs.queueRun(w.ws.id, { as: w.user.id, planOnly: true });
    w.doubles.advance("1m");
    const run = w.runs.run(runId ?? "");
    expect(run).toMatchObject({ status: "planned", operation: "plan_and_apply", paused: true, actions: { isConfirmable: true } });
    expect(run.plan?.status).toBe("finished");
    expect(run.apply?.status).toBe("pending");
    expect(w.runs.run(waiting)).toMatchObject({ source: "svc-ui", message: "Queued manually in the UI" });
    expect(w.runs.workspaceQueue(w.ws.id)).toEqual({ holder: runId, waiting: [waiting] });
    expect(w.runs.runsOf(w.ws.id).map((r) => r.id)).toEqual([speculative, waiting, runId]);
    const copy = w.runs.run(runId ?? "");
    copy.statusTimestamps.pending = 0;
    expect(w.runs.run(runId ?? "").statusTimestamps.pending).not.toBe(0);
  });

  it("steps runs and VCS fetches in manual mode, and steps until settled", () => {
    const w = world({ autoApply: true });
    const vcs = w.runs.addWorkspace(w.org, { name: "vcs", vcsRepo: { identifier: "acme/app" }, autoApply: true });
    w.runs.setProgression("manual");
    const { configurationVersionId } = w.runs.pushCommit(vcs.id, { message: "hello" });
    expect(w.runs.configurationVersion(configurationVersionId).status).toBe("fetching");
    expect(w.runs.step(configurationVersionId)).toBe("uploaded");
    expect(() => w.runs.step(configurationVersionId)).toThrow(/not fetching/);
    const runId = w.runs.runsOf(vcs.id)[0]?.id ?? "";
    expect(w.runs.step(runId)).toBe("fetching");
    expect(w.runs.stepUntilSettled(runId)).toBe("applied");
    expect(w.runs.configurationVersion(configurationVersionId).status).toBe("archived");
    expect(() => w.runs.step(runId)).toThrow(UsageError);
  });

  it("refuses bad scripts, unknown references and API-refused runs with UsageError", () => {
    const w = world();
    expect(() => w.runs.setProgression("fast" as never)).toThrow(/unknown progression mode/);
    expect(() => w.runs.setOutcome({ plan: "maybe" as never })).toThrow(/outcome plan "maybe" is not one of/);
    expect(() => w.runs.setOutcome({ durations: { plan: "soon" } })).toThrow(/not a duration/);
    expect(() => w.runs.setOutcome({ resources: { add: -1 } })).toThrow(/non-negative integers/);
    expect(() => w.runs.setCoolOff(-5)).toThrow(/cannot be negative/);
    expect(() => w.runs.nextRun("ws-nope", {})).toThrow(/no workspace/);
    expect(() => w.runs.run("run-nope")).toThrow(/no run/);
    expect(() => w.runs.pushCommit(w.ws.id)).toThrow(/has no VCS repository/);
    expect(() => w.runs.queueRun(w.ws.id, { as: "user-nope" })).toThrow(/unknown user/);
    expect(() => w.runs.queueRun(w.ws.id, { as: w.user.id })).toThrow(/has no configuration version/);
    expect(() => w.runs.setUploadOutcome("maybe" as never)).toThrow(UsageError);
  });

  it("refuses outcome scripts and commits of the wrong shape (as JSON callers send them) with UsageError", () => {
    const w = world();
    const vcs = w.runs.addWorkspace(w.org, { name: "vcs", vcsRepo: { identifier: "acme/vcs" } });
    expect(() => w.runs.setOutcome({ costEstimation: "yes" } as never)).toThrow(/costEstimation must be a boolean/);
    expect(() => w.runs.setOutcome({ prePlanTasks: 1 } as never)).toThrow(/prePlanTasks must be a boolean/);
    expect(() => w.runs.setOutcome({ durations: null } as never)).toThrow(/durations must be an object/);
    expect(() => w.runs.setOutcome({ resources: 5 } as never)).toThrow(/resources must be an object or null/);
    expect(() => w.runs.pushCommit(vcs.id, { message: 5 } as never)).toThrow(/message must be a string/);
    expect(() => w.runs.pushCommit(vcs.id, { tag: 5 } as never)).toThrow(/tag must be a string or null/);
    expect(() => w.runs.pushCommit(vcs.id, { pullRequest: { number: "7" } } as never)).toThrow(/pullRequest.number must be a positive integer/);
    expect(() => w.runs.pushCommit(vcs.id, { pullRequest: "7" } as never)).toThrow(/pullRequest must be/);
    expect(() => w.runs.pushCommit(vcs.id, { fetch: "maybe" } as never)).toThrow(/fetch must be/);
    expect(w.runs.configurationVersion(w.runs.pushCommit(vcs.id, { pullRequest: { number: 7 }, tag: null }).configurationVersionId).speculative).toBe(true);
  });

  it("lets fake timers drive runs with the fake-timers clock", () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(new Date("2024-03-01T00:00:00Z"));
      const doubles = createDoubles({ clock: "fake-timers" });
      const org = doubles.runs.addOrganization("acme");
      const ws = doubles.runs.addWorkspace(org);
      const user = doubles.runs.addUser({ permissions: { [ws.id]: "admin" } });
      const { runId } = doubles.runs.uploadConfiguration(ws.id, { as: user.id });
      expect(doubles.runs.run(runId ?? "").status).toBe("pending");
      vi.setSystemTime(new Date("2024-03-01T00:01:00Z"));
      const run = doubles.runs.run(runId ?? "");
      expect(run.status).toBe("planned");
      expect(run.statusTimestamps.planned).toBe(Date.parse("2024-03-01T00:00:37Z"));
    } finally {
      vi.useRealTimers();
    }
  });

  it("sets durations and cool-off from duration strings", () => {
    const w = world();
    w.runs.setDurations({ plan: "5m", apply: 1000 });
    w.runs.setCoolOff("1m");
    const { runId } = w.runs.uploadConfiguration(w.ws.id, { as: w.user.id });
    const run = w.runs.run(runId ?? "");
    expect(run.outcome.durations.plan).toBe(300_000);
    expect(run.outcome.durations.apply).toBe(1000);
  });

  it("builds configuration archives that tar can read, byte-identical for the same files", () => {
    const archive = configurationArchive({ "main.tf": 'resource "null_resource" "a" {}\n', "modules/x/main.tf": "# x\n" });
    expect(Buffer.from(archive).equals(Buffer.from(configurationArchive({ "main.tf": 'resource "null_resource" "a" {}\n', "modules/x/main.tf": "# x\n" })))).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), "runs-archive-"));
    const file = join(dir, "config.tar.gz");
    writeFileSync(file, archive);
    expect(execFileSync("tar", ["tzf", file], { encoding: "utf8" }).trim().split("\n")).toEqual(["main.tf", "modules/x/main.tf"]);
    expect(execFileSync("tar", ["xzOf", file, "main.tf"], { encoding: "utf8" })).toBe('resource "null_resource" "a" {}\n');
  });
});

describe("runs dev server scenario and control routes", () => {
  it("builds one organization, one workspace, a user token with every permission and a site admin token", async () => {
    const doubles = new DoublesCore([runsPlugin], { seed: 1 });
    const server = await doubles.listen();
    stops.push(() => server.close());
    const info = runsDefaultScenario(doubles.controlsOf<RunsScenario>("runs"), runsPlugin.serverBases(server.url));
    expect(info).toMatchObject({ baseUrl: `${server.url}/api/v2`, organization: "demo-org", workspaceId: expect.stringMatching(/^ws-/) });
    const headers = (token: string) => ({ authorization: `Bearer ${token}`, "content-type": "application/vnd.api+json" });
    const created = await fetch(`${info.baseUrl}/workspaces/${info.workspaceId}/configuration-versions`, { method: "POST", headers: headers(info.userToken), body: "{}" });
    expect(created.status).toBe(201);
    const admin = await fetch(`${info.baseUrl}/admin/engine-versions`, { headers: headers(info.adminToken) });
    expect(admin.status).toBe(200);
    expect((await fetch(`${info.baseUrl}/admin/engine-versions`, { headers: headers(info.userToken) })).status).toBe(404);
  });

  it("exposes fixtures, outcomes, commits and steps under /_sim/runs", async () => {
    const doubles = new DoublesCore([runsPlugin], { seed: 1 });
    const server = await doubles.listen();
    stops.push(() => server.close());
    const sim = (path: string, body?: unknown) =>
      fetch(`${server.url}/_sim/runs${path}`, { method: body === undefined ? "GET" : "POST", headers: { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
    expect((await sim("/organizations", { name: "acme" })).status).toBe(201);
    expect((await sim("/organizations", { name: "priced", costEstimationEnabled: true })).status).toBe(201);
    expect((await sim("/organizations/acme/cost-estimation", { enabled: true })).status).toBe(200);
    const organizations = doubles.sim.read<RunsState, RunsState["organizations"]>("runs", (ctx) => ctx.state.organizations);
    expect([organizations.acme?.costEstimationEnabled, organizations.priced?.costEstimationEnabled]).toEqual([true, true]);
    expect((await sim("/organizations/acme/cost-estimation", { enabled: false })).status).toBe(200);
    expect(doubles.sim.read<RunsState, boolean | undefined>("runs", (ctx) => ctx.state.organizations.acme?.costEstimationEnabled)).toBe(false);
    const ws = (await (await sim("/workspaces", { organization: "acme", name: "app", vcsRepo: { identifier: "acme/app" } })).json()) as { id: string };
    const user = (await (await sim("/users", { username: "dev", permissions: { [ws.id]: "admin" } })).json()) as { token: string };
    expect(user.token).toMatch(/atlasv1/);
    expect((await sim("/outcomes", { progression: "manual" })).status).toBe(200);
    expect((await sim("/outcomes", { workspaceId: ws.id, next: true, plan: "no-changes" })).status).toBe(200);
    expect((await sim("/cool-off", { duration: "30s" })).status).toBe(200);
    const commit = (await (await sim(`/workspaces/${ws.id}/commits`, { message: "hi", files: { "main.tf": "" } })).json()) as { configurationVersionId: string };
    expect(((await (await sim(`/runs/${commit.configurationVersionId}/step`, {})).json()) as { status: string }).status).toBe("uploaded");
    const runs = (await (await fetch(`${server.url}/api/v2/workspaces/${ws.id}/runs`, { headers: { authorization: `Bearer ${user.token}` } })).json()) as { data: { id: string }[] };
    const runId = runs.data[0]?.id ?? "";
    expect(((await (await sim(`/runs/${runId}/step`, {})).json()) as { status: string }).status).toBe("fetching");
    expect(((await (await sim(`/runs/${runId}`)).json()) as { status: string; outcome: { plan: string } }).outcome.plan).toBe("no-changes");
    const bad = await sim("/outcomes", { plan: "maybe" });
    expect(bad.status).toBe(400);
    expect((await sim("/workspaces", { name: 5 })).status).toBe(400);
    expect((await fetch(`${server.url}/_sim/runs/organizations`, { method: "POST", headers: { "content-type": "application/json" }, body: "{oops" })).status).toBe(400);
    for (const [path, body] of [
      ["/workspaces", { organization: "acme", vcsRepo: null }],
      ["/workspaces", { organization: "acme", vcsRepo: { identifier: "acme/x", branch: 5 } }],
      ["/workspaces", { organization: "acme", name: "bad-url", vcsRepo: { identifier: "acme/x", htmlUrl: "not a url" } }],
      ["/outcomes", { durations: null }],
      ["/outcomes", { costEstimation: "yes" }],
      ["/organizations", { name: "c", costEstimationEnabled: "yes" }],
      ["/organizations/acme/cost-estimation", {}],
      ["/organizations/acme/cost-estimation", { enabled: 1 }],
      ["/organizations/nowhere/cost-estimation", { enabled: true }],
      ["/outcomes", { resources: 5 }],
      [`/workspaces/${ws.id}/commits`, { pullRequest: null, message: ["x"] }],
      [`/workspaces/${ws.id}/commits`, { files: { "main.tf": 5 } }],
    ] as const) {
      const answer = await sim(path, body);
      expect(answer.status, `${path} ${JSON.stringify(body)}: ${await answer.clone().text()}`).toBe(400);
      expect(answer.headers.get("x-infra-doubles-bug")).toBeNull();
    }
  });
});
