/**
 * The testing kit's body arbitraries against the fake, through every transport: every valid body
 * is accepted, and every invalid body gets exactly the labelled error (status, message, pointer)
 * and changes nothing stored.
 */
import fc from "fast-check";
import { expect, it } from "vitest";
import { createDoubles, type Doubles } from "../../src/index.js";
import { readServiceError } from "../../src/testing/errors.js";
import { createConfigurationVersionBody, createRunBody, invalidCreateConfigurationVersionBody, invalidCreateRunBody, runActionBody } from "../../src/testing/runs-bodies.js";
import { cloneTokenBody, invalidTokenBody, tokenBody, tokenUpdateBody } from "../../src/testing/access-control-bodies.js";
import { invalidSshRoleBody, sshRoleBody } from "../../src/testing/secrets-bodies.js";
import { describeEachTransport } from "../support/transports.js";

const NUM_RUNS = 8;

function runsWorld(doubles: Doubles, api: string) {
  const runs = doubles.runs;
  const org = runs.addOrganization("acme");
  const workspace = runs.addWorkspace(org, { name: "prod" });
  const user = runs.addUser({ username: "ops", permissions: { [workspace.id]: "admin" } });
  const { configurationVersionId } = runs.uploadConfiguration(workspace.id, { as: user.id, autoQueueRuns: false });
  const token = runs.issueUserToken(user.id);
  const post = (path: string, body: unknown) =>
    fetch(`${api}${path}`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/vnd.api+json" }, body: body === undefined ? null : JSON.stringify(body) });
  return { workspaceId: workspace.id, configurationVersionId, post, count: () => runs.runsOf(workspace.id).length };
}

describeEachTransport("testing kit: body arbitraries", (t) => {
  it("every generated create-run body is accepted with 201, and every invalid one gets its labelled 422 and creates nothing", async () => {
    const { doubles, base } = await t.startWith(createDoubles({ seed: 3 }));
    const world = runsWorld(doubles, base("runs"));
    await fc.assert(
      fc.asyncProperty(createRunBody({ workspaceId: world.workspaceId }), async (body) => {
        const response = await world.post("/runs", body);
        expect(response.status, await response.clone().text()).toBe(201);
      }),
      { numRuns: NUM_RUNS },
    );
    await fc.assert(
      fc.asyncProperty(invalidCreateRunBody({ workspaceId: world.workspaceId }), async ({ body, expected }) => {
        const before = world.count();
        expect(await readServiceError("runs", await world.post("/runs", body))).toEqual(expected);
        expect(world.count()).toBe(before);
      }),
      { numRuns: NUM_RUNS * 2 },
    );
  });

  it("configuration-version and run-action bodies: valid ones accepted, invalid ones labelled", async () => {
    const { doubles, base } = await t.startWith(createDoubles({ seed: 4 }));
    const world = runsWorld(doubles, base("runs"));
    await fc.assert(
      fc.asyncProperty(createConfigurationVersionBody(), async (body) => {
        expect((await world.post(`/workspaces/${world.workspaceId}/configuration-versions`, body)).status).toBe(201);
      }),
      { numRuns: NUM_RUNS },
    );
    await fc.assert(
      fc.asyncProperty(invalidCreateConfigurationVersionBody(), async ({ body, expected }) => {
        expect(await readServiceError("runs", await world.post(`/workspaces/${world.workspaceId}/configuration-versions`, body))).toEqual(expected);
      }),
      { numRuns: NUM_RUNS },
    );
    await fc.assert(
      fc.asyncProperty(runActionBody(), async (body) => {
        const [run] = fc.sample(createRunBody(world), { numRuns: 1, seed: 2 });
        const created = await world.post("/runs", run);
        const runId = ((await created.json()) as { data: { id: string } }).data.id;
        expect((await world.post(`/runs/${runId}/actions/discard`, body)).status).not.toBe(422);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it("token create, update and clone bodies are accepted; invalid token bodies get their labelled 400 and create nothing", async () => {
    const { doubles, base } = await t.startWith(createDoubles({ seed: 5 }));
    const acl = doubles.accessControl;
    acl.createPolicy({ name: "ops", rules: 'node_prefix "" { policy = "read" }' });
    const root = acl.bootstrapToken.secretId;
    const api = base("accessControl");
    const put = (path: string, body: unknown) => fetch(`${api}${path}`, { method: "PUT", headers: { "x-acl-token": root }, body: JSON.stringify(body) });
    await fc.assert(
      fc.asyncProperty(tokenBody({ policies: ["ops"] }), cloneTokenBody(), async (body, clone) => {
        const created = await put("/acl/token", body);
        expect(created.status, await created.clone().text()).toBe(200);
        const token = (await created.json()) as { AccessorID: string; SecretID: string; Local: boolean };
        const [update] = fc.sample(tokenUpdateBody(token, { policies: ["ops"] }), { numRuns: 1, seed: 1 });
        expect((await put(`/acl/token/${token.AccessorID}`, update)).status).toBe(200);
        expect((await put(`/acl/token/${token.AccessorID}/clone`, clone)).status).toBe(200);
      }),
      { numRuns: NUM_RUNS },
    );
    await fc.assert(
      fc.asyncProperty(invalidTokenBody({ policies: ["ops"] }), async ({ body, expected }) => {
        const before = acl.tokens().length;
        expect(await readServiceError("accessControl", await put("/acl/token", body))).toEqual(expected);
        expect(acl.tokens().length).toBe(before);
      }),
      { numRuns: NUM_RUNS * 2 },
    );
  });

  it("SSH role bodies in every wire form are accepted; invalid ones get their labelled 400 and write no role", async () => {
    const { doubles, base } = await t.startWith(createDoubles({ seed: 6 }));
    const root = doubles.secrets.rootToken;
    const api = base("secrets");
    const post = (path: string, body: unknown) => fetch(`${api}${path}`, { method: "POST", headers: { "x-vault-token": root }, body: JSON.stringify(body) });
    await fc.assert(
      fc.asyncProperty(sshRoleBody(), async (body) => {
        const response = await post("/ssh/roles/web", body);
        expect(response.status, await response.clone().text()).toBe(204);
      }),
      { numRuns: NUM_RUNS * 2 },
    );
    await fc.assert(
      fc.asyncProperty(invalidSshRoleBody(), async ({ body, expected }) => {
        expect(await readServiceError("secrets", await post("/ssh/roles/other", body))).toEqual(expected);
        expect((await fetch(`${api}/ssh/roles/other`, { headers: { "x-vault-token": root } })).status).toBe(404);
      }),
      { numRuns: NUM_RUNS * 2 },
    );
  });
});
