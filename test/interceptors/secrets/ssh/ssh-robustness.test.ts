import fc from "fast-check";
import { expect, it } from "vitest";
import { describeEachTransport } from "../../../support/transports.js";
import { CA_KEYS, PUBLIC_KEYS } from "../../../simulator/secrets/ssh/fixtures.js";
import { startSsh } from "./ssh-harness.js";

const ENDPOINTS: readonly (readonly [string, string])[] = [
  ["POST", "/ssh/keys/k"],
  ["DELETE", "/ssh/keys/k"],
  ["POST", "/ssh/roles/r"],
  ["GET", "/ssh/roles/r"],
  ["LIST", "/ssh/roles"],
  ["DELETE", "/ssh/roles/r"],
  ["GET", "/ssh/config/zeroaddress"],
  ["POST", "/ssh/config/zeroaddress"],
  ["POST", "/ssh/creds/r"],
  ["POST", "/ssh/lookup"],
  ["POST", "/ssh/verify"],
  ["GET", "/ssh/config/ca"],
  ["GET", "/ssh/public_key"],
  ["POST", "/ssh/sign/r"],
  ["POST", "/ssh/sign/ca-role"],
];

const FIELDS = [
  "key", "key_type", "default_user", "admin_user", "cidr_list", "exclude_cidr_list", "port", "key_bits", "allowed_users",
  "allowed_domains", "ttl", "max_ttl", "not_before_duration", "allowed_extensions", "default_extensions", "default_critical_options",
  "allowed_user_key_lengths", "algorithm_signer", "allow_user_certificates", "allow_host_certificates", "allow_subdomains",
  "allow_bare_domains", "allow_user_key_ids", "key_id_format", "roles", "username", "ip", "otp", "private_key", "public_key",
  "generate_signing_key", "valid_principals", "cert_type", "key_id", "critical_options", "extensions",
];

const value = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom("otp", "ca", "dynamic", "10.0.0.0/8", "10.0.0.1", "::1", "1h", "-5s", "0", "*", "ubuntu", "user", "host", "rsa", "ec", "ed25519", 521, 4096, 1024),
  fc.constantFrom(PUBLIC_KEYS.ED25519, PUBLIC_KEYS.DSA, CA_KEYS.ED25519_OPENSSH.privateKey, CA_KEYS.ENCRYPTED.privateKey),
  fc.constantFrom([{ "permit-pty": "" }], { rsa: [2048] }, { ecdsa: "256,384" }, "roles,x"),
);

const body = fc.dictionary(fc.constantFrom(...FIELDS), value, { maxKeys: 6 });

/** Requests: any endpoint with any body; `config/ca` writes pick a fast key type (RSA generation takes ~0.5 s each). */
const request = fc.oneof(
  fc.tuple(fc.constantFrom(...ENDPOINTS), body),
  fc.tuple(
    fc.constant(["POST", "/ssh/config/ca"] as const),
    fc.tuple(body, fc.constantFrom("ed25519", "ec", "ecdsa-sha2-nistp384", "dsa", "rsa")).map(([b, keyType]) => ({
      ...b,
      key_type: keyType,
      ...(keyType === "rsa" ? { key_bits: 1024 } : {}),
    })),
  ),
);

describeEachTransport("secrets ssh: robustness", (t) => {
  it("answers any body on any endpoint with the service's own statuses, and a refused request changes nothing", async () => {
    const { call, doubles, ssh } = await startSsh(t, "robust");
    ssh.generateCa({ keyType: "ed25519" });
    ssh.addCaRole("ca-role");
    await fc.assert(
      fc.asyncProperty(request, async ([[method, path], body]) => {
        const before = JSON.stringify(doubles.snapshot().services);
        const response = await call(method, path, method === "GET" || method === "LIST" || method === "DELETE" ? {} : { body });
        const text = await response.text();
        expect(response.headers.get("x-infra-doubles-bug"), text).toBeNull();
        expect([200, 204, 400, 403, 404, 405, 500]).toContain(response.status);
        if (response.status >= 400) {
          expect(JSON.parse(text)).toEqual({ errors: expect.any(Array) });
          expect(JSON.stringify(doubles.snapshot().services)).toBe(before);
        }
      }),
      { numRuns: 60 },
    );
  });
});
