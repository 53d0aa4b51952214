/**
 * The dev server's `/_sim/` routes for every fixture of every service (issue 11 item 3): a curl
 * user makes a restricted ACL token, a policy, a role, an auth method and a binding rule; a secrets
 * policy, token, mount and SSH role; team tokens; loads whole scenario documents (JSON or YAML);
 * and `GET /_sim/` lists the routes actually mounted with their body shapes.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { RunningServer } from "../../src/interceptors/server.js";
import { createDoubles, type Doubles } from "../../src/scenarios/doubles.js";

const servers: RunningServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function start(doubles: Doubles = createDoubles({ seed: 2 })) {
  const server = await doubles.listen();
  servers.push(server);
  const call = async (method: string, path: string, body?: unknown, type = "application/json") => {
    const response = await fetch(`${server.url}/_sim${path}`, {
      method,
      ...(method === "GET" || method === "DELETE" ? {} : { headers: { "content-type": type }, body: typeof body === "string" ? body : JSON.stringify(body ?? {}) }),
    });
    const text = await response.text();
    return { status: response.status, body: text === "" ? undefined : (JSON.parse(text) as Record<string, unknown> & Record<string, never>) };
  };
  return { doubles, url: server.url, call };
}

describe("/_sim/ fixture routes of the access-control service", () => {
  it("makes a policy, a role, a restricted token, an auth method with an identity and a binding rule", async () => {
    const { url, call } = await start();
    expect(await call("POST", "/accessControl/policies", { name: "acl-read", rules: 'acl = "read"' })).toMatchObject({ status: 201, body: { name: "acl-read", id: expect.any(String) } });
    expect(await call("POST", "/accessControl/roles", { name: "readers", policies: ["acl-read"] })).toMatchObject({ status: 201, body: { name: "readers" } });
    const token = await call("POST", "/accessControl/tokens", { description: "ci", roles: ["readers"], expirationTtl: "10m" });
    expect(token).toMatchObject({ status: 201, body: { description: "ci", secretId: expect.any(String), expirationTime: Date.UTC(2024, 0, 1, 0, 10) } });
    const secret = String((token.body as unknown as { secretId: string }).secretId);
    // Restricted: reads the ACL system, may not write it.
    expect((await fetch(`${url}/v1/acl/tokens`, { headers: { "x-consul-token": secret } })).status).toBe(200);
    expect((await fetch(`${url}/v1/acl/token`, { method: "PUT", headers: { "x-consul-token": secret }, body: '{"Description":"x"}' })).status).toBe(403);
    expect(
      await call("POST", "/accessControl/auth-methods", { name: "k8s", type: "kubernetes", maxTokenTtl: "1h", identities: [{ bearerToken: "jwt-web", serviceAccount: { name: "web", namespace: "default" } }] }),
    ).toMatchObject({ status: 201, body: { name: "k8s" } });
    expect(await call("POST", "/accessControl/binding-rules", { authMethod: "k8s", bindType: "service", bindName: "${serviceaccount.name}" })).toMatchObject({
      status: 201,
      body: { bindingRules: [{ bindName: "${serviceaccount.name}" }] },
    });
    const login = await fetch(`${url}/v1/acl/login`, { method: "POST", body: '{"AuthMethod":"k8s","BearerToken":"jwt-web"}' });
    expect(((await login.json()) as { ServiceIdentities: { ServiceName: string }[] }).ServiceIdentities[0]?.ServiceName).toBe("web");
    const accessor = String((token.body as unknown as { accessorId: string }).accessorId);
    expect((await call("DELETE", `/accessControl/tokens/${accessor}`)).status).toBe(204);
    expect((await fetch(`${url}/v1/acl/token/self`, { headers: { "x-consul-token": secret } })).status).toBe(403);
    expect(await call("GET", "/accessControl/bootstrap-token")).toMatchObject({ status: 200, body: { secretId: expect.any(String) } });
  });

  it("allows one more ACL bootstrap with POST /accessControl/bootstrap-reset, as the real reset file does (issue 23)", async () => {
    const { url, call } = await start();
    const bootstrap = () => fetch(`${url}/v1/acl/bootstrap`, { method: "PUT" });
    const refused = await bootstrap();
    expect([refused.status, await refused.text()]).toEqual([403, "Permission denied: ACL bootstrap no longer allowed (reset index: 3)"]);
    expect(await call("POST", "/accessControl/bootstrap-reset")).toMatchObject({ status: 200, body: { resetIndex: 3 } });
    const made = await bootstrap();
    expect(made.status).toBe(200);
    const token = (await made.json()) as { SecretID: string; CreateIndex: number };
    expect((await fetch(`${url}/v1/acl/tokens`, { headers: { "x-consul-token": token.SecretID } })).status).toBe(200);
    expect(await (await bootstrap()).text()).toBe(`Permission denied: ACL bootstrap no longer allowed (reset index: ${token.CreateIndex})`);
  });

  it("answers a body that does not fit with 400, the body-relative pointer and what was expected, and keeps nothing", async () => {
    const { call } = await start();
    const answer = await call("POST", "/accessControl/tokens", { policies: ["no-such-policy"] });
    expect(answer.status).toBe(400);
    expect(String((answer.body as unknown as { error: { message: string } }).error.message)).toMatch(/\(body\): .*no-such-policy/);
    const typo = await call("POST", "/accessControl/policies", { nmae: "x" });
    expect(String((typo.body as unknown as { error: { message: string } }).error.message)).toContain('/nmae: unknown property (did you mean "name"?)');
    expect((await call("POST", "/accessControl/policies", "{")).status).toBe(400);
  });
});

describe("/_sim/ fixture routes of the secrets and runs services", () => {
  it("makes a secrets policy, a token with it, a mount and SSH roles that work through the API", async () => {
    const { url, call } = await start();
    expect(await call("POST", "/secrets/mounts", { path: "ssh-prod", type: "ssh" })).toMatchObject({ status: 201, body: { path: "ssh-prod", type: "ssh" } });
    expect(await call("POST", "/secrets/ssh", { mount: "ssh-prod", otpRoles: { "otp-role": { cidrList: "10.0.0.0/8" } } })).toMatchObject({ status: 201, body: { mount: "ssh-prod", roles: ["otp-role"] } });
    expect(await call("POST", "/secrets/policies", { name: "otp", rules: { "ssh-prod/creds/*": ["update"] } })).toMatchObject({ status: 201 });
    const token = await call("POST", "/secrets/tokens", { policies: ["otp"], ttl: "1h" });
    expect(token).toMatchObject({ status: 201, body: { token: expect.stringMatching(/^s\./), policies: ["default", "otp"] } });
    const secret = String((token.body as unknown as { token: string }).token);
    const otp = await fetch(`${url}/v1/ssh-prod/creds/otp-role`, { method: "POST", headers: { "x-vault-token": secret }, body: '{"ip":"10.0.0.9"}' });
    expect(otp.status).toBe(200);
    expect((await fetch(`${url}/v1/ssh/creds/otp-role`, { method: "POST", headers: { "x-vault-token": secret }, body: '{"ip":"10.0.0.9"}' })).status).toBe(403);
    expect((await call("DELETE", `/secrets/tokens/${secret}`)).status).toBe(204);
    expect((await fetch(`${url}/v1/auth/token/lookup-self`, { headers: { "x-vault-token": secret } })).status).toBe(403);
  });

  it("makes teams and team tokens, and queues a run as a user", async () => {
    const { url, call } = await start();
    await call("POST", "/runs/organizations", { name: "acme" });
    const ws = (await call("POST", "/runs/workspaces", { organization: "acme", name: "prod" })).body as unknown as { id: string };
    const alice = (await call("POST", "/runs/users", { username: "alice", permissions: { [ws.id]: "admin" } })).body as unknown as { token: string };
    expect(await call("POST", "/runs/teams", { name: "ops", organization: "acme", permissions: { "acme/prod": "read" } })).toMatchObject({ status: 201, body: { id: expect.stringMatching(/^team-/), name: "ops", organization: "acme" } });
    const teamToken = await call("POST", "/runs/tokens", { team: "ops" });
    expect(teamToken).toMatchObject({ status: 201, body: { token: expect.stringContaining(".atlasv1.") } });
    const list = await fetch(`${url}/api/v2/workspaces/${ws.id}/runs`, { headers: { authorization: `Bearer ${String((teamToken.body as unknown as { token: string }).token)}` } });
    expect(list.status).toBe(200);
    const upload = await call("POST", "/runs/configuration-versions", { workspace: "acme/prod", as: "alice" });
    expect(upload).toMatchObject({ status: 201, body: { id: expect.stringMatching(/^run-/), status: "pending" } });
    const run = (await fetch(`${url}/api/v2/runs/${String((upload.body as unknown as { id: string }).id)}`, { headers: { authorization: `Bearer ${alice.token}` } })).status;
    expect(run).toBe(200);
    expect((await call("POST", "/runs/runs", { workspace: "acme/prod", as: "nobody" })).status).toBe(400);
  });
});

describe("POST /_sim/scenario and GET /_sim/", () => {
  it("loads a YAML document sent as application/yaml, plays its timeline with ?play=true, and reset forgets it", async () => {
    const { call } = await start();
    const yaml = "secrets:\n  tokens: [{ name: reader, ttl: 1h }]\ntimeline:\n  - at: 5m\n    nodeState: sealed\n  - expect: { path: secrets.nodeState, equals: sealed }\n";
    const loaded = await call("POST", "/scenario?play=true", yaml, "application/yaml");
    expect(loaded).toMatchObject({ status: 201, body: { names: { secrets: { tokens: { reader: expect.stringMatching(/^s\./) } } }, transcript: { ok: true, passed: 1, failed: 0 } } });
    expect(await call("GET", "/secrets/node-state")).toMatchObject({ body: { state: "sealed" } });
    expect(await call("POST", "/reset")).toMatchObject({ status: 200, body: { now: "2024-01-01T00:00:00.000Z" } });
    expect(await call("GET", "/secrets/node-state")).toMatchObject({ body: { state: "active" } });
  });

  it("loads a JSON document without playing it, and refuses an invalid one with 400 naming the pointer", async () => {
    const { call } = await start();
    expect(await call("POST", "/scenario", { runs: { organizations: [{ name: "acme" }] } })).toMatchObject({ status: 201, body: { names: { runs: { workspaces: {} } } } });
    const bad = await call("POST", "/scenario", { runs: { workspaces: [{ name: "prod" }] } });
    expect(bad.status).toBe(400);
    expect(String((bad.body as unknown as { error: { message: string } }).error.message)).toContain('/runs/workspaces/0: missing property "organization"');
    expect((await call("POST", "/scenario", "runs: [", "text/plain")).status).toBe(415);
  });

  it("lists every mounted control route with the body shape its route table gives", async () => {
    const { call } = await start();
    const listing = (await call("GET", "")).body as unknown as { routes: { route: string; body?: string; answer?: string }[] };
    const routes = listing.routes.map((r) => r.route);
    for (const route of [
      "POST /_sim/reset",
      "POST /_sim/scenario",
      "POST /_sim/runs/workspaces",
      "POST /_sim/runs/tokens",
      "POST /_sim/accessControl/tokens",
      "POST /_sim/accessControl/binding-rules",
      "DELETE /_sim/accessControl/tokens/:accessor_id",
      "POST /_sim/secrets/policies",
      "POST /_sim/secrets/ssh",
      "POST /_sim/secrets/node-state|PUT /_sim/secrets/node-state".split("|")[0] ?? "",
    ]) {
      expect(routes.some((r) => r.startsWith(route.replace("POST /_sim/secrets/node-state", "POST|PUT /_sim/secrets/node-state")))).toBe(true);
    }
    expect(routes.some((r) => r.includes("..."))).toBe(false);
    const policy = listing.routes.find((r) => r.route === "POST /_sim/accessControl/policies");
    expect(policy?.body).toBe('{"name": string, "rules"?: string, "description"?: string, "datacenters"?: [string], "namespace"?: string, "id"?: string}');
    // Every listed POST route answers (none is a hand-kept entry without a route behind it).
    for (const route of listing.routes.filter((r) => r.route.startsWith("POST /_sim/") && !r.route.includes(":"))) {
      const path = route.route.slice("POST /_sim".length);
      expect((await call("POST", path, "not json")).status, route.route).not.toBe(404);
    }
  });
});
