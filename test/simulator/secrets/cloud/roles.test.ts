import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DomainError } from "../../../../src/simulator/kernel/errors.js";
import { compactJson, listRoles, readRole, upgradeLegacyEntry, validateRole, writeRole } from "../../../../src/simulator/secrets/cloud/roles.js";
import type { CloudRole } from "../../../../src/simulator/secrets/cloud/state.js";
import { cloudHarness } from "./harness.js";

const ROLE_ARN = "arn:aws:iam::123456789012:role/R";
const POLICY_ARN = "arn:aws:iam::aws:policy/P";

const roleArbitrary: fc.Arbitrary<CloudRole> = fc.record({
  credentialTypes: fc.subarray(["iam_user", "assumed_role", "federation_token", "bogus"], { maxLength: 2 }),
  policyArns: fc.constantFrom([], [POLICY_ARN]),
  roleArns: fc.constantFrom([], [ROLE_ARN]),
  policyDocument: fc.constantFrom("", "{}"),
  iamGroups: fc.constant([]),
  iamTags: fc.constant({}),
  defaultStsTtl: fc.constantFrom(0, 900, 7200),
  maxStsTtl: fc.constantFrom(0, 3600),
  userPath: fc.constantFrom("", "/", "/a/", "bad"),
  permissionsBoundaryArn: fc.constantFrom("", POLICY_ARN, "arn:aws:s3:::b"),
  invalidData: fc.constant(""),
  prohibitFlexibleCredPath: fc.constant(false),
  version: fc.constant(0),
});

describe("role validation", () => {
  it("applies each rule exactly when its condition holds", () => {
    fc.assert(
      fc.property(roleArbitrary, (role) => {
        const errors = validateRole(role);
        const types = role.credentialTypes;
        const sts = types.includes("assumed_role") || types.includes("federation_token");
        const boundaryBad = role.permissionsBoundaryArn === "arn:aws:s3:::b";
        const has = (text: string) => errors.some((e) => e.startsWith(text));
        if (boundaryBad) {
          // The real service restarts its error list at an invalid boundary ARN.
          expect(has("invalid permissions_boundary_arn parameter")).toBe(true);
          expect(has("did not supply credential_type")).toBe(false);
          return;
        }
        expect(has("did not supply credential_type")).toBe(types.length === 0);
        expect(has("unrecognized credential type: bogus")).toBe(types.includes("bogus"));
        expect(has("default_sts_ttl parameter only valid")).toBe(role.defaultStsTtl !== 0 && !sts);
        expect(has("max_sts_ttl parameter only valid")).toBe(role.maxStsTtl !== 0 && !sts);
        expect(has('"default_sts_ttl" value must be')).toBe(role.maxStsTtl > 0 && role.defaultStsTtl > role.maxStsTtl);
        expect(has("user_path parameter only valid")).toBe(role.userPath !== "" && !types.includes("iam_user"));
        expect(has("the specified value for user_path is invalid")).toBe(role.userPath === "bad");
        expect(has("cannot supply permissions_boundary_arn")).toBe(role.permissionsBoundaryArn !== "" && !types.includes("iam_user"));
        expect(has("cannot supply role_arns")).toBe(role.roleArns.length > 0 && !types.includes("assumed_role"));
        expect(has("must specify role_arns")).toBe(types.includes("assumed_role") && role.roleArns.length === 0);
        const needsPolicy = types.length === 1 && (types[0] === "iam_user" || types[0] === "federation_token");
        expect(has("must specify at least one of policy_arns or policy_document")).toBe(needsPolicy && role.policyDocument === "" && role.policyArns.length === 0);
      }),
      { numRuns: 500 },
    );
  });
});

describe("role writes", () => {
  it("store nothing when refused, and merge supplied fields into the stored role", () => {
    const h = cloudHarness();
    writeRole(h.context(), "r", { credentialType: "assumed_role", roleArns: [ROLE_ARN], defaultStsTtl: 900 });
    const before = structuredClone(h.mount);
    expect(() => writeRole(h.context(), "r", { credentialType: "iam_user" })).toThrow(DomainError);
    expect(h.mount).toEqual(before);
    writeRole(h.context(), "r", { maxStsTtl: 3600 });
    expect(readRole(h.mount, "r")).toMatchObject({ credentialTypes: ["assumed_role"], roleArns: [ROLE_ARN], defaultStsTtl: 900, maxStsTtl: 3600 });
  });

  it("upgrade entries of an earlier version by their shape", () => {
    expect(upgradeLegacyEntry(ROLE_ARN)).toMatchObject({ credentialTypes: ["assumed_role"], roleArns: [ROLE_ARN], prohibitFlexibleCredPath: true, version: 1 });
    expect(upgradeLegacyEntry(POLICY_ARN)).toMatchObject({ credentialTypes: ["iam_user"], policyArns: [POLICY_ARN] });
    expect(upgradeLegacyEntry('{ "a": 1 }')).toMatchObject({ credentialTypes: ["iam_user", "federation_token"], policyDocument: '{"a":1}' });
    expect(upgradeLegacyEntry("arn:aws:s3:::x")).toMatchObject({ invalidData: "arn:aws:s3:::x", credentialTypes: [] });
    expect(upgradeLegacyEntry("nope")).toMatchObject({ invalidData: "nope" });
  });

  it("list current names before names of an earlier version, each sorted", () => {
    const h = cloudHarness();
    writeRole(h.context(), "b", { credentialType: "iam_user", policyArns: [POLICY_ARN] });
    writeRole(h.context(), "a", { credentialType: "iam_user", policyArns: [POLICY_ARN] });
    h.mount.legacyRoles.z = "{}";
    h.mount.legacyRoles.c = "{}";
    expect(listRoles(h.mount)).toEqual(["a", "b", "c", "z"]);
  });
});

describe("JSON compaction", () => {
  it("removes exactly the insignificant whitespace", () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => compactJson(JSON.stringify(value, null, 2)) === JSON.stringify(value)));
    expect(compactJson('{ "a" : "x y\\" z" ,\n "b": [1.0, 2e3] }')).toBe('{"a":"x y\\" z","b":[1.0,2e3]}');
    expect(() => compactJson("{")).toThrow(SyntaxError);
  });
});
