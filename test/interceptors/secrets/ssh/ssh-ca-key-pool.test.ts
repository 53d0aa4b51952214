/**
 * Issue 8 defect 6: RSA CA keys of the usual sizes come from the shipped prime pool (built in
 * milliseconds, not found by a seconds-long prime search that blocks every other request). Speed
 * itself is measured in bench/secrets-keys.bench.ts; here, through HTTP on every transport: the
 * served modulus is a product of two pooled primes, the key is the same for the same seed, and
 * certificates signed with it pass `ssh-keygen -L`.
 */
import { expect, it } from "vitest";
import { RSA_PRIME_POOL } from "../../../../src/simulator/secrets/rsa-prime-pool.js";
import { describeEachTransport } from "../../../support/transports.js";
import { PUBLIC_KEYS } from "../../../simulator/secrets/ssh/fixtures.js";
import { listCertificate } from "../../../simulator/secrets/ssh/ssh-keygen.js";
import { startSsh } from "./ssh-harness.js";

/** `n` of an `ssh-rsa` public key (wire format: string type, mpint e, mpint n). */
function modulusOf(publicKey: string): bigint {
  const blob = Buffer.from(publicKey.split(" ")[1] ?? "", "base64");
  let offset = 0;
  const field = (): Buffer => {
    const length = blob.readUInt32BE(offset);
    const value = blob.subarray(offset + 4, offset + 4 + length);
    offset += 4 + length;
    return value;
  };
  expect(field().toString()).toBe("ssh-rsa");
  field();
  return BigInt(`0x${field().toString("hex")}`);
}

function poolFactors(bits: number, n: bigint): [number, number] | undefined {
  const bytes = Buffer.from(RSA_PRIME_POOL[bits] ?? "", "base64");
  const width = bits / 16;
  const primes: bigint[] = [];
  for (let offset = 0; offset < bytes.length; offset += width) primes.push(BigInt(`0x${bytes.subarray(offset, offset + width).toString("hex")}`));
  for (let i = 0; i < primes.length; i++) {
    const p = primes[i] as bigint;
    if (n % p === 0n) {
      const j = primes.indexOf(n / p);
      if (j >= 0 && j !== i) return [i, j];
    }
  }
  return undefined;
}

describeEachTransport("secrets ssh: pooled RSA CA keys", (t) => {
  it("builds 2048, 3072, 4096 and 8192-bit CAs from two shipped primes, the same for the same seed", async () => {
    const { send, doubles } = await startSsh(t, "pool");
    for (const bits of [2048, 3072, 4096, 8192]) {
      const body = { key_type: "ssh-rsa", key_bits: bits };
      const first = await send("POST", "/ssh/config/ca", { body });
      expect(first.status).toBe(200);
      expect(poolFactors(bits, modulusOf(first.body.data.public_key)), `${bits} bits`).toBeDefined();
      doubles.reset();
      expect((await send("POST", "/ssh/config/ca", { body })).body.data.public_key).toBe(first.body.data.public_key);
      doubles.reset();
    }
  });

  it("signs certificates ssh-keygen accepts with the default pooled RSA 4096 CA", async () => {
    const { send, ssh } = await startSsh(t, "pool-sign");
    ssh.addCaRole("ca-role", { defaultUser: "ubuntu", allowedUsers: "*", ttl: "30m" });
    expect((await send("POST", "/ssh/config/ca", { body: {} })).status).toBe(200);
    const signed = await send("POST", "/ssh/sign/ca-role", { body: { public_key: PUBLIC_KEYS.ED25519 } });
    expect(signed.status).toBe(200);
    const listing = listCertificate(signed.body.data.signed_key);
    expect(listing.signingCa).toMatch(/^RSA SHA256:/);
  });
});
