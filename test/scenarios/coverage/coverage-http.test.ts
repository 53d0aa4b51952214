/**
 * Coverage through HTTP on every transport: requests move the counters (endpoints by status,
 * states and transitions of the runs machines, token and lease events, node states, health
 * codes), a refused request moves no transition, and coverage never changes an answer.
 */
import { describe, expect, it } from "vitest";
import { configurationArchive } from "../../../src/scenarios/runs/archive.js";
import { createDoubles, type Doubles } from "../../../src/scenarios/doubles.js";
import { machineTransitions } from "../../../src/simulator/kernel/machine.js";
import { configurationVersionMachine } from "../../../src/simulator/runs/configuration-version-machine.js";
import { RUN_STATUSES, runMachine } from "../../../src/simulator/runs/run-machine.js";
import { send, type Answer } from "../../support/http.js";
import { describeEachTransport, type StartedTransport } from "../../support/transports.js";

/** A fixed script over the three services through HTTP; returns every answer. */
async function script(t: StartedTransport<Doubles>): Promise<Answer[]> {
  const { doubles } = t;
  const runsApi = t.base("runs");
  const aclApi = t.base("accessControl");
  const secretsApi = t.base("secrets");
  const runs = doubles.runs;
  const org = runs.addOrganization("acme");
  const ws = runs.addWorkspace(org, { name: "prod" });
  const user = runs.addUser({ username: "alice", permissions: { [ws.id]: "admin" } });
  const token = runs.issueUserToken(user.id);
  const jsonApi = { authorization: `Bearer ${token}`, "content-type": "application/vnd.api+json" };
  runs.setProgression("manual");
  const answers: Answer[] = [];
  const cv = await send(`${runsApi}/workspaces/${ws.id}/configuration-versions`, {
    method: "POST",
    headers: jsonApi,
    body: { data: { type: "configuration-versions", attributes: { "auto-queue-runs": false } } },
  });
  answers.push(cv);
  const cvBody = JSON.parse(cv.text) as { data: { id: string; attributes: { "upload-url": string } } };
  answers.push(await send(cvBody.data.attributes["upload-url"], { method: "PUT", headers: { "content-type": "application/octet-stream" }, body: configurationArchive() }));
  const run = await send(`${runsApi}/runs`, {
    method: "POST",
    headers: jsonApi,
    body: { data: { type: "runs", relationships: { workspace: { data: { type: "workspaces", id: ws.id } } } } },
  });
  answers.push(run);
  const runId = (JSON.parse(run.text) as { data: { id: string } }).data.id;
  // Refused: the run is pending, not paused for confirmation.
  answers.push(await send(`${runsApi}/runs/${runId}/actions/apply`, { method: "POST", headers: jsonApi, body: {} }));
  answers.push(await send(`${runsApi}/runs/${runId}/actions/discard`, { method: "POST", headers: jsonApi, body: {} }));
  answers.push(await send(`${runsApi}/runs/${runId}`, { headers: jsonApi }));
  answers.push(await send(`${runsApi}/no-such-endpoint`, { headers: jsonApi }));

  const bootstrap = doubles.accessControl.bootstrapToken.secretId;
  const created = await send(`${aclApi}/acl/token`, { method: "PUT", headers: { "x-acl-token": bootstrap }, body: { Description: "ci", ExpirationTTL: "5m" } });
  answers.push(created);
  const accessor = (JSON.parse(created.text) as { AccessorID: string }).AccessorID;
  answers.push(await send(`${aclApi}/acl/token/${accessor}/clone`, { method: "PUT", headers: { "x-acl-token": bootstrap }, body: { Description: "copy" } }));
  doubles.advance("6m");
  answers.push(await send(`${aclApi}/acl/token/${accessor}`, { headers: { "x-acl-token": bootstrap } }));

  const root = doubles.secrets.rootToken;
  answers.push(await send(`${secretsApi}/ssh/roles/otp-role`, { method: "POST", headers: { "x-secrets-token": root }, body: { key_type: "otp", default_user: "ubuntu", cidr_list: "10.0.0.0/8" } }));
  const creds = await send(`${secretsApi}/ssh/creds/otp-role`, { method: "PUT", headers: { "x-secrets-token": root }, body: { ip: "10.0.0.5" } });
  answers.push(creds);
  const leaseId = (JSON.parse(creds.text) as { lease_id: string }).lease_id;
  answers.push(await send(`${secretsApi}/sys/leases/revoke`, { method: "PUT", headers: { "x-secrets-token": root }, body: { lease_id: leaseId } }));
  answers.push(await send(`${secretsApi}/sys/health`));
  doubles.secrets.setNodeState("sealed");
  answers.push(await send(`${secretsApi}/sys/health?sealedcode=299`));
  answers.push(await send(`${secretsApi}/ssh/roles/otp-role`, { headers: { "x-secrets-token": root } }));
  return answers;
}

describeEachTransport("coverage: what requests exercised", (h) => {
  it("counts endpoints by status, run and configuration version states and transitions, token and lease events, node states and health codes", async () => {
    const t = await h.startWith(createDoubles({ seed: 3 }));
    const answers = await script(t);
    expect(answers.map((a) => a.status)).toEqual([201, 200, 201, 409, 202, 200, 404, 200, 200, 404, 204, 200, 204, 200, 299, 503]);
    const report = t.doubles.coverage();

    const runs = report.services.runs!;
    expect(runs.endpoints.statuses).toEqual({
      "POST /runs": { "201": 1 },
      "POST /runs/:run_id/actions/apply": { "409": 1 },
      "POST /runs/:run_id/actions/discard": { "202": 1 },
      "GET /runs/:run_id": { "200": 1 },
      "POST /workspaces/:workspace_id/configuration-versions": { "201": 1 },
      "PUT /v1/object/:token": { "200": 1 },
    });
    expect(runs.endpoints.exercised).toBe(6);
    expect(runs.unmatched).toEqual({ "404": 1 });
    // The refused apply took no transition; the discard took pending -> discarded.
    expect(runs.machines.run!.transitions.reached).toEqual({ "pending -> discarded": 1 });
    expect(runs.machines.run!.states.reached).toEqual({ discarded: 1, pending: 1 });
    expect(runs.machines["configuration version"]!.transitions.reached).toEqual({ "pending -> uploaded": 1 });
    expect(runs.machines["configuration version"]!.states.reached).toEqual({ pending: 1, uploaded: 1 });

    const acl = report.services.accessControl!;
    expect(acl.events.token!.reached).toEqual({ cloned: 1, created: 1, expired: 2, used: 3 });
    expect(acl.endpoints.statuses["GET /acl/token/:AccessorID"]).toEqual({ "404": 1 });

    const secrets = report.services.secrets!;
    expect(secrets.endpoints.statuses).toEqual({
      "GET /sys/health": { "200": 1, "299": 1 },
      "POST /sys/leases/revoke": { "204": 1 },
      "POST /ssh/creds/:name": { "200": 1 },
      "POST /ssh/roles/:name": { "204": 1 },
      // A sealed node refuses before routing: the answer counts for the endpoint it was for.
      "GET /ssh/roles/:name": { "503": 1 },
    });
    expect(secrets.unmatched).toEqual({});
    expect(secrets.events["lease"]!.reached).toEqual({ issued: 1, revoked: 1 });
    expect(secrets.events["token"]!.reached).toEqual({ used: 3 });
    expect(secrets.events["node state"]!.reached).toEqual({ active: 4, sealed: 2 });
    expect(secrets.events["health code"]!.reached).toEqual({ activecode: 1, sealedcode: 1 });
    expect(secrets.events["health code"]!.never).toEqual(["drsecondarycode", "performancestandbycode", "standbycode", "uninitcode"]);
  });

  it("answers byte for byte the same with and without coverage", async () => {
    const on = await script(await h.startWith(createDoubles({ seed: 9, baseUrls: hosts("yes") })));
    const off = await script(await h.startWith(createDoubles({ seed: 9, baseUrls: hosts("not"), coverage: false })));
    expect(off.map(normalizeHosts)).toEqual(on.map(normalizeHosts));
  });
});

/** Separate hosts per doubles (under nock, the first interceptor of a host wins), of one length. */
function hosts(tag: string): Record<string, Record<string, string>> {
  return {
    runs: { api: `https://runs-${tag}.test/api/v2`, archive: `https://archive-${tag}.test` },
    accessControl: { api: `https://acl-${tag}.test/v1` },
    secrets: { api: `https://secrets-${tag}.test/v1` },
  };
}

/** Answers with the per-doubles host names (and server ports) made equal. */
function normalizeHosts(answer: Answer): Answer {
  const strip = (s: string): string => s.replace(/-(yes|not)\.test/g, ".test").replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:PORT");
  return { status: answer.status, headers: answer.headers.map(([k, v]) => [k, strip(v)]), text: strip(answer.text) };
}

describeEachTransport("coverage: requests refused before routing", (h) => {
  // It sends a body over the 32 MiB limit: 1-4 s alone, several times that under a loaded suite.
  it("count for the endpoint their method and path name (sealed, DR secondary, a body that is not JSON, no token, a body over the limit); the rest stay unmatched", { timeout: 120_000 }, async () => {
    const t = await h.startWith(createDoubles({ seed: 5 }));
    const { doubles } = t;
    const secretsApi = t.base("secrets");
    const runsApi = t.base("runs");
    const root = { "x-secrets-token": doubles.secrets.rootToken };
    const statuses: number[] = [];
    const call = async (url: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}) => statuses.push((await send(url, init)).status);
    await call(`${secretsApi}/ssh/roles/otp-role`, { method: "POST", headers: root, body: { key_type: "otp", default_user: "ubuntu", cidr_list: "10.0.0.0/8" } });
    await call(`${secretsApi}/ssh/roles/otp-role`, { method: "POST", headers: root, body: "{not json" });
    await call(`${secretsApi}/ssh/roles?list=maybe`, { headers: root });
    await call(`${secretsApi}/sys/managed-keys/kmsa?list=true`);
    await call(`${secretsApi}/ssh/roles/otp-role`, { method: "POST", headers: root, body: "x".repeat(32 * 1024 * 1024 + 1) });
    doubles.secrets.setNodeState("sealed");
    await call(`${secretsApi}/ssh/roles/otp-role`, { headers: root });
    await call(`${secretsApi}/sys/leases/renew`, { method: "PUT", headers: root, body: {} });
    doubles.secrets.setNodeState("dr-secondary-active");
    await call(`${secretsApi}/ssh/creds/otp-role`, { method: "PUT", headers: root, body: { ip: "10.0.0.5" } });
    await call(`${secretsApi}/no-such-mount/x`, { headers: root });
    doubles.secrets.setNodeState("active");
    await call(`${secretsApi}/ssh/no-such-path`, { headers: root });
    await call(`${secretsApi}/ssh/roles/otp-role`, { method: "PATCH", headers: root, body: {} });
    await call(`${runsApi}/runs`, { method: "POST", headers: { "content-type": "application/vnd.api+json" }, body: "x".repeat(32 * 1024 * 1024 + 1) });
    expect(statuses).toEqual([204, 400, 400, 403, 413, 503, 503, 400, 400, 404, 405, 413]);

    const secrets = doubles.coverage().services.secrets!;
    expect(secrets.endpoints.statuses).toEqual({
      "POST /ssh/roles/:name": { "204": 1, "400": 1, "413": 1 },
      "LIST /sys/managed-keys/:type": { "403": 1 },
      "GET /ssh/roles/:name": { "503": 1 },
      "POST /sys/leases/renew": { "503": 1 },
      "POST /ssh/creds/:name": { "400": 1 },
    });
    // A list flag that is neither true nor false (read or list?), no mount there, no route of the
    // engine there, a method the service does not route.
    expect(secrets.unmatched).toEqual({ "400": 2, "404": 1, "405": 1 });
    expect(doubles.coverage().services.runs!.endpoints.statuses).toEqual({ "POST /runs": { "413": 1 } });
  });
});

describe("coverage universe", () => {
  it("comes from the transition tables and route tables the fake runs on", () => {
    const doubles = createDoubles();
    const report = doubles.coverage();
    const run = report.services.runs!.machines.run!;
    expect(run.states.total).toBe(RUN_STATUSES.length);
    expect(run.transitions.total).toBe(machineTransitions(runMachine).length);
    expect(report.services.runs!.machines["configuration version"]!.transitions.total).toBe(machineTransitions(configurationVersionMachine).length);
    expect(report.services.runs!.endpoints.total).toBe(doubles.httpServices[0]!.routes.reduce((n, r) => n + (typeof r.method === "string" ? 1 : r.method.length), 0));
    expect(report.services.runs!.endpoints.never).toContain("GET /v1/object/:token");
    expect(report.services.secrets!.endpoints.never).toEqual(expect.arrayContaining(["GET /sys/health", "HEAD /sys/health", "POST /ssh/sign/:name", "POST /sys/leases/renew"]));
    expect(report.services.accessControl!.endpoints.never).not.toContain("GET /acl/token");
    expect(report.services.accessControl!.events.token!.total).toBe(8);
    expect(() => createDoubles({ coverage: false }).coverage()).toThrow("coverage: false");
  });
});

describe("GET /_sim/coverage on the server", () => {
  it("answers the same report as doubles.coverage(), not counting the control API", async () => {
    const doubles = createDoubles();
    const server = await doubles.listen();
    try {
      expect((await fetch(`${server.url}/v1/sys/health?standbyok=true`)).status).toBe(200);
      await fetch(`${server.url}/_sim/clock`);
      const answer = await fetch(`${server.url}/_sim/coverage`);
      expect(answer.status).toBe(200);
      const report = (await answer.json()) as ReturnType<typeof doubles.coverage>;
      expect(report).toEqual(doubles.coverage());
      expect(report.services.secrets!.endpoints.reached).toEqual({ "GET /sys/health": 1 });
    } finally {
      await doubles.close();
    }
    const off = createDoubles({ coverage: false });
    const quiet = await off.listen();
    try {
      expect((await fetch(`${quiet.url}/_sim/coverage`)).status).toBe(404);
    } finally {
      await off.close();
    }
  });
});
