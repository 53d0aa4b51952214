import { expect, it } from "vitest";
import { describeEachTransport } from "../../support/transports.js";
import { expectError, startRuns, type RunsWorld } from "./support.js";

const ids = (response: { body: { data: { id: string }[] } }): string[] => response.body.data.map((d) => d.id);

/** A workspace with runs of every operation and source, and two VCS commits. */
async function populated(w: RunsWorld): Promise<Record<string, string>> {
  w.runs.setProgression("manual");
  await w.upload({ attributes: { "auto-queue-runs": false } });
  const out: Record<string, string> = {};
  out.apply = await w.createRun({ message: "Normal apply" });
  out.planOnly = await w.createRun({ "plan-only": true, message: "Speculative" });
  out.savePlan = await w.createRun({ "save-plan": true });
  out.refresh = await w.createRun({ "refresh-only": true });
  out.destroy = await w.createRun({ "is-destroy": true, message: "Tear down" });
  out.empty = await w.createRun({ "allow-empty-apply": true });
  out.ui = w.runs.queueRun(w.ws.id, { as: w.userIds.admin ?? "", source: "svc-ui" });
  const a = w.runs.pushCommit(w.ws.id, { sha: "abc1230000000000000000000000000000000000", senderUsername: "octocat", message: "First commit" });
  w.runs.step(a.configurationVersionId);
  out.vcsA = w.runs.runsOf(w.ws.id)[0]?.id ?? "";
  const b = w.runs.pushCommit(w.ws.id, { sha: "def4560000000000000000000000000000000000", senderUsername: "hubot", message: "Second commit" });
  w.runs.step(b.configurationVersionId);
  out.vcsB = w.runs.runsOf(w.ws.id)[0]?.id ?? "";
  w.runs.step(out.apply);
  w.runs.step(out.apply);
  return out;
}

describeEachTransport("runs: GET /workspaces/:workspace_id/runs", (h) => {
  it("lists newest first and leaves plan-only runs out unless filter[operation] asks for them", async () => {
    const w = await startRuns(h, { workspace: { vcsRepo: { identifier: "acme/infra" } } });
    const r = await populated(w);
    const all = await w.api("GET", `/workspaces/${w.ws.id}/runs`);
    expect(all.status).toBe(200);
    expect(ids(all)).toEqual([r.vcsB, r.vcsA, r.ui, r.empty, r.destroy, r.refresh, r.savePlan, r.apply]);
    expect(all.body.data[0]).not.toHaveProperty("relationships.task-stages");
    const planOnly = await w.api("GET", `/workspaces/${w.ws.id}/runs?filter%5Boperation%5D=plan_only`);
    expect(ids(planOnly)).toEqual([r.planOnly]);
  });

  it("filters by comma-separated operations, statuses and sources", async () => {
    const w = await startRuns(h, { workspace: { vcsRepo: { identifier: "acme/infra" } } });
    const r = await populated(w);
    const q = async (query: string) => ids(await w.api("GET", `/workspaces/${w.ws.id}/runs?${query}`));
    expect(await q("filter[operation]=destroy,refresh_only")).toEqual([r.destroy, r.refresh]);
    expect(await q("filter[operation]=save_plan")).toEqual([r.savePlan]);
    expect(await q("filter[operation]=empty_apply")).toEqual([r.empty]);
    expect(await q("filter[operation]=plan_and_apply")).toEqual([r.vcsB, r.vcsA, r.ui, r.apply]);
    expect(await q("filter[operation]=plan_only,destroy")).toEqual([r.destroy, r.planOnly]);
    expect(await q("filter[status]=fetching_completed")).toEqual([r.apply]);
    expect(await q("filter[status]=fetching_completed,pending")).toHaveLength(8);
    expect(await q("filter[source]=svc-ui")).toEqual([r.ui]);
    expect(await q("filter[source]=svc-configuration-version")).toEqual([r.vcsB, r.vcsA]);
    expect(await q("filter[source]=svc-api,svc-ui&filter[operation]=destroy")).toEqual([r.destroy]);
    expect(await q("filter[status]=applied")).toEqual([]);
    expect(await q("filter[status]=bogus")).toEqual([]);
    expect(await q("filter[operation]=bogus")).toEqual([]);
    expect(await q("filter[status]=")).toHaveLength(8);
  });

  it("searches by VCS user, commit sha, and basic text (ignored when user or commit is given)", async () => {
    const w = await startRuns(h, { workspace: { vcsRepo: { identifier: "acme/infra" } } });
    const r = await populated(w);
    const q = async (query: string) => ids(await w.api("GET", `/workspaces/${w.ws.id}/runs?${query}`));
    expect(await q("search[user]=octocat")).toEqual([r.vcsA]);
    expect(await q("search[user]=HUBOT")).toEqual([r.vcsB]);
    expect(await q("search[commit]=def456")).toEqual([r.vcsB]);
    expect(await q(`search[commit]=${"abc123".padEnd(40, "0")}`)).toEqual([r.vcsA]);
    expect(await q("search[basic]=tear")).toEqual([r.destroy]);
    expect(await q(`search[basic]=${r.ui}`)).toEqual([r.ui]);
    expect(await q("search[basic]=hubot")).toEqual([r.vcsB]);
    expect(await q("search[basic]=abc123")).toEqual([r.vcsA]);
    expect(await q("search[basic]=tear&search[user]=octocat")).toEqual([r.vcsA]);
    expect(await q("search[user]=nobody")).toEqual([]);
  });

  it("treats blank searches as absent, so a blank search[user] does not hide runs or switch search[basic] off", async () => {
    const w = await startRuns(h, { workspace: { vcsRepo: { identifier: "acme/infra" } } });
    const r = await populated(w);
    const q = async (query: string) => ids(await w.api("GET", `/workspaces/${w.ws.id}/runs?${query}`));
    const all = await q("");
    expect(all).toHaveLength(8);
    expect(await q("search[user]=")).toEqual(all);
    expect(await q("search[commit]=")).toEqual(all);
    expect(await q("search[basic]=")).toEqual(all);
    expect(await q("search[basic]=tear&search[user]=")).toEqual([r.destroy]);
    expect(await q("search[basic]=tear&search[commit]=&search[user]=octocat")).toEqual([r.vcsA]);
  });

  it("paginates with page[number] and page[size] (default 20, clamped to 100), absolute links and meta", async () => {
    const w = await startRuns(h);
    w.runs.setProgression("manual");
    await w.upload({ attributes: { "auto-queue-runs": false } });
    const created: string[] = [];
    for (let i = 0; i < 23; i++) created.push(await w.createRun({ message: `run ${i}` }));
    const newestFirst = [...created].reverse();
    const first = await w.api("GET", `/workspaces/${w.ws.id}/runs`);
    expect(ids(first)).toEqual(newestFirst.slice(0, 20));
    expect(first.body.meta.pagination).toEqual({ "current-page": 1, "page-size": 20, "prev-page": null, "next-page": 2, "total-pages": 2, "total-count": 23 });
    expect(first.body.links.prev).toBeNull();
    const next = new URL(first.body.links.next);
    expect(`${next.origin}${next.pathname}`).toBe(`${w.base}/workspaces/${w.ws.id}/runs`);
    expect(next.searchParams.get("page[number]")).toBe("2");
    expect(next.searchParams.get("page[size]")).toBe("20");
    const second = await w.api("GET", first.body.links.next);
    expect(ids(second)).toEqual(newestFirst.slice(20));
    expect(second.body.meta.pagination).toMatchObject({ "current-page": 2, "prev-page": 1, "next-page": null });
    const filtered = await w.api("GET", `/workspaces/${w.ws.id}/runs?filter%5Bstatus%5D=pending&page%5Bsize%5D=5&page%5Bnumber%5D=3`);
    expect(ids(filtered)).toEqual(newestFirst.slice(10, 15));
    const keep = new URL(filtered.body.links.self);
    expect(keep.searchParams.get("filter[status]")).toBe("pending");
    expect(keep.searchParams.get("page[number]")).toBe("3");
    const huge = await w.api("GET", `/workspaces/${w.ws.id}/runs?page[size]=1000`);
    expect(huge.body.meta.pagination["page-size"]).toBe(100);
    expect(ids(huge)).toHaveLength(23);
    const junk = await w.api("GET", `/workspaces/${w.ws.id}/runs?page[size]=abc&page[number]=-4`);
    expect(junk.body.meta.pagination).toMatchObject({ "current-page": 1, "page-size": 20 });
    const beyond = await w.api("GET", `/workspaces/${w.ws.id}/runs?page[number]=9`);
    expect(beyond.body.data).toEqual([]);
    expect(beyond.body.meta.pagination).toMatchObject({ "current-page": 9, "prev-page": 2, "next-page": null, "total-pages": 2 });
  });

  it("includes related resources for every run of the page", async () => {
    const w = await startRuns(h);
    await w.upload({ attributes: { "auto-queue-runs": false } });
    await w.createRun();
    await w.createRun();
    const response = await w.api("GET", `/workspaces/${w.ws.id}/runs?include=plan,created_by`);
    const types = (response.body.included as { type: string }[]).map((r) => r.type).sort();
    expect(types).toEqual(["plans", "plans", "users"]);
  });

  it("answers 404 for unknown or invisible workspaces and 401 without a token", async () => {
    const w = await startRuns(h);
    expectError(await w.api("GET", "/workspaces/ws-nope/runs"), 404, "not found");
    expectError(await w.api("GET", `/workspaces/${w.ws.id}/runs`, { token: w.stranger }), 404, "not found");
    expectError(await w.api("GET", `/workspaces/${w.ws.id}/runs`, { token: null }), 401, "unauthorized");
    expect((await w.api("GET", `/workspaces/${w.ws.id}/runs`, { token: w.reader })).status).toBe(200);
    expect((await w.api("GET", `/workspaces/${w.ws.id}/runs`, { token: w.orgToken })).status).toBe(200);
  });
});

describeEachTransport("runs: GET /runs/:run_id", (h) => {
  it("answers 404 for unknown runs and callers who may not read runs", async () => {
    const w = await startRuns(h);
    const { runId } = await w.upload();
    expect((await w.api("GET", `/runs/${runId}`, { token: w.reader })).status).toBe(200);
    expectError(await w.api("GET", `/runs/${runId}`, { token: w.stranger }), 404, "not found");
    expectError(await w.api("GET", "/runs/run-missing"), 404, "not found");
    expectError(await w.api("GET", `/runs/${runId}`, { token: null }), 401, "unauthorized");
  });

  it("serves the users behind created-by relationships", async () => {
    const w = await startRuns(h);
    const { runId } = await w.upload();
    const userId = (await w.getRun(runId ?? "")).relationships["created-by"].data.id;
    const user = await w.api("GET", `/users/${userId}`, { token: w.reader });
    expect(user.body.data).toEqual({
      id: userId,
      type: "users",
      attributes: { username: "alice", "is-service-account": false, "avatar-url": expect.stringMatching(/^https:/), "v2-only": false, "is-site-admin": false },
      links: { self: `/api/v2/users/${userId}` },
    });
    expectError(await w.api("GET", "/users/user-missing"), 404, "not found");
    expectError(await w.api("GET", `/users/${userId}`, { token: null }), 401, "unauthorized");
  });

  it("answers routes that do not exist with 404 not found", async () => {
    const w = await startRuns(h);
    const response = await w.api("GET", "/runz");
    expectError(response, 404, "not found");
    expect(response.headers.get("x-infra-doubles-nearest")).toMatch(/\/runs/);
    expectError(await w.api("DELETE", "/runs/run-1"), 404, "not found");
  });
});
