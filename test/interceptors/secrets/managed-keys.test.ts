import { expect, it } from "vitest";
import { describeEachTransport } from "../../support/transports.js";
import type { SecretsScenario } from "../../../src/scenarios/secrets/secrets-scenario.js";
import { itemsPlugin } from "./test-engine.js";

const PKCS11 = { library: "hsm", key_label: "signing", mechanism: "0x1041", pin: "1234", slot: "0", curve: "P256" };
const KMSA = { access_key: "AKIAEXAMPLE", secret_key: "shh", key_type: "ECDSA", kms_key: "alias/signing", curve: "P256" };
const KMSB = { tenant_id: "t", client_id: "c", client_secret: "cs", vault_name: "kv", key_name: "k", key_type: "RSA-HSM", key_bits: 2048 };
const KMSC = { credentials: "/etc/creds.json", crypto_key: "ck", key_ring: "ring", project: "p", region: "r", algorithm: "EC_SIGN_P256_SHA256" };

describeEachTransport("secrets: managed keys", (t) => {
  const start = async (seed = 1) => {
    const started = await t.start([itemsPlugin()], { seed });
    const base = started.base("secrets");
    const controls = started.doubles.controlsOf<SecretsScenario>("secrets");
    controls.addKeyRing("p", "r", "ring");
    const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      fetch(`${base}${path}`, {
        method,
        headers: { "x-secrets-token": "root-token", "content-type": "application/json", ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const errorOf = async (response: Response) => ({ status: response.status, errors: ((await response.json()) as { errors: string[] }).errors });
    return { ...started, controls, call, errorOf };
  };

  it("creates and reads a pkcs11 key in the read form with the pin masked", async () => {
    const { call, controls } = await start();
    expect((await call("POST", "/sys/managed-keys/pkcs11/hsm-key", { ...PKCS11, allow_generate_key: "true", force_rw_session: "true" })).status).toBe(204);
    const read = await call("GET", "/sys/managed-keys/pkcs11/hsm-key");
    expect(read.status).toBe(200);
    expect((await read.json()).data).toEqual({
      UUID: expect.stringMatching(/^[0-9a-f-]{36}$/),
      allow_generate_key: true,
      allow_replace_key: false,
      allow_store_key: false,
      any_mount: false,
      curve: "P256",
      force_rw_session: true,
      key_bits: 0,
      key_label: "signing",
      library: "hsm",
      mechanism: 4161,
      name: "hsm-key",
      pin: "redacted",
      slot: 0,
      token_label: "",
      type: "pkcs11",
    });
    // stored but outside the read form: the pin itself and max_parallel (default 1)
    expect(controls.managedKey("hsm-key")?.params).toMatchObject({ pin: "1234", max_parallel: 1 });
    expect(controls.managedKey("hsm-key")?.usages).toEqual(["sign", "verify"]);
  });

  it("never returns secret_key or client_secret and reads each type's own fields", async () => {
    const { call } = await start();
    await call("POST", "/sys/managed-keys/kmsa/a", KMSA);
    await call("POST", "/sys/managed-keys/kmsb/b", KMSB);
    await call("POST", "/sys/managed-keys/kmsc/c", KMSC);
    const a = (await (await call("GET", "/sys/managed-keys/kmsa/a")).json()).data;
    expect(a).toMatchObject({ access_key: "AKIAEXAMPLE", key_type: "ECDSA", kms_key: "alias/signing", region: "us-east-1", curve: "P256", endpoint: "", type: "kmsa" });
    expect(a).not.toHaveProperty("secret_key");
    const b = (await (await call("GET", "/sys/managed-keys/kmsb/b")).json()).data;
    expect(b).toMatchObject({ tenant_id: "t", client_id: "c", environment: "AZUREPUBLICCLOUD", resource: "vault.azure.net", key_bits: 2048, key_type: "RSA-HSM" });
    expect(b).not.toHaveProperty("client_secret");
    const c = (await (await call("GET", "/sys/managed-keys/kmsc/c")).json()).data;
    expect(c).toMatchObject({ crypto_key_version: "1", algorithm: "EC_SIGN_P256_SHA256", key_ring: "ring" });
    expect(JSON.stringify([a, b, c])).not.toMatch(/shh|"cs"/);
  });

  it("enforces each type's required fields and value rules", async () => {
    const { call, errorOf } = await start();
    const cases: [string, Record<string, unknown>, string][] = [
      ["pkcs11", { ...PKCS11, library: undefined }, "library is required"],
      ["pkcs11", { ...PKCS11, library: "other" }, 'no library stanza "other" in the server configuration'],
      ["pkcs11", { ...PKCS11, key_label: undefined }, "one of key_label or key_id is required"],
      ["pkcs11", { ...PKCS11, mechanism: undefined }, "mechanism is required"],
      ["pkcs11", { ...PKCS11, mechanism: "4161" }, 'invalid mechanism "4161": must be hexadecimal with a 0x prefix'],
      ["pkcs11", { ...PKCS11, pin: undefined }, "pin is required"],
      ["pkcs11", { ...PKCS11, slot: undefined }, "one of slot or token_label is required"],
      ["pkcs11", { ...PKCS11, slot: "one" }, 'invalid slot "one": must be a decimal number'],
      ["pkcs11", { ...PKCS11, curve: undefined, allow_generate_key: true }, "curve is required when allow_generate_key is true"],
      ["pkcs11", { ...PKCS11, mechanism: "0x0001", allow_generate_key: true }, "key_bits is required when allow_generate_key is true"],
      ["pkcs11", { ...PKCS11, key_bits: 1024 }, "invalid key_bits 1024: must be 2048, 3072 or 4096"],
      ["pkcs11", { ...PKCS11, key_label: undefined, key_id: "0x42" }, 'no key with id "0x42" exists in the HSM'],
      ["kmsa", { ...KMSA, access_key: undefined }, "access_key is required"],
      ["kmsa", { ...KMSA, secret_key: undefined }, "secret_key is required"],
      ["kmsa", { ...KMSA, key_type: undefined }, "key_type is required"],
      ["kmsa", { ...KMSA, key_type: "DSA" }, 'invalid key_type "DSA": must be RSA or ECDSA'],
      ["kmsa", { ...KMSA, kms_key: undefined }, "kms_key is required"],
      ["kmsa", { ...KMSA, key_type: "rsa" }, "key_bits is required when key_type is RSA"],
      ["kmsa", { ...KMSA, curve: undefined, allow_generate_key: true }, "curve is required when allow_generate_key is true and key_type is ECDSA"],
      ["kmsa", { ...KMSA, curve: "P999" }, 'invalid curve "P999": must be P256, P384 or P521'],
      ["kmsa", { ...KMSA, kms_key: "arn:aws:kms:key/1", allow_generate_key: true }, "kms_key must be an alias (alias/...) when allow_generate_key is true"],
      ["kmsb", { ...KMSB, tenant_id: undefined }, "tenant_id is required"],
      ["kmsb", { ...KMSB, client_id: undefined }, "client_id is required unless a managed identity is used"],
      ["kmsb", { ...KMSB, client_secret: undefined }, "client_secret is required unless a managed identity is used"],
      ["kmsb", { ...KMSB, vault_name: undefined }, "vault_name is required"],
      ["kmsb", { ...KMSB, key_name: undefined }, "key_name is required"],
      ["kmsb", { ...KMSB, key_type: "EC-HSM" }, 'invalid key_type "EC-HSM": only RSA-HSM is supported'],
      ["kmsb", { ...KMSB, key_bits: undefined, allow_generate_key: true }, "key_bits is required when allow_generate_key is true and key_type is RSA-HSM"],
      ["kmsc", { ...KMSC, credentials: undefined }, "credentials is required"],
      ["kmsc", { ...KMSC, crypto_key: undefined }, "crypto_key is required"],
      ["kmsc", { ...KMSC, key_ring: undefined }, "key_ring is required"],
      ["kmsc", { ...KMSC, project: undefined }, "project is required"],
      ["kmsc", { ...KMSC, region: undefined }, "region is required"],
      ["kmsc", { ...KMSC, algorithm: undefined }, "algorithm is required"],
      ["kmsc", { ...KMSC, algorithm: "RSA_DECRYPT_OAEP_2048_SHA256" }, expect.stringMatching(/^invalid algorithm "RSA_DECRYPT_OAEP_2048_SHA256": must be one of EC_SIGN_P256_SHA256, /) as unknown as string],
      ["kmsc", { ...KMSC, key_ring: "missing" }, 'key ring "missing" does not exist in project "p" region "r"'],
      ["kmsa", { ...KMSA, usages: "sign,fly" }, 'invalid usage "fly": must be one of encrypt, decrypt, sign, verify, wrap, unwrap, mac, random'],
      ["kmsa", { ...KMSA, allow_generate_key: "maybe" }, 'error converting input "maybe" for field "allow_generate_key": cannot parse as bool'],
      ["kmsa", { ...KMSA, type: "kmsb" }, 'type "kmsb" does not match the path\'s type "kmsa"'],
      ["kmsx", { ...KMSA }, 'unsupported managed key type "kmsx"'],
    ];
    for (const [type, body, message] of cases) {
      expect(await errorOf(await call("POST", `/sys/managed-keys/${type}/k`, body)), JSON.stringify(body)).toEqual({ status: 400, errors: [message] });
    }
    expect(await errorOf(await call("POST", "/sys/managed-keys/kmsa/Upper", KMSA))).toEqual({ status: 400, errors: ['managed key name "Upper" must be lowercase'] });
    expect((await call("LIST", "/sys/managed-keys/kmsa")).status).toBe(404);
  });

  it("takes credentials the server environment provides", async () => {
    const { call, controls } = await start();
    controls.setServerEnvironment({ kmsaAccessKey: "AKIAENV", kmsaSecretKey: "env", kmsbManagedIdentity: true, kmscCredentials: "/env" });
    expect((await call("POST", "/sys/managed-keys/kmsa/a", { ...KMSA, access_key: undefined, secret_key: undefined })).status).toBe(204);
    expect((await call("POST", "/sys/managed-keys/kmsb/b", { ...KMSB, client_id: undefined, client_secret: undefined })).status).toBe(204);
    expect((await call("POST", "/sys/managed-keys/kmsc/c", { ...KMSC, credentials: undefined })).status).toBe(204);
  });

  it("takes the kmsa region from the server environment when left out, then us-east-1", async () => {
    // Regression: the environment's region was accepted by setServerEnvironment but never used.
    const { call, controls } = await start();
    const region = async (name: string) => (await (await call("GET", `/sys/managed-keys/kmsa/${name}`)).json()).data.region;
    await call("POST", "/sys/managed-keys/kmsa/plain", KMSA);
    expect(await region("plain")).toBe("us-east-1");
    controls.setServerEnvironment({ kmsaRegion: "eu-central-1" });
    await call("POST", "/sys/managed-keys/kmsa/env", KMSA);
    expect(await region("env")).toBe("eu-central-1");
    await call("POST", "/sys/managed-keys/kmsa/explicit", { ...KMSA, region: "ap-south-1" });
    expect(await region("explicit")).toBe("ap-south-1");
    await call("POST", "/sys/managed-keys/kmsa/empty", { ...KMSA, region: "" });
    expect(await region("empty")).toBe("eu-central-1");
    // test-sign finds the key the cloud service holds in that region
    controls.addBackendKey({ type: "kmsa", kmsKey: "alias/signing", region: "eu-central-1" }, { algorithm: "ec", curve: "P256" });
    expect((await call("POST", "/sys/managed-keys/kmsa/env/test/sign", {})).status).toBe(204);
    expect((await call("POST", "/sys/managed-keys/kmsa/plain/test/sign", {})).status).toBe(400);
  });

  it("keeps names unique across types, updates in place and lists per type", async () => {
    const { call, errorOf } = await start();
    expect((await call("POST", "/sys/managed-keys/kmsa/shared", KMSA)).status).toBe(204);
    expect(await errorOf(await call("POST", "/sys/managed-keys/kmsc/shared", KMSC))).toEqual({ status: 400, errors: ['a managed key named "shared" already exists with type "kmsa"'] });
    const before = (await (await call("GET", "/sys/managed-keys/kmsa/shared")).json()).data;
    expect((await call("PUT", "/sys/managed-keys/kmsa/shared", { region: "eu-west-1", any_mount: true })).status).toBe(204);
    const after = (await (await call("GET", "/sys/managed-keys/kmsa/shared")).json()).data;
    expect(after).toEqual({ ...before, region: "eu-west-1", any_mount: true });
    await call("POST", "/sys/managed-keys/kmsa/another", KMSA);
    await call("POST", "/sys/managed-keys/kmsc/c", KMSC);
    for (const response of [await call("LIST", "/sys/managed-keys/kmsa"), await call("GET", "/sys/managed-keys/kmsa?list=true")]) {
      expect((await response.json()).data).toEqual({ keys: ["another", "shared"] });
    }
    expect((await (await call("LIST", "/sys/managed-keys/kmsc")).json()).data).toEqual({ keys: ["c"] });
    const missing = await call("GET", "/sys/managed-keys/kmsc/shared");
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ errors: [] });
  });

  it("refuses to delete a key a mount lists in allowed_managed_keys", async () => {
    const { call, controls, errorOf } = await start();
    await call("POST", "/sys/managed-keys/kmsa/used", KMSA);
    controls.setAllowedManagedKeys("items", ["used"]);
    expect(await errorOf(await call("DELETE", "/sys/managed-keys/kmsa/used"))).toEqual({
      status: 400,
      errors: ['managed key "used" is in use by mount(s) items/: remove it from their allowed_managed_keys first'],
    });
    expect((await call("GET", "/sys/managed-keys/kmsa/used")).status).toBe(200);
    controls.setAllowedManagedKeys("items", []);
    expect((await call("DELETE", "/sys/managed-keys/kmsa/used")).status).toBe(204);
    expect((await call("GET", "/sys/managed-keys/kmsa/used")).status).toBe(404);
    expect((await call("DELETE", "/sys/managed-keys/kmsa/used")).status).toBe(204);
  });

  it("test-signs with a generated key when allowed, and only then", async () => {
    const { call, controls, errorOf } = await start();
    await call("POST", "/sys/managed-keys/kmsa/no-gen", { ...KMSA, kms_key: "alias/absent" });
    expect(await errorOf(await call("POST", "/sys/managed-keys/kmsa/no-gen/test/sign", {}))).toEqual({
      status: 400,
      errors: ['no key found in the kmsa backend for managed key "no-gen" and allow_generate_key is false'],
    });
    await call("POST", "/sys/managed-keys/kmsa/gen", { ...KMSA, allow_generate_key: true });
    expect(controls.hasBackendKey({ type: "kmsa", kmsKey: "alias/signing" })).toBe(false);
    expect((await call("POST", "/sys/managed-keys/kmsa/gen/test/sign", {})).status).toBe(204);
    expect(controls.hasBackendKey({ type: "kmsa", kmsKey: "alias/signing" })).toBe(true);
    // the key now exists: the first key (no generation) signs with it too
    await call("POST", "/sys/managed-keys/kmsa/no-gen", { kms_key: "alias/signing" });
    expect((await call("POST", "/sys/managed-keys/kmsa/no-gen/test/sign", { hash_algorithm: "sha2-256" })).status).toBe(204);
    expect(await errorOf(await call("POST", "/sys/managed-keys/kmsa/missing/test/sign", {}))).toEqual({ status: 404, errors: [] });
  });

  it("honours use_pss and hash_algorithm per backend", async () => {
    const { call, controls, errorOf } = await start();
    controls.addBackendKey({ type: "pkcs11", library: "hsm", slot: "0", keyLabel: "rsa" }, { algorithm: "rsa", bits: 2048 });
    await call("POST", "/sys/managed-keys/pkcs11/rsa", { ...PKCS11, key_label: "rsa", mechanism: "0x000D", curve: "" });
    for (const hash_algorithm of ["sha1", "sha2-224", "sha2-256", "sha2-384", "sha2-512", "sha3-224", "sha3-256", "sha3-384", "sha3-512"]) {
      for (const use_pss of [true, false]) {
        expect((await call("POST", "/sys/managed-keys/pkcs11/rsa/test/sign", { hash_algorithm, use_pss })).status, `${hash_algorithm} ${use_pss}`).toBe(204);
      }
    }
    expect(await errorOf(await call("POST", "/sys/managed-keys/pkcs11/rsa/test/sign", { hash_algorithm: "md5" }))).toEqual({
      status: 400,
      errors: ['unsupported hash_algorithm "md5": must be one of sha1, sha2-224, sha2-256, sha2-384, sha2-512, sha3-224, sha3-256, sha3-384, sha3-512'],
    });
    controls.addBackendKey({ type: "kmsa", kmsKey: "alias/p384" }, { algorithm: "ec", curve: "P384" });
    await call("POST", "/sys/managed-keys/kmsa/p384", { ...KMSA, kms_key: "alias/p384", curve: "P384" });
    expect((await call("POST", "/sys/managed-keys/kmsa/p384/test/sign", { hash_algorithm: "sha2-384" })).status).toBe(204);
    expect(await errorOf(await call("POST", "/sys/managed-keys/kmsa/p384/test/sign", {}))).toEqual({
      status: 400,
      errors: ["the kmsa backend cannot sign with hash_algorithm sha2-256 on a P384 key (use sha2-384)"],
    });
    controls.addBackendKey({ type: "kmsb", vaultName: "kv", keyName: "k" }, { algorithm: "rsa", bits: 2048 });
    await call("POST", "/sys/managed-keys/kmsb/b", KMSB);
    expect((await call("POST", "/sys/managed-keys/kmsb/b/test/sign", { use_pss: true, hash_algorithm: "sha2-512" })).status).toBe(204);
    expect((await call("POST", "/sys/managed-keys/kmsb/b/test/sign", { hash_algorithm: "sha1" })).status).toBe(400);
    await call("POST", "/sys/managed-keys/kmsc/c", { ...KMSC, allow_generate_key: true });
    expect((await call("POST", "/sys/managed-keys/kmsc/c/test/sign", {})).status).toBe(204);
    expect(await errorOf(await call("POST", "/sys/managed-keys/kmsc/c/test/sign", { hash_algorithm: "sha2-384" }))).toEqual({
      status: 400,
      errors: ["the kmsc backend cannot sign with hash_algorithm sha2-384: algorithm EC_SIGN_P256_SHA256 uses sha2-256"],
    });
    await call("POST", "/sys/managed-keys/kmsc/pss", { ...KMSC, crypto_key: "pss", algorithm: "RSA_SIGN_PSS_2048_SHA256", allow_generate_key: true });
    expect(await errorOf(await call("POST", "/sys/managed-keys/kmsc/pss/test/sign", { use_pss: false }))).toEqual({
      status: 400,
      errors: ["the kmsc backend cannot sign with use_pss=false: algorithm RSA_SIGN_PSS_2048_SHA256 uses PSS"],
    });
    expect((await call("POST", "/sys/managed-keys/kmsc/pss/test/sign", { use_pss: "true" })).status).toBe(204);
  });

  it("refuses test-sign when usages leave out sign or verify", async () => {
    const { call, errorOf } = await start();
    await call("POST", "/sys/managed-keys/kmsa/enc", { ...KMSA, usages: "encrypt,decrypt", allow_generate_key: true });
    expect(await errorOf(await call("POST", "/sys/managed-keys/kmsa/enc/test/sign", {}))).toEqual({
      status: 400,
      errors: ['managed key "enc" does not allow the sign and verify usages'],
    });
  });

  it("generates the same key material for the same seed", async () => {
    const keyFor = async (seed: number) => {
      const { call, controls, doubles } = await start(seed);
      await call("POST", "/sys/managed-keys/kmsa/gen", { ...KMSA, allow_generate_key: true });
      await call("POST", "/sys/managed-keys/kmsa/gen/test/sign", {});
      const publicKey = doubles.sim.read<{ backends: { keys: Record<string, { material: { publicKey: string } }> } }, string | undefined>(
        "secrets",
        (ctx) => ctx.state.backends.keys["kmsa:us-east-1:alias/signing"]?.material.publicKey,
      );
      expect(controls.hasBackendKey({ type: "kmsa", kmsKey: "alias/signing" })).toBe(true);
      await doubles.close();
      return publicKey;
    };
    const first = await keyFor(5);
    expect(first).toBeDefined();
    expect(await keyFor(5)).toBe(first);
    expect(await keyFor(6)).not.toBe(first);
  });

  it("answers only in the root namespace and checks capabilities", async () => {
    const { call, controls, errorOf } = await start();
    controls.createNamespace("ns1");
    expect(await errorOf(await call("LIST", "/sys/managed-keys/kmsa", undefined, { "x-secrets-namespace": "ns1" }))).toEqual({ status: 404, errors: ["unsupported path"] });
    expect((await call("POST", "/ns1/sys/managed-keys/kmsa/k", KMSA)).status).toBe(404);
    controls.createPolicy("keys-reader", { "sys/managed-keys/*": ["read", "list"] });
    const reader = { "x-secrets-token": controls.createToken({ policies: ["keys-reader"] }).token };
    expect((await call("POST", "/sys/managed-keys/kmsa/k", KMSA, reader)).status).toBe(403);
    await call("POST", "/sys/managed-keys/kmsa/k", KMSA);
    expect((await call("GET", "/sys/managed-keys/kmsa/k", undefined, reader)).status).toBe(200);
    expect((await call("LIST", "/sys/managed-keys/kmsa", undefined, reader)).status).toBe(200);
    expect((await call("DELETE", "/sys/managed-keys/kmsa/k", undefined, reader)).status).toBe(403);
    expect((await call("POST", "/sys/managed-keys/kmsa/k/test/sign", {}, reader)).status).toBe(403);
  });
});
