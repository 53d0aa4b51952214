/**
 * Simulator-side service mutants seen through HTTP on every transport (`createDoubles({ mutant })`):
 * an action refused with the service's own 409 and nothing stored, a redirected transition in the
 * run's status, a removed automatic row (the run stays, time goes on), a scaled cool-off and a
 * scaled TTL in simulated time, and an id format.
 */
import { expect, it } from "vitest";
import { createDoubles, type Doubles } from "../../../src/scenarios/doubles.js";
import { describeEachTransport, type StartedTransport } from "../../support/transports.js";

const JSON_API = "application/vnd.api+json";

interface Run {
  readonly id: string;
  readonly status: string;
  readonly forceCancelAvailableAt: string | null;
}

/** A workspace admin with a token and a run queued by an upload (timed progression, default outcome). */
function world(doubles: Doubles): { headers: Record<string, string>; runId: string; workspaceId: string; userId: string } {
  const runs = doubles.runs;
  const organization = runs.addOrganization("acme");
  const workspace = runs.addWorkspace(organization, { name: "app" });
  const user = runs.addUser({ username: "alice", permissions: { [workspace.id]: "admin" } });
  const { runId } = runs.uploadConfiguration(workspace.id, { as: user.id });
  if (runId === undefined) throw new Error("no run queued");
  return { headers: { authorization: `Bearer ${runs.issueUserToken(user.id)}`, "content-type": JSON_API }, runId, workspaceId: workspace.id, userId: user.id };
}

async function getRun(t: StartedTransport<Doubles>, headers: Record<string, string>, runId: string): Promise<Run> {
  const response = await fetch(`${t.base("runs")}/runs/${runId}`, { headers });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { data: { id: string; attributes: { status: string; force_cancel_available_at?: string | null } } };
  return { id: body.data.id, status: body.data.attributes.status, forceCancelAvailableAt: body.data.attributes.force_cancel_available_at ?? null };
}

async function post(t: StartedTransport<Doubles>, headers: Record<string, string>, path: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${t.base("runs")}${path}`, { method: "POST", headers, body: JSON.stringify({ comment: "from the test" }) });
  const text = await response.text();
  return { status: response.status, body: text === "" ? undefined : JSON.parse(text) };
}

/** The shape of a JSON value (keys and types, not values): two error bodies of one table compare equal. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape);
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, shape(inner)]));
  return typeof value;
}

describeEachTransport("simulator-side mutants", (h) => {
  it("action-refused: apply answers the service's own 409 while the run is planned, and stores nothing", async () => {
    const t = await h.startWith(createDoubles({ mutant: "runs:action-refused:run/planned/confirm" }));
    const { headers, runId } = world(t.doubles);
    t.doubles.advance("2m");
    const before = await getRun(t, headers, runId);
    expect(before.status).toBe("planned");
    const refused = await post(t, headers, `/runs/${runId}/actions/apply`);
    expect(refused.status).toBe(409);
    // The same error table as the faithful refusal of an apply (a run not paused for confirmation).
    const faithful = await h.startWith(createDoubles({ mutant: null, uniqueOrigins: true }));
    const other = world(faithful.doubles);
    const faithfulRefusal = await post(faithful, other.headers, `/runs/${other.runId}/actions/apply`);
    expect(faithfulRefusal.status).toBe(409);
    expect(shape(refused.body)).toEqual(shape(faithfulRefusal.body));
    t.doubles.advance("5m");
    expect(await getRun(t, headers, runId)).toEqual(before);
  });

  it("transition-redirected: the run goes from planning to cost_estimating on plan-done", async () => {
    const t = await h.startWith(createDoubles({ mutant: "runs:transition-redirected:run/planning/plan-done/cost_estimating" }));
    const { headers, runId } = world(t.doubles);
    t.doubles.advance("20s"); // queue, fetch, handoffs, plan queue (7 s): planning by now, 30 s of plan
    expect((await getRun(t, headers, runId)).status).toBe("planning");
    t.doubles.advance("20s");
    expect((await getRun(t, headers, runId)).status).toBe("cost_estimating");
    t.doubles.advance("1m");
    expect((await getRun(t, headers, runId)).status).toBe("cost_estimated");
  });

  it("transition-removed: a timed move without its row is dropped; the run stays and time goes on", async () => {
    const t = await h.startWith(createDoubles({ mutant: "runs:transition-removed:run/plan_queued/plan-start" }));
    const { headers, runId } = world(t.doubles);
    const start = t.doubles.now();
    expect(() => t.doubles.advance("1h")).not.toThrow();
    expect(t.doubles.now()).toBe(start + 3_600_000);
    expect((await getRun(t, headers, runId)).status).toBe("plan_queued");
    // Discard is still accepted from pending states only: the run is not pending, so 409, and the service keeps answering.
    expect((await post(t, headers, `/runs/${runId}/actions/discard`)).status).toBe(409);
  });

  it("duration-scaled: the force-cancel cool-off is 5 s instead of 10 s", async () => {
    const t = await h.startWith(createDoubles({ mutant: "runs:duration-scaled:force-cancel-cool-off/x0.5" }));
    const { headers, runId } = world(t.doubles);
    t.doubles.runs.setRunOutcome(runId, { interrupt: "ignored" });
    t.doubles.advance("20s");
    expect((await getRun(t, headers, runId)).status).toBe("planning");
    const canceledAt = t.doubles.now();
    expect((await post(t, headers, `/runs/${runId}/actions/cancel`)).status).toBe(202);
    expect(Date.parse((await getRun(t, headers, runId)).forceCancelAvailableAt ?? "")).toBe(canceledAt + 5_000);
    t.doubles.advance("4s");
    expect((await post(t, headers, `/runs/${runId}/actions/force-cancel`)).status).toBe(409);
    t.doubles.advance("1s");
    expect((await post(t, headers, `/runs/${runId}/actions/force-cancel`)).status).toBe(202);
    expect((await getRun(t, headers, runId)).status).toBe("force_canceled");
  });

  it("duration-scaled: the shortest access-control token TTL is 2 min instead of 1 min", async () => {
    const t = await h.startWith(createDoubles({ mutant: "accessControl:duration-scaled:min-expiration-ttl/x2" }));
    const headers = { "x-acl-token": t.doubles.accessControl.bootstrapToken.secretId, "content-type": "application/json" };
    const create = (ttl: string): Promise<Response> => fetch(`${t.base("accessControl")}/acl/token`, { method: "PUT", headers, body: JSON.stringify({ ExpirationTTL: ttl }) });
    const short = await create("90s");
    expect(short.status).toBe(500);
    expect(await short.text()).toContain("should be > 2m0s");
    expect((await create("3m")).status).toBe(200);
  });

  it("duration-scaled: STS credentials issued without a TTL last 2 h instead of 1 h", async () => {
    const t = await h.startWith(createDoubles({ mutant: "secrets:duration-scaled:default-sts-ttl/x2" }));
    // The dev server's default scenario: a cloud account and its roles (`assume`: assumed_role).
    const secrets = t.doubles.registeredPlugins.find((plugin) => plugin.key === "secrets");
    secrets?.defaultScenario?.(t.doubles.controlsOf("secrets"), t.doubles.baseUrls().secrets ?? {});
    const response = await fetch(`${t.base("secrets")}/cloud/sts/assume`, { method: "POST", headers: { "x-secrets-token": t.doubles.secrets.rootToken }, body: "{}" });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect((JSON.parse(text) as { lease_duration: number }).lease_duration).toBe(7200);
  });

  it("duration-scaled: a token created without a TTL lasts 384 h instead of 768 h", async () => {
    const t = await h.startWith(createDoubles({ mutant: "secrets:duration-scaled:default-token-ttl/x0.5" }));
    const response = await fetch(`${t.base("secrets")}/auth/token/create`, { method: "POST", headers: { "x-secrets-token": t.doubles.secrets.rootToken }, body: JSON.stringify({ policies: ["default"] }) });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect((JSON.parse(text) as { auth: { lease_duration: number } }).auth.lease_duration).toBe(384 * 3600);
  });

  it("limit-scaled: the default page size is 10 instead of 20, and the largest page 50 instead of 100", async () => {
    const count = async (doubles: Doubles, query: string): Promise<number> => {
      const t = await h.startWith(doubles);
      const runs = t.doubles.runs;
      const organization = runs.addOrganization("acme");
      for (let i = 0; i < 60; i++) runs.addWorkspace(organization, { name: `app-${i}` });
      const headers = { authorization: `Bearer ${runs.issueOrganizationToken(organization)}`, "content-type": JSON_API };
      const response = await fetch(`${t.base("runs")}/organizations/acme/workspaces${query}`, { headers });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { data: unknown[]; meta: { pagination: Record<string, number> } };
      expect(body.meta.pagination["total-count"]).toBe(60);
      return body.data.length;
    };
    expect(await count(createDoubles({ mutant: null, uniqueOrigins: true }), "")).toBe(20);
    expect(await count(createDoubles({ mutant: "runs:limit-scaled:page-size/x0.5", uniqueOrigins: true }), "")).toBe(10);
    expect(await count(createDoubles({ mutant: "runs:limit-scaled:page-size/x2", uniqueOrigins: true }), "")).toBe(40);
    expect(await count(createDoubles({ mutant: null, uniqueOrigins: true }), "?page%5Bsize%5D=100")).toBe(60);
    expect(await count(createDoubles({ mutant: "runs:limit-scaled:max-page-size/x0.5", uniqueOrigins: true }), "?page%5Bsize%5D=100")).toBe(50);
  });

  it("id-format-changed: run ids end in 24 characters, the same for the same seed", async () => {
    const t = await h.startWith(createDoubles({ mutant: "runs:id-format-changed:run", seed: 11 }));
    const { headers, runId } = world(t.doubles);
    expect(runId).toMatch(/^run-[0-9A-Za-z]{24}$/);
    expect((await getRun(t, headers, runId)).id).toBe(runId);
    const again = createDoubles({ mutant: "runs:id-format-changed:run", seed: 11 });
    expect(world(again).runId).toBe(runId);
    const faithful = createDoubles({ mutant: null, seed: 11 });
    expect(world(faithful).runId).toMatch(/^run-[0-9A-Za-z]{16}$/);
  });
});
