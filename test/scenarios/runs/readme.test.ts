/** The samples of docs/guides/test-a-deploy-client.md, run as written (through nock, with the package's public exports). */
import { afterEach, expect, it } from "vitest";
import { configurationArchive, createDoubles, type Doubles } from "../../../src/index.js";

let current: Doubles | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
});

function setUp() {
  const doubles = createDoubles({ seed: 1 });
  current = doubles;
  doubles.intercept();
  const runs = doubles.runs;
  const org = runs.addOrganization("acme");
  const ws = runs.addWorkspace(org, { name: "prod" });
  const alice = runs.addUser({ username: "alice", permissions: { [ws.id]: "write" } });
  const token = runs.issueUserToken(alice.id);
  const api = "https://app.run-orchestration.test/api/v2";
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/vnd.api+json" };
  return { doubles, runs, org, ws, alice, api, headers };
}

it("README: upload configuration and apply the run it queues", async () => {
  const { doubles, runs, ws, api, headers } = setUp();
  const cv = (await fetch(`${api}/workspaces/${ws.id}/configuration-versions`, {
    method: "POST",
    headers,
    body: JSON.stringify({ data: { type: "configuration-versions" } }),
  }).then((r) => r.json())) as { data: { attributes: { "upload-url": string } } };
  await fetch(cv.data.attributes["upload-url"], {
    method: "PUT",
    headers: { "content-type": "application/octet-stream" },
    body: configurationArchive({ "main.tf": 'resource "null_resource" "x" {}' }),
  });
  doubles.advance("1m");
  const [run] = runs.runsOf(ws.id);
  expect(run?.status).toBe("planned");
  await fetch(`${api}/runs/${run?.id}/actions/apply`, { method: "POST", headers });
  doubles.advance("2m");
  expect(runs.run(run?.id ?? "").status).toBe("applied");
});

it("README: script the next runs, control time, cancel and force-cancel, VCS commits", async () => {
  const { doubles, runs, org, ws, alice, api, headers } = setUp();
  runs.nextRun(ws.id, { plan: "no-changes" });
  runs.nextRun(ws.id, { policyCheck: "soft-fails" });
  runs.setWorkspaceOutcome(ws.id, { costEstimation: true, resources: { add: 3, change: 0, destroy: 1 } });
  const { runId } = runs.uploadConfiguration(ws.id, { as: alice.id });
  const second = runs.queueRun(ws.id, { as: alice.id });
  doubles.advance("10m");
  expect(runs.run(runId ?? "").status).toBe("planned_and_finished");
  expect(runs.run(second).status).toBe("policy_override");
  await fetch(`${api}/runs/${second}/actions/discard`, { method: "POST", headers });

  runs.setDurations({ plan: "2m", apply: "5m" });
  runs.setProgression("manual", { workspaceId: ws.id });
  const manual = runs.queueRun(ws.id, { as: alice.id });
  expect(runs.step(manual)).toBe("fetching");
  expect(runs.stepUntilSettled(manual)).toBe("cost_estimated");
  await fetch(`${api}/runs/${manual}/actions/discard`, { method: "POST", headers });

  runs.setProgression("timed", { workspaceId: ws.id });
  runs.nextRun(ws.id, { interrupt: "ignored" });
  runs.setCoolOff("30s");
  const stuck = runs.queueRun(ws.id, { as: alice.id });
  while (runs.run(stuck).status !== "planning") doubles.advance("1s");
  expect((await fetch(`${api}/runs/${stuck}/actions/cancel`, { method: "POST", headers })).status).toBe(202);
  const admin = runs.issueUserToken(runs.addUser({ permissions: { [ws.id]: "admin" } }).id);
  const adminHeaders = { ...headers, authorization: `Bearer ${admin}` };
  expect((await fetch(`${api}/runs/${stuck}/actions/force-cancel`, { method: "POST", headers: adminHeaders })).status).toBe(409);
  doubles.advance("30s");
  expect((await fetch(`${api}/runs/${stuck}/actions/force-cancel`, { method: "POST", headers: adminHeaders })).status).toBe(202);
  expect(runs.run(stuck).status).toBe("force_canceled");

  const app = runs.addWorkspace(org, { name: "app", vcsRepo: { identifier: "acme/app" }, autoApply: true });
  const { configurationVersionId } = runs.pushCommit(app.id, { message: "Add bucket", senderUsername: "octocat" });
  doubles.advance("10m");
  expect(runs.runsOf(app.id)[0]?.status).toBe("applied");
  expect(runs.configurationVersion(configurationVersionId).status).toBe("archived");
  expect(runs.workspaceQueue(app.id)).toEqual({ holder: null, waiting: [] });
});
