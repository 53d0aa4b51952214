/**
 * Organizations, workspaces, the account and ping as real clients read them, workspace locks tied
 * to the run queue, and the organization's cost-estimation setting (issue 23 item 3), through HTTP
 * on every transport.
 */
import { describe, expect, it } from "vitest";
import { describeEachTransport } from "../../support/transports.js";
import { expectError, startRuns, type RunsWorld } from "./support.js";

const lock = (w: RunsWorld, action: string, token: string | null, body?: unknown) =>
  w.api("POST", `/workspaces/${w.ws.id}/actions/${action}`, { token, ...(body === undefined ? {} : { body }) });

describeEachTransport("runs: organizations, workspaces and the account", (h) => {
  describe("GET /ping", () => {
    it("answers 204 with no body and the API version, without a token", async () => {
      const w = await startRuns(h);
      const response = await w.api("GET", "/ping", { token: null });
      expect(response.status).toBe(204);
      expect(response.text).toBe("");
      expect(response.headers.get("tfp-api-version")).toBe("2.6");
    });
  });

  describe("GET /account/details", () => {
    it("reads the user of a user token, the service account of a team token, the service user of an organization token", async () => {
      const w = await startRuns(h);
      const alice = await w.api("GET", "/account/details", { token: w.admin });
      expect(alice.status).toBe(200);
      expect(alice.body.data).toMatchObject({
        id: w.userIds.admin,
        type: "users",
        attributes: { username: "alice", email: "alice@example.com", "is-service-account": false, "two-factor": { enabled: false, verified: false } },
      });
      const team = w.runs.addTeam(w.org, { name: "ops" });
      const teamAccount = await w.api("GET", "/account/details", { token: w.runs.issueTeamToken(team.id) });
      expect(teamAccount.body.data.attributes).toMatchObject({ username: `api-${team.id}`, "is-service-account": true });
      const org = await w.api("GET", "/account/details", { token: w.orgToken });
      expect(org.body.data.type).toBe("users");
      expect(org.body.data.id).toMatch(/^user-/);
      expect(org.body.data.attributes).toMatchObject({ username: "api-org-acme", "is-service-account": true });
    });

    it("answers 401 without a token or with an unknown or revoked one", async () => {
      const w = await startRuns(h);
      expectError(await w.api("GET", "/account/details", { token: null }), 401, "unauthorized");
      expectError(await w.api("GET", "/account/details", { token: "nope" }), 401, "unauthorized");
      w.runs.revokeToken(w.reader);
      expectError(await w.api("GET", "/account/details", { token: w.reader }), 401, "unauthorized");
    });
  });

  describe("GET /organizations/:organization_name", () => {
    it("reads the organization with its cost-estimation setting and the caller's permissions", async () => {
      const w = await startRuns(h);
      const response = await w.api("GET", "/organizations/acme", { token: w.reader });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("application/vnd.api+json");
      expect(response.body.data).toMatchObject({
        id: "acme",
        type: "organizations",
        attributes: { name: "acme", email: "admin@acme.example", "cost-estimation-enabled": false, permissions: { "can-traverse": true, "can-update": false } },
        links: { self: "/api/v2/organizations/acme" },
      });
      expect(response.body.data.attributes["created-at"]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      w.runs.setCostEstimation("acme", true);
      const owner = await w.api("GET", "/organizations/acme", { token: w.orgToken });
      expect(owner.body.data.attributes).toMatchObject({ "cost-estimation-enabled": true, permissions: { "can-update": true } });
    });

    it("answers 404 for an unknown organization and for callers who belong to it in no way", async () => {
      const w = await startRuns(h);
      expectError(await w.api("GET", "/organizations/nowhere"), 404, "not found");
      expectError(await w.api("GET", "/organizations/acme", { token: w.stranger }), 404, "not found");
      w.runs.addOrganization("other");
      expectError(await w.api("GET", "/organizations/other", { token: w.orgToken }), 404, "not found");
      expectError(await w.api("GET", "/organizations/acme", { token: null }), 401, "unauthorized");
      expectError(await w.api("GET", "/organizations/acme?include=subscription"), 400, "invalid include parameter");
    });
  });

  describe("GET /organizations/:organization_name/workspaces", () => {
    it("lists the workspaces the caller may read, by name, paged with meta.pagination, filtered by search[name]", async () => {
      const w = await startRuns(h);
      for (const name of ["staging", "prod-eu", "dev"]) w.runs.addWorkspace(w.org, { name });
      const hidden = w.runs.addWorkspace(w.org, { name: "secret" });
      const owner = w.runs.issueUserToken(w.runs.addUser({ username: "olga", organizationAccess: { acme: "admin" } }).id);
      const all = await w.api("GET", "/organizations/acme/workspaces", { token: owner });
      expect(all.status).toBe(200);
      expect(all.body.data.map((ws: { attributes: { name: string } }) => ws.attributes.name)).toEqual(["dev", "prod", "prod-eu", "secret", "staging"]);
      const page = await w.api("GET", "/organizations/acme/workspaces?page%5Bnumber%5D=2&page%5Bsize%5D=2", { token: owner });
      expect(page.body.data.map((ws: { attributes: { name: string } }) => ws.attributes.name)).toEqual(["prod-eu", "secret"]);
      expect(page.body.meta.pagination).toEqual({ "current-page": 2, "page-size": 2, "prev-page": 1, "next-page": 3, "total-pages": 3, "total-count": 5 });
      expect(page.body.links.next).toContain("page%5Bnumber%5D=3");
      const search = await w.api("GET", "/organizations/acme/workspaces?search%5Bname%5D=PROD", { token: owner });
      expect(search.body.data.map((ws: { id: string }) => ws.id)).toEqual([w.ws.id, w.runs.workspaceId("acme/prod-eu")]);
      expect(search.body.meta.pagination["total-count"]).toBe(2);
      // alice has a grant on prod only: she sees prod alone.
      const alice = await w.api("GET", "/organizations/acme/workspaces");
      expect(alice.body.data.map((ws: { id: string }) => ws.id)).toEqual([w.ws.id]);
      const org = await w.api("GET", "/organizations/acme/workspaces", { token: w.orgToken });
      expect(org.body.data.map((ws: { id: string }) => ws.id)).toContain(hidden.id);
    });

    it("answers 404 for an organization the caller is no member of", async () => {
      const w = await startRuns(h);
      expectError(await w.api("GET", "/organizations/acme/workspaces", { token: w.stranger }), 404, "not found");
      expectError(await w.api("GET", "/organizations/nowhere/workspaces"), 404, "not found");
    });
  });

  describe("GET /organizations/:organization_name/workspaces/:name and GET /workspaces/:workspace_id", () => {
    it("reads the workspace by name and by id, as go-tfe reads it", async () => {
      const w = await startRuns(h, { workspace: { autoApply: true, vcsRepo: { identifier: "acme/infra" } } });
      const byName = await w.api("GET", "/organizations/acme/workspaces/prod", { token: w.reader });
      expect(byName.status).toBe(200);
      expect(byName.body.data).toMatchObject({
        id: w.ws.id,
        type: "workspaces",
        attributes: {
          name: "prod",
          "auto-apply": true,
          locked: false,
          "terraform-version": "1.9.8",
          "vcs-repo": { identifier: "acme/infra", branch: "main" },
          permissions: { "can-read-run": true, "can-queue-run": false, "can-lock": false, "can-force-unlock": false },
        },
        relationships: { organization: { data: { type: "organizations", id: "acme" } }, "locked-by": { data: null }, "current-run": { data: null } },
        links: { self: `/api/v2/workspaces/${w.ws.id}` },
      });
      const byId = await w.api("GET", `/workspaces/${w.ws.id}`, { token: w.reader });
      expect(byId.body).toEqual(byName.body);
      const admin = await w.getWorkspace();
      expect(admin.attributes.permissions).toMatchObject({ "can-queue-run": true, "can-lock": true, "can-force-unlock": true });
    });

    it("answers 404 for unknown and invisible workspaces", async () => {
      const w = await startRuns(h);
      expectError(await w.api("GET", "/organizations/acme/workspaces/nope"), 404, "not found");
      expectError(await w.api("GET", "/organizations/nowhere/workspaces/prod"), 404, "not found");
      expectError(await w.api("GET", "/workspaces/ws-nope"), 404, "not found");
      expectError(await w.api("GET", `/workspaces/${w.ws.id}`, { token: w.stranger }), 404, "not found");
      expectError(await w.api("GET", "/organizations/acme/workspaces/prod", { token: w.stranger }), 404, "not found");
    });
  });

  describe("POST /workspaces/:workspace_id/actions/lock, unlock, force-unlock", () => {
    it("a user's lock keeps runs pending until the same user unlocks; others get 409 naming the holder", async () => {
      const w = await startRuns(h);
      const locked = await lock(w, "lock", w.writer, { reason: "maintenance" });
      expect(locked.status).toBe(200);
      expect(locked.body.data.attributes).toMatchObject({ locked: true, "locked-reason": "maintenance" });
      expect(locked.body.data.relationships["locked-by"].data).toEqual({ type: "users", id: w.userIds.writer });
      const again = await lock(w, "lock", w.admin);
      expectError(again, 409, "conflict");
      expect(again.body.errors[0].detail).toBe("Unable to lock workspace. The workspace is already locked.");

      const { runId } = await w.upload();
      w.doubles.advance("10m");
      expect(w.runs.run(runId ?? "").status).toBe("pending");

      const other = await lock(w, "unlock", w.admin);
      expectError(other, 409, "conflict");
      expect(other.body.errors[0].detail).toBe(`Unable to unlock workspace. The workspace is locked by User ${w.userIds.writer} and may not be unlocked except by them.`);

      const unlocked = await lock(w, "unlock", w.writer);
      expect(unlocked.status).toBe(200);
      // The waiting run takes the workspace at once: the document shows the run's lock.
      expect(unlocked.body.data.attributes.locked).toBe(true);
      expect(unlocked.body.data.relationships["locked-by"].data).toEqual({ type: "runs", id: runId });
      w.doubles.advance("1m");
      expect(w.runs.run(runId ?? "").status).toBe("planned");
    });

    it("a run holding the workspace locks it: lock, unlock and force-unlock answer 409 until it is final", async () => {
      const w = await startRuns(h);
      const { runId } = await w.upload();
      const ws = await w.getWorkspace();
      expect(ws.attributes.locked).toBe(true);
      expect(ws.relationships["locked-by"].data).toEqual({ type: "runs", id: runId });
      expect(ws.relationships["current-run"].data).toEqual({ type: "runs", id: runId });
      expectError(await lock(w, "lock", w.admin), 409, "conflict");
      const byRun = `Unable to unlock workspace. The workspace is locked by Run ${runId} and may not be unlocked except by them.`;
      const unlock = await lock(w, "unlock", w.admin);
      expectError(unlock, 409, "conflict");
      expect(unlock.body.errors[0].detail).toBe(byRun);
      const force = await lock(w, "force-unlock", w.admin);
      expectError(force, 409, "conflict");
      expect(force.body.errors[0].detail).toBe(byRun);
      w.doubles.advance("1m");
      expect((await w.api("POST", `/runs/${runId}/actions/discard`)).status).toBe(202);
      const free = await w.getWorkspace();
      expect(free.attributes.locked).toBe(false);
      expect(free.relationships["locked-by"].data).toBeNull();
      expect((await lock(w, "lock", w.admin)).status).toBe(200);
    });

    it("force-unlock needs workspace admin and removes another user's lock; 409 when nothing is locked", async () => {
      const w = await startRuns(h);
      expect((await lock(w, "lock", w.writer)).status).toBe(200);
      expectError(await lock(w, "force-unlock", w.writer), 404, "not found");
      const forced = await lock(w, "force-unlock", w.admin);
      expect(forced.status).toBe(200);
      expect(forced.body.data.attributes.locked).toBe(false);
      const twice = await lock(w, "force-unlock", w.admin);
      expectError(twice, 409, "conflict");
      expect(twice.body.errors[0].detail).toBe("Unable to force-unlock workspace. The workspace is not locked.");
      const unlock = await lock(w, "unlock", w.admin);
      expectError(unlock, 409, "conflict");
      expect(unlock.body.errors[0].detail).toBe("Unable to unlock workspace. The workspace is not locked.");
    });

    it("a team token locks for its team: only the team unlocks", async () => {
      const w = await startRuns(h);
      const team = w.runs.addTeam(w.org, { name: "ops", permissions: { [w.ws.id]: "write" } });
      const teamToken = w.runs.issueTeamToken(team.id);
      const locked = await lock(w, "lock", teamToken);
      expect(locked.body.data.relationships["locked-by"].data).toEqual({ type: "teams", id: team.id });
      const other = await lock(w, "unlock", w.writer);
      expect(other.body.errors[0].detail).toContain(`locked by Team ${team.id}`);
      expect((await lock(w, "unlock", teamToken)).status).toBe(200);
    });

    it("refuses callers who may not apply runs (404), bad tokens (401) and malformed bodies (422), and keeps the workspace as it was", async () => {
      const w = await startRuns(h);
      for (const token of [w.planner, w.reader, w.stranger, w.orgToken]) expectError(await lock(w, "lock", token), 404, "not found");
      expectError(await lock(w, "lock", null), 401, "unauthorized");
      expectError(await w.api("POST", "/workspaces/ws-nope/actions/lock"), 404, "not found");
      expectError(await w.api("POST", `/workspaces/${w.ws.id}/actions/lock`, { raw: "{oops" }), 422, "invalid attribute", "");
      expectError(await lock(w, "lock", w.admin, { reason: 5 }), 422, "invalid attribute", "/reason");
      expect((await w.getWorkspace()).attributes.locked).toBe(false);
      expect(w.runs.workspace(w.ws.id).lock).toBeNull();
    });
  });

  describe("the organization's cost-estimation-enabled setting", () => {
    it("runs of an organization with it on pass through cost estimation; with it off they do not", async () => {
      const w = await startRuns(h);
      const off = await w.upload();
      w.doubles.advance("1m");
      const offRun = await w.getRun(off.runId ?? "");
      expect(offRun.attributes.status).toBe("planned");
      expect(offRun.relationships["cost-estimate"].data).toBeNull();
      expect((await w.api("POST", `/runs/${off.runId}/actions/discard`)).status).toBe(202);

      w.runs.setCostEstimation("acme", true);
      const on = await w.upload();
      w.doubles.advance("1m");
      const onRun = await w.getRun(on.runId ?? "");
      expect(onRun.attributes.status).toBe("cost_estimated");
      expect(Object.keys(onRun.attributes["status-timestamps"])).toContain("cost-estimating-at");
      const estimate = await w.api("GET", `/cost-estimates/${onRun.relationships["cost-estimate"].data.id}`);
      expect(estimate.body.data.attributes.status).toBe("finished");
    });
  });
});
