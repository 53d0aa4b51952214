import { describe, expect, it } from "vitest";
import { accessControlDefinition } from "../../../src/simulator/access-control/definition.js";
import { configure, createNamespace, createPolicy, createRole } from "../../../src/simulator/access-control/fixtures.js";
import {
  aclAccess,
  effectivePolicies,
  policyAclRule,
  resolveCaller,
  selectNamespace,
} from "../../../src/simulator/access-control/authorization.js";
import { checkNodeIdentities, checkServiceIdentities } from "../../../src/simulator/access-control/links.js";
import {
  ACCESS_CONTROL,
  ANONYMOUS_ACCESSOR_ID,
  type AccessControlState,
  type PolicyRecord,
} from "../../../src/simulator/access-control/state.js";
import { TOKEN_EXPIRE_MOVE, createToken, deleteToken, listTokens } from "../../../src/simulator/access-control/tokens.js";
import type { TokenView } from "../../../src/simulator/access-control/views.js";
import { DomainError } from "../../../src/simulator/kernel/errors.js";
import { Simulator } from "../../../src/simulator/kernel/simulator.js";

function setup(settings = {}) {
  const sim = new Simulator({ seed: 3, services: [accessControlDefinition(settings)] });
  const state = () => sim.read<AccessControlState, AccessControlState>(ACCESS_CONTROL, (ctx) => ctx.state);
  const root = state().bootstrap.secretId;
  const update = <R>(fn: Parameters<typeof sim.update<AccessControlState, R>>[1]) => sim.update<AccessControlState, R>(ACCESS_CONTROL, fn);
  return { sim, state, root, update };
}

describe("access-control simulator: built-ins", () => {
  it("starts with global-management, the anonymous token and a seeded bootstrap token at indexes 1-3", () => {
    const { state } = setup();
    const s = state();
    expect(s.index).toBe(3);
    expect(Object.values(s.policies).map((p) => [p.name, p.createIndex])).toEqual([["global-management", 1]]);
    expect(s.tokens[ANONYMOUS_ACCESSOR_ID]).toMatchObject({ secretId: "anonymous", description: "Anonymous Token", createIndex: 2, policies: [] });
    expect(s.tokens[s.bootstrap.accessorId]).toMatchObject({ description: "Bootstrap Token (Global Management)", createIndex: 3 });
    expect(setup().state().bootstrap).toEqual(s.bootstrap);
    const other = new Simulator({ seed: 4, services: [accessControlDefinition()] });
    expect(other.read<AccessControlState, string>(ACCESS_CONTROL, (ctx) => ctx.state.bootstrap.secretId)).not.toBe(s.bootstrap.secretId);
  });
});

describe("access-control simulator: token writes", () => {
  it("schedules an expiry move per expiring token at its ExpirationTime, and cancels it on delete", () => {
    const { sim, update, root } = setup();
    const token = update<TokenView>((ctx) => createToken(ctx, { secret: root }, { expirationTtlMs: 10 * 60_000 }));
    const moves = () => sim.read<AccessControlState, string[]>(ACCESS_CONTROL, (ctx) => ctx.scheduled().map((m) => `${m.kind}@${m.due}`));
    expect(moves()).toEqual([`${TOKEN_EXPIRE_MOVE}@${token.expirationTime as number}`]);
    update((ctx) => deleteToken(ctx, { secret: root }, token.accessorId));
    expect(moves()).toEqual([]);
  });

  it("rolls everything back when a create fails half way (index, ids, schedule)", () => {
    const { sim, update, root } = setup();
    const before = sim.snapshot();
    expect(() => update((ctx) => createToken(ctx, { secret: root }, { expirationTtlMs: 5 * 60_000, policies: [{ name: "missing" }] }))).toThrow(DomainError);
    expect(sim.snapshot()).toEqual(before);
  });

  it("lists live tokens sorted by AccessorID", () => {
    const { sim, update, root } = setup();
    for (let i = 0; i < 4; i++) update((ctx) => createToken(ctx, { secret: root }, { description: `t${i}` }));
    const ids = sim.read<AccessControlState, string[]>(ACCESS_CONTROL, (ctx) => listTokens(ctx, { secret: root }).map((t) => t.accessorId));
    expect(ids).toHaveLength(6);
    expect(ids).toEqual([...ids].sort());
  });
});

describe("access-control simulator: authorization", () => {
  const policy = (rules: string): PolicyRecord => ({ id: "p", name: "p", description: "", rules, datacenters: [], namespace: "default", hash: "", createIndex: 1, modifyIndex: 1 });

  it("reads the acl rule of a policy", () => {
    expect(policyAclRule(policy('acl = "read"'))).toBe("read");
    expect(policyAclRule(policy('key_prefix "" {\n  policy = "write"\n}\nacl="write"'))).toBe("write");
    expect(policyAclRule(policy('acl = "deny"'))).toBe("deny");
    expect(policyAclRule(policy('acl = "list"'))).toBe("read");
    expect(policyAclRule(policy('service "acl" { policy = "write" }'))).toBeUndefined();
  });

  it("merges policies: deny wins, then write, then read; without rules the default policy decides", () => {
    const { update, root, state } = setup();
    update((ctx) => {
      createPolicy(ctx, { name: "r", rules: 'acl = "read"' });
      createPolicy(ctx, { name: "w", rules: 'acl = "write"' });
      createPolicy(ctx, { name: "d", rules: 'acl = "deny"' });
      createRole(ctx, { name: "writers", policies: [{ name: "w" }] });
    });
    const make = (input: Parameters<typeof createToken>[2]) => update<TokenView>((ctx) => createToken(ctx, { secret: root }, input));
    const access = (t: TokenView) => aclAccess(state(), state().tokens[t.accessorId]!, "default");
    expect(access(make({ policies: [{ name: "r" }] }))).toBe("read");
    expect(access(make({ policies: [{ name: "r" }], roles: [{ name: "writers" }] }))).toBe("write");
    expect(access(make({ policies: [{ name: "w" }, { name: "d" }] }))).toBe("none");
    const bare = make({});
    expect(access(bare)).toBe("none");
    update((ctx) => configure(ctx, { defaultPolicy: "allow" }));
    expect(access(bare)).toBe("write");
  });

  it("resolves the anonymous token when no secret is presented and refuses unknown secrets", () => {
    const { state } = setup();
    expect(resolveCaller(state(), 0, {}, "x").accessorId).toBe(ANONYMOUS_ACCESSOR_ID);
    expect(() => resolveCaller(state(), 0, { secret: "nope" }, "x")).toThrow("ACL not found");
  });

  it("selects namespaces in the spec's order only when namespaces are on", () => {
    const off = setup();
    expect(selectNamespace(off.state(), { namespaceParam: "a", namespaceHeader: "b" }, undefined, "c")).toBe("default");
    const on = setup({ namespaces: true });
    const s = on.state();
    const caller = { ...s.tokens[s.bootstrap.accessorId]!, namespace: "d" };
    expect(selectNamespace(s, { namespaceParam: "a", namespaceHeader: "b" }, caller, "c")).toBe("c");
    expect(selectNamespace(s, { namespaceParam: "a", namespaceHeader: "b" }, caller)).toBe("a");
    expect(selectNamespace(s, { namespaceHeader: "b" }, caller)).toBe("b");
    expect(selectNamespace(s, {}, caller)).toBe("d");
    expect(selectNamespace(s, {}, undefined)).toBe("default");
    expect(selectNamespace(s, { namespaceParam: "" }, undefined, "")).toBe("default");
  });

  it("applies only default-namespace and same-namespace policies", () => {
    const { update, state } = setup({ namespaces: true });
    update((ctx) => {
      createNamespace(ctx, { name: "a" });
      createPolicy(ctx, { name: "shared", rules: 'acl = "read"' });
      createPolicy(ctx, { name: "local", rules: 'acl = "write"', namespace: "a" });
    });
    const s = state();
    const token = { ...s.tokens[s.bootstrap.accessorId]!, policies: Object.values(s.policies).map((p) => p.id), namespace: "a" };
    expect(effectivePolicies(s, token, "a").map((p) => p.name).sort()).toEqual(["global-management", "local", "shared"]);
    expect(effectivePolicies(s, token, "default").map((p) => p.name).sort()).toEqual(["global-management", "shared"]);
    expect(aclAccess(s, token, "default")).toBe("none");
  });
});

describe("access-control simulator: identities", () => {
  it("merges duplicate service identities, widening to all datacenters when one has none", () => {
    expect(
      checkServiceIdentities([{ serviceName: "web", datacenters: ["a"] }, { serviceName: "db" }, { serviceName: "web" }], false, "x"),
    ).toEqual([{ serviceName: "db", datacenters: [] }, { serviceName: "web", datacenters: [] }]);
    expect(checkServiceIdentities([{ serviceName: "web", datacenters: ["a"] }, { serviceName: "web", datacenters: ["b", "a"] }], false, "x")).toEqual([
      { serviceName: "web", datacenters: ["a", "b"] },
    ]);
  });

  it("drops exact duplicate node identities only", () => {
    expect(
      checkNodeIdentities([{ nodeName: "n", datacenter: "b" }, { nodeName: "n", datacenter: "a" }, { nodeName: "n", datacenter: "b" }], "x"),
    ).toEqual([{ nodeName: "n", datacenter: "a" }, { nodeName: "n", datacenter: "b" }]);
  });
});
