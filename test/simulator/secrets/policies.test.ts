import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { capabilitiesOn, comparePatterns, mergeRules, parsePolicyRules, patternMatches, type Policy } from "../../../src/simulator/secrets/policies.js";

const policy = (name: string, rules: Record<string, string[]>): Policy => ({ name, rules: parsePolicyRules(rules) });

describe("secrets policies: path patterns", () => {
  it("matches exact paths, * prefixes and + segments", () => {
    expect(patternMatches("ssh/creds/otp", "ssh/creds/otp")).toBe(true);
    expect(patternMatches("ssh/creds/otp", "ssh/creds/otp2")).toBe(false);
    expect(patternMatches("ssh/creds/*", "ssh/creds/otp")).toBe(true);
    expect(patternMatches("ssh/creds/*", "ssh/creds/")).toBe(true);
    expect(patternMatches("ssh/creds*", "ssh/creds-x/y")).toBe(true);
    expect(patternMatches("ssh/creds/*", "ssh/creds")).toBe(false);
    expect(patternMatches("+/creds/otp", "ssh/creds/otp")).toBe(true);
    expect(patternMatches("+/creds/otp", "a/b/creds/otp")).toBe(false);
    expect(patternMatches("ssh/+", "ssh/roles")).toBe(true);
    expect(patternMatches("ssh/+", "ssh/roles/x")).toBe(false);
    expect(patternMatches("ssh/+/x*", "ssh/roles/xyz/1")).toBe(true);
    expect(patternMatches("ssh/+/*", "ssh/roles/")).toBe(true);
  });

  it("orders matching patterns by the real service's priority", () => {
    // a later first wildcard wins; no trailing * beats *; fewer + wins; longer wins
    expect(comparePatterns("ssh/creds/otp", "ssh/creds/*")).toBeGreaterThan(0);
    expect(comparePatterns("ssh/creds/*", "ssh/*")).toBeGreaterThan(0);
    expect(comparePatterns("ssh/+/otp", "ssh/+/*")).toBeGreaterThan(0);
    expect(comparePatterns("ssh/+/+", "ssh/+/otp")).toBeLessThan(0);
    expect(comparePatterns("ssh/c*", "ssh/*")).toBeGreaterThan(0);
  });

  it("merges rules on the same pattern and lets deny win there", () => {
    const merged = mergeRules([policy("a", { "x/*": ["read"] }), policy("b", { "x/*": ["list"], "y": ["deny"] }), policy("c", { y: ["read"] })]);
    expect([...(merged.get("x/*") ?? [])].sort()).toEqual(["list", "read"]);
    expect([...(merged.get("y") ?? [])]).toEqual(["deny"]);
  });

  it("takes the most specific matching rule, not the union of all", () => {
    const policies = [policy("wide", { "ssh/*": ["read", "list", "update"] }), policy("narrow", { "ssh/creds/otp": ["read"] })];
    expect([...capabilitiesOn(policies, "ssh/creds/otp")]).toEqual(["read"]);
    expect([...capabilitiesOn(policies, "ssh/creds/other")].sort()).toEqual(["list", "read", "update"]);
    expect([...capabilitiesOn(policies, "cloud/x")]).toEqual([]);
    expect(capabilitiesOn([{ name: "root", rules: [] }], "anything").has("sudo")).toBe(true);
  });

  it("decides a list path (trailing /) by an exact rule, then the exact rule without the slash, then wildcards without it", () => {
    const caps = (rules: Record<string, string[]>, path: string) => [...capabilitiesOn([policy("p", rules)], path)].sort();
    expect(caps({ "ssh/roles": ["list"] }, "ssh/roles/")).toEqual(["list"]);
    expect(caps({ "ssh/+": ["list"] }, "ssh/roles/")).toEqual(["list"]);
    expect(caps({ "ssh/roles/": ["read"], "ssh/roles": ["list"] }, "ssh/roles/")).toEqual(["read"]);
    // the exact rule without the slash beats a wildcard rule matching the path with it
    expect(caps({ "ssh/roles": ["list"], "ssh/roles/*": ["read"] }, "ssh/roles/")).toEqual(["list"]);
    // a wildcard matching the path without the slash is tried before one matching it with the slash
    expect(caps({ "ssh/+": ["list"], "ssh/roles/*": ["read"] }, "ssh/roles/")).toEqual(["list"]);
    // paths without a trailing slash never fall back
    expect(caps({ "ssh/roles": ["list"] }, "ssh/roles/x")).toEqual([]);
    // a literal "+" or "*" in a path is not an exact rule
    expect(caps({ "ssh/+": ["read"] }, "ssh/+")).toEqual(["read"]);
    expect(caps({ "ssh/a+b": ["read"] }, "ssh/a+b")).toEqual(["read"]);
  });

  it("reads the HCL policy form, with comments", () => {
    expect(parsePolicyRules('# comment\npath "ssh/*" {\n  capabilities = ["read", "list"]\n}\npath "/sys/leases/lookup" { capabilities = ["update"] } // trailing')).toEqual([
      { path: "ssh/*", capabilities: ["read", "list"] },
      { path: "sys/leases/lookup", capabilities: ["update"] },
    ]);
  });

  const segment = fc.constantFrom("ssh", "creds", "roles", "otp", "a", "b");
  const path = fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => s.join("/"));

  it("property: an exact rule decides its own path whatever glob rules exist", () => {
    fc.assert(
      fc.property(path, fc.array(fc.tuple(path, fc.boolean()), { maxLength: 5 }), (target, globs) => {
        const rules: Record<string, string[]> = { [target]: ["sudo"] };
        for (const [p, star] of globs) if (p !== target) rules[star ? `${p}*` : p.replace(/^[^/]+/, "+")] = ["read"];
        expect([...capabilitiesOn([policy("p", rules)], target)]).toEqual(["sudo"]);
      }),
    );
  });

  it("property: deny on the deciding pattern grants nothing, and priority is antisymmetric", () => {
    fc.assert(
      fc.property(path, path, (a, b) => {
        expect(Math.sign(comparePatterns(`${a}*`, `${b}*`)) + Math.sign(comparePatterns(`${b}*`, `${a}*`))).toBe(0);
        const caps = capabilitiesOn([policy("d", { [a]: ["deny"] }), policy("r", { [a]: ["read"], [`${a}*`]: ["read"] })], a);
        expect(caps.size).toBe(0);
      }),
    );
  });
});
