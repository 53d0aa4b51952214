import { createPrivateKey } from "node:crypto";
import { describe, expect, it } from "vitest";
import { isDomainError } from "../../../../src/simulator/kernel/errors.js";
import { SYSTEM_DEFAULT_LEASE_TTL_MS } from "../../../../src/simulator/secrets/leases.js";
import { createCredentials, lookupRoles, verifyOtp } from "../../../../src/simulator/secrets/ssh/ssh-credentials.js";
import { writeKey } from "../../../../src/simulator/secrets/ssh/ssh-keys.js";
import { deleteRole, writeRole } from "../../../../src/simulator/secrets/ssh/ssh-roles.js";
import { writeZeroAddressRoles } from "../../../../src/simulator/secrets/ssh/zero-address.js";
import { T0, testMount } from "./engine-context.js";
import { CA_KEYS } from "./fixtures.js";

function detail(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (isDomainError(error)) return `${error.code}: ${error.detail}`;
    throw error;
  }
  throw new Error("expected a domain error");
}

function otpMount(seed: number | string = 1) {
  const m = testMount(seed);
  writeRole(m.ctx, "otp-role", { keyType: "otp", defaultUser: "ubuntu", cidrList: "10.0.0.0/8", excludeCidrList: "10.9.0.0/16", port: 2222 });
  return m;
}

describe("SSH one-time passwords", () => {
  it("are issued as seeded UUIDs with a lease, for the default user, and verify exactly once", () => {
    const { ctx, mount, leases } = otpMount();
    const creds = createCredentials(ctx, "otp-role", { ip: "10.1.2.3" });
    expect(creds.keyType).toBe("otp");
    if (creds.keyType !== "otp") return;
    expect(creds.data).toEqual({ ip: "10.1.2.3", key: creds.data.key, key_type: "otp", port: 2222, username: "ubuntu" });
    expect(creds.data.key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(leases).toEqual([creds.lease]);
    expect(creds.lease).toMatchObject({ kind: "otp", ref: creds.data.key, expiresAt: T0 + SYSTEM_DEFAULT_LEASE_TTL_MS, renewable: false });
    expect(creds.lease.id.startsWith("ssh/creds/otp-role/")).toBe(true);
    expect(createCredentials(otpMount().ctx, "otp-role", { ip: "10.1.2.3" })).toEqual(creds);
    expect(verifyOtp(ctx, creds.data.key)).toEqual({ username: "ubuntu", ip: "10.1.2.3", role_name: "otp-role" });
    expect(detail(() => verifyOtp(ctx, creds.data.key))).toBe("invalid: OTP not found");
    expect(mount.otps).toEqual({});
  });

  it("die with their lease, and survive the deletion of their role", () => {
    const m = otpMount();
    const first = createCredentials(m.ctx, "otp-role", { ip: "10.0.0.1" });
    const second = createCredentials(m.ctx, "otp-role", { ip: "10.0.0.2", username: "deploy" });
    if (first.keyType !== "otp" || second.keyType !== "otp") throw new Error("otp expected");
    m.endLease(first.lease.id);
    expect(detail(() => verifyOtp(m.ctx, first.data.key))).toBe("invalid: OTP not found");
    deleteRole(m.ctx, "otp-role");
    expect(verifyOtp(m.ctx, second.data.key)).toEqual({ username: "deploy", ip: "10.0.0.2", role_name: "otp-role" });
  });

  it("use the mount's OTP lease duration when a scenario sets one", () => {
    const m = otpMount();
    m.mount.otpTtlMs = 300_000;
    const creds = createCredentials(m.ctx, "otp-role", { ip: "10.0.0.1" });
    expect(creds.keyType === "otp" && creds.lease.expiresAt).toBe(T0 + 300_000);
  });

  it("answer the echo request without consuming anything", () => {
    const { ctx } = otpMount();
    expect(verifyOtp(ctx, "verify-echo-request")).toEqual({ message: "verify-echo-response" });
    expect(detail(() => verifyOtp(ctx, ""))).toBe("invalid: Missing otp");
  });

  it("are refused for bad requests with the real service's messages", () => {
    const { ctx } = otpMount();
    expect(detail(() => createCredentials(ctx, "otp-role", {}))).toBe("invalid: Missing ip");
    expect(detail(() => createCredentials(ctx, "ghost", { ip: "10.0.0.1" }))).toBe('invalid: Role "ghost" not found');
    expect(detail(() => createCredentials(ctx, "otp-role", { ip: "10.0.0.300" }))).toBe('invalid: Invalid IP "10.0.0.300"');
    expect(detail(() => createCredentials(ctx, "otp-role", { ip: "192.168.0.1" }))).toBe("invalid: Error validating IP: IP does not belong to role");
    expect(detail(() => createCredentials(ctx, "otp-role", { ip: "10.9.1.1" }))).toBe("invalid: Error validating IP: IP does not belong to role");
    writeRole(ctx, "nobody", { keyType: "ca", allowUserCertificates: true });
    expect(detail(() => createCredentials(ctx, "nobody", { ip: "10.0.0.1" }))).toBe("invalid: No default username registered. Use 'username' option");
  });

  it("are issued only for the default user and allowed users when allowed_users is set", () => {
    const { ctx } = testMount();
    writeRole(ctx, "limited", { keyType: "otp", defaultUser: "ubuntu", cidrList: "10.0.0.0/8", allowedUsers: "deploy, backup" });
    writeRole(ctx, "open", { keyType: "otp", defaultUser: "ubuntu", cidrList: "10.0.0.0/8", allowedUsers: "*" });
    expect(createCredentials(ctx, "limited", { ip: "10.0.0.1", username: "backup" }).keyType).toBe("otp");
    expect(createCredentials(ctx, "limited", { ip: "10.0.0.1", username: "ubuntu" }).keyType).toBe("otp");
    expect(detail(() => createCredentials(ctx, "limited", { ip: "10.0.0.1", username: "root" }))).toBe("invalid: Username is not present is allowed users list");
    expect(createCredentials(ctx, "open", { ip: "10.0.0.1", username: "root" }).keyType).toBe("otp");
  });

  it("ignore CIDR blocks of zero-address roles", () => {
    const { ctx } = otpMount();
    writeZeroAddressRoles(ctx, ["otp-role"]);
    const creds = createCredentials(ctx, "otp-role", { ip: "2001:DB8::1" });
    expect(creds.keyType === "otp" && creds.data.ip).toBe("2001:db8::1");
  });
});

describe("SSH role lookup by IP", () => {
  it("lists roles whose CIDR list contains the IP, then zero-address roles", () => {
    const { ctx, mount } = otpMount();
    writeRole(ctx, "wide", { keyType: "otp", defaultUser: "u", cidrList: "0.0.0.0/0" });
    writeRole(ctx, "other", { keyType: "otp", defaultUser: "u", cidrList: "192.168.0.0/16" });
    expect(lookupRoles(mount, "10.1.1.1")).toEqual(["otp-role", "wide"]);
    writeZeroAddressRoles(ctx, ["other", "wide"]);
    expect(lookupRoles(mount, "10.1.1.1")).toEqual(["otp-role", "wide", "other"]);
    expect(lookupRoles(mount, "::1")).toEqual(["other", "wide"]);
    expect(detail(() => lookupRoles(mount, undefined))).toBe("invalid: Missing ip");
    expect(detail(() => lookupRoles(mount, "nope"))).toBe('invalid: Invalid IP "nope"');
  });
});

describe("SSH dynamic keys", () => {
  it("answer the spec's dynamic response with a fresh RSA key of the role's size and no lease", () => {
    const { ctx, leases } = testMount();
    writeKey(ctx, "admin", CA_KEYS.RSA_PKCS1.privateKey);
    writeRole(ctx, "dyn", { keyType: "dynamic", key: "admin", adminUser: "root", defaultUser: "ubuntu", cidrList: "10.0.0.0/8", keyBits: 2048, keyOptionSpecs: "no-pty" });
    const creds = createCredentials(ctx, "dyn", { ip: "10.0.0.7" });
    if (creds.keyType !== "dynamic") throw new Error("dynamic expected");
    expect(Object.keys(creds.data).sort()).toEqual([
      "admin_user", "allowed_users", "cidr_list", "default_user", "exclude_cidr_list", "install_script", "key", "key_bits", "key_option_specs", "key_type", "port",
    ]);
    expect(creds.data).toMatchObject({ admin_user: "root", key_bits: 2048, key_type: "dynamic", key_option_specs: "no-pty", port: 22 });
    const key = createPrivateKey(String(creds.data.key));
    expect(String(creds.data.key).startsWith("-----BEGIN RSA PRIVATE KEY-----")).toBe(true);
    expect(key.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(leases).toEqual([]);
    delete ctx.mount.keys.admin;
    expect(detail(() => createCredentials(ctx, "dyn", { ip: "10.0.0.7" }))).toBe('internal: key "admin" not found');
  });
});
