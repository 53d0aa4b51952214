/**
 * The wire-side service mutants through HTTP on every transport (nock, interceptors, msw, the
 * server): one mutant of each operator on each service where it exists. A status-swapped mutant
 * answers the service's own error (status and body shape) where the route succeeds and stores
 * nothing; a list-reordered mutant answers the items reversed; a field-omitted mutant leaves out
 * the `null` members; the journal and coverage show what the client received; a request the
 * mutant does not target is byte-identical to the faithful fake's answer.
 */
import { expect, it } from "vitest";
import { createDoubles, type Doubles } from "../../../src/scenarios/doubles.js";
import { configurationArchive } from "../../../src/scenarios/runs/archive.js";
import { send, type Answer } from "../../support/http.js";
import { describeEachTransport, type StartedTransport } from "../../support/transports.js";

/** A workspace with a pending run (manual progression) and the caller's JSON:API headers. */
async function pendingRun(t: StartedTransport<Doubles>): Promise<{ runId: string; headers: Record<string, string> }> {
  const runs = t.doubles.runs;
  const org = runs.addOrganization("acme");
  const ws = runs.addWorkspace(org, { name: "prod" });
  const user = runs.addUser({ username: "alice", permissions: { [ws.id]: "admin" } });
  const headers = { authorization: `Bearer ${runs.issueUserToken(user.id)}`, "content-type": "application/vnd.api+json" };
  runs.setProgression("manual");
  const api = t.base("runs");
  const cv = await send(`${api}/workspaces/${ws.id}/configuration-versions`, { method: "POST", headers, body: { data: { type: "configuration-versions", attributes: { "auto-queue-runs": false } } } });
  const upload = (JSON.parse(cv.text) as { data: { attributes: { "upload-url": string } } }).data.attributes["upload-url"];
  expect((await send(upload, { method: "PUT", headers: { "content-type": "application/octet-stream" }, body: configurationArchive() })).status).toBe(200);
  const run = await send(`${api}/runs`, { method: "POST", headers, body: { data: { type: "runs", relationships: { workspace: { data: { type: "workspaces", id: ws.id } } } } } });
  expect(run.status).toBe(201);
  return { runId: (JSON.parse(run.text) as { data: { id: string } }).data.id, headers };
}

/** Two SSH roles (`a-role`, `b-role`) on the secrets service. */
async function twoRoles(t: StartedTransport<Doubles>): Promise<Record<string, string>> {
  const headers = { "x-vault-token": t.doubles.secrets.rootToken };
  for (const name of ["a-role", "b-role"]) {
    const role = await send(`${t.base("secrets")}/ssh/roles/${name}`, { method: "POST", headers, body: { key_type: "otp", default_user: "deploy", cidr_list: "10.0.0.0/8" } });
    expect(role.status).toBe(204);
  }
  return headers;
}

describeEachTransport("wire mutants: the mutated answer, and nothing stored", (h) => {
  const start = (mutant: string | null): Promise<StartedTransport<Doubles>> => h.startWith(createDoubles({ seed: 11, mutant, uniqueOrigins: true }));

  it("runs status-swapped: the discard of a pending run answers 409 with the service's error document; the run stays pending", async () => {
    const t = await start("runs:status-swapped:POST /runs/:run_id/actions/discard/conflict");
    const { runId, headers } = await pendingRun(t);
    const discard = await send(`${t.base("runs")}/runs/${runId}/actions/discard`, { method: "POST", headers, body: {} });
    expect(discard.status).toBe(409);
    expect(JSON.parse(discard.text)).toEqual({ errors: [{ status: "409", title: "transition not allowed", detail: "Run was not paused for confirmation or priority; discard not allowed" }] });
    expect(discard.headers).toContainEqual(["content-type", "application/vnd.api+json"]);
    const shown = await send(`${t.base("runs")}/runs/${runId}`, { headers });
    expect((JSON.parse(shown.text) as { data: { attributes: { status: string } } }).data.attributes.status).toBe("pending");
    // The journal and coverage show what the client received.
    const entry = t.doubles.journal.filter({ service: "runs", route: "POST /runs/:run_id/actions/discard" });
    expect(entry.map((e) => e.status)).toEqual([409]);
    expect(entry[0]!.responseBody.text()).toBe(discard.text);
    const coverage = t.doubles.coverage().services.runs!;
    expect(coverage.endpoints.statuses["POST /runs/:run_id/actions/discard"]).toEqual({ "409": 1 });
    expect(coverage.machines.run!.states.reached).toEqual({ pending: 1 });
  });

  it("runs status-swapped: an answer that was already an error stays the faithful one", async () => {
    const t = await start("runs:status-swapped:POST /runs/:run_id/actions/cancel/not_found");
    const { runId, headers } = await pendingRun(t);
    // Cancel of a pending run: the faithful 409, not the mutant's 404.
    const cancel = await send(`${t.base("runs")}/runs/${runId}/actions/cancel`, { method: "POST", headers, body: {} });
    expect(cancel.status).toBe(409);
    expect((JSON.parse(cancel.text) as { errors: { title: string }[] }).errors[0]?.title).toBe("transition not allowed");
  });

  it("runs field-omitted: the run document leaves out `canceled-at` (the faithful one carries it as null); other null members stay", async () => {
    const faithful = await start(null);
    const plain = await pendingRun(faithful);
    const before = await send(`${faithful.base("runs")}/runs/${plain.runId}`, { headers: plain.headers });
    expect(before.text).toContain('"canceled-at":null');
    const t = await start("runs:field-omitted:GET /runs/:run_id/canceled-at");
    const { runId, headers } = await pendingRun(t);
    const shown = await send(`${t.base("runs")}/runs/${runId}`, { headers });
    expect(shown.status).toBe(200);
    expect(shown.text).not.toContain("canceled-at");
    expect(shown.text).toContain('"input-state-version":{"data":null}');
    expect(shown.text).toContain('"target-addrs":null');
    expect(shown.headers.find(([name]) => name === "content-length")?.[1] ?? String(Buffer.byteLength(shown.text))).toBe(String(Buffer.byteLength(shown.text)));
  });

  it("access control status-swapped: a token create answers 403 Permission denied (plain text) and no token is stored", async () => {
    const t = await start("accessControl:status-swapped:PUT /acl/token/forbidden");
    const headers = { "x-consul-token": t.doubles.accessControl.bootstrapToken.secretId };
    const listed = async (): Promise<unknown[]> => JSON.parse((await send(`${t.base("accessControl")}/acl/tokens`, { headers })).text) as unknown[];
    const count = (await listed()).length;
    const created = await send(`${t.base("accessControl")}/acl/token`, { method: "PUT", headers, body: { Description: "ci" } });
    expect(created.status).toBe(403);
    expect(created.text).toBe("Permission denied");
    expect(created.headers).toContainEqual(["content-type", "text/plain; charset=utf-8"]);
    expect((await listed()).length).toBe(count);
  });

  it("access control list-reordered: the token list comes reversed; every other answer is the faithful one, byte for byte", async () => {
    const script = async (t: StartedTransport<Doubles>): Promise<Answer[]> => {
      const headers = { "x-consul-token": t.doubles.accessControl.bootstrapToken.secretId };
      const api = t.base("accessControl");
      const answers = [await send(`${api}/acl/token`, { method: "PUT", headers, body: { Description: "ci" } })];
      answers.push(await send(`${api}/acl/token/self`, { headers }));
      answers.push(await send(`${api}/acl/binding-rules`, { headers }));
      answers.push(await send(`${api}/acl/tokens`, { headers }));
      return answers;
    };
    const faithful = await script(await start(null));
    const mutated = await script(await start("accessControl:list-reordered:GET /acl/tokens"));
    expect(mutated.slice(0, 3)).toEqual(faithful.slice(0, 3));
    const tokens = JSON.parse(faithful[3]!.text) as unknown[];
    expect(tokens.length).toBeGreaterThan(1);
    expect(mutated[3]!.status).toBe(200);
    expect(JSON.parse(mutated[3]!.text)).toEqual([...tokens].reverse());
    expect(mutated[3]!.text.length).toBe(faithful[3]!.text.length);
  });

  it("secrets status-swapped: a role write answers 403 permission denied and the role is not stored", async () => {
    const t = await start("secrets:status-swapped:POST /ssh/roles/:name/forbidden");
    const headers = { "x-vault-token": t.doubles.secrets.rootToken };
    const written = await send(`${t.base("secrets")}/ssh/roles/web`, { method: "POST", headers, body: { key_type: "otp", default_user: "deploy", cidr_list: "10.0.0.0/8" } });
    expect(written.status).toBe(403);
    expect(JSON.parse(written.text)).toEqual({ errors: ["permission denied"] });
    const read = await send(`${t.base("secrets")}/ssh/roles/web`, { headers });
    expect(read.status).toBe(404);
    expect(t.doubles.coverage().services.secrets!.endpoints.statuses["POST /ssh/roles/:name"]).toEqual({ "403": 1 });
  });

  it("secrets list-reordered: the role names come reversed", async () => {
    const t = await start("secrets:list-reordered:LIST /ssh/roles");
    const headers = await twoRoles(t);
    const listed = await send(`${t.base("secrets")}/ssh/roles?list=true`, { headers });
    expect(listed.status).toBe(200);
    expect((JSON.parse(listed.text) as { data: { keys: string[] } }).data.keys).toEqual(["b-role", "a-role"]);
    const last = t.doubles.journal.filter({ service: "secrets" }).at(-1);
    expect(last?.status).toBe(200);
    expect(last?.responseBody.text()).toBe(listed.text);
  });

  it("secrets field-omitted: the role read leaves out `auth` (and only it); the list read is untouched", async () => {
    const t = await start("secrets:field-omitted:GET /ssh/roles/:name/auth");
    const headers = await twoRoles(t);
    const read = await send(`${t.base("secrets")}/ssh/roles/a-role`, { headers });
    expect(read.status).toBe(200);
    const body = JSON.parse(read.text) as Record<string, unknown>;
    expect(Object.keys(body)).not.toContain("auth");
    expect(body).toMatchObject({ wrap_info: null, warnings: null });
    expect(body.data).toMatchObject({ default_user: "deploy" });
    const listed = await send(`${t.base("secrets")}/ssh/roles?list=true`, { headers });
    expect(JSON.parse(listed.text)).toMatchObject({ wrap_info: null, auth: null });
  });
});
