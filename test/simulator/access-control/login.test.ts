import { describe, expect, it } from "vitest";
import { bindNameSchema, identityFromInput, placeholderIdentity, selectorSchema } from "../../../src/simulator/access-control/auth-methods.js";
import { createBindingRule } from "../../../src/simulator/access-control/binding-rules.js";
import { accessControlDefinition } from "../../../src/simulator/access-control/definition.js";
import { createAuthMethod, createRole, registerBearerToken } from "../../../src/simulator/access-control/fixtures.js";
import { evaluateBindings, login } from "../../../src/simulator/access-control/login.js";
import { ACCESS_CONTROL, type AccessControlState, type AuthMethodRecord } from "../../../src/simulator/access-control/state.js";
import { DomainError } from "../../../src/simulator/kernel/errors.js";
import { Simulator } from "../../../src/simulator/kernel/simulator.js";
import { dict } from "../../../src/simulator/kernel/dict.js";

function setup() {
  const sim = new Simulator({ seed: 9, services: [accessControlDefinition()] });
  const root = sim.read<AccessControlState, string>(ACCESS_CONTROL, (ctx) => ctx.state.bootstrap.secretId);
  const update = <R>(fn: Parameters<typeof sim.update<AccessControlState, R>>[1]) => sim.update<AccessControlState, R>(ACCESS_CONTROL, fn);
  return { sim, root, update };
}

const oidc: AuthMethodRecord = {
  name: "oidc",
  type: "oidc",
  displayName: "",
  description: "",
  maxTokenTtlMs: 0,
  tokenLocality: "local",
  claimMappings: { sub: "user", email_verified: "verified" },
  listClaimMappings: { groups: "groups" },
  namespace: "default",
  bearerTokens: dict(),
  createIndex: 1,
  modifyIndex: 1,
};

describe("access-control simulator: auth methods", () => {
  it("maps only mapped claims, stringifying scalars, into value./list. fields", () => {
    expect(identityFromInput(oidc, { sub: "alice", email_verified: true, groups: ["a", 2], other: "x" })).toEqual({
      value: { user: "alice", verified: "true" },
      list: { groups: ["a", "2"] },
    });
    expect(identityFromInput(oidc, {})).toEqual({ value: {}, list: {} });
  });

  it("types claims-based selectors as maps plus mapped fields, and BindNames as the mapped value fields only", () => {
    expect(selectorSchema(oidc)).toEqual({ fields: { value: "map", list: "map", "value.user": "string", "value.verified": "string", "list.groups": "list" }, claims: true });
    expect(bindNameSchema(oidc)).toEqual({ fields: { "value.user": "string", "value.verified": "string" } });
    expect(placeholderIdentity(oidc)).toEqual({ value: { user: "fake", verified: "fake" } });
  });

  it("exposes service accounts as serviceaccount.name/namespace/uid and refuses incomplete ones", () => {
    const k8s: AuthMethodRecord = { ...oidc, type: "kubernetes", claimMappings: {}, listClaimMappings: {} };
    expect(identityFromInput(k8s, { name: "web", namespace: "apps" })).toEqual({ serviceaccount: { name: "web", namespace: "apps", uid: "" } });
    expect(() => identityFromInput(k8s, { name: "web" })).toThrow(DomainError);
    expect(Object.keys(selectorSchema(k8s).fields)).toEqual(["serviceaccount.name", "serviceaccount.namespace", "serviceaccount.uid"]);
  });

  it("refuses a max token TTL outside 1m-24h and claim mappings on a service-account method", () => {
    const { update } = setup();
    expect(() => update((ctx) => createAuthMethod(ctx, { name: "a", type: "kubernetes", maxTokenTtlMs: 30_000 }))).toThrow(/MaxTokenTTL 30s/);
    expect(() => update((ctx) => createAuthMethod(ctx, { name: "a", type: "kubernetes", claimMappings: { sub: "x" } }))).toThrow(/claims-based/);
  });
});

describe("access-control simulator: login", () => {
  it("evaluates rules in ID order, deduplicates bindings, ignores roles that do not exist", () => {
    const { update, sim, root } = setup();
    update((ctx) => {
      createAuthMethod(ctx, { ...oidc, claimMappings: oidc.claimMappings, listClaimMappings: oidc.listClaimMappings });
      createRole(ctx, { name: "dev" });
      for (const [selector, bindType, bindName] of [
        ["", "service", "${value.user}"],
        ["value.user == Alice", "service", "${value.user}"],
        ["dev in list.groups", "role", "dev"],
        ["ops in list.groups", "role", "ops"],
        ["", "role", "missing"],
      ]) createBindingRule(ctx, { secret: root }, { authMethod: "oidc", selector, bindType, bindName });
    });
    const bindings = sim.read<AccessControlState, ReturnType<typeof evaluateBindings>>(ACCESS_CONTROL, (ctx) =>
      evaluateBindings(ctx.state, "oidc", "default", { value: { user: "Alice" }, list: { groups: ["dev", "ops"] } }),
    );
    expect(bindings.serviceIdentities).toEqual([{ serviceName: "alice", datacenters: [] }]);
    expect(bindings.roles).toHaveLength(1);
    expect(bindings.nodeIdentities).toEqual([]);
  });

  it("treats a stored blank selector as no match at login, and only the empty selector as match-all", () => {
    // Regression: a blank selector used to match everything. The real login (`doesSelectorMatch`)
    // short-circuits only `""`; anything that fails to parse binds nothing.
    const { update, sim, root } = setup();
    update((ctx) => {
      createAuthMethod(ctx, { name: "k8s", type: "kubernetes" });
      const blank = createBindingRule(ctx, { secret: root }, { authMethod: "k8s", selector: "", bindType: "service", bindName: "blank" });
      createBindingRule(ctx, { secret: root }, { authMethod: "k8s", selector: "", bindType: "service", bindName: "empty" });
      // Creation refuses "  " (see the HTTP suite); a rule stored before that check is no match.
      (ctx.state.bindingRules[blank.id] as { selector: string }).selector = "  ";
    });
    const bindings = sim.read<AccessControlState, ReturnType<typeof evaluateBindings>>(ACCESS_CONTROL, (ctx) =>
      evaluateBindings(ctx.state, "k8s", "default", { serviceaccount: { name: "web", namespace: "default", uid: "" } }),
    );
    expect(bindings.serviceIdentities).toEqual([{ serviceName: "empty", datacenters: [] }]);
  });

  it("rolls back nothing-bound logins and leaves no token", () => {
    const { update, sim } = setup();
    update((ctx) => {
      createAuthMethod(ctx, { name: "k8s", type: "kubernetes" });
      registerBearerToken(ctx, { name: "k8s" }, "jwt", { name: "web", namespace: "default" });
    });
    const before = sim.snapshot();
    expect(() => update((ctx) => login(ctx, {}, { authMethod: "k8s", bearerToken: "jwt" }))).toThrow("Permission denied");
    expect(sim.snapshot()).toEqual(before);
  });
});
