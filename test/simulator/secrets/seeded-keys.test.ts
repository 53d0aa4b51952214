import { createPublicKey, sign, verify } from "node:crypto";
import { describe, expect, it } from "vitest";
import { IdSource } from "../../../src/simulator/kernel/ids.js";
import { generateEcdsa, generateEd25519, generateRsa, seededPrime } from "../../../src/simulator/secrets/seeded-keys.js";
import { authorizedKeyText, publicKeyOf } from "../../../src/simulator/secrets/ssh/public-key.js";

const pub = (key: ReturnType<typeof generateEd25519>): string => authorizedKeyText(publicKeyOf(key));

describe("seeded key generation", () => {
  it("gives the same keys for the same seed and different keys for different seeds", () => {
    expect(pub(generateEd25519(new IdSource(7)))).toBe(pub(generateEd25519(new IdSource(7))));
    expect(pub(generateEd25519(new IdSource(7)))).not.toBe(pub(generateEd25519(new IdSource(8))));
    expect(pub(generateEcdsa(new IdSource(7), "nistp521"))).toBe(pub(generateEcdsa(new IdSource(7), "nistp521")));
    expect(pub(generateRsa(new IdSource(7), 1024))).toBe(pub(generateRsa(new IdSource(7), 1024)));
    expect(pub(generateRsa(new IdSource(7), 1024))).not.toBe(pub(generateRsa(new IdSource(9), 1024)));
  });

  it("makes working key pairs of the asked type and size", () => {
    const ids = new IdSource(3);
    const cases = [
      { key: generateEd25519(ids), algorithm: "ssh-ed25519", bits: 256 },
      { key: generateEcdsa(ids, "nistp256"), algorithm: "ecdsa-sha2-nistp256", bits: 256 },
      { key: generateEcdsa(ids, "nistp384"), algorithm: "ecdsa-sha2-nistp384", bits: 384 },
      { key: generateEcdsa(ids, "nistp521"), algorithm: "ecdsa-sha2-nistp521", bits: 521 },
      { key: generateRsa(ids, 2048), algorithm: "ssh-rsa", bits: 2048 },
      { key: generateRsa(ids, 3072), algorithm: "ssh-rsa", bits: 3072 },
    ];
    for (const { key, algorithm, bits } of cases) {
      const ssh = publicKeyOf(key);
      expect(ssh.algorithm).toBe(algorithm);
      expect(ssh.bits).toBe(bits);
      if (key.asymmetricKeyType === "rsa") expect(key.asymmetricKeyDetails?.publicExponent).toBe(65537n);
      const hash = key.asymmetricKeyType === "ed25519" ? null : "sha256";
      const signature = sign(hash, Buffer.from("hello"), key);
      expect(verify(hash, Buffer.from("hello"), createPublicKey(key), signature)).toBe(true);
    }
  });

  it("finds primes with the two top bits set that suit the exponent 65537", () => {
    for (const seed of [1, 2, 3]) {
      const p = seededPrime(new IdSource(seed), 512);
      expect(p.toString(2)).toMatch(/^11[01]{510}$/);
      expect(p % 65537n).not.toBe(1n);
    }
  });
});
