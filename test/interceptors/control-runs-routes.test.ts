/**
 * `POST /_sim/runs/organizations`, `/workspaces` and `/users` (issue 22 item 8): a misspelt
 * property is refused as every other `/_sim/` route refuses it (400, the field's pointer, the
 * nearest valid name, nothing kept), and a workspace is named `organization/name` wherever an id
 * is taken. The control API is served by the server only (the in-process transports answer the
 * services' hosts, not `/_sim/`), so these go through HTTP to it.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { RunningServer } from "../../src/interceptors/server.js";
import { createDoubles } from "../../src/scenarios/doubles.js";

const servers: RunningServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function start() {
  const doubles = createDoubles({ seed: 2 });
  const server = await doubles.listen({ port: 0 });
  servers.push(server);
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${server.url}/_sim/runs${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> & { error?: { status: number; code: string; message: string } } };
  };
  return { doubles, server, post };
}

describe("/_sim/runs/ fixture routes", () => {
  it("refuse a misspelt property with the field, the nearest name and what is allowed, keeping nothing", async () => {
    const { doubles, post } = await start();
    const organization = await post("/organizations", { nmae: "acme" });
    expect(organization).toEqual({
      status: 400,
      body: { error: { status: 400, code: "invalid", message: '_sim: cannot POST /_sim/runs/organizations: infra-doubles: /nmae: unknown property (did you mean "name"?); allowed here: name, email, costEstimationEnabled' } },
    });
    expect((await post("/organizations", { name: "acme" })).status).toBe(201);
    const workspace = await post("/workspaces", { organisation: "acme", name: "prod" });
    expect(workspace.status).toBe(400);
    expect(workspace.body.error?.message).toBe(
      '_sim: cannot POST /_sim/runs/workspaces: infra-doubles: /organisation: unknown property (did you mean "organization"?); allowed here: organization, name, autoApply, vcsRepo',
    );
    const repo = await post("/workspaces", { organization: "acme", name: "prod", vcsRepo: { identifer: "acme/infra" } });
    expect(repo.body.error?.message).toContain('/vcsRepo/identifer: unknown property (did you mean "identifier"?)');
    const user = await post("/users", { username: "alice", permisions: {} });
    expect(user.body.error?.message).toContain('/permisions: unknown property (did you mean "permissions"?); allowed here: username, siteAdmin, permissions, organizationAccess');
    // The other /_sim/runs/ bodies too.
    expect((await post("/outcomes", { plna: "errors" })).body.error?.message).toContain('/plna: unknown property (did you mean "plan"?)');
    expect((await post("/cool-off", { duraton: "30s" })).body.error?.message).toContain('/duraton: unknown property (did you mean "duration"?)');
    // Nothing of a refused body was kept: the names are still free.
    expect(() => doubles.runs.addWorkspace("acme", { name: "prod" })).not.toThrow();
    expect(() => doubles.runs.addUser({ username: "alice" })).not.toThrow();
  });

  it("take a workspace as organization/name (as the guide writes it) wherever they take its id", async () => {
    const { doubles, server, post } = await start();
    await post("/organizations", { name: "acme" });
    const made = await post("/workspaces", { organization: "acme", name: "prod" });
    const id = String(made.body.id);
    const alice = await post("/users", { username: "alice", permissions: { "acme/prod": "admin" } });
    expect(alice.status).toBe(201);
    expect(doubles.runs.workspace(id).permissions).toMatchObject({ [String(alice.body.id)]: "admin" });
    const bob = await post("/users", { username: "bob", permissions: { prod: "read" } });
    expect(doubles.runs.workspace(id).permissions).toMatchObject({ [String(bob.body.id)]: "read" });
    // The user's token reaches the workspace through the API.
    const runs = await fetch(`${server.url}/api/v2/workspaces/${id}/runs`, { headers: { authorization: `Bearer ${String(alice.body.token)}` } });
    expect(runs.status).toBe(200);
    expect((await post("/outcomes", { workspaceId: "acme/prod", plan: "errors" })).status).toBe(200);
    const commit = await fetch(`${server.url}/_sim/runs/workspaces/${encodeURIComponent("acme/prod")}/commits`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(commit.status).toBe(400); // no VCS repository on this workspace: found by name, then refused for what it is
    expect(((await commit.json()) as { error: { message: string } }).error.message).not.toContain("unknown workspace");
    const unknown = await post("/users", { username: "carol", permissions: { "acme/nope": "admin" } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error?.message).toContain('unknown workspace "acme/nope" (give its id, "organization/name" or its name)');
  });
});
