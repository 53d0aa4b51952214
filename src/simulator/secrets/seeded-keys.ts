/**
 * Deterministic key pairs for the whole secrets service (the SSH engine's CA and dynamic keys,
 * managed keys): every byte of key material comes from a seeded {@link IdSource}, so the same
 * seed and the same calls give the same keys.
 *
 * - Ed25519: a 32-byte seed wrapped in PKCS#8 DER.
 * - ECDSA (P-256/384/521): a scalar drawn from seeded bytes (rejection sampling below the curve
 *   order); node:crypto derives the public point.
 * - RSA of a pooled size (1024, 2048, 3072, 4096, 8192 bits): two distinct primes drawn by the
 *   seeded ids from a pool of 16 public primes of half that size shipped
 *   with the package (`rsa-prime-pool.ts`, made once by `scripts/generate-rsa-prime-pool.mjs`):
 *   C(16, 2) = 120 keys per size, each built in milliseconds instead of seconds of prime search
 *   (an RSA-8192 search blocked the process for 20 s). The pool is decoded on first use and each
 *   key built once per process. The keys are test material, not secrets (docs/decisions/security.md).
 * - RSA of any other size: two primes found by a seeded search - a random odd start with its two
 *   top bits set, then the next candidate that survives a sieve of the odd primes below 2^15 and
 *   OpenSSL's Miller-Rabin test (`crypto.checkPrimeSync`). The primality test's own random bases
 *   only decide how a composite is caught, never which number is found (a wrong answer has
 *   probability below 2^-80), so the key depends on the seed alone. Found primes are memoised by
 *   their start. This search blocks the process for seconds at 4096 bits.
 *
 * Spec: secrets.md "SSH engine" (`config/ca` `key_type`, `key_bits`; dynamic role `key_bits`),
 * "Managed keys" (generated `RSA`/`EC`/`Ed25519` keys).
 */
import { checkPrimeSync, createECDH, createPrivateKey, type KeyObject } from "node:crypto";
import type { IdSource } from "../kernel/ids.js";
import { RSA_PRIME_POOL } from "./rsa-prime-pool.js";
import { CURVE_ORDERS, modInverse } from "./ssh/deterministic-ecdsa.js";
import { CURVES, ecPointJwk, type EcdsaCurve } from "./ssh/public-key.js";
import { bigintToBase64Url, bigintToBytes, bytesToBigint } from "./ssh/ssh-wire.js";

const ED25519_PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");
const RSA_EXPONENT = 65537n;
const SIEVE_LIMIT = 1 << 15;
const WINDOW = 4096;
/** Odd primes below SIEVE_LIMIT, sieved on the first prime search (not on import: few tests need one). */
let smallPrimes: number[] | undefined;
const primeMemo = new Map<string, bigint>();
/** Pooled primes per key size, decoded on first use. */
const decodedPools = new Map<number, readonly bigint[]>();
/** Pooled keys built so far, by `<bits>:<i>:<j>` (a KeyObject is immutable: shared safely). */
const pooledKeys = new Map<string, KeyObject>();

/**
 * The RSA key sizes served from the shipped prime pool (any other size is searched for).
 * @example POOLED_RSA_BITS.includes(4096) // true
 */
export const POOLED_RSA_BITS: readonly number[] = Object.freeze(Object.keys(RSA_PRIME_POOL).map(Number));

/**
 * An Ed25519 key from 32 seeded bytes.
 * @example generateEd25519(ctx.ids).asymmetricKeyType // "ed25519"
 */
export function generateEd25519(ids: IdSource): KeyObject {
  const seed = Buffer.from(ids.bytes(32));
  return createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: "der", type: "pkcs8" });
}

/**
 * An ECDSA key on `curve` (`nistp256`, `nistp384`, `nistp521`) with a seeded scalar.
 * @example generateEcdsa(ctx.ids, "nistp384")
 */
export function generateEcdsa(ids: IdSource, curve: EcdsaCurve): KeyObject {
  const facts = CURVES[curve];
  const n = CURVE_ORDERS[curve];
  const excessBits = facts.bytes * 8 - facts.bits;
  let d = 0n;
  while (d === 0n || d >= n) {
    d = bytesToBigint(ids.bytes(facts.bytes)) >> BigInt(excessBits);
  }
  const ecdh = createECDH(facts.nodeName);
  ecdh.setPrivateKey(Buffer.from(bigintToBytes(d, facts.bytes)));
  return createPrivateKey({ key: { ...ecPointJwk(curve, ecdh.getPublicKey()), d: bigintToBase64Url(d, facts.bytes) }, format: "jwk" });
}

/**
 * An RSA key of exactly `bits` bits (public exponent 65537). Pooled sizes ({@link POOLED_RSA_BITS})
 * take one draw of `ids` (a pair of distinct pooled primes, milliseconds); other sizes a seeded
 * prime search (seconds at 4096 bits). Same ids state, same key.
 * @param bits - modulus size, at least 512.
 * @throws {RangeError} for a size below 512 or not an integer.
 * @example generateRsa(ctx.ids, 2048)
 */
export function generateRsa(ids: IdSource, bits: number): KeyObject {
  if (!Number.isInteger(bits) || bits < 512) throw new RangeError(`generateRsa: bad size ${bits}`);
  const pool = pooledPrimes(bits);
  if (pool !== undefined) return pooledKey(ids, bits, pool);
  return searchedRsa(ids, bits);
}

/** The pooled primes of half of `bits`, decoded on first use; undefined for a size not pooled. */
function pooledPrimes(bits: number): readonly bigint[] | undefined {
  const known = decodedPools.get(bits);
  if (known !== undefined) return known;
  const text = RSA_PRIME_POOL[bits];
  if (text === undefined) return undefined;
  const bytes = Buffer.from(text, "base64");
  const width = bits / 16;
  const primes: bigint[] = [];
  for (let offset = 0; offset + width <= bytes.length; offset += width) primes.push(bytesToBigint(bytes.subarray(offset, offset + width)));
  decodedPools.set(bits, primes);
  return primes;
}

/** One of the C(n, 2) keys of a pool: pair number `ids.int(C(n, 2))`, built once per process. */
function pooledKey(ids: IdSource, bits: number, pool: readonly bigint[]): KeyObject {
  let pair = ids.int((pool.length * (pool.length - 1)) / 2);
  let i = 0;
  while (pair >= pool.length - 1 - i) {
    pair -= pool.length - 1 - i;
    i++;
  }
  const j = i + 1 + pair;
  const memoKey = `${bits}:${i}:${j}`;
  const known = pooledKeys.get(memoKey);
  if (known !== undefined) return known;
  const [p, q] = [pool[i] as bigint, pool[j] as bigint];
  const key = rsaPrivateKey({ n: p * q, e: RSA_EXPONENT, d: modInverse(RSA_EXPONENT, (p - 1n) * (q - 1n)), p, q });
  pooledKeys.set(memoKey, key);
  return key;
}

function searchedRsa(ids: IdSource, bits: number): KeyObject {
  const pBits = Math.ceil(bits / 2);
  const qBits = bits - pBits;
  for (;;) {
    const p = seededPrime(ids, pBits);
    const q = seededPrime(ids, qBits);
    if (p === q) continue;
    const n = p * q;
    if (n.toString(2).length !== bits) continue;
    return rsaPrivateKey({ n, e: RSA_EXPONENT, d: modInverse(RSA_EXPONENT, (p - 1n) * (q - 1n)), p, q });
  }
}

/** The integers of an RSA private key; `qi` (q^-1 mod p) is computed when absent. */
export interface RsaKeyParts {
  readonly n: bigint;
  readonly e: bigint;
  readonly d: bigint;
  readonly p: bigint;
  readonly q: bigint;
  readonly qi?: bigint;
}

/**
 * An RSA private key from its integers (the CRT exponents are derived).
 * @throws {Error} from node:crypto when the integers do not make a key.
 * @example rsaPrivateKey({ n, e: 65537n, d, p, q }).asymmetricKeyType // "rsa"
 */
export function rsaPrivateKey(parts: RsaKeyParts): KeyObject {
  const { n, e, d, p, q } = parts;
  return createPrivateKey({
    key: {
      kty: "RSA",
      n: bigintToBase64Url(n),
      e: bigintToBase64Url(e),
      d: bigintToBase64Url(d),
      p: bigintToBase64Url(p),
      q: bigintToBase64Url(q),
      dp: bigintToBase64Url(d % (p - 1n)),
      dq: bigintToBase64Url(d % (q - 1n)),
      qi: bigintToBase64Url(parts.qi ?? modInverse(q, p)),
    },
    format: "jwk",
  });
}

/**
 * The first prime at or after a seeded odd start of exactly `bits` bits (two top bits set) that
 * suits the exponent 65537 (`p mod 65537 != 1`).
 * @throws {RangeError} in the (practically impossible) case that the search runs past `bits` bits.
 * @example seededPrime(ctx.ids, 1024) // a 1024-bit prime, the same for the same seed
 */
export function seededPrime(ids: IdSource, bits: number): bigint {
  const byteLength = Math.ceil(bits / 8);
  const raw = bytesToBigint(ids.bytes(byteLength)) >> BigInt(byteLength * 8 - bits);
  const start = raw | (3n << BigInt(bits - 2)) | 1n;
  const memoKey = `${bits}:${start.toString(16)}`;
  const known = primeMemo.get(memoKey);
  if (known !== undefined) return known;
  const limit = 1n << BigInt(bits);
  let base = start;
  for (;;) {
    const composite = sieveWindow(base);
    for (let k = 0; k < WINDOW; k++) {
      if (composite[k]) continue;
      const candidate = base + 2n * BigInt(k);
      if (candidate >= limit) throw new RangeError("seededPrime: search ran past the bit size");
      if (candidate % RSA_EXPONENT === 1n) continue;
      if (checkPrimeSync(candidate)) {
        primeMemo.set(memoKey, candidate);
        return candidate;
      }
    }
    base += 2n * BigInt(WINDOW);
  }
}

/** Marks `base + 2k` (k < WINDOW) divisible by a small odd prime. `base` is odd and large. */
function sieveWindow(base: bigint): Uint8Array {
  const composite = new Uint8Array(WINDOW);
  smallPrimes ??= oddPrimesBelow(SIEVE_LIMIT);
  for (const p of smallPrimes) {
    const r = Number(base % BigInt(p));
    // base + 2k = 0 (mod p)  <=>  k = -r * 2^-1 (mod p), and 2^-1 = (p + 1) / 2.
    let k = Number((BigInt((p - r) % p) * BigInt((p + 1) / 2)) % BigInt(p));
    for (; k < WINDOW; k += p) composite[k] = 1;
  }
  return composite;
}

function oddPrimesBelow(limit: number): number[] {
  const sieve = new Uint8Array(limit);
  const out: number[] = [];
  for (let i = 3; i < limit; i += 2) {
    if (sieve[i]) continue;
    out.push(i);
    for (let j = i * i; j < limit; j += 2 * i) sieve[j] = 1;
  }
  return out;
}
