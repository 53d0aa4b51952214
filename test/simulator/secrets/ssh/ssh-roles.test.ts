import { describe, expect, it } from "vitest";
import { isDomainError } from "../../../../src/simulator/kernel/errors.js";
import { deleteRole, listRoles, readRole, writeRole, DEFAULT_INSTALL_SCRIPT } from "../../../../src/simulator/secrets/ssh/ssh-roles.js";
import { writeKey } from "../../../../src/simulator/secrets/ssh/ssh-keys.js";
import { writeZeroAddressRoles, readZeroAddressRoles, deleteZeroAddressRoles } from "../../../../src/simulator/secrets/ssh/zero-address.js";
import { testMount } from "./engine-context.js";
import { CA_KEYS } from "./fixtures.js";

function failure(fn: () => unknown): { code: string; detail: string; status: number | undefined } {
  try {
    fn();
  } catch (error) {
    if (isDomainError(error)) return { code: error.code, detail: error.detail, status: error.status };
    throw error;
  }
  throw new Error("expected a domain error");
}

describe("SSH roles", () => {
  it("keep only the fields of their key type and read them back in that type's form", () => {
    const { ctx, mount } = testMount();
    writeKey(ctx, "admin", CA_KEYS.RSA_PKCS1.privateKey);
    writeRole(ctx, "otp", { keyType: "OTP", defaultUser: "ubuntu", cidrList: "10.0.0.0/8", excludeCidrList: "10.9.0.0/16", ttlMs: 60_000, allowedUsers: "a,b" });
    writeRole(ctx, "dyn", { keyType: "dynamic", key: "admin", adminUser: "root", defaultUser: "ubuntu", cidrList: "10.0.0.0/8" });
    writeRole(ctx, "ca", { keyType: "ca", allowUserCertificates: true, allowedUsers: "*", defaultExtensions: { "permit-pty": "" }, ttlMs: 3_600_000 });
    expect(readRole(mount, "otp")).toEqual({ allowed_users: "a,b", cidr_list: "10.0.0.0/8", default_user: "ubuntu", exclude_cidr_list: "10.9.0.0/16", key_type: "otp", port: 22 });
    expect(readRole(mount, "dyn")).toEqual({
      admin_user: "root",
      allowed_users: "",
      cidr_list: "10.0.0.0/8",
      default_user: "ubuntu",
      exclude_cidr_list: "",
      install_script: DEFAULT_INSTALL_SCRIPT,
      key: "admin",
      key_bits: 1024,
      key_option_specs: "",
      key_type: "dynamic",
      port: 22,
    });
    expect(readRole(mount, "ca")).toMatchObject({
      key_type: "ca",
      allow_user_certificates: true,
      allow_host_certificates: false,
      allowed_users: "*",
      default_extensions: { "permit-pty": "" },
      default_critical_options: {},
      ttl: 3600,
      max_ttl: 0,
      not_before_duration: 30,
      algorithm_signer: "default",
      allowed_user_key_lengths: {},
    });
    expect(listRoles(mount)).toEqual({ keys: ["ca", "dyn", "otp"], key_info: { ca: { key_type: "ca" }, dyn: { key_type: "dynamic" }, otp: { key_type: "otp" } } });
  });

  it("refuse writes missing a key type's required fields with the real service's messages", () => {
    const { ctx, mount } = testMount();
    writeKey(ctx, "admin", CA_KEYS.ED25519_OPENSSH.privateKey);
    const cases: [Parameters<typeof writeRole>[2], string][] = [
      [{}, "missing key type"],
      [{ keyType: "telnet" }, "invalid key type"],
      [{ keyType: "otp", cidrList: "10.0.0.0/8" }, "missing default user"],
      [{ keyType: "otp", defaultUser: "u", adminUser: "root", cidrList: "10.0.0.0/8" }, "admin user not required for OTP type"],
      [{ keyType: "otp", defaultUser: "u" }, "missing cidr_list"],
      [{ keyType: "dynamic", defaultUser: "u", adminUser: "root", cidrList: "10.0.0.0/8" }, "missing key name"],
      [{ keyType: "dynamic", defaultUser: "u", key: "nope", adminUser: "root", cidrList: "10.0.0.0/8" }, `invalid 'key': "nope"`],
      [{ keyType: "dynamic", defaultUser: "u", key: "admin", cidrList: "10.0.0.0/8" }, "missing admin username"],
      [{ keyType: "dynamic", defaultUser: "u", key: "admin", adminUser: "root", cidrList: "10.0.0.0/8", keyBits: 4096 }, "invalid key_bits field"],
      [{ keyType: "ca" }, "Either 'allow_user_certificates' or 'allow_host_certificates' must be set to 'true'"],
      [{ keyType: "ca", allowHostCertificates: true, ttlMs: 7_200_000, maxTtlMs: 3_600_000 }, `"ttl" value must be less than "max_ttl" when both are specified`],
    ];
    for (const [input, message] of cases) {
      expect(failure(() => writeRole(ctx, "r", input)), message).toEqual({ code: "invalid", detail: message, status: undefined });
    }
    expect(failure(() => writeRole(ctx, "r", { keyType: "otp", defaultUser: "u", cidrList: "10.0.0.0/8,bogus" }))).toEqual({
      code: "internal",
      detail: "failed to validate cidr_list: invalid CIDR address: bogus",
      status: undefined,
    });
    expect(failure(() => writeRole(ctx, "r", { keyType: "ca", allowUserCertificates: true, algorithmSigner: "md5" })).detail).toBe('unknown algorithm signer "md5"');
    expect(mount.roles).toEqual({});
  });

  it("let a zero-address role drop its CIDR list, and leave the zero-address list when deleted", () => {
    const { ctx, mount } = testMount();
    writeRole(ctx, "any", { keyType: "otp", defaultUser: "u", cidrList: "10.0.0.0/8" });
    expect(failure(() => readZeroAddressRoles(mount)).code).toBe("not_found");
    expect(failure(() => writeZeroAddressRoles(ctx, [])).detail).toBe("Missing roles");
    expect(failure(() => writeZeroAddressRoles(ctx, ["any", "ghost"])).detail).toBe('Role "ghost" does not exist');
    writeZeroAddressRoles(ctx, ["any"]);
    writeRole(ctx, "any", { keyType: "otp", defaultUser: "u" });
    expect(readRole(mount, "any")).toMatchObject({ cidr_list: "" });
    deleteRole(ctx, "any");
    expect(readZeroAddressRoles(mount)).toEqual([]);
    expect(failure(() => readRole(mount, "any"))).toEqual({ code: "not_found", detail: "", status: undefined });
    expect(failure(() => listRoles(mount)).code).toBe("not_found");
    deleteZeroAddressRoles(ctx);
    expect(failure(() => readZeroAddressRoles(mount)).code).toBe("not_found");
  });

  it("register only parseable keys", () => {
    const { ctx, mount } = testMount();
    expect(failure(() => writeKey(ctx, "k", undefined)).detail).toBe("Missing key");
    expect(failure(() => writeKey(ctx, "k", "not a key")).detail).toBe("Invalid key");
    expect(failure(() => writeKey(ctx, "k", CA_KEYS.ENCRYPTED.privateKey)).detail).toBe("Invalid key");
    writeKey(ctx, "k", CA_KEYS.P384_OPENSSH.privateKey);
    expect(Object.keys(mount.keys)).toEqual(["k"]);
  });
});
