/** The README's secrets samples, run as written (docs/guides/test-secrets-tokens-leases-and-sealed-nodes.md). */
import { afterEach, expect, it } from "vitest";
import { createDoubles, type Doubles } from "../../../src/scenarios/doubles.js";
import { installSshDefaults } from "../../../src/scenarios/secrets/ssh/ssh-scenario.js";

let doubles: Doubles | undefined;
afterEach(async () => {
  await doubles?.close();
  doubles = undefined;
});

it("README: tokens and policies, node states, leases, managed keys, MFA, mounts", async () => {
  doubles = createDoubles({ seed: 1 });
  doubles.intercept();
  installSshDefaults(doubles.secrets, { keyType: "ssh-ed25519" });
  const root = doubles.secrets.rootToken;
  doubles.secrets.createPolicy("deployer", `
    path "ssh/creds/*"  { capabilities = ["update"] }
    path "cloud/+/deploy" { capabilities = ["read", "update"] }
    path "sys/managed-keys/*" { capabilities = ["deny"] }
  `);
  const { token } = doubles.secrets.createToken({ policies: ["deployer"], ttl: "1h", displayName: "ci" });
  const denied = await fetch("https://secrets.test/v1/sys/managed-keys/kmsa", { method: "LIST", headers: { "x-secrets-token": token } });
  expect(denied.status).toBe(403);
  expect((await fetch("https://secrets.test/v1/ssh/creds/otp-role", { method: "POST", headers: { "x-secrets-token": token }, body: '{"ip":"10.0.0.5"}' })).status).toBe(200);
  doubles.advance("1h");
  expect((await fetch("https://secrets.test/v1/ssh/creds/otp-role", { method: "POST", headers: { "x-secrets-token": token }, body: '{"ip":"10.0.0.5"}' })).status).toBe(403);

  doubles.secrets.setNodeState("sealed");
  expect((await fetch("https://secrets.test/v1/sys/health")).status).toBe(503);
  expect((await fetch("https://secrets.test/v1/ssh/creds/otp-role", { method: "POST", headers: { "x-secrets-token": root } })).status).toBe(503);
  doubles.secrets.setNodeState("standby");
  expect((await fetch("https://secrets.test/v1/sys/health?standbyok=true")).status).toBe(200);
  expect((await fetch("https://secrets.test/v1/sys/health?standbycode=299", { method: "HEAD" })).status).toBe(299);
  doubles.secrets.setNodeState("active");

  const creds = await fetch("https://secrets.test/v1/ssh/creds/otp-role", {
    method: "POST", headers: { "x-secrets-token": root }, body: JSON.stringify({ ip: "10.0.0.5" }),
  }).then((r) => r.json());
  const lease = (path: string, body: object) =>
    fetch(`https://secrets.test/v1/sys/leases/${path}`, { method: "PUT", headers: { "x-secrets-token": root }, body: JSON.stringify(body) });
  expect((await (await lease("lookup", { lease_id: creds.lease_id })).json()).data).toMatchObject({ id: creds.lease_id, renewable: false });
  expect(await (await lease("renew", { lease_id: creds.lease_id, increment: "1h" })).json()).toEqual({ errors: ["lease is not renewable"] });
  doubles.advance("768h");
  expect(doubles.secrets.leases("ssh")).toEqual([]);

  doubles.secrets.addKeyRing("my-project", "europe-west1", "signing");
  const sys = (method: string, path: string, body?: object) =>
    fetch(`https://secrets.test/v1/sys/managed-keys/${path}`, { method, headers: { "x-secrets-token": root }, ...(body ? { body: JSON.stringify(body) } : {}) });
  expect((await sys("POST", "kmsa/release-key", { access_key: "AKIA...", secret_key: "...", key_type: "ECDSA", curve: "P256", kms_key: "alias/release", allow_generate_key: true })).status).toBe(204);
  expect((await sys("POST", "kmsa/release-key/test/sign", { hash_algorithm: "sha2-256" })).status).toBe(204);
  expect((await sys("GET", "kmsa/release-key").then((r) => r.json())).data).not.toHaveProperty("secret_key");
  doubles.secrets.setAllowedManagedKeys("ssh", ["release-key"]);
  expect((await sys("DELETE", "kmsa/release-key")).status).toBe(400);
  doubles.secrets.addBackendKey({ type: "pkcs11", library: "hsm", slot: "0", keyLabel: "k" }, { algorithm: "ec", curve: "P256" });
  doubles.secrets.setServerEnvironment({ kmsaAccessKey: "AKIA...", kmsaSecretKey: "...", kmsaRegion: "eu-west-1" });
  expect((await sys("POST", "kmsa/env-key", { key_type: "ECDSA", kms_key: "alias/env" })).status).toBe(204);
  expect((await sys("GET", "kmsa/env-key").then((r) => r.json())).data).toMatchObject({ region: "eu-west-1" });

  const totp = doubles.secrets.addMfaMethod("totp");
  const userpass = doubles.secrets.addAuthMount("userpass");
  const enforcement = await fetch("https://secrets.test/v1/identity/mfa/login-enforcement/admins", {
    method: "POST", headers: { "x-secrets-token": root }, body: JSON.stringify({ mfa_method_ids: [totp], auth_method_accessors: [userpass] }),
  });
  expect(enforcement.status).toBe(204);

  doubles.secrets.mount("team-a/ssh", "ssh", { allowedManagedKeys: ["release-key"] });
  doubles.secrets.createNamespace("ns1");
  expect((await fetch("https://secrets.test/v1/ns1/sys/health")).status).toBe(404);
  expect((await fetch("https://secrets.test/v1/team-a/ssh/roles?list=true", { headers: { "x-secrets-token": root } })).status).toBe(404);
});
