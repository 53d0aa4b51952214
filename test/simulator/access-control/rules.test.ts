/**
 * The policy rules parser (issue 23, item 2): one reading of the rules for validation and for the
 * evaluator, so what a policy grants is what the real service would read from it.
 */
import { describe, expect, it } from "vitest";
import { policyAclRule } from "../../../src/simulator/access-control/authorization.js";
import { aclLevelOf, checkPolicyRules } from "../../../src/simulator/access-control/rules.js";
import type { PolicyRecord } from "../../../src/simulator/access-control/state.js";
import { GLOBAL_MANAGEMENT_RULES } from "../../../src/simulator/access-control/state.js";

const policy = (rules: string): PolicyRecord => ({ id: "p", name: "p", description: "", rules, datacenters: [], namespace: "default", hash: "", createIndex: 1, modifyIndex: 1 });
const refusal = (rules: string): string => {
  try {
    checkPolicyRules(rules, "create policy");
  } catch (error) {
    return (error as { detail: string }).detail;
  }
  return "accepted";
};

describe("access-control policy rules", () => {
  it("grants only what the top-level acl says: an acl line inside a block is not a grant", () => {
    // Regression (issue 23): a line regex read `acl = "write"` inside a block as a grant.
    expect(policyAclRule(policy('key_prefix "" {\n  policy = "read"\n  acl = "write"\n}'))).toBeUndefined();
    expect(policyAclRule(policy('service "web" {\n  acl = "write"\n}\nacl = "read"'))).toBe("read");
    expect(policyAclRule(policy('/* acl = "write" */\nacl = "read"'))).toBe("read");
    expect(policyAclRule(policy('# acl = "write"'))).toBeUndefined();
  });

  it("reads HCL and JSON rules, and accepts the built-in global-management rules", () => {
    expect(checkPolicyRules(GLOBAL_MANAGEMENT_RULES, "create policy").levels).toMatchObject({ acl: "write", operator: "write", keyring: "write" });
    expect(checkPolicyRules('{"acl":"read","service_prefix":{"":{"policy":"read","intentions":"read"}}}', "create policy")).toEqual({
      levels: { acl: "read" },
      resources: [{ resource: "service_prefix", label: "", policy: "read", intentions: "read" }],
    });
    expect(checkPolicyRules('key_prefix = { "app/" = { policy = "list" } }', "create policy").resources).toEqual([{ resource: "key_prefix", label: "app/", policy: "list", intentions: "" }]);
    expect(checkPolicyRules("", "create policy")).toEqual({ levels: {}, resources: [] });
    expect(checkPolicyRules('unknown_thing = "x"\nacl = "deny"', "create policy").levels.acl).toBe("deny");
    expect(aclLevelOf("acl = broken")).toBeUndefined();
  });

  it("refuses what the real service refuses, in its words", () => {
    expect(refusal('acl = "list"')).toBe('Invalid acl policy: "list"');
    expect(refusal('node "n1" { policy = "" }')).toBe('Invalid node policy: &acl.NodeRule{Name:"n1", Policy:""}');
    expect(refusal('acl = "read')).toBe("Failed to parse ACL rules: At 1:7: literal not terminated");
    expect(refusal('key_prefix "" policy = "read"')).toBe("Failed to parse ACL rules: At 1:22: nested object expected: LBRACE got: ASSIGN");
    expect(refusal('acl "read"')).toBe("Failed to parse ACL rules: At 1:11: key 'acl \"read\"' expected start of object ('{') or assignment ('=')");
    expect(refusal('acl = ["read"]')).toBe("Failed to parse ACL rules: At 1:7: root.acl: unknown type for string *ast.ListType");
    expect(refusal("acl = @")).toBe("Failed to parse ACL rules: At 1:7: illegal char");
    expect(refusal('{"acl": }')).toMatch(/^Failed to parse ACL rules: At 1:1: /);
    expect(refusal('mesh = "list"')).toBe('Invalid mesh policy: "list"');
  });
});
