/**
 * Issue 23, item 2: the ACL policy and role endpoints (outside the spec: the real service's), over
 * the same policy and role records the scenario's fixtures make, through HTTP on every transport.
 */
import { expect, it } from "vitest";
import { describeEachTransport } from "../../support/transports.js";
import { startAcl, uuid, type AclHarness } from "./support.js";

const GLOBAL_MANAGEMENT = "00000000-0000-0000-0000-000000000001";

function readerAndWriter(h: AclHarness) {
  h.acl.createPolicy({ name: "acl-read", rules: 'acl = "read"' });
  h.acl.createPolicy({ name: "acl-write", rules: 'acl = "write"' });
  const reader = h.acl.createToken({ description: "reader", policies: ["acl-read"] });
  const writer = h.acl.createToken({ description: "writer", policies: ["acl-write"] });
  return { reader: reader.secretId, writer: writer.secretId };
}

describeEachTransport("access-control: policy endpoints", (t) => {
  it("creates, reads by ID and by name, updates, lists and deletes a policy", async () => {
    const h = await startAcl(t);
    const made = await h.call("PUT", "/acl/policy", { body: { Name: "node-read", Description: "Grants read access", Rules: 'node_prefix "" { policy = "read" }', Datacenters: ["dc1"] } });
    expect(made.status).toBe(200);
    expect(Object.keys(made.json)).toEqual(["ID", "Name", "Description", "Rules", "Datacenters", "Hash", "CreateIndex", "ModifyIndex"]);
    expect(made.json).toMatchObject({ Name: "node-read", Description: "Grants read access", Rules: 'node_prefix "" { policy = "read" }', Datacenters: ["dc1"] });
    // The HTTP-made policy is the fixture store's policy: the scenario sees it.
    expect(h.acl.policy("node-read")?.id).toBe(made.json.ID);

    const byId = await h.call("GET", `/acl/policy/${made.json.ID}`);
    expect(byId.status).toBe(200);
    expect(byId.json).toEqual(made.json);
    expect(byId.headers.get("x-consul-index")).toBe(String(made.json.ModifyIndex));
    expect((await h.call("GET", "/acl/policy/name/node-read")).json).toEqual(made.json);

    const updated = await h.call("PUT", `/acl/policy/${made.json.ID}`, { body: { Name: "node-reader", Rules: 'node_prefix "" { policy = "write" }' } });
    expect(updated.status).toBe(200);
    // Every field comes from the body: Description and Datacenters left out are cleared.
    expect(updated.json).toMatchObject({ ID: made.json.ID, Name: "node-reader", Description: "", Datacenters: [], CreateIndex: made.json.CreateIndex });
    expect(updated.json.ModifyIndex).toBeGreaterThan(made.json.ModifyIndex);
    expect(updated.json.Hash).not.toBe(made.json.Hash);

    const listed = await h.call("GET", "/acl/policies");
    expect(listed.status).toBe(200);
    expect(listed.json.map((p: { Name: string }) => p.Name).sort()).toEqual(["global-management", "node-reader"]);
    expect(listed.json.every((p: Record<string, unknown>) => !("Rules" in p))).toBe(true);
    expect(listed.headers.get("x-consul-index")).toBe(String(updated.json.ModifyIndex));

    const deleted = await h.call("DELETE", `/acl/policy/${made.json.ID}`);
    expect([deleted.status, deleted.json]).toEqual([200, true]);
    expect(h.acl.policy("node-reader")).toBeUndefined();
    expect(await h.call("DELETE", `/acl/policy/${made.json.ID}`)).toMatchObject({ status: 200, json: true });
  });

  it("answers a missing policy as the real service does: 403 ACL not found", async () => {
    const h = await startAcl(t);
    expect(await h.call("GET", `/acl/policy/${uuid(9)}`)).toMatchObject({ status: 403, text: "ACL not found" });
    expect(await h.call("GET", "/acl/policy/name/nope")).toMatchObject({ status: 403, text: "ACL not found" });
    expect(await h.call("GET", "/acl/policy/")).toMatchObject({ status: 400, text: "Missing policy ID" });
  });

  it("validates the rules language as the fake evaluates it, with the real service's messages (500)", async () => {
    const h = await startAcl(t);
    const cases: [string, string][] = [
      ["acl = read", "Failed to parse ACL rules: At 1:7: Unknown token: 1:7 IDENT read"],
      ['acl = "list"', 'Invalid acl policy: "list"'],
      ['acl = "sudo"', 'Invalid acl policy: "sudo"'],
      ['key_prefix "" { policy = "bogus" }', 'Invalid key_prefix policy: &acl.KeyRule{Prefix:"", Policy:"bogus"}'],
      ['service "web" { policy = "read" intentions = "list" }', 'Invalid service intentions policy: &acl.ServiceRule{Name:"web", Policy:"read", Intentions:"list"}'],
      ['node_prefix "" { policy = "read"', "Failed to parse ACL rules: At 1:33: object expected closing RBRACE got: EOF"],
      ['acl = "read"\nacl = "write"', 'Failed to parse ACL rules: The argument "acl" at 2:1 was already set. Each argument can only be defined once'],
      ['operator = "list"', 'Invalid operator policy: "list"'],
    ];
    for (const [rules, message] of cases) {
      const answer = await h.call("PUT", "/acl/policy", { body: { Name: "p", Rules: rules } });
      expect([rules, answer.status, answer.text]).toEqual([rules, 500, message]);
    }
    // Nothing was stored by a refused create.
    expect(h.acl.policy("p")).toBeUndefined();
    // `list` is a key level; JSON rules and comments are read as the real parser reads them.
    for (const rules of ['key_prefix "app/" { policy = "list" }', '{"acl": "read", "key_prefix": {"": {"policy": "read"}}}', '# comment\nacl = "read" // trailing']) {
      const answer = await h.call("PUT", "/acl/policy", { body: { Name: `ok-${rules.length}`, Rules: rules } });
      expect([rules, answer.status]).toEqual([rules, 200]);
    }
    // The same validation guards an update, and the policy is left as it was.
    const made = await h.call("PUT", "/acl/policy", { body: { Name: "keep", Rules: 'acl = "read"' } });
    const refused = await h.call("PUT", `/acl/policy/${made.json.ID}`, { body: { Name: "keep", Rules: 'acl = "root"' } });
    expect([refused.status, refused.text]).toEqual([500, 'Invalid acl policy: "root"']);
    expect(h.acl.policy("keep")?.rules).toBe('acl = "read"');
  });

  it("grants what the evaluator reads: an acl line inside a block grants nothing", async () => {
    const h = await startAcl(t);
    const made = await h.call("PUT", "/acl/policy", { body: { Name: "nested", Rules: 'key_prefix "" {\n  policy = "read"\n  acl = "write"\n}' } });
    expect(made.status).toBe(200);
    const token = h.acl.createToken({ policies: ["nested"] });
    expect(h.acl.access(token.secretId)).toBe("none");
    expect((await h.call("GET", "/acl/policies", { token: token.secretId })).status).toBe(403);
  });

  it("refuses bad names, taken names, body IDs and undecodable bodies", async () => {
    const h = await startAcl(t);
    expect(await h.call("PUT", "/acl/policy", { body: { Rules: "" } })).toMatchObject({ status: 500, text: "Invalid Policy: no Name is set" });
    expect(await h.call("PUT", "/acl/policy", { body: { Name: "has space" } })).toMatchObject({
      status: 500,
      text: "Invalid Policy: invalid Name. Only alphanumeric characters, '-' and '_' are allowed",
    });
    expect(await h.call("PUT", "/acl/policy", { body: { Name: "global-management" } })).toMatchObject({
      status: 500,
      text: 'Invalid Policy: A Policy with Name "global-management" already exists',
    });
    expect(await h.call("PUT", "/acl/policy", { body: { ID: uuid(1), Name: "x" } })).toMatchObject({ status: 400, text: "Cannot specify the ID when creating a new policy" });
    expect(await h.call("PUT", "/acl/policy", { body: { Name: "x", Rule: "" } })).toMatchObject({ status: 400, text: 'Policy decoding failed: json: unknown field "Rule"' });
    expect(await h.call("PUT", "/acl/policy", { body: { Name: 5 } })).toMatchObject({ status: 400, text: "Policy decoding failed: json: cannot unmarshal number into Go struct field ACLPolicy.Name of type string" });
    const made = await h.call("PUT", "/acl/policy", { body: { Name: "a" } });
    await h.call("PUT", "/acl/policy", { body: { Name: "b" } });
    expect(await h.call("PUT", `/acl/policy/${made.json.ID}`, { body: { ID: uuid(3), Name: "a" } })).toMatchObject({ status: 400, text: "Policy ID in URL and payload do not match" });
    expect(await h.call("PUT", `/acl/policy/${made.json.ID}`, { body: { Name: "b" } })).toMatchObject({ status: 500, text: 'Invalid Policy: A policy with name "b" already exists' });
    expect(await h.call("PUT", `/acl/policy/${uuid(4)}`, { body: { Name: "c" } })).toMatchObject({ status: 500, text: `cannot find policy ${uuid(4)}` });
    expect(await h.call("PUT", "/acl/policy/not-a-uuid", { body: { Name: "c" } })).toMatchObject({ status: 500, text: "Policy ID invalid UUID" });
  });

  it("guards the built-in global-management policy: its rules may not change and it may not be deleted", async () => {
    const h = await startAcl(t);
    const builtin = (await h.call("GET", `/acl/policy/${GLOBAL_MANAGEMENT}`)).json;
    expect(builtin.Name).toBe("global-management");
    expect(await h.call("PUT", `/acl/policy/${GLOBAL_MANAGEMENT}`, { body: { Name: "global-management", Rules: 'acl = "read"' } })).toMatchObject({
      status: 500,
      text: "Changing the Rules for the builtin global-management policy is not permitted",
    });
    expect(await h.call("DELETE", `/acl/policy/${GLOBAL_MANAGEMENT}`)).toMatchObject({
      status: 500,
      text: "Delete operation not permitted on the builtin global-management policy",
    });
    const renamed = await h.call("PUT", `/acl/policy/${GLOBAL_MANAGEMENT}`, { body: { Name: "root-policy", Rules: builtin.Rules } });
    expect(renamed).toMatchObject({ status: 200, json: { Name: "root-policy" } });
    // Tokens link by ID: the bootstrap token keeps full access and now names the new name.
    expect((await h.call("GET", "/acl/token/self")).json.Policies).toEqual([{ ID: GLOBAL_MANAGEMENT, Name: "root-policy" }]);
  });

  it("needs acl:read to read and acl:write to write, as the real service", async () => {
    const h = await startAcl(t);
    const { reader, writer } = readerAndWriter(h);
    const readerId = h.acl.tokens().find((x) => x.secretId === reader)?.accessorId ?? "";
    expect((await h.call("GET", "/acl/policies", { token: reader })).status).toBe(200);
    expect((await h.call("GET", "/acl/policy/name/acl-read", { token: reader })).status).toBe(200);
    expect(await h.call("PUT", "/acl/policy", { token: reader, body: { Name: "x" } })).toMatchObject({
      status: 403,
      text: `Permission denied: token with AccessorID '${readerId}' lacks permission 'acl:write'`,
    });
    expect(await h.call("GET", "/acl/policies", { token: null })).toMatchObject({ status: 403, text: expect.stringContaining("anonymous token lacks permission 'acl:read'") });
    expect(await h.call("GET", "/acl/policies", { token: "not-a-secret" })).toMatchObject({ status: 403, text: "ACL not found" });
    expect((await h.call("PUT", "/acl/policy", { token: writer, body: { Name: "x" } })).status).toBe(200);
  });

  it("deleting a policy that tokens link, as the real service: allowed, the link drops out and grants nothing", async () => {
    const h = await startAcl(t);
    const made = await h.call("PUT", "/acl/policy", { body: { Name: "acl-read", Rules: 'acl = "read"' } });
    const token = await h.call("PUT", "/acl/token", { body: { Policies: [{ Name: "acl-read" }] } });
    expect((await h.call("GET", "/acl/tokens", { token: token.json.SecretID })).status).toBe(200);
    expect(await h.call("DELETE", `/acl/policy/${made.json.ID}`)).toMatchObject({ status: 200, json: true });
    const read = await h.call("GET", `/acl/token/${token.json.AccessorID}`);
    expect(read.status).toBe(200);
    expect(read.json.Policies).toBeUndefined();
    expect(read.json.ModifyIndex).toBe(token.json.ModifyIndex);
    expect((await h.call("GET", "/acl/tokens", { token: token.json.SecretID })).status).toBe(403);
  });

  it("blocks a policy read on ?index until the policy changes, and a missing one until it appears", async () => {
    const h = await startAcl(t);
    const made = await h.call("PUT", "/acl/policy", { body: { Name: "watched", Rules: 'acl = "read"' } });
    const waiting = h.call("GET", `/acl/policy/${made.json.ID}?index=${made.json.ModifyIndex}&wait=1m`);
    await new Promise((resolve) => setTimeout(resolve, 20));
    h.acl.updatePolicy(made.json.ID, { description: "changed" });
    const answer = await waiting;
    expect(answer.json.Description).toBe("changed");
    expect(Number(answer.headers.get("x-consul-index"))).toBeGreaterThan(made.json.ModifyIndex);

    const missing = h.call("GET", "/acl/policy/name/later?index=1&wait=1m");
    await new Promise((resolve) => setTimeout(resolve, 20));
    h.acl.createPolicy({ name: "later" });
    expect(await missing).toMatchObject({ status: 200, json: { Name: "later" } });
    expect(await h.call("GET", "/acl/policies?index=abc")).toMatchObject({ status: 400, text: "Invalid index" });
  });
});

describeEachTransport("access-control: role endpoints", (t) => {
  it("creates, reads by ID and by name, updates, lists (with ?policy) and deletes a role", async () => {
    const h = await startAcl(t);
    const read = h.acl.createPolicy({ name: "acl-read", rules: 'acl = "read"' });
    const write = h.acl.createPolicy({ name: "acl-write", rules: 'acl = "write"' });
    const made = await h.call("PUT", "/acl/role", {
      body: { Name: "readers", Description: "read the ACLs", Policies: [{ Name: "acl-read" }], ServiceIdentities: [{ ServiceName: "web" }], NodeIdentities: [{ NodeName: "n1", Datacenter: "dc1" }] },
    });
    expect(made.status).toBe(200);
    expect(Object.keys(made.json)).toEqual(["ID", "Name", "Description", "Policies", "ServiceIdentities", "NodeIdentities", "Hash", "CreateIndex", "ModifyIndex"]);
    expect(made.json).toMatchObject({ Name: "readers", Policies: [{ ID: read.id, Name: "acl-read" }], ServiceIdentities: [{ ServiceName: "web" }], NodeIdentities: [{ NodeName: "n1", Datacenter: "dc1" }] });
    expect(h.acl.role("readers")?.id).toBe(made.json.ID);
    expect((await h.call("GET", `/acl/role/${made.json.ID}`)).json).toEqual(made.json);
    expect((await h.call("GET", "/acl/role/name/readers")).json).toEqual(made.json);

    const other = await h.call("PUT", "/acl/role", { body: { Name: "writers", Policies: [{ ID: write.id }] } });
    const updated = await h.call("PUT", `/acl/role/${made.json.ID}`, { body: { Name: "readers", Policies: [{ ID: read.id }, { Name: "acl-read" }] } });
    expect(updated).toMatchObject({ status: 200, json: { Policies: [{ ID: read.id, Name: "acl-read" }], ServiceIdentities: [], Description: "" } });
    expect(updated.json.NodeIdentities).toBeUndefined();

    const all = await h.call("GET", "/acl/roles");
    expect(all.json.map((r: { Name: string }) => r.Name).sort()).toEqual(["readers", "writers"]);
    expect(all.headers.get("x-consul-index")).toBe(String(Math.max(updated.json.ModifyIndex, other.json.ModifyIndex)));
    expect((await h.call("GET", `/acl/roles?policy=${write.id}`)).json.map((r: { Name: string }) => r.Name)).toEqual(["writers"]);

    expect(await h.call("DELETE", `/acl/role/${made.json.ID}`)).toMatchObject({ status: 200, json: true });
    expect(await h.call("DELETE", `/acl/role/${made.json.ID}`)).toMatchObject({ status: 200, json: true });
    expect(h.acl.role("readers")).toBeUndefined();
  });

  it("answers a missing role as the real service does: 404 with no body", async () => {
    const h = await startAcl(t);
    expect(await h.call("GET", `/acl/role/${uuid(7)}`)).toMatchObject({ status: 404, text: "" });
    expect(await h.call("GET", "/acl/role/name/nope")).toMatchObject({ status: 404, text: "" });
    expect(await h.call("DELETE", "/acl/role/")).toMatchObject({ status: 400, text: "Missing role ID" });
  });

  it("refuses a missing policy, bad identities, body IDs, taken names and bad tokens", async () => {
    const h = await startAcl(t);
    const { reader } = readerAndWriter(h);
    expect(await h.call("PUT", "/acl/role", { body: { Name: "r", Policies: [{ Name: "nope" }] } })).toMatchObject({ status: 500, text: 'No such ACL policy with name "nope"' });
    expect(await h.call("PUT", "/acl/role", { body: { Name: "r", Policies: [{ ID: uuid(5) }] } })).toMatchObject({ status: 500, text: `No such ACL policy with ID "${uuid(5)}"` });
    expect(await h.call("PUT", "/acl/role", { body: { Name: "r", ServiceIdentities: [{ ServiceName: "Web!" }] } })).toMatchObject({
      status: 500,
      text: `Service identity "Web!" has an invalid name. Only lowercase alphanumeric characters, '-' and '_' are allowed`,
    });
    expect(await h.call("PUT", "/acl/role", { body: { Name: "r", NodeIdentities: [{ NodeName: "n1" }] } })).toMatchObject({ status: 500, text: "Node identity is missing the datacenter field on this role" });
    expect(await h.call("PUT", "/acl/role", { body: { Name: "r", Policies: "acl-read" } })).toMatchObject({
      status: 400,
      text: "Role decoding failed: json: cannot unmarshal string into Go struct field ACLRole.Policies of type []*structs.ACLRolePolicyLink",
    });
    expect(await h.call("PUT", "/acl/role", { body: { ID: uuid(1), Name: "r" } })).toMatchObject({ status: 400, text: "Cannot specify the ID when creating a new role" });
    expect(h.acl.role("r")).toBeUndefined();
    const made = await h.call("PUT", "/acl/role", { body: { Name: "r" } });
    await h.call("PUT", "/acl/role", { body: { Name: "s" } });
    expect(await h.call("PUT", "/acl/role", { body: { Name: "r" } })).toMatchObject({ status: 500, text: 'Invalid Role: A Role with Name "r" already exists' });
    expect(await h.call("PUT", `/acl/role/${made.json.ID}`, { body: { Name: "s" } })).toMatchObject({ status: 500, text: 'Invalid Role: A role with name "s" already exists' });
    expect(await h.call("PUT", `/acl/role/${made.json.ID}`, { body: { ID: uuid(2), Name: "r" } })).toMatchObject({ status: 400, text: "Role ID in URL and payload do not match" });
    expect(await h.call("PUT", `/acl/role/${uuid(6)}`, { body: { Name: "r" } })).toMatchObject({ status: 500, text: `cannot find role ${uuid(6)}` });
    expect(await h.call("PUT", "/acl/role/xyz", { body: { Name: "r" } })).toMatchObject({ status: 500, text: "Role ID invalid UUID" });
    expect((await h.call("PUT", "/acl/role", { token: reader, body: { Name: "t" } })).status).toBe(403);
    expect((await h.call("GET", "/acl/roles", { token: reader })).status).toBe(200);
    expect(await h.call("GET", "/acl/roles", { token: "bad" })).toMatchObject({ status: 403, text: "ACL not found" });
  });

  it("a role made through HTTP is usable by a token, and deleting it takes its rights away", async () => {
    const h = await startAcl(t);
    await h.call("PUT", "/acl/policy", { body: { Name: "acl-write", Rules: 'acl = "write"' } });
    const role = await h.call("PUT", "/acl/role", { body: { Name: "admins", Policies: [{ Name: "acl-write" }] } });
    const token = await h.call("PUT", "/acl/token", { body: { Description: "via role", Roles: [{ Name: "admins" }] } });
    expect(token.json.Roles).toEqual([{ ID: role.json.ID, Name: "admins" }]);
    // The token acts through the role: it may write.
    const made = await h.call("PUT", "/acl/token", { token: token.json.SecretID, body: { Description: "made by a role's token" } });
    expect(made.status).toBe(200);
    expect((await h.call("GET", `/acl/tokens?role=${role.json.ID}`)).json.map((x: { AccessorID: string }) => x.AccessorID)).toEqual([token.json.AccessorID]);
    expect(await h.call("DELETE", `/acl/role/${role.json.ID}`)).toMatchObject({ status: 200, json: true });
    expect((await h.call("GET", `/acl/token/${token.json.AccessorID}`)).json.Roles).toBeUndefined();
    expect((await h.call("PUT", "/acl/token", { token: token.json.SecretID, body: {} })).status).toBe(403);
  });
});
