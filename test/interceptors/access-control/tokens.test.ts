import { expect, it } from "vitest";
import { describeEachTransport } from "../../support/transports.js";
import { startAcl, uuid, type AclHarness } from "./support.js";

const ANONYMOUS = "00000000-0000-0000-0000-000000000002";
const GLOBAL_MANAGEMENT = "00000000-0000-0000-0000-000000000001";

function withReaders(h: AclHarness) {
  const read = h.acl.createPolicy({ name: "acl-read", rules: 'acl = "read"' });
  const write = h.acl.createPolicy({ name: "acl-write", rules: 'acl = "write"' });
  const reader = h.acl.createToken({ description: "reader", policies: ["acl-read"] });
  const writer = h.acl.createToken({ description: "writer", policies: ["acl-write"] });
  return { read, write, reader, writer };
}

describeEachTransport("access-control: token create", (t) => {
  it("creates a token with generated UUIDs and answers every field", async () => {
    const h = await startAcl(t);
    const { read } = withReaders(h);
    const answer = await h.call("PUT", "/acl/token", { body: { Description: "ci", Policies: [{ Name: "acl-read" }] } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toMatch(/application\/json/);
    expect(Object.keys(answer.json)).toEqual([
      "AccessorID", "SecretID", "Description", "Policies", "Local", "CreateTime", "Hash", "CreateIndex", "ModifyIndex",
    ]);
    expect(answer.json).toMatchObject({
      AccessorID: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      SecretID: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4/),
      Description: "ci",
      Policies: [{ ID: read.id, Name: "acl-read" }],
      Local: false,
      CreateTime: "2024-01-01T00:00:00Z",
      Hash: expect.stringMatching(/^[A-Za-z0-9+/]+=*$/),
    });
    expect(answer.json.CreateIndex).toBe(answer.json.ModifyIndex);
    expect(answer.json.SecretID).not.toBe(answer.json.AccessorID);
    const again = await h.call("GET", `/acl/token/${answer.json.AccessorID}`);
    expect(again.json).toEqual(answer.json);
  });

  it("answers the same bytes for the same seed and the same calls", async () => {
    const bodies: string[] = [];
    for (let i = 0; i < 2; i++) {
      const h = await startAcl(t, { seed: 42 });
      h.acl.createPolicy({ name: "p", rules: 'acl = "read"' });
      bodies.push((await h.call("PUT", "/acl/token", { body: { Policies: [{ Name: "p" }], ExpirationTTL: "5m" } })).text);
      await h.doubles.close();
    }
    expect(bodies[0]).toBe(bodies[1]);
  });

  it("uses supplied AccessorID and SecretID and refuses malformed, reserved or taken ones", async () => {
    const h = await startAcl(t);
    const made = await h.call("PUT", "/acl/token", { body: { AccessorID: uuid(1), SecretID: uuid(2) } });
    expect(made.json).toMatchObject({ AccessorID: uuid(1), SecretID: uuid(2) });
    const cases: [Record<string, string>, string][] = [
      [{ AccessorID: "not-a-uuid" }, "Invalid Token: AccessorID is not a valid UUID"],
      [{ SecretID: "xyz" }, "Invalid Token: SecretID is not a valid UUID"],
      [{ AccessorID: "00000000-0000-0000-0000-000000000042" }, 'Invalid Token: UUIDs with the prefix "00000000-0000-0000-0000-0000000000" are reserved'],
      [{ SecretID: "00000000-0000-0000-0000-000000000042" }, 'Invalid Token: UUIDs with the prefix "00000000-0000-0000-0000-0000000000" are reserved'],
      [{ AccessorID: uuid(1) }, "Invalid Token: AccessorID is already in use"],
      [{ SecretID: uuid(2) }, "Invalid Token: SecretID is already in use"],
      [{ AccessorID: uuid(3), SecretID: h.root }, "Invalid Token: SecretID is already in use"],
    ];
    for (const [body, message] of cases) {
      const answer = await h.call("PUT", "/acl/token", { body });
      expect({ body, status: answer.status, text: answer.text }).toEqual({ body, status: 500, text: message });
    }
    expect(h.acl.tokens()).toHaveLength(3);
  });

  it("resolves policy and role links by ID or Name, answers both, and refuses unknown ones", async () => {
    const h = await startAcl(t);
    const p1 = h.acl.createPolicy({ name: "p1" });
    const p2 = h.acl.createPolicy({ name: "p2" });
    const role = h.acl.createRole({ name: "r1", policies: ["p1"] });
    const made = await h.call("PUT", "/acl/token", {
      body: { Policies: [{ ID: p1.id }, { Name: "p2" }, { Name: "p1" }], Roles: [{ Name: "r1" }, { ID: role.id }] },
    });
    expect(made.json.Policies).toEqual([{ ID: p1.id, Name: "p1" }, { ID: p2.id, Name: "p2" }]);
    expect(made.json.Roles).toEqual([{ ID: role.id, Name: "r1" }]);
    h.acl.updatePolicy(p2.id, { name: "p2-renamed" });
    const renamed = await h.call("GET", `/acl/token/${made.json.AccessorID}`);
    expect(renamed.json.Policies).toEqual([{ ID: p1.id, Name: "p1" }, { ID: p2.id, Name: "p2-renamed" }]);
    for (const [body, message] of [
      [{ Policies: [{ Name: "nope" }] }, 'No such ACL policy with name "nope"'],
      [{ Policies: [{ ID: uuid(9) }] }, `No such ACL policy with ID "${uuid(9)}"`],
      [{ Roles: [{ Name: "nope" }] }, 'No such ACL role with name "nope"'],
      [{ Roles: [{ ID: uuid(9) }] }, `No such ACL role with ID "${uuid(9)}"`],
    ] as const) {
      const answer = await h.call("PUT", "/acl/token", { body });
      expect([answer.status, answer.text]).toEqual([500, message]);
    }
  });

  it("checks service identities: required name, the name rule, no datacenters on local tokens, duplicates merged", async () => {
    const h = await startAcl(t);
    const ok = await h.call("PUT", "/acl/token", {
      body: {
        ServiceIdentities: [
          { ServiceName: "web", Datacenters: ["dc1"] },
          { ServiceName: "api_v2-x" },
          { ServiceName: "web", Datacenters: ["dc2"] },
          { ServiceName: "a".repeat(256) },
        ],
      },
    });
    expect(ok.status).toBe(200);
    expect(ok.json.ServiceIdentities).toEqual([
      { ServiceName: "a".repeat(256) },
      { ServiceName: "api_v2-x" },
      { ServiceName: "web", Datacenters: ["dc1", "dc2"] },
    ]);
    const refused: [unknown, string][] = [
      [{ ServiceIdentities: [{ Datacenters: ["dc1"] }] }, "Service identity is missing the service name field on this token"],
      [{ ServiceIdentities: [{ ServiceName: "Web" }] }, `Service identity "Web" has an invalid name. Only lowercase alphanumeric characters, '-' and '_' are allowed`],
      [{ ServiceIdentities: [{ ServiceName: "-web" }] }, `Service identity "-web" has an invalid name. Only lowercase alphanumeric characters, '-' and '_' are allowed`],
      [{ ServiceIdentities: [{ ServiceName: "web_" }] }, `Service identity "web_" has an invalid name. Only lowercase alphanumeric characters, '-' and '_' are allowed`],
      [{ ServiceIdentities: [{ ServiceName: "a".repeat(257) }] }, `Service identity "${"a".repeat(257)}" has an invalid name. Only lowercase alphanumeric characters, '-' and '_' are allowed`],
      [{ Local: true, ServiceIdentities: [{ ServiceName: "web", Datacenters: ["dc1"] }] }, 'Service identity "web" cannot specify a list of datacenters on a local token'],
    ];
    for (const [body, message] of refused) {
      const answer = await h.call("PUT", "/acl/token", { body });
      expect([answer.status, answer.text]).toEqual([500, message]);
    }
  });

  it("checks node identities: required name and datacenter, the name rule", async () => {
    const h = await startAcl(t);
    const ok = await h.call("PUT", "/acl/token", { body: { NodeIdentities: [{ NodeName: "node-1", Datacenter: "dc1" }] } });
    expect(ok.json.NodeIdentities).toEqual([{ NodeName: "node-1", Datacenter: "dc1" }]);
    for (const [body, message] of [
      [{ NodeIdentities: [{ Datacenter: "dc1" }] }, "Node identity is missing the node name field on this token"],
      [{ NodeIdentities: [{ NodeName: "n1" }] }, "Node identity is missing the datacenter field on this token"],
      [{ NodeIdentities: [{ NodeName: "N1", Datacenter: "dc1" }] }, "Node identity has an invalid name. Only lowercase alphanumeric characters, '-' and '_' are allowed"],
      [{ NodeIdentities: [{ NodeName: "n".repeat(257), Datacenter: "dc1" }] }, "Node identity has an invalid name. Only lowercase alphanumeric characters, '-' and '_' are allowed"],
    ] as const) {
      const answer = await h.call("PUT", "/acl/token", { body });
      expect([answer.status, answer.text]).toEqual([500, message]);
    }
  });

  it("refuses AuthMethod outside login", async () => {
    const h = await startAcl(t);
    const answer = await h.call("PUT", "/acl/token", { body: { AuthMethod: "k8s" } });
    expect([answer.status, answer.text]).toEqual([500, "AuthMethod field is disallowed outside of Login"]);
  });

  it("answers 400 for bodies it cannot decode and stores nothing", async () => {
    const h = await startAcl(t);
    const before = h.doubles.snapshot();
    const cases: [string, RegExp][] = [
      ['{"Description":', /^Token decoding failed: unexpected EOF$/],
      ["{nope}", /^Token decoding failed: invalid character/],
      ["", /^Token decoding failed: EOF$/],
      ["[1,2]", /^Token decoding failed: json: cannot unmarshal array into Go value of type structs.ACLToken$/],
      ['{"Description": 5}', /^Token decoding failed: json: cannot unmarshal number into Go struct field ACLToken.Description of type string$/],
      ['{"Local": "yes"}', /^Token decoding failed: json: cannot unmarshal string into Go struct field ACLToken.Local of type bool$/],
      ['{"Policies": {"Name": "x"}}', /^Token decoding failed: json: cannot unmarshal object into Go struct field ACLToken.Policies/],
      ['{"Policies": [{"Name": 3}]}', /^Token decoding failed: json: cannot unmarshal number into Go struct field ACLToken.Policies.Name of type string$/],
      ['{"ExpirationTTL": "soon"}', /^Token decoding failed: time: invalid duration "soon"$/],
      ['{"ExpirationTTL": "10"}', /^Token decoding failed: time: invalid duration "10"$/],
      ['{"ExpirationTime": "tomorrow"}', /^Token decoding failed: parsing time/],
      ['{"ExpirationTime": 5}', /^Token decoding failed: Time.UnmarshalJSON: input is not a JSON string$/],
    ];
    for (const [raw, message] of cases) {
      const answer = await h.call("PUT", "/acl/token", { rawBody: raw });
      expect({ raw, status: answer.status }).toEqual({ raw, status: 400 });
      expect(answer.text).toMatch(message);
      expect(answer.headers.get("content-type")).toMatch(/^text\/plain/);
    }
    expect(h.doubles.snapshot().services).toEqual(before.services);
  });

  it("matches field names without regard to case and accepts the fields the service sets itself", async () => {
    const h = await startAcl(t);
    h.acl.createPolicy({ name: "p" });
    const answer = await h.call("PUT", "/acl/token", { body: { description: "lower", policies: [{ name: "p" }], Hash: "x", createindex: 7 } });
    expect(answer.status).toBe(200);
    expect(answer.json.Description).toBe("lower");
    expect(answer.json.Policies[0].Name).toBe("p");
    expect(answer.json.Hash).not.toBe("x");
    expect(answer.json.CreateIndex).not.toBe(7);
    // A token read back can be sent again as it is (CreateTime, Hash and the indexes are ignored).
    const read = (await h.call("GET", `/acl/token/${answer.json.AccessorID}`)).json;
    const again = await h.call("PUT", `/acl/token/${read.AccessorID}`, { body: { ...read, Description: "again" } });
    expect([again.status, again.json?.Description, again.json?.CreateTime]).toEqual([200, "again", read.CreateTime]);
  });

  it("refuses unknown fields with 400, reporting the first bad key in document order, like the real decoder", async () => {
    // Regression: unknown fields used to be ignored. The real service decodes bodies with
    // DisallowUnknownFields, so a misspelt field is a 400, not a silently default value.
    const h = await startAcl(t);
    const token = h.acl.createToken();
    h.acl.createAuthMethod({ name: "k8s", type: "kubernetes" });
    const before = h.doubles.snapshot().services;
    const cases: [string, string, string, string][] = [
      ["PUT", "/acl/token", '{"Description":"x","Polices":[]}', 'Token decoding failed: json: unknown field "Polices"'],
      ["PUT", "/acl/token", '{"Policies":[{"Name":"p","Namespace":"x"}]}', 'Token decoding failed: json: unknown field "Namespace" - Namespaces are an enterprise feature'],
      ["PUT", "/acl/token", '{"ServiceIdentities":[{"ServiceName":"web","Datacenter":"dc1"}]}', 'Token decoding failed: json: unknown field "Datacenter"'],
      ["PUT", "/acl/token", '{"TTL":"5m"}', 'Token decoding failed: json: unknown field "TTL"'],
      ["PUT", "/acl/token", '{"Bogus":1,"Description":5}', 'Token decoding failed: json: unknown field "Bogus"'],
      ["PUT", "/acl/token", '{"Description":5,"Bogus":1}', "Token decoding failed: json: cannot unmarshal number into Go struct field ACLToken.Description of type string"],
      ["PUT", "/acl/token", '{"CreateIndex":-1}', "Token decoding failed: json: cannot unmarshal number -1 into Go struct field ACLToken.CreateIndex of type uint64"],
      ["PUT", `/acl/token/${token.accessorId}`, '{"ExpandedPolicies":[]}', 'Token decoding failed: json: unknown field "ExpandedPolicies"'],
      ["PUT", `/acl/token/${token.accessorId}/clone`, '{"Descripton":"typo"}', 'Token decoding failed: json: unknown field "Descripton"'],
      ["PUT", "/acl/binding-rule", '{"AuthMethod":"k8s","BindType":"service","BindName":"x","Selecter":"a==b"}', 'BindingRule decoding failed: json: unknown field "Selecter"'],
      ["POST", "/acl/login", '{"AuthMethod":"k8s","BearerToken":"x","Token":"y"}', 'Failed to decode request body: json: unknown field "Token"'],
    ];
    for (const [method, path, rawBody, message] of cases) {
      const answer = await h.call(method, path, { rawBody, token: method === "POST" ? null : undefined });
      expect({ rawBody, status: answer.status, text: answer.text }).toEqual({ rawBody, status: 400, text: message });
    }
    expect(h.doubles.snapshot().services).toEqual(before);
  });
});

describeEachTransport("access-control: token read, self, list", (t) => {
  it("lists the built-in anonymous and bootstrap tokens", async () => {
    const h = await startAcl(t);
    const answer = await h.call("GET", "/acl/tokens");
    expect(answer.status).toBe(200);
    const byDescription = Object.fromEntries(answer.json.map((tok: { Description: string }) => [tok.Description, tok]));
    expect(byDescription["Anonymous Token"]).toMatchObject({ AccessorID: ANONYMOUS, SecretID: "anonymous", Local: false });
    expect(byDescription["Anonymous Token"].Policies).toBeUndefined();
    expect(byDescription["Bootstrap Token (Global Management)"]).toMatchObject({
      AccessorID: h.acl.bootstrapToken.accessorId,
      SecretID: h.root,
      Policies: [{ ID: GLOBAL_MANAGEMENT, Name: "global-management" }],
    });
  });

  it("hides the SecretID from an acl:read caller whatever the path's spelling (fuzz seed 8 index 99891), and shows it once a write gives that token acl:write", async () => {
    const h = await startAcl(t);
    const { reader } = withReaders(h);
    const bootstrap = h.acl.bootstrapToken.accessorId;
    for (const suffix of ["", "/", "/.", "?expanded", "/?expanded"]) {
      const answer = await h.call("GET", `/acl/token/${bootstrap}${suffix}`, { token: reader.secretId });
      expect({ suffix, leaked: answer.text.includes(h.root) }).toEqual({ suffix, leaked: false });
    }
    // What the fuzz saw: the episode's index 99890 (a privileged PUT) gave its "under" token acl-write.
    const none = h.acl.createToken({ description: "nothing" });
    const update = await h.call("PUT", `/acl/token/${none.accessorId}`, { body: { Description: "fuzz", Policies: [{ Name: "acl-write" }] } });
    expect(update.status).toBe(200);
    const now = await h.call("GET", `/acl/token/${bootstrap}/.`, { token: none.secretId });
    expect(now.text).toContain(h.root);
  });

  it("shows the SecretID to acl:write callers and <hidden> to acl:read callers, on read and list", async () => {
    const h = await startAcl(t);
    const { reader, writer } = withReaders(h);
    const asReader = await h.call("GET", `/acl/token/${writer.accessorId}`, { token: reader.secretId });
    expect(asReader.json.SecretID).toBe("<hidden>");
    const asWriter = await h.call("GET", `/acl/token/${reader.accessorId}`, { token: writer.secretId });
    expect(asWriter.json.SecretID).toBe(reader.secretId);
    const listed = await h.call("GET", "/acl/tokens", { token: reader.secretId });
    expect(listed.json.map((x: { SecretID: string }) => x.SecretID)).toEqual(listed.json.map(() => "<hidden>"));
    const listedByWriter = await h.call("GET", "/acl/tokens", { token: writer.secretId });
    expect(listedByWriter.json.map((x: { SecretID: string }) => x.SecretID)).toContain(reader.secretId);
  });

  it("answers 404 for an unknown token and 403 for a caller without acl:read", async () => {
    const h = await startAcl(t);
    const missing = await h.call("GET", `/acl/token/${uuid(7)}`);
    expect([missing.status, missing.text]).toEqual([404, "Requested token does not exist: ACL not found"]);
    const nobody = h.acl.createToken({ description: "no rights" });
    const denied = await h.call("GET", `/acl/token/${nobody.accessorId}`, { token: nobody.secretId });
    expect([denied.status, denied.text]).toEqual([403, `Permission denied: token with AccessorID '${nobody.accessorId}' lacks permission 'acl:read'`]);
    const anonymous = await h.call("GET", "/acl/tokens", { token: null });
    expect([anonymous.status, anonymous.text]).toEqual([
      403,
      "Permission denied: anonymous token lacks permission 'acl:read'. The anonymous token is used implicitly when a request does not specify a token.",
    ]);
    const unknown = await h.call("GET", "/acl/tokens", { token: uuid(8) });
    expect([unknown.status, unknown.text]).toEqual([403, "ACL not found"]);
  });

  it("expands policies, roles and identity policies with `expanded`", async () => {
    const h = await startAcl(t);
    const p1 = h.acl.createPolicy({ name: "p1", rules: 'acl = "read"', datacenters: ["dc1"] });
    const p2 = h.acl.createPolicy({ name: "p2", rules: 'key_prefix "" { policy = "read" }' });
    const role = h.acl.createRole({ name: "r1", policies: ["p2"], serviceIdentities: [{ serviceName: "db" }] });
    const token = h.acl.createToken({ policies: ["p1"], roles: ["r1"], serviceIdentities: ["web"], nodeIdentities: [{ nodeName: "n1", datacenter: "dc1" }] });
    const plain = await h.call("GET", `/acl/token/${token.accessorId}`);
    expect(plain.json.ExpandedPolicies).toBeUndefined();
    expect((await h.call("GET", `/acl/token/${token.accessorId}?expanded=false`)).json.ExpandedPolicies).toBeUndefined();
    expect((await h.call("GET", `/acl/token/${token.accessorId}?expanded=true`)).json.ExpandedPolicies).toHaveLength(5);
    const answer = await h.call("GET", `/acl/token/${token.accessorId}?expanded`);
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({
      AccessorID: token.accessorId,
      ExpandedRoles: [{ ID: role.id, Name: "r1", Description: "", Policies: [{ ID: p2.id, Name: "p2" }], ServiceIdentities: [{ ServiceName: "db" }] }],
      NamespaceDefaultPolicies: [],
      NamespaceDefaultRoles: [],
      AgentACLDefaultPolicy: "deny",
      AgentACLDownPolicy: "extend-cache",
      ResolvedByAgent: "server-1",
    });
    const names = answer.json.ExpandedPolicies.map((p: { Name: string }) => p.Name);
    expect(names.slice(0, 2)).toEqual(["p1", "p2"]);
    expect(names.slice(2)).toHaveLength(3);
    for (const name of names.slice(2)) expect(name).toMatch(/^synthetic-policy-[0-9a-f]{32}$/);
    expect(answer.json.ExpandedPolicies[0]).toEqual({
      ID: p1.id, Name: "p1", Description: "", Rules: 'acl = "read"', Datacenters: ["dc1"], Hash: p1.hash, CreateIndex: p1.createIndex, ModifyIndex: p1.modifyIndex,
    });
    const web = answer.json.ExpandedPolicies.find((p: { Description: string }) => p.Description === 'synthetic policy for service identity "web"');
    expect(web.Rules).toContain('service "web-sidecar-proxy"');
    const node = answer.json.ExpandedPolicies.find((p: { Description: string }) => p.Description === 'synthetic policy for node identity "n1"');
    expect(node.Datacenters).toEqual(["dc1"]);
  });

  it("reads the caller's own token on /acl/token/self without any permission", async () => {
    const h = await startAcl(t);
    const nobody = h.acl.createToken({ description: "no rights" });
    const self = await h.call("GET", "/acl/token/self", { token: nobody.secretId });
    expect(self.status).toBe(200);
    expect(self.json).toMatchObject({ AccessorID: nobody.accessorId, SecretID: nobody.secretId, Description: "no rights" });
    const viaQuery = await h.call("GET", `/acl/token/self?token=${nobody.secretId}`, { token: null });
    expect(viaQuery.json.AccessorID).toBe(nobody.accessorId);
    const none = await h.call("GET", "/acl/token/self", { token: null });
    expect([none.status, none.text]).toEqual([403, "ACL not found"]);
    const unknown = await h.call("GET", "/acl/token/self", { token: uuid(5) });
    expect([unknown.status, unknown.text]).toEqual([403, "ACL not found"]);
  });

  it("accepts the secret as X-Acl-Token, as ?token= (which wins) and as Authorization: Bearer", async () => {
    const h = await startAcl(t);
    const { reader } = withReaders(h);
    const viaBearer = await h.call("GET", "/acl/token/self", { token: null, headers: { Authorization: `Bearer ${reader.secretId}` } });
    expect(viaBearer.json.AccessorID).toBe(reader.accessorId);
    const queryWins = await h.call("GET", `/acl/token/self?token=${reader.secretId}`, { token: h.root });
    expect(queryWins.json.AccessorID).toBe(reader.accessorId);
    for (const authorization of [`Bearer  ${reader.secretId}`, `bearer ${reader.secretId} trailing words`]) {
      const answer = await h.call("GET", "/acl/token/self", { token: null, headers: { Authorization: authorization } });
      expect({ authorization, id: answer.json?.AccessorID }).toEqual({ authorization, id: reader.accessorId });
    }
    expect((await h.call("GET", "/acl/token/self", { token: null, headers: { Authorization: `Basic ${reader.secretId}` } })).status).toBe(403);
    const headerBeatsBearer = await h.call("GET", "/acl/token/self", { token: reader.secretId, headers: { Authorization: `Bearer ${h.root}` } });
    expect(headerBeatsBearer.json.AccessorID).toBe(reader.accessorId);
  });

  it("filters the list by policy, role, servicename and authmethod, one at a time", async () => {
    const h = await startAcl(t);
    const p = h.acl.createPolicy({ name: "p" });
    const r = h.acl.createRole({ name: "r" });
    const withPolicy = h.acl.createToken({ policies: ["p"] });
    const withRole = h.acl.createToken({ roles: ["r"] });
    const withService = h.acl.createToken({ serviceIdentities: ["web", "api"] });
    h.acl.createAuthMethod({ name: "k8s", type: "kubernetes" });
    const ids = async (query: string) =>
      ((await h.call("GET", `/acl/tokens?${query}`)).json as { AccessorID: string }[]).map((x) => x.AccessorID);
    expect(await ids(`policy=${p.id}`)).toEqual([withPolicy.accessorId]);
    expect(await ids(`policy=${GLOBAL_MANAGEMENT}`)).toEqual([h.acl.bootstrapToken.accessorId]);
    expect(await ids(`role=${r.id}`)).toEqual([withRole.accessorId]);
    expect(await ids("servicename=api")).toEqual([withService.accessorId]);
    expect(await ids("servicename=nope")).toEqual([]);
    expect(await ids("authmethod=k8s")).toEqual([]);
    const all = await ids("");
    expect(all).toEqual([...all].sort());
    expect(all).toHaveLength(5);
    const both = await h.call("GET", `/acl/tokens?policy=${p.id}&role=${r.id}`);
    expect([both.status, both.text]).toEqual([500, "can only filter by one of policy, role, serviceName, or authMethod at once"]);
  });

  it("leaves empty optional fields out of list items", async () => {
    const h = await startAcl(t);
    const token = h.acl.createToken({ description: "bare" });
    const list = await h.call("GET", "/acl/tokens");
    const item = list.json.find((x: { AccessorID: string }) => x.AccessorID === token.accessorId);
    expect(Object.keys(item)).toEqual(["AccessorID", "SecretID", "Description", "Local", "CreateTime", "Hash", "CreateIndex", "ModifyIndex"]);
  });
});

describeEachTransport("access-control: token update", (t) => {
  it("replaces the mutable fields, keeps CreateTime and CreateIndex, bumps ModifyIndex", async () => {
    const h = await startAcl(t);
    const { read } = withReaders(h);
    const created = (await h.call("PUT", "/acl/token", { body: { Description: "v1", Policies: [{ Name: "acl-read" }], ServiceIdentities: [{ ServiceName: "web" }] } })).json;
    h.doubles.advance("1m");
    const updated = await h.call("PUT", `/acl/token/${created.AccessorID}`, { body: { Description: "v2", NodeIdentities: [{ NodeName: "n1", Datacenter: "dc1" }] } });
    expect(updated.status).toBe(200);
    expect(updated.json).toMatchObject({
      AccessorID: created.AccessorID,
      SecretID: created.SecretID,
      Description: "v2",
      NodeIdentities: [{ NodeName: "n1", Datacenter: "dc1" }],
      CreateTime: created.CreateTime,
      CreateIndex: created.CreateIndex,
    });
    expect(updated.json.Policies).toBeUndefined();
    expect(updated.json.ServiceIdentities).toBeUndefined();
    expect(updated.json.ModifyIndex).toBeGreaterThan(created.ModifyIndex);
    expect(updated.json.Hash).not.toBe(created.Hash);
    const withPolicy = await h.call("PUT", `/acl/token/${created.AccessorID}`, { body: { AccessorID: created.AccessorID, SecretID: created.SecretID, Policies: [{ ID: read.id }] } });
    expect(withPolicy.json.Policies).toEqual([{ ID: read.id, Name: "acl-read" }]);
  });

  it("applies update rules 1-3 with the real service's errors and changes nothing", async () => {
    const h = await startAcl(t);
    const local = (await h.call("PUT", "/acl/token", { body: { Local: true, ExpirationTTL: "1h" } })).json;
    const before = h.doubles.snapshot();
    const cases: [string, unknown, number, string][] = [
      [local.AccessorID, { AccessorID: uuid(1), Local: true }, 400, "Token Accessor ID in URL and payload do not match"],
      [local.AccessorID, { SecretID: uuid(2), Local: true }, 500, "Changing a token's SecretID is not permitted"],
      [local.AccessorID, { Local: false }, 500, `Cannot toggle local mode of ${local.AccessorID}`],
      [local.AccessorID, {}, 500, `Cannot toggle local mode of ${local.AccessorID}`],
      [local.AccessorID, { Local: true, AuthMethod: "k8s" }, 500, `Cannot change AuthMethod of ${local.AccessorID}`],
      [local.AccessorID, { Local: true, ExpirationTime: "2024-01-01T00:30:00Z" }, 500, `Cannot change expiration time of ${local.AccessorID}`],
      [local.AccessorID, { Local: true, ExpirationTTL: "2h" }, 500, `Cannot change expiration time of ${local.AccessorID}`],
      [uuid(3), { Local: true }, 500, `Cannot find token "${uuid(3)}"`],
      ["not-a-uuid", {}, 500, "AccessorID is not a valid UUID"],
    ];
    for (const [id, body, status, message] of cases) {
      const answer = await h.call("PUT", `/acl/token/${id}`, { body });
      expect({ body, status: answer.status, text: answer.text }).toEqual({ body, status, text: message });
    }
    expect(h.doubles.snapshot().services).toEqual(before.services);
    const same = await h.call("PUT", `/acl/token/${local.AccessorID}`, {
      body: { AccessorID: local.AccessorID, SecretID: local.SecretID, Local: true, ExpirationTime: local.ExpirationTime, Description: "ok" },
    });
    expect(same.status).toBe(200);
    expect(same.json).toMatchObject({ ExpirationTime: local.ExpirationTime, Local: true, Description: "ok" });
  });

  it("refuses the root authorizer names as SecretID on update with 403, before looking the token up", async () => {
    const h = await startAcl(t);
    const token = h.acl.createToken();
    for (const secret of ["allow", "deny", "manage"]) {
      for (const id of [token.accessorId, uuid(5)]) {
        const answer = await h.call("PUT", `/acl/token/${id}`, { body: { SecretID: secret } });
        expect([answer.status, answer.text]).toEqual([403, "Permission denied: Cannot modify root ACL"]);
      }
    }
  });

  it("checks the expiry limits before refusing AuthMethod on create, in the real service's order", async () => {
    const h = await startAcl(t);
    const answer = await h.call("PUT", "/acl/token", { body: { AuthMethod: "k8s", ExpirationTTL: "10s" } });
    expect([answer.status, answer.text]).toEqual([500, "Token Expiration TTL '10s' should be > 1m0s"]);
  });

  it("refuses an ExpirationTime on a token that has none", async () => {
    const h = await startAcl(t);
    const token = h.acl.createToken();
    const answer = await h.call("PUT", `/acl/token/${token.accessorId}`, { body: { ExpirationTime: "2024-01-01T01:00:00Z" } });
    expect([answer.status, answer.text]).toEqual([500, `Cannot change expiration time of ${token.accessorId}`]);
  });

  it("needs acl:write", async () => {
    const h = await startAcl(t);
    const { reader } = withReaders(h);
    const answer = await h.call("PUT", `/acl/token/${reader.accessorId}`, { token: reader.secretId, body: { Description: "x" } });
    expect([answer.status, answer.text]).toEqual([403, `Permission denied: token with AccessorID '${reader.accessorId}' lacks permission 'acl:write'`]);
  });
});

describeEachTransport("access-control: token clone and delete", (t) => {
  it("clones a token with new ids and the source's links; Description replaces when given", async () => {
    const h = await startAcl(t);
    const { read } = withReaders(h);
    const source = h.acl.createToken({ description: "src", policies: ["acl-read"], serviceIdentities: ["web"], expirationTtl: "1h" });
    const clone = await h.call("PUT", `/acl/token/${source.accessorId}/clone`, { body: { Description: "copy" } });
    expect(clone.status).toBe(200);
    expect(clone.json).toMatchObject({
      Description: "copy",
      Policies: [{ ID: read.id, Name: "acl-read" }],
      ServiceIdentities: [{ ServiceName: "web" }],
      ExpirationTime: "2024-01-01T01:00:00Z",
      Local: false,
    });
    expect(clone.json.AccessorID).not.toBe(source.accessorId);
    expect(clone.json.SecretID).not.toBe(source.secretId);
    const plain = await h.call("PUT", `/acl/token/${source.accessorId}/clone`, { body: {} });
    expect(plain.json.Description).toBe("src");
    // Regression: an empty clone body used to be accepted; the real decoder answers EOF.
    const empty = await h.call("PUT", `/acl/token/${source.accessorId}/clone`);
    expect([empty.status, empty.text]).toEqual([400, "Token decoding failed: EOF"]);
    const missing = await h.call("PUT", `/acl/token/${uuid(4)}/clone`, { body: {} });
    expect([missing.status, missing.text]).toEqual([403, "ACL not found"]);
    const broken = await h.call("PUT", `/acl/token/${source.accessorId}/clone`, { rawBody: "{" });
    expect([broken.status, broken.text]).toEqual([400, "Token decoding failed: unexpected EOF"]);
  });

  it("deletes with a bare true, also for a token that does not exist, and refuses the anonymous and the caller's own token", async () => {
    const h = await startAcl(t);
    const { writer } = withReaders(h);
    const token = h.acl.createToken();
    const deleted = await h.call("DELETE", `/acl/token/${token.accessorId}`);
    expect([deleted.status, deleted.text]).toEqual([200, "true"]);
    expect((await h.call("GET", `/acl/token/${token.accessorId}`)).status).toBe(404);
    expect((await h.call("DELETE", `/acl/token/${token.accessorId}`)).text).toBe("true");
    const anonymous = await h.call("DELETE", `/acl/token/${ANONYMOUS}`);
    expect([anonymous.status, anonymous.text]).toEqual([500, "Delete operation not permitted on the anonymous token"]);
    const own = await h.call("DELETE", `/acl/token/${writer.accessorId}`, { token: writer.secretId });
    expect([own.status, own.text]).toEqual([500, "Deletion of the request's authorization token is not permitted"]);
    const bad = await h.call("DELETE", "/acl/token/zzz");
    expect([bad.status, bad.text]).toEqual([500, "Accessor ID is missing or an invalid UUID"]);
    const secret = await h.call("GET", "/acl/token/self", { token: token.secretId });
    expect(secret.status).toBe(403);
  });
});

describeEachTransport("access-control: routing", (t) => {
  it("answers missing ids with 400, wrong methods with 405 and unknown paths with 404", async () => {
    // Regression: the real handlers word it `Missing token AccessorID`, only for `/acl/token/`;
    // `/acl/token` itself is served for PUT only (405 with Allow), and every 405 names the methods.
    const h = await startAcl(t);
    expect(await h.call("GET", "/acl/token/").then((a) => [a.status, a.text])).toEqual([400, "Missing token AccessorID"]);
    expect(await h.call("DELETE", "/acl/token/").then((a) => [a.status, a.text])).toEqual([400, "Missing token AccessorID"]);
    expect(await h.call("DELETE", "/acl/binding-rule/").then((a) => [a.status, a.text])).toEqual([400, "Missing binding rule ID"]);
    const bare = await h.call("GET", "/acl/token");
    expect([bare.status, bare.text, bare.headers.get("allow")]).toEqual([405, "method GET not allowed", "OPTIONS,PUT"]);
    expect(await h.call("DELETE", "/acl/binding-rule").then((a) => [a.status, a.headers.get("allow")])).toEqual([405, "OPTIONS,PUT"]);
    const patch = await h.call("PATCH", "/acl/tokens");
    expect([patch.status, patch.text, patch.headers.get("allow")]).toEqual([405, "method PATCH not allowed", "OPTIONS,GET"]);
    expect(await h.call("POST", `/acl/token/${uuid(1)}`).then((a) => a.headers.get("allow"))).toBe("OPTIONS,GET,PUT,DELETE");
    expect(await h.call("GET", "/acl/login").then((a) => a.status)).toBe(405);
    expect(await h.call("GET", "/acl/nothing-here").then((a) => [a.status, a.text])).toEqual([404, "404 page not found\n"]);
  });
});
