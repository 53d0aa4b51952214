/**
 * A world holding every resource kind the three services keep (runs through every phase, VCS
 * commits and their ingress attributes, cost estimates, policy checks; ACL login tokens, a token
 * linking a deleted policy; cloud IAM users and STS sessions with leases, child tokens, wrapped
 * responses, OTPs) saves and loads byte for byte, and the loaded world goes on as the saved one.
 */
import { describe, expect, it } from "vitest";
import { startDevServer } from "../../../src/cli/serve.js";
import type { Doubles } from "../../../src/scenarios/doubles.js";
import { createDoubles } from "../../../src/scenarios/doubles.js";
import { exportState, importState, stateText } from "../../../src/scenarios/state/document.js";

const json = { "content-type": "application/json" };

describe("a world of every resource kind", () => {
  it("saves and loads byte for byte, and goes on as the saved one", async () => {
    await using dev = await startDevServer({ port: 0, clock: "manual" });
    const doubles = dev.doubles as Doubles;
    const url = dev.url;
    const { runs } = doubles;
    const org = runs.addOrganization("acme", { costEstimationEnabled: true });
    const ws = runs.addWorkspace(org, { name: "prod" });
    const app = runs.addWorkspace(org, { name: "app", vcsRepo: { identifier: "acme/app" } });
    const alice = runs.addUser({ username: "alice", permissions: { [ws.id]: "admin", [app.id]: "admin" } });
    runs.addTeam(org, { name: "ops", members: [alice.id] });
    runs.nextRun(ws.id, { policyCheck: "soft-fails" });
    runs.uploadConfiguration(ws.id, { as: alice.id });
    runs.queueRun(ws.id, { as: alice.id });
    runs.pushCommit(app.id, { message: "Add bucket", senderUsername: "alice" });
    doubles.advance("10m");
    runs.queueRun(ws.id, { as: alice.id });
    doubles.advance("3s");

    const root = (dev.services.secrets as { rootToken: string }).rootToken;
    const vault = { ...json, "x-secrets-token": root };
    for (const [method, path, body, extra] of [
      ["GET", "/v1/cloud/creds/deploy", undefined, {}],
      ["GET", "/v1/cloud/creds/assume", undefined, {}],
      ["POST", "/v1/ssh/creds/otp-role", { ip: "10.0.0.5", username: "web" }, {}],
      ["POST", "/v1/auth/token/create", { ttl: "1h", policies: ["default"] }, {}],
      ["GET", "/v1/cloud/creds/deploy", undefined, { "x-vault-wrap-ttl": "5m" }],
    ] as const) {
      const response = await fetch(`${url}${path}`, { method, headers: { ...vault, ...extra }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      expect(response.status, `${method} ${path}: ${await response.clone().text()}`).toBe(200);
    }
    const acl = { ...json, "x-consul-token": (dev.services.accessControl as { bootstrapSecretId: string }).bootstrapSecretId };
    const login = await fetch(`${url}/v1/acl/login`, { method: "POST", headers: json, body: JSON.stringify({ AuthMethod: "dev-method", BearerToken: "dev-bearer-token" }) });
    expect(login.status).toBe(200);
    const policy = (await (await fetch(`${url}/v1/acl/policy`, { method: "PUT", headers: acl, body: JSON.stringify({ Name: "gone", Rules: 'key_prefix "" { policy = "read" }' }) })).json()) as { ID: string };
    expect((await fetch(`${url}/v1/acl/token`, { method: "PUT", headers: acl, body: JSON.stringify({ Policies: [{ ID: policy.ID }], ExpirationTTL: "2h" }) })).status).toBe(200);
    expect((await fetch(`${url}/v1/acl/policy/${policy.ID}`, { method: "DELETE", headers: acl })).status).toBe(200);

    const doc = exportState(doubles);
    const text = stateText(doc);
    const count = (service: string, kind: string): number => Object.keys((doc.services[service] as Record<string, object>)[kind] ?? {}).length;
    for (const kind of ["organizations", "workspaces", "users", "teams", "tokens", "configurationVersions", "ingressAttributes", "runs", "plans", "applies", "costEstimates", "policyChecks", "engineVersions"]) expect(count("runs", kind), `runs ${kind}`).toBeGreaterThan(0);
    for (const kind of ["tokens", "secrets", "policies", "authMethods", "bindingRules", "expiryMoves"]) expect(count("accessControl", kind), `accessControl ${kind}`).toBeGreaterThan(0);
    for (const kind of ["tokens", "mounts", "leases", "wrappings"]) expect(count("secrets", kind), `secrets ${kind}`).toBeGreaterThan(0);
    const kinds = new Set(Object.values((doc.services.secrets as { leases: Record<string, { kind: string }> }).leases).map((lease) => lease.kind));
    expect([...kinds].sort()).toEqual(["assumed_role", "iam_user", "otp"]);

    const loaded = createDoubles();
    importState(loaded, JSON.parse(text));
    expect(stateText(exportState(loaded))).toBe(text);
    doubles.advance("3h");
    loaded.advance("3h");
    expect(stateText(exportState(loaded))).toBe(stateText(exportState(doubles)));
  });
});
