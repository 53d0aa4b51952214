import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { generateKey, materialFromPem, signAndVerify } from "../../../src/simulator/secrets/managed-key-crypto.js";

const seed = (n: number) => new Uint8Array(32).fill(n);

describe("secrets managed keys: deterministic key generation and signing", () => {
  it("derives the same EC and Ed25519 keys from the same seed, different ones from another", () => {
    for (const spec of [{ algorithm: "ec", curve: "P256" }, { algorithm: "ec", curve: "P384" }, { algorithm: "ec", curve: "P521" }, { algorithm: "ed25519" }] as const) {
      const a = generateKey(seed(1), spec);
      expect(generateKey(seed(1), spec)).toEqual(a);
      expect(generateKey(seed(2), spec).publicKey).not.toBe(a.publicKey);
      expect(signAndVerify(a, new Uint8Array([1, 2, 3]), { hashAlgorithm: "sha2-512", usePss: false })).toBe(true);
    }
  });

  it("finds RSA primes from the seed: a valid key of the asked size, the same every time", () => {
    const a = generateKey(seed(3), { algorithm: "rsa", bits: 2048 });
    expect(a.bits).toBe(2048);
    expect(generateKey(seed(3), { algorithm: "rsa", bits: 2048 })).toEqual(a);
    const pem = `-----BEGIN PRIVATE KEY-----\n${a.privateKey}\n-----END PRIVATE KEY-----\n`;
    expect(materialFromPem(pem)).toEqual(a);
    for (const usePss of [true, false]) expect(signAndVerify(a, new Uint8Array(32), { hashAlgorithm: "sha3-256", usePss })).toBe(true);
  });

  it("reads keys brought as PEM", () => {
    const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-384" });
    const material = materialFromPem(privateKey.export({ type: "pkcs8", format: "pem" }).toString());
    expect(material).toMatchObject({ algorithm: "ec", curve: "P384" });
    expect(() => materialFromPem(generateKeyPairSync("ec", { namedCurve: "secp256k1" }).privateKey.export({ type: "pkcs8", format: "pem" }).toString())).toThrow(/unsupported curve/);
  });
});
