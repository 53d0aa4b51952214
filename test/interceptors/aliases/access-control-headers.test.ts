/**
 * The access-control service's real header names beside the spec's (issue 7, item 1): the token in
 * `X-Consul-Token`, the namespace in `X-Consul-Namespace`, and on every answer that carries the
 * index (the real service's query metadata) `X-Consul-Index`, `X-Consul-KnownLeader: true` and
 * `X-Consul-LastContact: 0` beside `X-Acl-Index`.
 */
import { expect, it } from "vitest";
import { describeEachTransport } from "../../support/transports.js";
import { startAcl } from "../access-control/support.js";

describeEachTransport("access-control: real client header names", (t) => {
  it("takes the secret from X-Consul-Token like X-Acl-Token", async () => {
    // Regression (issue 7): the consul client sends X-Consul-Token and got 403 as anonymous.
    const h = await startAcl(t);
    const created = await h.call("PUT", "/acl/token", { token: null, headers: { "X-Consul-Token": h.root }, body: { Description: "c" } });
    expect([created.status, created.json?.Description]).toEqual([200, "c"]);
    const unknown = await h.call("GET", "/acl/tokens", { token: null, headers: { "X-Consul-Token": "nope" } });
    expect([unknown.status, unknown.text]).toEqual([403, "ACL not found"]);
  });

  it("orders the secret sources: ?token, X-Acl-Token, X-Consul-Token, Authorization: Bearer", async () => {
    const h = await startAcl(t);
    h.acl.createPolicy({ name: "acl-read", rules: 'acl = "read"' });
    const reader = h.acl.createToken({ policies: [{ name: "acl-read" }] }).secretId;
    const write = async (query: string, headers: Record<string, string>) =>
      (await h.call("PUT", `/acl/token${query}`, { token: null, headers, body: {} })).status;
    expect(await write(`?token=${reader}`, { "X-Acl-Token": h.root })).toBe(403);
    expect(await write(`?token=${h.root}`, { "X-Consul-Token": reader })).toBe(200);
    expect(await write("", { "X-Acl-Token": reader, "X-Consul-Token": h.root })).toBe(403);
    expect(await write("", { "X-Acl-Token": h.root, "X-Consul-Token": reader })).toBe(200);
    expect(await write("", { "X-Consul-Token": reader, Authorization: `Bearer ${h.root}` })).toBe(403);
    expect(await write("", { "X-Consul-Token": h.root, Authorization: `Bearer ${reader}` })).toBe(200);
    expect(await write("", { "X-Acl-Token": "", "X-Consul-Token": h.root })).toBe(200);
  });

  it("answers the index under both names with the leader headers on reads, and none of them on writes", async () => {
    // Regression (issue 7): the consul client's watch reads X-Consul-Index ("Watch not supported" without it).
    const h = await startAcl(t);
    const token = h.acl.createToken({ description: "x" });
    const meta = (a: { headers: Headers }) =>
      ["x-acl-index", "x-consul-index", "x-consul-knownleader", "x-consul-lastcontact"].map((name) => a.headers.get(name));
    const index = String(token.modifyIndex);
    expect(meta(await h.call("GET", `/acl/token/${token.accessorId}`))).toEqual([index, index, "true", "0"]);
    expect(meta(await h.call("GET", "/acl/tokens"))).toEqual([index, index, "true", "0"]);
    expect(meta(await h.call("GET", "/acl/binding-rules"))).toEqual(["1", "1", "true", "0"]);
    // A refused or missing read still carries them (the real service sets its metadata first) ...
    expect(meta(await h.call("GET", "/acl/token/00000000-0000-4000-8000-000000000099"))).toEqual(["1", "1", "true", "0"]);
    expect(meta(await h.call("GET", "/acl/tokens", { token: null }))).toEqual(["1", "1", "true", "0"]);
    // ... a request-shape error (400) and writes carry none.
    expect(meta(await h.call("GET", "/acl/tokens?index=x"))).toEqual([null, null, null, null]);
    expect(meta(await h.call("PUT", "/acl/token", { body: {} }))).toEqual([null, null, null, null]);
  });
});

describeEachTransport("access-control: X-Consul-Namespace", (t) => {
  it("is refused without namespaces, naming the header that was sent", async () => {
    const h = await startAcl(t);
    const answer = await h.call("GET", "/acl/tokens", { headers: { "X-Consul-Namespace": "team-a" } });
    expect([answer.status, answer.text]).toEqual([400, 'Invalid header: "X-Consul-Namespace" - Namespaces are an enterprise feature']);
    const both = await h.call("GET", "/acl/tokens", { headers: { "X-Acl-Namespace": "team-a", "X-Consul-Namespace": "team-b" } });
    expect([both.status, both.text]).toEqual([400, 'Invalid header: "X-Acl-Namespace" - Namespaces are an enterprise feature']);
  });

  it("selects the namespace after ns and X-Acl-Namespace, before the caller's token", async () => {
    const h = await startAcl(t, { settings: { namespaces: true } });
    h.acl.createNamespace("team-a");
    h.acl.createNamespace("team-b");
    const viaConsul = await h.call("PUT", "/acl/token", { body: {}, headers: { "X-Consul-Namespace": "team-a" } });
    expect(viaConsul.json.Namespace).toBe("team-a");
    const aclFirst = await h.call("PUT", "/acl/token", { body: {}, headers: { "X-Acl-Namespace": "team-b", "X-Consul-Namespace": "team-a" } });
    expect(aclFirst.json.Namespace).toBe("team-b");
    const queryFirst = await h.call("PUT", "/acl/token?ns=team-b", { body: {}, headers: { "X-Consul-Namespace": "team-a" } });
    expect(queryFirst.json.Namespace).toBe("team-b");
    const read = await h.call("GET", `/acl/token/${viaConsul.json.AccessorID}`, { headers: { "X-Consul-Namespace": "team-a" } });
    expect(read.status).toBe(200);
  });
});
