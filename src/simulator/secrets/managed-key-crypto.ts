/**
 * Deterministic key generation and real signing for the simulated key backends.
 *
 * Key material derives only from a seed drawn from the simulator's id source, so the same seed
 * and the same calls give the same keys:
 * - ECDSA: the private scalar from the seed (reduced into [1, n-1]); the public point by
 *   `createECDH(curve).setPrivateKey`.
 * - Ed25519: the 32-byte seed is the private key.
 * - RSA: primes found by a seeded search (SHA-256 counter-mode stream from the seed, small-prime
 *   sieve, OpenSSL's primality check), memoized by seed.
 *
 * Signing uses node:crypto. ECDSA and RSA-PSS signatures are randomized there, which is harmless:
 * the test-sign answer is success or failure, never the signature bytes.
 */
import { KeyObject, checkPrimeSync, constants, createECDH, createHash, createPrivateKey, createPublicKey, sign, verify } from "node:crypto";
import type { KeyMaterial } from "./managed-key-types.js";

/**
 * EC curves by the managed-key names (`curve`: `P256`, `P384`, `P521`), with node:crypto's and
 * JWK's names, the scalar size in bytes and the group order.
 * @example EC_CURVES.P384.node // "secp384r1"
 */
export const EC_CURVES: Readonly<Record<string, { readonly node: string; readonly jwk: string; readonly bytes: number; readonly order: bigint }>> = Object.freeze({
  P256: { node: "prime256v1", jwk: "P-256", bytes: 32, order: BigInt("0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551") },
  P384: {
    node: "secp384r1",
    jwk: "P-384",
    bytes: 48,
    order: BigInt("0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFC7634D81F4372DDF581A0DB248B0A77AECEC196ACCC52973"),
  },
  P521: {
    node: "secp521r1",
    jwk: "P-521",
    bytes: 66,
    order: BigInt(
      "0x01fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffa51868783bf2f966b7fcc0148f709a5d03bb5c9b8899c47aebb6fb71e91386409",
    ),
  },
});

/** What to generate. */
export type KeySpec = { readonly algorithm: "rsa"; readonly bits: number } | { readonly algorithm: "ec"; readonly curve: string } | { readonly algorithm: "ed25519" };

/**
 * The nine `hash_algorithm` values of test-sign (spec "Managed keys") and their node:crypto names.
 * @example HASH_ALGORITHMS["sha2-256"] // "sha256"
 */
export const HASH_ALGORITHMS: Readonly<Record<string, string>> = Object.freeze({
  sha1: "sha1",
  "sha2-224": "sha224",
  "sha2-256": "sha256",
  "sha2-384": "sha384",
  "sha2-512": "sha512",
  "sha3-224": "sha3-224",
  "sha3-256": "sha3-256",
  "sha3-384": "sha3-384",
  "sha3-512": "sha3-512",
});

const rsaCache = new Map<string, KeyMaterial>();

function toBigInt(bytes: Uint8Array): bigint {
  let hex = "";
  for (const b of bytes) hex += b.toString(16).padStart(2, "0");
  return hex === "" ? 0n : BigInt(`0x${hex}`);
}

function toBytes(value: bigint, length?: number): Buffer {
  let hex = value.toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  const buffer = Buffer.from(hex, "hex");
  if (length === undefined || buffer.length >= length) return buffer;
  return Buffer.concat([Buffer.alloc(length - buffer.length), buffer]);
}

function b64url(value: bigint, length?: number): string {
  return toBytes(value, length).toString("base64url");
}

function exportMaterial(privateKey: KeyObject, spec: KeySpec): KeyMaterial {
  const publicKey = createPublicKey(privateKey);
  return {
    algorithm: spec.algorithm,
    ...(spec.algorithm === "rsa" ? { bits: spec.bits } : {}),
    ...(spec.algorithm === "ec" ? { curve: spec.curve } : {}),
    privateKey: privateKey.export({ type: "pkcs8", format: "der" }).toString("base64"),
    publicKey: publicKey.export({ type: "spki", format: "der" }).toString("base64"),
  };
}

/** A deterministic byte stream: SHA-256 of seed and a counter. */
class SeededStream {
  private counter = 0;
  constructor(private readonly seed: Uint8Array) {}
  bytes(length: number): Uint8Array {
    const out = Buffer.alloc(length);
    let offset = 0;
    while (offset < length) {
      const block = createHash("sha256").update(this.seed).update(String(this.counter++)).digest();
      block.copy(out, offset, 0, Math.min(block.length, length - offset));
      offset += block.length;
    }
    return out;
  }
}

const SMALL_PRIMES: readonly number[] = (() => {
  const out: number[] = [];
  for (let n = 3; out.length < 2000; n += 2) {
    if (out.every((p) => p * p > n || n % p !== 0)) out.push(n);
  }
  return out;
})();

/**
 * The first probable prime at or after a seeded odd start (top two bits set, so p*q has the full
 * size), with `p - 1` coprime to `e`. Candidates are sieved by small primes with number
 * arithmetic, then tested by OpenSSL's primality check (`checkPrimeSync`), whose answer does not
 * depend on its internal randomness (a composite passing is a 2^-128 event), so the key depends
 * on the seed alone.
 */
function seededPrime(stream: SeededStream, bits: number, e: bigint): bigint {
  for (;;) {
    let start = toBigInt(stream.bytes(bits / 8));
    start |= 1n << BigInt(bits - 1);
    start |= 1n << BigInt(bits - 2);
    start |= 1n;
    const residues = SMALL_PRIMES.map((p) => Number(start % BigInt(p)));
    for (let offset = 0; offset < 1 << 16; offset += 2) {
      if (SMALL_PRIMES.some((p, i) => ((residues[i] ?? 0) + offset) % p === 0)) continue;
      const candidate = start + BigInt(offset);
      if (candidate >> BigInt(bits) !== 0n) break;
      if ((candidate - 1n) % e === 0n) continue;
      if (checkPrimeSync(candidate)) return candidate;
    }
  }
}

function modInverse(a: bigint, m: bigint): bigint {
  let [oldR, r] = [a % m, m];
  let [oldS, s] = [1n, 0n];
  while (r !== 0n) {
    const q = oldR / r;
    [oldR, r] = [r, oldR - q * r];
    [oldS, s] = [s, oldS - q * s];
  }
  return ((oldS % m) + m) % m;
}

function generateRsa(seed: Uint8Array, bits: number): KeyMaterial {
  const cacheKey = `${bits}:${Buffer.from(seed).toString("hex")}`;
  const cached = rsaCache.get(cacheKey);
  if (cached !== undefined) return cached;
  const stream = new SeededStream(seed);
  const e = 65537n;
  let p: bigint;
  let q: bigint;
  do {
    p = seededPrime(stream, bits / 2, e);
    q = seededPrime(stream, bits / 2, e);
  } while (p === q || (p * q).toString(2).length !== bits);
  if (p < q) [p, q] = [q, p];
  const n = p * q;
  const phi = (p - 1n) * (q - 1n);
  const d = modInverse(e, phi);
  const key = createPrivateKey({
    key: { kty: "RSA", n: b64url(n), e: b64url(e), d: b64url(d), p: b64url(p), q: b64url(q), dp: b64url(d % (p - 1n)), dq: b64url(d % (q - 1n)), qi: b64url(modInverse(q, p)) },
    format: "jwk",
  });
  const material = exportMaterial(key, { algorithm: "rsa", bits });
  rsaCache.set(cacheKey, material);
  return material;
}

function generateEc(seed: Uint8Array, curveName: string): KeyMaterial {
  const curve = EC_CURVES[curveName];
  if (curve === undefined) throw new RangeError(`unknown curve ${curveName}`);
  const stream = new SeededStream(seed);
  const scalar = (toBigInt(stream.bytes(curve.bytes + 8)) % (curve.order - 1n)) + 1n;
  const ecdh = createECDH(curve.node);
  const privateBytes = toBytes(scalar, curve.bytes);
  // OpenSSL wants the scalar without leading zero bytes here (P-521's 66-byte form starts with zeros).
  ecdh.setPrivateKey(toBytes(scalar));
  const point = ecdh.getPublicKey();
  const x = point.subarray(1, 1 + curve.bytes);
  const y = point.subarray(1 + curve.bytes);
  const key = createPrivateKey({
    key: { kty: "EC", crv: curve.jwk, d: privateBytes.toString("base64url"), x: x.toString("base64url"), y: y.toString("base64url") },
    format: "jwk",
  });
  return exportMaterial(key, { algorithm: "ec", curve: curveName });
}

function generateEd25519(seed: Uint8Array): KeyMaterial {
  const der = Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), Buffer.from(seed.subarray(0, 32))]);
  const key = createPrivateKey({ key: der, format: "der", type: "pkcs8" });
  return exportMaterial(key, { algorithm: "ed25519" });
}

/**
 * Generates key material from `seed` (at least 32 bytes from the simulator's id source).
 * Same seed and spec, same key.
 * @example generateKey(ids.bytes(32), { algorithm: "ec", curve: "P256" })
 */
export function generateKey(seed: Uint8Array, spec: KeySpec): KeyMaterial {
  switch (spec.algorithm) {
    case "rsa":
      return generateRsa(seed, spec.bits);
    case "ec":
      return generateEc(seed, spec.curve);
    case "ed25519":
      return generateEd25519(seed);
  }
}

/** Signing options of test-sign. */
export interface SignOptions {
  /** A key of {@link HASH_ALGORITHMS}. */
  readonly hashAlgorithm: string;
  /** RSA only: PSS padding (salt length = digest length) instead of PKCS#1 v1.5. */
  readonly usePss: boolean;
}

/**
 * Signs `data` with the material's private key and verifies the signature with its public key
 * (test-sign, spec "Managed keys"). RSA uses PSS (salt = digest length) when `usePss`, else
 * PKCS#1 v1.5; EC and Ed25519 ignore `usePss`, Ed25519 also the hash.
 * @returns whether the signature verified.
 * @throws {Error} from node:crypto when the hash does not fit the key.
 * @example signAndVerify(generateKey(seed, { algorithm: "ec", curve: "P256" }), data, { hashAlgorithm: "sha2-256", usePss: false }) // true
 */
export function signAndVerify(material: KeyMaterial, data: Uint8Array, options: SignOptions): boolean {
  const privateKey = createPrivateKey({ key: Buffer.from(material.privateKey, "base64"), format: "der", type: "pkcs8" });
  const publicKey = createPublicKey({ key: Buffer.from(material.publicKey, "base64"), format: "der", type: "spki" });
  if (material.algorithm === "ed25519") {
    const signature = sign(null, data, privateKey);
    return verify(null, data, publicKey, signature);
  }
  const hash = HASH_ALGORITHMS[options.hashAlgorithm] ?? "sha256";
  if (material.algorithm === "rsa") {
    const padding = options.usePss
      ? { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST }
      : { padding: constants.RSA_PKCS1_PADDING };
    const signature = sign(hash, data, { key: privateKey, ...padding });
    return verify(hash, data, { key: publicKey, ...padding }, signature);
  }
  const signature = sign(hash, data, privateKey);
  return verify(hash, data, publicKey, signature);
}

/** Builds key material from a PEM private key (scenario fixtures that bring their own key). */
export function materialFromPem(pem: string): KeyMaterial {
  const key = createPrivateKey(pem);
  const type = key.asymmetricKeyType;
  if (type === "rsa") return exportMaterial(key, { algorithm: "rsa", bits: key.asymmetricKeyDetails?.modulusLength ?? 2048 });
  if (type === "ed25519") return exportMaterial(key, { algorithm: "ed25519" });
  if (type === "ec") {
    const named = key.asymmetricKeyDetails?.namedCurve;
    const curve = Object.entries(EC_CURVES).find(([, c]) => c.node === named)?.[0];
    if (curve === undefined) throw new RangeError(`unsupported curve ${String(named)}`);
    return exportMaterial(key, { algorithm: "ec", curve });
  }
  throw new RangeError(`unsupported key type ${String(type)}`);
}
