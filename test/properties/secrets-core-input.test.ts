/**
 * Property: any request to the secrets service core (managed keys, MFA login enforcement, leases,
 * mounts, health) with any body, query or method gets the service's own status and error shape -
 * never a library bug - and a refused request keeps nothing (FIDELITY.md "Secrets"; common quality bar).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DoublesCore } from "../../src/scenarios/doubles-core.js";
import { createSecretsPlugin } from "../../src/scenarios/secrets/plugin.js";
import type { SecretsScenario } from "../../src/scenarios/secrets/secrets-scenario.js";

const PATHS = [
  "sys/managed-keys/pkcs11", "sys/managed-keys/kmsa", "sys/managed-keys/pkcs11/k", "sys/managed-keys/kmsa/k", "sys/managed-keys/kmsb/k",
  "sys/managed-keys/kmsc/k", "sys/managed-keys/kmsa/k/test/sign", "sys/managed-keys/pkcs11/k/test/sign", "sys/managed-keys/kmsc/k/test/sign",
  "sys/managed-keys/other/k", "identity/mfa/login-enforcement", "identity/mfa/login-enforcement/e", "sys/leases/lookup", "sys/leases/renew",
  "sys/leases/revoke", "sys/leases/renew/ssh/creds/r/x", "sys/mounts", "sys/mounts/m", "sys/mounts/m/tune", "sys/mounts/ssh/tune", "sys/health",
];
const FIELDS = [
  "type", "allow_generate_key", "allow_replace_key", "allow_store_key", "any_mount", "usages", "library", "key_label", "key_id", "mechanism", "pin",
  "slot", "token_label", "curve", "key_bits", "force_rw_session", "max_parallel", "access_key", "secret_key", "endpoint", "key_type", "kms_key",
  "region", "tenant_id", "client_id", "client_secret", "environment", "vault_name", "key_name", "resource", "credentials", "crypto_key",
  "crypto_key_version", "key_ring", "project", "algorithm", "use_pss", "hash_algorithm", "mfa_method_ids", "auth_method_accessors",
  "auth_method_types", "identity_group_ids", "identity_entity_ids", "name", "lease_id", "increment", "config", "description", "allowed_managed_keys",
];
const VALUE = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(
    "pkcs11", "kmsa", "hsm", "0x1041", "0x0001", "0", "P256", "P999", 2048, 1023, "RSA", "ECDSA", "alias/x", "RSA-HSM", "EC_SIGN_P256_SHA256",
    "RSA_SIGN_PSS_2048_SHA256", "ring", "p", "r", "sha2-256", "sha3-512", "md5", true, "true", "maybe", "MFA", "acc", "userpass", "1h", "-1",
    1e308, "ssh", "sign,verify", "x,,y", ["MFA"], ["acc"],
  ),
);
const BODY = fc.oneof(
  fc.dictionary(fc.constantFrom(...FIELDS), VALUE, { maxKeys: 8 }).map((body) => JSON.stringify(body)),
  fc.constantFrom("[]", "null", '"x"', "{", "1", ""),
);
const REQUEST = fc.record({
  method: fc.constantFrom("GET", "POST", "PUT", "DELETE", "LIST", "HEAD", "PATCH"),
  path: fc.constantFrom(...PATHS),
  query: fc.constantFrom("", "?list=true", "?list=x", "?standbyok=true", "?activecode=abc"),
  body: BODY,
});

describe("secrets core input handling", () => {
  it("answers any request with the service's own status and error shape, never a library bug, and keeps nothing of a failed one", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(REQUEST, { minLength: 1, maxLength: 8 }), async (requests) => {
        const doubles = new DoublesCore([createSecretsPlugin({ rootToken: "root" })], { seed: 5 });
        const secrets = doubles.controlsOf<SecretsScenario>("secrets");
        secrets.addKeyRing("p", "r", "ring");
        secrets.addMfaMethod("totp", { id: "MFA" });
        secrets.addAuthMount("userpass", { accessor: "acc" });
        secrets.addBackendKey({ type: "kmsa", kmsKey: "alias/x" }, { algorithm: "ec", curve: "P256" });
        for (const { method, path, query, body } of requests) {
          const before = JSON.stringify(doubles.snapshot().services);
          const response = await doubles.handler.handle({
            method,
            url: new URL(`https://secrets.test/v1/${path}${query}`),
            headers: { "x-secrets-token": "root", "content-type": "application/json" },
            body: new TextEncoder().encode(body),
          });
          const text = response.body === undefined ? "" : typeof response.body === "string" ? response.body : new TextDecoder().decode(response.body);
          const label = `${method} ${path}${query} ${body} -> ${response.status} ${text}`;
          expect(response.headers["x-infra-doubles-bug"], label).toBeUndefined();
          expect([200, 204, 400, 404, 405], label).toContain(response.status);
          if (response.status >= 400 && method !== "HEAD") {
            expect(JSON.parse(text), label).toEqual({ errors: expect.any(Array) });
            expect(JSON.stringify(doubles.snapshot().services), label).toBe(before);
          }
        }
        await doubles.close();
      }),
      { numRuns: 150 },
    );
  });
});
