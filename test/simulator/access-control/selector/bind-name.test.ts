/**
 * BindName templates (spec: access-control.md "Binding rule" BindName; FIDELITY.md "Access
 * control"): `${var}` interpolation of the identity's string fields, checked against the auth
 * method's variables at rule creation, rendered at login.
 */
import { describe, expect, it } from "vitest";
import { compileBindName, identityVariables, type IdentitySchema } from "../../../../src/simulator/access-control/selector/index.js";
import { domainErrorOf, messageOf } from "./helpers.js";

const claims: IdentitySchema = { fields: {}, claims: true };
const kubernetes: IdentitySchema = { fields: { "serviceaccount.name": "string", "serviceaccount.namespace": "string", "tags": "list" } };

describe("compileBindName", () => {
  it("keeps a plain name as it is", () => {
    const name = compileBindName("web", claims);
    expect(name.template).toBe("web");
    expect(name.variables).toEqual([]);
    expect(name.render({})).toBe("web");
    expect(compileBindName("cost$100 {x}", claims).render({})).toBe("cost$100 {x}");
  });

  it("interpolates claims and struct fields", () => {
    const name = compileBindName("${value.sub}", claims);
    expect(name.variables).toEqual(["value.sub"]);
    expect(name.render({ value: { sub: "alice" } })).toBe("alice");
    const web = compileBindName("prefix-${serviceaccount.name}-${serviceaccount.namespace}", kubernetes);
    expect(web.variables).toEqual(["serviceaccount.name", "serviceaccount.namespace"]);
    expect(web.render({ serviceaccount: { name: "web", namespace: "prod" } })).toBe("prefix-web-prod");
  });

  it("allows spaces inside the braces, repeated variables and claim names with dashes", () => {
    const name = compileBindName("${ value.team-name }/${value.sub}/${value.sub}", claims);
    expect(name.variables).toEqual(["value.team-name", "value.sub"]);
    expect(name.render({ value: { "team-name": "ops", sub: "x" } })).toBe("ops/x/x");
  });

  it("reads $${ as a literal ${", () => {
    const name = compileBindName("$${value.sub}-${value.sub}", claims);
    expect(name.variables).toEqual(["value.sub"]);
    expect(name.render({ value: { sub: "a" } })).toBe("${value.sub}-a");
  });

  it("lowercases interpolated values (not the template's text) when asked, as the service does for every bind type", () => {
    const name = compileBindName("Web-${value.sub}", claims);
    expect(name.render({ value: { sub: "ALICE" } })).toBe("Web-ALICE");
    expect(name.render({ value: { sub: "ALICE" } }, { lowercase: true })).toBe("Web-alice");
  });

  it("refuses a variable the auth method does not have, with HIL's message", () => {
    expect(messageOf(() => compileBindName("${bogus}", claims))).toBe("1:3: unknown variable accessed: bogus");
    expect(messageOf(() => compileBindName("web-${list.groups}", claims))).toBe("1:7: unknown variable accessed: list.groups");
    expect(messageOf(() => compileBindName("${value}", claims))).toBe("1:3: unknown variable accessed: value");
    expect(messageOf(() => compileBindName("${value.}", claims))).toBe("1:3: unknown variable accessed: value.");
    expect(messageOf(() => compileBindName("${serviceaccount.uid}", kubernetes))).toBe("1:3: unknown variable accessed: serviceaccount.uid");
    expect(messageOf(() => compileBindName("${tags}", kubernetes))).toBe("1:3: unknown variable accessed: tags");
    expect(messageOf(() => compileBindName("a\nb-${nope}", kubernetes))).toBe("2:5: unknown variable accessed: nope");
    expect(domainErrorOf(() => compileBindName("${bogus}", claims)).operation).toBe("compile bind name");
  });

  it("refuses bad syntax", () => {
    expect(messageOf(() => compileBindName("web-${value.sub", claims))).toBe('parse error at 1:16: expected "}" but found end of template');
    expect(messageOf(() => compileBindName("${}", claims))).toBe('parse error at 1:3: expected a variable name but found "}"');
    expect(messageOf(() => compileBindName("${", claims))).toBe("parse error at 1:3: expected a variable name but found end of template");
    expect(messageOf(() => compileBindName("${1}", claims))).toBe('parse error at 1:3: expected a variable name but found "1"');
    expect(messageOf(() => compileBindName("${value.sub + 1}", claims))).toBe('parse error at 1:13: expected "}" but found "+"');
  });

  it("refuses to render for an identity lacking a variable", () => {
    const name = compileBindName("svc-${value.sub}", claims);
    const error = domainErrorOf(() => name.render({ value: {} }));
    expect(error.detail).toBe("1:7: unknown variable accessed: value.sub");
    expect(error.operation).toBe("render bind name");
    expect(() => name.render({ value: { sub: ["a"] } })).toThrow(/unknown variable/);
  });
});

describe("renderValues", () => {
  it("renders from flattened variables, as the service's BindName check does with fake values", () => {
    const name = compileBindName("svc-${value.sub}-${value.team}", claims);
    const fake = Object.fromEntries(name.variables.map((variable) => [variable, "fake"]));
    expect(name.renderValues(fake)).toBe("svc-fake-fake");
    expect(name.renderValues({ "value.sub": "A", "value.team": "B" }, { lowercase: true })).toBe("svc-a-b");
    expect(messageOf(() => name.renderValues({ "value.sub": "a" }))).toBe("1:20: unknown variable accessed: value.team");
  });
});

describe("identityVariables", () => {
  it("flattens string fields to dotted names and leaves other values out", () => {
    expect(
      identityVariables({ value: { sub: "x", "a.b": "y", n: 3 }, list: { groups: ["a"] }, serviceaccount: { name: "web", meta: { z: "deep" } } }),
    ).toEqual({ "value.sub": "x", "value.a.b": "y", "serviceaccount.name": "web", "serviceaccount.meta.z": "deep" });
    expect(identityVariables({})).toEqual({});
  });

  it("keeps a claim named __proto__ as data", () => {
    const identity = JSON.parse('{"value": {"__proto__": "x", "sub": "y"}}') as Record<string, unknown>;
    const variables = identityVariables(identity);
    expect(Object.keys(variables)).toEqual(["value.__proto__", "value.sub"]);
    expect(compileBindName("${value.__proto__}", claims).render(identity)).toBe("x");
    expect(Object.getPrototypeOf(identityVariables(JSON.parse('{"__proto__": "x"}') as Record<string, unknown>))).toBe(Object.prototype);
  });

  it("survives cycles", () => {
    const looped: Record<string, unknown> = { name: "x" };
    looped.self = looped;
    expect(identityVariables(looped)).toEqual({ name: "x" });
  });
});
