/**
 * The consul npm client 2.x, configured as its README says (`new Consul({ host, port, secure,
 * defaults: { token } })`), against the access-control service through nock and through the local
 * server (issue 7, item 7). It has no wrappers for the token and binding-rule endpoints, so they
 * are called through its own request layer (`_get`/`_put`/`_delete` with its `utils.options`, as
 * its wrappers such as `kv.get` do), which adds the token header, `index` and `wait`.
 */
import { EventEmitter } from "node:events";
import { createRequire } from "node:module";
import { expect, it, vi } from "vitest";
import { createDoubles } from "../../src/index.js";
import { describeEachTransport, type TransportHarness } from "../support/transports.js";

const require = createRequire(import.meta.url);

/* eslint-disable @typescript-eslint/no-explicit-any -- the consul client ships loose typings for its request layer */
const Consul = require("consul") as (new (options: Record<string, unknown>) => any) & { parseQueryMeta(res: unknown): unknown };
const utils = require("consul/lib/utils.js") as any;

type Body = any;

/** An ACL call through the client's request layer, built like its own wrappers. */
function aclCall(consul: any, method: "_get" | "_put" | "_delete", name: string, path: string) {
  // The watch calls its method with `this` = { consul }, like the client's own wrappers.
  return async function (this: unknown, options: Record<string, unknown> = {}): Promise<Body> {
    const client = (this as { consul?: any } | undefined)?.consul ?? consul;
    let opts = utils.normalizeKeys(options);
    opts = utils.defaults(opts, client._defaults);
    const req: Record<string, unknown> = { name, path, params: { id: opts.id ?? "" }, query: {}, type: "json" };
    if (opts.body !== undefined) req.body = opts.body;
    utils.options(req, opts);
    return await client[method](req, utils.body);
  };
}
/* eslint-enable @typescript-eslint/no-explicit-any */

async function start(t: TransportHarness) {
  const started = await t.startWith(createDoubles({ seed: 5 }));
  const acl = started.doubles.accessControl;
  const url = new URL(started.base("accessControl"));
  const secure = url.protocol === "https:";
  const consul = new Consul({ host: url.hostname, port: Number(url.port || (secure ? 443 : 80)), secure, defaults: { token: acl.bootstrapToken.secretId } });
  const api = {
    createToken: aclCall(consul, "_put", "acl.token.create", "/acl/token"),
    readToken: aclCall(consul, "_get", "acl.token.read", "/acl/token/{id}"),
    updateToken: aclCall(consul, "_put", "acl.token.update", "/acl/token/{id}"),
    deleteToken: aclCall(consul, "_delete", "acl.token.delete", "/acl/token/{id}"),
    listTokens: aclCall(consul, "_get", "acl.token.list", "/acl/tokens"),
    self: aclCall(consul, "_get", "acl.token.self", "/acl/token/self"),
    createRule: aclCall(consul, "_put", "acl.bindingRule.create", "/acl/binding-rule"),
    readRule: aclCall(consul, "_get", "acl.bindingRule.read", "/acl/binding-rule/{id}"),
    listRules: aclCall(consul, "_get", "acl.bindingRule.list", "/acl/binding-rules"),
    deleteRule: aclCall(consul, "_delete", "acl.bindingRule.delete", "/acl/binding-rule/{id}"),
  };
  return { ...started, acl, consul, api };
}

describeEachTransport("the consul client against the access-control service", (t) => {
  it("creates, reads, updates, lists and deletes tokens with its token option (X-Consul-Token)", async () => {
    // Regression (issue 7): the client's X-Consul-Token was ignored: 403 for the anonymous token.
    const { api, acl, consul } = await start(t);
    try {
      const created = await api.createToken({ body: { Description: "ci" } });
      expect(created).toMatchObject({ Description: "ci", AccessorID: expect.any(String) });
      expect(await api.readToken({ id: created.AccessorID })).toMatchObject({ Description: "ci" });
      expect(await api.updateToken({ id: created.AccessorID, body: { Description: "ci-2" } })).toMatchObject({ Description: "ci-2" });
      const listed = await api.listTokens();
      expect(listed.map((x: { AccessorID: string }) => x.AccessorID)).toContain(created.AccessorID);
      expect(await api.self()).toMatchObject({ AccessorID: acl.bootstrapToken.accessorId });
      expect(await api.deleteToken({ id: created.AccessorID })).toBe(true);
      await expect(api.readToken({ id: created.AccessorID })).rejects.toMatchObject({ statusCode: 404 });
      await expect(api.listTokens({ token: "not-a-secret" })).rejects.toMatchObject({ statusCode: 403 });
    } finally {
      consul.destroy();
    }
  });

  it("creates, reads, lists and deletes binding rules", async () => {
    const { api, acl, consul } = await start(t);
    try {
      acl.createAuthMethod({ name: "ci-jwt", type: "jwt" });
      const rule = await api.createRule({ body: { AuthMethod: "ci-jwt", BindType: "service", BindName: "web", Selector: 'value.sub == "web"' } });
      expect(rule).toMatchObject({ AuthMethod: "ci-jwt", BindType: "service", BindName: "web" });
      expect(await api.readRule({ id: rule.ID })).toMatchObject({ ID: rule.ID });
      expect((await api.listRules()).map((r: { ID: string }) => r.ID)).toEqual([rule.ID]);
      expect(await api.deleteRule({ id: rule.ID })).toBe(true);
    } finally {
      consul.destroy();
    }
  });

  it("bootstraps the ACL system with acl.bootstrap() once, then is refused with the reset index (issue 23)", async () => {
    // Regression (issue 23): acl.bootstrap() got 404.
    const { acl, consul } = await start(t);
    try {
      // A world starts bootstrapped (its management token), like a cluster with an initial management token.
      await expect(consul.acl.bootstrap()).rejects.toMatchObject({ statusCode: 403, message: "Permission denied: ACL bootstrap no longer allowed (reset index: 3)" });
      acl.resetBootstrap();
      const token = await consul.acl.bootstrap();
      expect(token).toMatchObject({ ID: token.SecretID, Description: "Bootstrap Token (Global Management)", Policies: [{ Name: "global-management" }] });
      expect(acl.access(token.SecretID)).toBe("write");
      await expect(consul.acl.bootstrap()).rejects.toMatchObject({ statusCode: 403, message: `Permission denied: ACL bootstrap no longer allowed (reset index: ${token.CreateIndex})` });
    } finally {
      consul.destroy();
    }
  });

  it("creates a policy and a role through the client's request layer, and a token using the role works", async () => {
    const { consul, api } = await start(t);
    const createPolicy = aclCall(consul, "_put", "acl.policy.create", "/acl/policy");
    const readPolicyByName = aclCall(consul, "_get", "acl.policy.readByName", "/acl/policy/name/{id}");
    const createRole = aclCall(consul, "_put", "acl.role.create", "/acl/role");
    const listRoles = aclCall(consul, "_get", "acl.role.list", "/acl/roles");
    try {
      const policy = await createPolicy({ body: { Name: "acl-write", Rules: 'acl = "write"' } });
      expect(await readPolicyByName({ id: "acl-write" })).toMatchObject({ ID: policy.ID, Rules: 'acl = "write"' });
      await expect(createPolicy({ body: { Name: "bad", Rules: 'acl = "list"' } })).rejects.toMatchObject({ statusCode: 500, message: 'Invalid acl policy: "list"' });
      const role = await createRole({ body: { Name: "admins", Policies: [{ Name: "acl-write" }] } });
      expect((await listRoles()).map((r: { ID: string }) => r.ID)).toEqual([role.ID]);
      const token = await api.createToken({ body: { Roles: [{ Name: "admins" }] } });
      expect(await api.createToken({ token: token.SecretID, body: { Description: "via role" } })).toMatchObject({ Description: "via role" });
    } finally {
      consul.destroy();
    }
  });

  it("reads the query metadata (X-Consul-Index, KnownLeader, LastContact) like the real service's", async () => {
    const { consul, acl } = await start(t);
    try {
      const token = acl.createToken({ description: "meta" });
      // A ctx with includeResponse makes the client's wrappers answer [response, body] (its watch does this).
      const ctx = Object.assign(new EventEmitter(), { includeResponse: true });
      const [res] = await aclCall(consul, "_get", "acl.token.read", "/acl/token/{id}")({ id: token.accessorId, ctx });
      expect(Consul.parseQueryMeta(res)).toEqual({ LastIndex: String(token.modifyIndex), LastContact: 0, KnownLeader: true });
    } finally {
      consul.destroy();
    }
  });

  it("watches a token with blocking queries and sees it change when the fake's state moves", async () => {
    const { consul, acl, doubles } = await start(t);
    const token = acl.createToken({ description: "v1" });
    const watch = consul.watch({ method: aclCall(consul, "_get", "acl.token.read", "/acl/token/{id}"), options: { id: token.accessorId, wait: "5m" } });
    const changes: string[] = [];
    const errors: unknown[] = [];
    watch.on("change", (data: { Description: string }) => changes.push(data.Description));
    watch.on("error", (error: unknown) => errors.push(error));
    try {
      await vi.waitFor(() => expect(changes).toEqual(["v1"]), { timeout: 5000, interval: 5 });
      await vi.waitFor(() => expect(doubles.sim.pendingWaiters).toBe(1), { timeout: 5000, interval: 5 });
      acl.updateToken(token.accessorId, { description: "v2" });
      await vi.waitFor(() => expect(changes).toEqual(["v1", "v2"]), { timeout: 5000, interval: 5 });
      // Time passing alone (the wait running out on the simulator clock) answers the same index: no change.
      await vi.waitFor(() => expect(doubles.sim.pendingWaiters).toBe(1), { timeout: 5000, interval: 5 });
      doubles.advance("5m");
      await vi.waitFor(() => expect(doubles.sim.pendingWaiters).toBe(1), { timeout: 5000, interval: 5 });
      expect(changes).toEqual(["v1", "v2"]);
      expect(errors).toEqual([]);
    } finally {
      watch.end();
      consul.destroy();
    }
  });
});
