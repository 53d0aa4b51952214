import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { isDomainError } from "../../../../src/simulator/kernel/errors.js";
import { SYSTEM_MAX_LEASE_TTL_MS } from "../../../../src/simulator/secrets/leases.js";
import { parseCertificate, verifyCertificateSignature } from "../../../../src/simulator/secrets/ssh/certificate.js";
import { configureCa } from "../../../../src/simulator/secrets/ssh/certificate-authority.js";
import { fingerprintSha256, parsePublicKeyText } from "../../../../src/simulator/secrets/ssh/public-key.js";
import { writeRole, type SshRoleInput } from "../../../../src/simulator/secrets/ssh/ssh-roles.js";
import { signPublicKey, type SignInput } from "../../../../src/simulator/secrets/ssh/ssh-signing.js";
import { T0, testCaller, testMount } from "./engine-context.js";
import { CA_KEYS, PUBLIC_KEYS } from "./fixtures.js";
import { listCertificate } from "./ssh-keygen.js";

const SECONDS = (ms: number): bigint => BigInt(Math.floor(ms / 1000));

function signer(role: SshRoleInput, ca: keyof typeof CA_KEYS = "ED25519_OPENSSH", seed: number | string = 1) {
  const m = testMount(seed);
  configureCa(m.ctx, { privateKey: CA_KEYS[ca].privateKey, publicKey: CA_KEYS[ca].publicKey });
  writeRole(m.ctx, "r", { keyType: "ca", ...role });
  return {
    ...m,
    sign: (input: SignInput) => parseCertificate(signPublicKey(m.ctx, "r", { publicKey: PUBLIC_KEYS.ED25519, ...input }, "refuse").signed_key),
    fail: (input: SignInput): string => {
      try {
        signPublicKey(m.ctx, "r", { publicKey: PUBLIC_KEYS.ED25519, ...input }, "refuse");
      } catch (error) {
        if (isDomainError(error)) return `${error.code}: ${error.detail}`;
        throw error;
      }
      throw new Error("expected a domain error");
    },
  };
}

describe("SSH signing: principals", () => {
  it("default to default_user, which must itself be allowed", () => {
    expect(signer({ allowUserCertificates: true, defaultUser: "ubuntu", allowedUsers: "ubuntu,admin" }).sign({}).principals).toEqual(["ubuntu"]);
    expect(signer({ allowUserCertificates: true, defaultUser: "ubuntu", allowedUsers: "admin" }).fail({})).toBe("invalid: ubuntu is not a valid value for valid_principals");
    expect(signer({ allowUserCertificates: true, defaultUser: "ubuntu" }).fail({})).toBe("invalid: role is not configured to allow any principals");
    expect(signer({ allowUserCertificates: true, allowedUsers: "*" }).fail({})).toBe("invalid: empty valid principals not allowed by role");
  });

  it("are checked against allowed_users, '*' allowing anyone, and come out sorted without duplicates", () => {
    const s = signer({ allowUserCertificates: true, allowedUsers: "alice, bob", defaultUser: "alice" });
    expect(s.sign({ validPrincipals: "bob, alice,bob" }).principals).toEqual(["alice", "bob"]);
    expect(s.fail({ validPrincipals: "alice,mallory" })).toBe("invalid: mallory is not a valid value for valid_principals");
    expect(s.sign({ validPrincipals: "" }).principals).toEqual(["alice"]);
    expect(signer({ allowUserCertificates: true, allowedUsers: "*" }).sign({ validPrincipals: "zed,root" }).principals).toEqual(["root", "zed"]);
  });

  it("of host certificates follow allowed_domains with bare domains and subdomains", () => {
    const bare = signer({ allowHostCertificates: true, allowedDomains: "example.com", allowBareDomains: true });
    expect(bare.sign({ certType: "host", validPrincipals: "example.com" }).principals).toEqual(["example.com"]);
    expect(bare.fail({ certType: "host", validPrincipals: "web.example.com" })).toBe("invalid: web.example.com is not a valid value for valid_principals");
    const sub = signer({ allowHostCertificates: true, allowedDomains: "example.com,test.org", allowSubdomains: true });
    expect(sub.sign({ certType: "host", validPrincipals: "a.b.example.com,x.test.org" }).principals).toEqual(["a.b.example.com", "x.test.org"]);
    expect(sub.fail({ certType: "host", validPrincipals: "example.com" })).toBe("invalid: example.com is not a valid value for valid_principals");
    expect(sub.fail({ certType: "host", validPrincipals: "badexample.com" })).toBe("invalid: badexample.com is not a valid value for valid_principals");
    expect(sub.fail({ certType: "host" })).toBe("invalid: empty valid principals not allowed by role");
    const any = signer({ allowHostCertificates: true, allowedDomains: "*" });
    expect(any.sign({ certType: "host", validPrincipals: "anything.internal" }).certType).toBe("host");
  });
});

describe("SSH signing: certificate type, key id, validity", () => {
  it("honours cert_type against the role", () => {
    const users = signer({ allowUserCertificates: true, allowedUsers: "*", defaultUser: "u" });
    expect(users.fail({ certType: "host", validPrincipals: "h" })).toBe("invalid: cert_type 'host' is not allowed by role");
    expect(users.fail({ certType: "both" })).toBe("invalid: cert_type must be either 'user' or 'host'");
    expect(signer({ allowHostCertificates: true, allowedDomains: "*" }).fail({ validPrincipals: "u" })).toBe("invalid: cert_type 'user' is not allowed by role");
  });

  it("uses the token display name as key id unless the role formats it or lets users choose", () => {
    const base = { allowUserCertificates: true, allowedUsers: "*", defaultUser: "u" };
    expect(signer(base).sign({}).keyId).toBe("token-alice");
    expect(signer(base).fail({ keyId: "mine" })).toBe("invalid: setting key_id is not allowed by role");
    expect(signer({ ...base, allowUserKeyIds: true }).sign({ keyId: "mine" }).keyId).toBe("mine");
    const hash = signer({ ...base, keyIdFormat: "{{role_name}}:{{token_display_name}}:{{public_key_hash}}" }).sign({}).keyId;
    const blob = parsePublicKeyText(PUBLIC_KEYS.ED25519).blob;
    expect(hash).toBe(`r:token-alice:${createHash("sha256").update(blob).digest("hex")}`);
    const anonymous = testMount(1, testCaller(""));
    configureCa(anonymous.ctx, { keyType: "ed25519" });
    writeRole(anonymous.ctx, "r", { keyType: "ca", ...base });
    expect(parseCertificate(signPublicKey(anonymous.ctx, "r", { publicKey: PUBLIC_KEYS.ED25519 }, "refuse").signed_key).keyId).toBe("r");
  });

  it("is valid from now minus not_before_duration until now plus the ttl", () => {
    const s = signer({ allowUserCertificates: true, allowedUsers: "*", defaultUser: "u", ttlMs: 3_600_000, maxTtlMs: 7_200_000, notBeforeDurationMs: 120_000 });
    const cert = s.sign({});
    expect(cert.validAfter).toBe(SECONDS(T0 - 120_000));
    expect(cert.validBefore).toBe(SECONDS(T0 + 3_600_000));
    expect(s.sign({ ttlMs: 7_200_000 }).validBefore).toBe(SECONDS(T0 + 7_200_000));
    expect(s.fail({ ttlMs: 7_201_000 })).toBe("invalid: ttl is larger than maximum allowed 7200");
    expect(signer({ allowUserCertificates: true, allowedUsers: "*", defaultUser: "u" }).sign({}).validAfter).toBe(SECONDS(T0 - 30_000));
  });

  it("clamps a defaulted ttl to max_ttl, and falls back to the system TTLs", () => {
    const clamped = signer({ allowUserCertificates: true, allowedUsers: "*", defaultUser: "u", maxTtlMs: 600_000 });
    expect(clamped.sign({}).validBefore).toBe(SECONDS(T0 + 600_000));
    const system = signer({ allowUserCertificates: true, allowedUsers: "*", defaultUser: "u" });
    expect(system.sign({}).validBefore).toBe(SECONDS(T0 + SYSTEM_MAX_LEASE_TTL_MS));
  });
});

describe("SSH signing: critical options and extensions", () => {
  const base = { allowUserCertificates: true, allowedUsers: "*", defaultUser: "u" };

  it("use the role defaults when the request names none", () => {
    const cert = signer({ ...base, defaultCriticalOptions: { "force-command": "id" }, defaultExtensions: { "permit-pty": "" } }).sign({});
    expect(cert.criticalOptions).toEqual({ "force-command": "id" });
    expect(cert.extensions).toEqual({ "permit-pty": "" });
  });

  it("accept requested critical options within the allowed list (any when the list is empty)", () => {
    expect(signer(base).sign({ criticalOptions: { "source-address": "10.0.0.0/8" } }).criticalOptions).toEqual({ "source-address": "10.0.0.0/8" });
    const limited = signer({ ...base, allowedCriticalOptions: "force-command" });
    expect(limited.fail({ criticalOptions: { "source-address": "1.2.3.4/32", verify: "" } })).toBe("invalid: critical options not on allowed list: [source-address verify]");
  });

  it("accept requested extensions only when allowed ('*' any; empty none)", () => {
    expect(signer(base).fail({ extensions: { "permit-pty": "" } })).toBe("invalid: extensions [permit-pty] are not on allowed list");
    expect(signer({ ...base, allowedExtensions: "*" }).sign({ extensions: { "x@example.com": "v" } }).extensions).toEqual({ "x@example.com": "v" });
    const limited = signer({ ...base, allowedExtensions: "permit-pty,permit-port-forwarding", defaultExtensions: { "permit-X11-forwarding": "" } });
    expect(limited.sign({ extensions: { "permit-pty": "" } }).extensions).toEqual({ "permit-pty": "" });
    expect(limited.fail({ extensions: { "permit-user-rc": "" } })).toBe("invalid: extensions [permit-user-rc] are not on allowed list");
  });
});

describe("SSH signing: keys and algorithms", () => {
  const base = { allowUserCertificates: true, allowedUsers: "*", defaultUser: "u" };

  it("signs RSA CA certificates with rsa-sha2-256 by default, or the role's algorithm_signer", () => {
    expect(signer(base, "RSA_PKCS1").sign({}).signatureAlgorithm).toBe("rsa-sha2-256");
    expect(signer({ ...base, algorithmSigner: "rsa-sha2-512" }, "RSA_PKCS1").sign({}).signatureAlgorithm).toBe("rsa-sha2-512");
    const sha1 = signer({ ...base, algorithmSigner: "ssh-rsa" }, "RSA_PKCS8").sign({});
    expect(sha1.signatureAlgorithm).toBe("ssh-rsa");
    expect(verifyCertificateSignature(sha1)).toBe(true);
    expect(signer(base, "EC_SEC1").sign({}).signatureAlgorithm).toBe("ecdsa-sha2-nistp256");
    expect(signer({ ...base, algorithmSigner: "rsa-sha2-256" }, "P384_OPENSSH").fail({})).toBe(
      "internal: failed to generate signed SSH key: sign error: ssh: unsupported signature algorithm rsa-sha2-256 for key type ecdsa-sha2-nistp384",
    );
  });

  it("enforces allowed_user_key_lengths by family and exact size", () => {
    const rsaOnly = signer({ ...base, allowedUserKeyLengths: { rsa: [2048, 4096] } });
    expect(rsaOnly.sign({ publicKey: PUBLIC_KEYS.RSA_2048 }).publicKey.bits).toBe(2048);
    expect(rsaOnly.fail({ publicKey: PUBLIC_KEYS.RSA_1024 })).toBe("invalid: public_key failed to meet the key requirements: key is of an invalid size: 1024");
    expect(rsaOnly.fail({})).toBe("invalid: public_key failed to meet the key requirements: key of type ed25519 is not allowed");
    const named = signer({ ...base, allowedUserKeyLengths: { "ecdsa-sha2-nistp384": [0], "ssh-ed25519": [0], ec: [521] } });
    expect(named.sign({ publicKey: PUBLIC_KEYS.P384 }).publicKey.algorithm).toBe("ecdsa-sha2-nistp384");
    expect(named.sign({ publicKey: PUBLIC_KEYS.P521 }).publicKey.algorithm).toBe("ecdsa-sha2-nistp521");
    expect(named.fail({ publicKey: PUBLIC_KEYS.P256 })).toBe("invalid: public_key failed to meet the key requirements: key is of an invalid size: 256");
    expect(named.sign({}).publicKey.algorithm).toBe("ssh-ed25519");
  });

  it("refuses DSA keys unless allowed_user_key_lengths lists dsa", () => {
    expect(signer(base).fail({ publicKey: PUBLIC_KEYS.DSA })).toBe("invalid: public_key failed to meet the key requirements: key of type dsa is not allowed");
    expect(signer({ ...base, allowedUserKeyLengths: { dsa: [1024] } }).sign({ publicKey: PUBLIC_KEYS.DSA }).publicKey.algorithm).toBe("ssh-dss");
  });

  it("refuses missing and unparseable public keys and unknown roles", () => {
    const s = signer(base);
    expect(s.fail({ publicKey: "" })).toBe("invalid: missing public_key");
    expect(s.fail({ publicKey: "ssh-ed25519 %%%" })).toBe("invalid: failed to parse public_key as SSH key: illegal base64 data at input byte 0");
    expect(() => signPublicKey(s.ctx, "ghost", { publicKey: PUBLIC_KEYS.ED25519 }, "refuse")).toThrow("Unknown role: ghost");
  });
});

describe("SSH signing: the CA key and determinism", () => {
  const base = { keyType: "ca", allowUserCertificates: true, allowedUsers: "*", defaultUser: "u" } as const;

  it("without a CA key refuses a caller that may not create one, changing nothing", () => {
    const m = testMount("no-ca");
    writeRole(m.ctx, "r", base);
    expect(() => signPublicKey(m.ctx, "r", { publicKey: PUBLIC_KEYS.ED25519 }, "refuse")).toThrow(/failed to read CA private key/);
    expect(m.mount.ca).toBeNull();
  });

  it("answers a lowercase hex serial and a certificate ssh-keygen accepts, identical for the same seed", () => {
    const run = () => {
      const s = signer({ allowUserCertificates: true, allowedUsers: "*", defaultUser: "ubuntu", defaultExtensions: { "permit-pty": "" } }, "EC_SEC1", "same");
      return signPublicKey(s.ctx, "r", { publicKey: PUBLIC_KEYS.RSA_2048 }, "refuse");
    };
    const first = run();
    expect(run()).toEqual(first);
    expect(first.serial_number).toMatch(/^[0-9a-f]{1,16}$/);
    const cert = parseCertificate(first.signed_key);
    expect(cert.serial.toString(16)).toBe(first.serial_number);
    expect(cert.nonce).toHaveLength(32);
    const listing = listCertificate(first.signed_key);
    expect(listing.serial).toBe(cert.serial.toString());
    expect(listing.signingCa).toContain(fingerprintSha256(parsePublicKeyText(CA_KEYS.EC_SEC1.publicKey)).slice(7));
    expect(listing.principals).toEqual(["ubuntu"]);
  });
});
