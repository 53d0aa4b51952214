import { expect, it } from "vitest";
import { describeEachTransport } from "../../support/transports.js";
import { startAcl } from "./support.js";

describeEachTransport("access-control: namespaces off (default)", (t) => {
  it("refuses every namespace hint (ns, X-Acl-Namespace, a body Namespace, authmethod-ns) and answers no Namespace", async () => {
    // Regression: the header, the body field and authmethod-ns used to be ignored. The
    // non-enterprise service refuses each with 400 (header before ns, both before the body).
    const h = await startAcl(t);
    const created = await h.call("PUT", "/acl/token", { body: {} });
    expect(created.status).toBe(200);
    expect(created.json.Namespace).toBeUndefined();
    const id = created.json.AccessorID;
    const header = { "X-Acl-Namespace": "team-b" };
    const nsNote = 'Invalid query parameter: "ns" - Namespaces are an enterprise feature';
    const headerNote = 'Invalid header: "X-Acl-Namespace" - Namespaces are an enterprise feature';
    const before = h.doubles.snapshot().services;
    const cases: [string, string, { headers?: Record<string, string>; rawBody?: string; token?: null }, string][] = [
      ["GET", "/acl/tokens?ns=team-a", {}, nsNote],
      ["GET", "/acl/tokens?ns=team-a", { headers: header }, headerNote],
      ["GET", `/acl/token/${id}`, { headers: header }, headerNote],
      ["GET", "/acl/binding-rules", { headers: header }, headerNote],
      ["DELETE", `/acl/token/${id}`, { headers: header }, headerNote],
      ["PUT", "/acl/token?ns=team-a", { rawBody: "{" }, nsNote],
      ["PUT", "/acl/token", { rawBody: '{"Namespace":"team-a"}' }, 'Token decoding failed: json: unknown field "Namespace" - Namespaces are an enterprise feature'],
      ["PUT", `/acl/token/${id}`, { rawBody: '{"Namespace":"default"}' }, 'Token decoding failed: json: unknown field "Namespace" - Namespaces are an enterprise feature'],
      ["PUT", "/acl/binding-rule", { rawBody: '{"Namespace":"team-a"}' }, 'BindingRule decoding failed: json: unknown field "Namespace" - Namespaces are an enterprise feature'],
      ["POST", "/acl/login", { rawBody: '{"Namespace":"team-a"}', token: null }, 'Failed to decode request body: json: unknown field "Namespace" - Namespaces are an enterprise feature'],
      ["POST", "/acl/login", { rawBody: "{}", token: null, headers: header }, headerNote],
      ["GET", "/acl/tokens?authmethod=k8s&authmethod-ns=team-a", {}, 'Invalid query parameter: "authmethod-ns" - Namespaces are an enterprise feature'],
    ];
    for (const [method, path, options, message] of cases) {
      const answer = await h.call(method, path, options);
      expect({ method, path, status: answer.status, text: answer.text }).toEqual({ method, path, status: 400, text: message });
    }
    expect(h.doubles.snapshot().services).toEqual(before);
    // The secret alone decides /acl/token/self: the real service reads no namespace hints there.
    const self = await h.call("GET", "/acl/token/self?ns=team-a", { headers: header });
    expect([self.status, self.json?.AccessorID]).toEqual([200, h.acl.bootstrapToken.accessorId]);
  });
});

describeEachTransport("access-control: enterprise namespaces", (t) => {
  async function enterprise() {
    const h = await startAcl(t, { settings: { namespaces: true } });
    h.acl.createNamespace("team-a");
    h.acl.createNamespace("team-b");
    h.acl.createPolicy({ name: "ns-write", rules: 'acl = "write"', namespace: "team-a" });
    h.acl.createPolicy({ name: "ns-write", rules: 'acl = "write"', namespace: "team-b" });
    h.acl.createPolicy({ name: "acl-read", rules: 'acl = "read"' });
    return h;
  }

  it("selects the namespace: body, then ns, then X-Acl-Namespace, then the caller's token, then default", async () => {
    const h = await enterprise();
    const inDefault = await h.call("PUT", "/acl/token", { body: {} });
    expect(inDefault.json.Namespace).toBe("default");
    const bodyWins = await h.call("PUT", "/acl/token?ns=team-b", { body: { Namespace: "team-a" }, headers: { "X-Acl-Namespace": "team-b" } });
    expect(bodyWins.json.Namespace).toBe("team-a");
    const queryNext = await h.call("PUT", "/acl/token?ns=team-b", { body: {}, headers: { "X-Acl-Namespace": "team-a" } });
    expect(queryNext.json.Namespace).toBe("team-b");
    const headerNext = await h.call("PUT", "/acl/token", { body: {}, headers: { "X-Acl-Namespace": "team-a" } });
    expect(headerNext.json.Namespace).toBe("team-a");
    const teamAdmin = (await h.call("PUT", "/acl/token", { body: { Namespace: "team-a", Policies: [{ Name: "ns-write" }] } })).json;
    const callerNext = await h.call("PUT", "/acl/token", { token: teamAdmin.SecretID, body: { Description: "made by team-a" } });
    expect(callerNext.json.Namespace).toBe("team-a");
    const missing = await h.call("PUT", "/acl/token", { body: { Namespace: "nope" } });
    expect([missing.status, missing.text]).toEqual([500, 'Namespace "nope" does not exist']);
  });

  it("reads, lists and deletes within the selected namespace, and lists all with ns=*", async () => {
    const h = await enterprise();
    const a = (await h.call("PUT", "/acl/token", { body: { Namespace: "team-a", Description: "a" } })).json;
    const b = (await h.call("PUT", "/acl/token", { body: { Namespace: "team-b", Description: "b" } })).json;
    expect((await h.call("GET", `/acl/token/${a.AccessorID}`)).status).toBe(404);
    expect((await h.call("GET", `/acl/token/${a.AccessorID}?ns=team-a`)).json.Description).toBe("a");
    expect((await h.call("GET", `/acl/token/${a.AccessorID}`, { headers: { "X-Acl-Namespace": "team-a" } })).status).toBe(200);
    const ids = async (query: string) => (await h.call("GET", `/acl/tokens${query}`)).json.map((x: { AccessorID: string }) => x.AccessorID);
    expect(await ids("?ns=team-a")).toEqual([a.AccessorID]);
    expect(await ids("")).not.toContain(a.AccessorID);
    const all = await ids("?ns=*");
    expect(all).toEqual(expect.arrayContaining([a.AccessorID, b.AccessorID, h.acl.bootstrapToken.accessorId]));
    const clone = await h.call("PUT", `/acl/token/${a.AccessorID}/clone`, { body: { Namespace: "team-a" } });
    expect(clone.json).toMatchObject({ Namespace: "team-a", Description: "a" });
    expect((await h.call("PUT", `/acl/token/${a.AccessorID}/clone`, { body: {} })).status).toBe(403);
    expect((await h.call("DELETE", `/acl/token/${a.AccessorID}`)).text).toBe("true");
    expect((await h.call("GET", `/acl/token/${a.AccessorID}?ns=team-a`)).status).toBe(200);
    expect((await h.call("DELETE", `/acl/token/${a.AccessorID}?ns=team-a`)).text).toBe("true");
    expect((await h.call("GET", `/acl/token/${a.AccessorID}?ns=team-a`)).status).toBe(404);
  });

  it("makes, reads and lists policies and roles in the selected namespace, and every namespace with ns=* (issue 23)", async () => {
    const h = await enterprise();
    const policy = await h.call("PUT", "/acl/policy", { body: { Namespace: "team-a", Name: "a-read", Rules: 'acl = "read"' } });
    expect(policy).toMatchObject({ status: 200, json: { Namespace: "team-a", Name: "a-read" } });
    expect(h.acl.policy("a-read", "team-a")?.id).toBe(policy.json.ID);
    expect((await h.call("GET", "/acl/policy/name/a-read")).status).toBe(403);
    expect((await h.call("GET", "/acl/policy/name/a-read?ns=team-a")).json.ID).toBe(policy.json.ID);
    const role = await h.call("PUT", "/acl/role?ns=team-a", { body: { Name: "a-readers", Policies: [{ Name: "a-read" }] } });
    expect(role).toMatchObject({ status: 200, json: { Namespace: "team-a", Policies: [{ ID: policy.json.ID, Name: "a-read" }] } });
    const names = async (path: string) => (await h.call("GET", path)).json.map((x: { Name: string }) => x.Name).sort();
    expect(await names("/acl/policies?ns=team-a")).toEqual(["a-read", "ns-write"]);
    expect(await names("/acl/policies")).toEqual(["acl-read", "global-management"]);
    expect(await names("/acl/policies?ns=*")).toEqual(["a-read", "acl-read", "global-management", "ns-write", "ns-write"]);
    expect(await names("/acl/roles?ns=*")).toEqual(["a-readers"]);
    expect(await names("/acl/roles")).toEqual([]);
    expect(await h.call("PUT", "/acl/policy", { body: { Namespace: "nope", Name: "x" } })).toMatchObject({ status: 500, text: 'Namespace "nope" does not exist' });
  });

  it("keeps a namespace's token out of other namespaces, while default-namespace operators see everything", async () => {
    const h = await enterprise();
    const teamAdmin = (await h.call("PUT", "/acl/token", { body: { Namespace: "team-a", Policies: [{ Name: "ns-write" }] } })).json;
    const own = await h.call("GET", "/acl/tokens", { token: teamAdmin.SecretID });
    expect(own.status).toBe(200);
    expect(own.json.every((x: { Namespace: string }) => x.Namespace === "team-a")).toBe(true);
    const other = await h.call("GET", "/acl/tokens?ns=team-b", { token: teamAdmin.SecretID });
    expect(other.status).toBe(403);
    const wildcard = await h.call("GET", "/acl/tokens?ns=*", { token: teamAdmin.SecretID });
    expect(wildcard.json.map((x: { Namespace: string }) => x.Namespace)).toEqual(wildcard.json.map(() => "team-a"));
    const crossPolicy = await h.call("PUT", "/acl/token", { body: { Namespace: "team-a", Policies: [{ ID: h.acl.policy("ns-write", "team-b")?.id }] } });
    expect(crossPolicy.status).toBe(500);
    expect(crossPolicy.text).toMatch(/^No such ACL policy with ID/);
    const sharedPolicy = await h.call("PUT", "/acl/token", { body: { Namespace: "team-b", Policies: [{ Name: "acl-read" }] } });
    expect(sharedPolicy.json.Policies[0].Name).toBe("acl-read");
  });

  it("gives tokens their namespace's default policies and roles", async () => {
    const h = await enterprise();
    const role = h.acl.createRole({ name: "base" });
    h.acl.createNamespace("team-c", { defaultPolicies: ["acl-read"], defaultRoles: ["base"] });
    const member = (await h.call("PUT", "/acl/token", { body: { Namespace: "team-c" } })).json;
    expect((await h.call("GET", "/acl/tokens", { token: member.SecretID })).status).toBe(200);
    const expanded = await h.call("GET", `/acl/token/${member.AccessorID}?ns=team-c&expanded`);
    expect(expanded.json.NamespaceDefaultPolicies).toEqual([{ ID: h.acl.policy("acl-read")?.id, Name: "acl-read" }]);
    expect(expanded.json.NamespaceDefaultRoles).toEqual([{ ID: role.id, Name: "base" }]);
    // Regression: the defaults' contents were missing from ExpandedPolicies / ExpandedRoles; the
    // real service expands them like the token's own links.
    expect(expanded.json.ExpandedPolicies.map((p: { Name: string }) => p.Name)).toEqual(["acl-read"]);
    expect(expanded.json.ExpandedRoles.map((r: { Name: string }) => r.Name)).toEqual(["base"]);
  });

  it("scopes auth methods, binding rules and login tokens to namespaces; authmethod-ns filters the list", async () => {
    const h = await enterprise();
    h.acl.createAuthMethod({ name: "k8s", type: "kubernetes", namespace: "team-a" });
    h.acl.registerBearerToken("k8s", "jwt", { name: "web", namespace: "apps" }, { namespace: "team-a" });
    const noMethod = await h.call("PUT", "/acl/binding-rule", { body: { AuthMethod: "k8s", BindType: "service", BindName: "x" } });
    expect([noMethod.status, noMethod.text]).toEqual([500, 'cannot find auth method with name "k8s"']);
    const created = await h.call("PUT", "/acl/binding-rule", { body: { Namespace: "team-a", AuthMethod: "k8s", BindType: "service", BindName: "${serviceaccount.name}" } });
    expect(created.json.Namespace).toBe("team-a");
    expect((await h.call("GET", "/acl/binding-rules")).json).toEqual([]);
    expect((await h.call("GET", "/acl/binding-rules?ns=*")).json.map((r: { ID: string }) => r.ID)).toEqual([created.json.ID]);
    expect((await h.call("GET", `/acl/binding-rule/${created.json.ID}?ns=team-a`)).status).toBe(200);
    const wrongNs = await h.call("POST", "/acl/login", { token: null, body: { AuthMethod: "k8s", BearerToken: "jwt" } });
    expect(wrongNs.status).toBe(403);
    const login = await h.call("POST", "/acl/login", { token: null, body: { AuthMethod: "k8s", BearerToken: "jwt", Namespace: "team-a" } });
    expect(login.json).toMatchObject({ Namespace: "team-a", AuthMethod: "k8s", AuthMethodNamespace: "team-a", ServiceIdentities: [{ ServiceName: "web" }] });
    const ids = async (query: string) => (await h.call("GET", `/acl/tokens${query}`)).json.map((x: { AccessorID: string }) => x.AccessorID);
    expect(await ids("?ns=team-a&authmethod=k8s")).toEqual([login.json.AccessorID]);
    expect(await ids("?ns=*&authmethod=k8s&authmethod-ns=team-a")).toEqual([login.json.AccessorID]);
    expect(await ids("?ns=*&authmethod=k8s&authmethod-ns=team-b")).toEqual([]);
    expect(await ids("?ns=*&authmethod=k8s")).toEqual([login.json.AccessorID]);
    expect(await ids("?ns=team-a&authmethod=k8s&authmethod-ns=default")).toEqual([]);
  });
});
