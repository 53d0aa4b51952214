import { expect, it } from "vitest";
import { describeEachTransport } from "../../support/transports.js";
import { startAcl, type AclHarness } from "./support.js";

function k8s(h: AclHarness, options: { maxTokenTtl?: string; tokenLocality?: "local" | "global" } = {}) {
  h.acl.createAuthMethod({ name: "k8s", type: "kubernetes", ...options });
  h.acl.registerBearerToken("k8s", "jwt-web", { name: "Web", namespace: "default", uid: "u-1" });
  h.acl.registerBearerToken("k8s", "jwt-sys", { name: "dns", namespace: "kube-system" });
  h.acl.createBindingRule({ authMethod: "k8s", selector: "serviceaccount.namespace==default", bindType: "service", bindName: "${serviceaccount.name}" });
}

function oidc(h: AclHarness) {
  h.acl.createAuthMethod({ name: "oidc", type: "oidc", claimMappings: { sub: "user", team: "team" }, listClaimMappings: { groups: "groups" } });
  h.acl.registerBearerToken("oidc", "alice", { sub: "Alice", team: "Core", groups: ["admins", "dev"] });
  h.acl.registerBearerToken("oidc", "bob", { sub: "bob", groups: ["dev"] });
}

const login = (h: AclHarness, body: unknown) => h.call("POST", "/acl/login", { token: null, body });

describeEachTransport("access-control: login and logout", (t) => {
  it("logs in through a service-account method and binds a service identity", async () => {
    const h = await startAcl(t);
    k8s(h, { maxTokenTtl: "1h" });
    const answer = await login(h, { AuthMethod: "k8s", BearerToken: "jwt-web" });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({
      Description: "token created via login",
      ServiceIdentities: [{ ServiceName: "web" }],
      Local: true,
      AuthMethod: "k8s",
      ExpirationTime: "2024-01-01T01:00:00Z",
      CreateTime: "2024-01-01T00:00:00Z",
    });
    expect(answer.json.Policies).toBeUndefined();
    const self = await h.call("GET", "/acl/token/self", { token: answer.json.SecretID });
    expect(self.json.AccessorID).toBe(answer.json.AccessorID);
    const listed = await h.call("GET", "/acl/tokens?authmethod=k8s");
    expect(listed.json.map((x: { AccessorID: string }) => x.AccessorID)).toEqual([answer.json.AccessorID]);
    h.doubles.advance(60 * 60_000 - 1);
    expect((await h.call("GET", "/acl/token/self", { token: answer.json.SecretID })).status).toBe(200);
    h.doubles.advance(1);
    expect((await h.call("GET", "/acl/token/self", { token: answer.json.SecretID })).status).toBe(403);
  });

  it("answers Permission denied when no rule binds anything, and the method's errors for unknown bearer tokens or methods", async () => {
    const h = await startAcl(t);
    k8s(h);
    oidc(h);
    const denied = await login(h, { AuthMethod: "k8s", BearerToken: "jwt-sys" });
    expect([denied.status, denied.text]).toEqual([403, "Permission denied"]);
    const unknownJwt = await login(h, { AuthMethod: "k8s", BearerToken: "forged" });
    expect([unknownJwt.status, unknownJwt.text]).toEqual([500, "lookup failed: [invalid bearer token, Token has been invalidated]"]);
    const unknownClaims = await login(h, { AuthMethod: "oidc", BearerToken: "forged" });
    expect([unknownClaims.status, unknownClaims.text]).toEqual([500, "no known key successfully validated the token signature"]);
    const noMethod = await login(h, { AuthMethod: "nope", BearerToken: "jwt-web" });
    expect([noMethod.status, noMethod.text]).toEqual([403, 'ACL not found: auth method "nope" not found']);
    const broken = await h.call("POST", "/acl/login", { token: null, rawBody: "{" });
    expect([broken.status, broken.text]).toEqual([400, "Failed to decode request body: unexpected EOF"]);
    expect(h.acl.tokens()).toHaveLength(2);
  });

  it("applies every matching rule: services, nodes in the local datacenter, and roles that exist at login time", async () => {
    const h = await startAcl(t);
    oidc(h);
    h.acl.configure({ localDatacenter: "eu-1" });
    h.acl.createBindingRule({ authMethod: "oidc", selector: "admins in list.groups", bindType: "service", bindName: "svc-${value.user}" });
    h.acl.createBindingRule({ authMethod: "oidc", selector: "value.user == Alice", bindType: "node", bindName: "node-${value.team}" });
    h.acl.createBindingRule({ authMethod: "oidc", selector: "dev in list.groups", bindType: "role", bindName: "${value.user}-role" });
    h.acl.createBindingRule({ authMethod: "oidc", selector: "value.team == Core", bindType: "role", bindName: "core-team" });
    const before = await login(h, { AuthMethod: "oidc", BearerToken: "alice", Meta: { host: "laptop", app: "cli" } });
    expect(before.json).toMatchObject({
      Description: 'token created via login: {"app":"cli","host":"laptop"}',
      ServiceIdentities: [{ ServiceName: "svc-alice" }],
      NodeIdentities: [{ NodeName: "node-core", Datacenter: "eu-1" }],
    });
    expect(before.json.Roles).toBeUndefined();
    const role = h.acl.createRole({ name: "alice-role" });
    const after = await login(h, { AuthMethod: "oidc", BearerToken: "alice" });
    expect(after.json.Roles).toEqual([{ ID: role.id, Name: "alice-role" }]);
    const bobDenied = await login(h, { AuthMethod: "oidc", BearerToken: "bob" });
    expect([bobDenied.status, bobDenied.text]).toEqual([403, "Permission denied"]);
    h.acl.createRole({ name: "bob-role" });
    const bob = await login(h, { AuthMethod: "oidc", BearerToken: "bob" });
    expect(bob.json.Roles.map((r: { Name: string }) => r.Name)).toEqual(["bob-role"]);
    expect(bob.json.ServiceIdentities).toBeUndefined();
  });

  it("fails the login when a matching rule's BindName needs a claim the identity lacks", async () => {
    const h = await startAcl(t);
    oidc(h);
    h.acl.createBindingRule({ authMethod: "oidc", bindType: "service", bindName: "${value.team}" });
    const answer = await login(h, { AuthMethod: "oidc", BearerToken: "bob" });
    expect([answer.status, answer.text]).toEqual([500, 'cannot compute "service" bind name for bind target: 1:3: unknown variable accessed: value.team']);
  });

  it("writes Meta into the description as Go's json.Marshal does (sorted keys, HTML characters escaped)", async () => {
    // Regression: `<`, `>` and `&` came out raw (JavaScript's JSON), the real service escapes them.
    const h = await startAcl(t);
    k8s(h);
    const answer = await login(h, { AuthMethod: "k8s", BearerToken: "jwt-web", Meta: { pod: "web<1>&co", "a\u2028": "é" } });
    expect(answer.json.Description).toBe('token created via login: {"a\\u2028":"é","pod":"web\\u003c1\\u003e\\u0026co"}');
  });

  it("makes global tokens for a global method", async () => {
    const h = await startAcl(t);
    k8s(h, { tokenLocality: "global" });
    expect((await login(h, { AuthMethod: "k8s", BearerToken: "jwt-web" })).json.Local).toBe(false);
  });

  it("logs out a login-created token, and refuses other tokens", async () => {
    const h = await startAcl(t);
    k8s(h);
    const token = (await login(h, { AuthMethod: "k8s", BearerToken: "jwt-web" })).json;
    const plain = h.acl.createToken();
    // Regression: the real service answers these as the HTTP handler (401 without a token) and the
    // token writer (`Permission denied: token wasn't created via login`) word them.
    const refused = await h.call("POST", "/acl/logout", { token: plain.secretId });
    expect([refused.status, refused.text]).toEqual([403, "Permission denied: token wasn't created via login"]);
    const none = await h.call("POST", "/acl/logout", { token: null });
    expect([none.status, none.text]).toEqual([401, "Supplied token does not exist"]);
    const unknown = await h.call("POST", "/acl/logout", { token: "11111111-2222-4333-8444-000000000099" });
    expect([unknown.status, unknown.text]).toEqual([403, "ACL not found"]);
    const done = await h.call("POST", "/acl/logout", { token: token.SecretID });
    expect([done.status, done.text]).toEqual([200, "true"]);
    expect((await h.call("GET", `/acl/token/${token.AccessorID}`)).status).toBe(404);
    const again = await h.call("POST", "/acl/logout", { token: token.SecretID });
    expect([again.status, again.text]).toEqual([403, "ACL not found"]);
  });

  it("keeps a login token's AuthMethod: filled in on update, never cloned", async () => {
    const h = await startAcl(t);
    k8s(h);
    const token = (await login(h, { AuthMethod: "k8s", BearerToken: "jwt-web" })).json;
    const updated = await h.call("PUT", `/acl/token/${token.AccessorID}`, { body: { Local: true, Description: "renamed" } });
    expect(updated.json).toMatchObject({ AuthMethod: "k8s", Description: "renamed" });
    const clone = await h.call("PUT", `/acl/token/${token.AccessorID}/clone`, { body: {} });
    expect([clone.status, clone.text]).toEqual([500, "Cannot clone a token created from an auth method"]);
  });
});
