/**
 * Deterministic ECDSA (RFC 6979) on P-256/SHA-256, P-384/SHA-384 and P-521/SHA-512, the curves and
 * hashes of OpenSSH's `ecdsa-sha2-nistp*` signatures. node:crypto draws a random nonce for every
 * ECDSA signature; the fake must answer byte-identically for the same seed and calls, so it derives
 * the nonce `k` from the key and the message (HMAC-DRBG), computes `k*G` with node:crypto's ECDH
 * (a scalar multiplication of the base point), and finishes the signature with BigInt arithmetic.
 * The result is a standard ECDSA signature that any verifier accepts.
 */
import { createECDH, createHash, createHmac } from "node:crypto";
import { CURVES, type EcdsaCurve } from "./public-key.js";
import { bigintToBytes, bytesToBigint, concatBytes } from "./ssh-wire.js";

/**
 * The order `n` of each curve's base point.
 * @example CURVE_ORDERS.nistp256.toString(16).length // 64
 */
export const CURVE_ORDERS: Readonly<Record<EcdsaCurve, bigint>> = Object.freeze({
  nistp256: 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n,
  nistp384: 0xffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973n,
  nistp521:
    0x01fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffa51868783bf2f966b7fcc0148f709a5d03bb5c9b8899c47aebb6fb71e91386409n,
});

/** An ECDSA signature as two integers. */
export interface EcdsaSignature {
  readonly r: bigint;
  readonly s: bigint;
}

/**
 * Signs `message` with private scalar `d` on `curve`, hashing with the curve's SSH hash.
 * @param d - the private scalar, `1 <= d < n`.
 * @returns `(r, s)`; the same inputs always give the same signature.
 * @example signEcdsaDeterministic("nistp256", d, bytes) // { r, s }
 */
export function signEcdsaDeterministic(curve: EcdsaCurve, d: bigint, message: Uint8Array): EcdsaSignature {
  const facts = CURVES[curve];
  const n = CURVE_ORDERS[curve];
  const hash = new Uint8Array(createHash(facts.hash).update(message).digest());
  const qlen = n.toString(2).length;
  const e = bits2int(hash, qlen);
  const nonces = rfc6979Nonces(facts.hash, d, hash, n, qlen);
  for (;;) {
    const k = nonces();
    const ecdh = createECDH(facts.nodeName);
    ecdh.setPrivateKey(Buffer.from(bigintToBytes(k, facts.bytes)));
    const point = ecdh.getPublicKey();
    const x = bytesToBigint(new Uint8Array(point.subarray(1, 1 + facts.bytes)));
    const r = x % n;
    if (r === 0n) continue;
    const s = (modInverse(k, n) * ((e + r * d) % n)) % n;
    if (s === 0n) continue;
    return { r, s };
  }
}

/**
 * The RFC 6979 section 3.2 nonce generator for key `d` and message hash `h1`: each call returns the
 * next candidate `k` in `[1, n-1]`.
  * @example const next = rfc6979Nonces("sha256", d, sha256(message), CURVE_ORDERS.nistp256, 256); next() // k
 */
export function rfc6979Nonces(hashName: string, d: bigint, h1: Uint8Array, n: bigint, qlen: number): () => bigint {
  const rlen = Math.ceil(qlen / 8);
  const hmac = (key: Uint8Array, ...parts: Uint8Array[]): Uint8Array =>
    new Uint8Array(createHmac(hashName, key).update(concatBytes(parts)).digest());
  const hlen = h1.length;
  const x = bigintToBytes(d, rlen);
  let z = bits2int(h1, qlen);
  if (z >= n) z -= n;
  const h = bigintToBytes(z, rlen);
  let v: Uint8Array = new Uint8Array(hlen).fill(1);
  let k: Uint8Array = new Uint8Array(hlen).fill(0);
  k = hmac(k, v, new Uint8Array([0]), x, h);
  v = hmac(k, v);
  k = hmac(k, v, new Uint8Array([1]), x, h);
  v = hmac(k, v);
  let first = true;
  return () => {
    for (;;) {
      if (!first) {
        k = hmac(k, v, new Uint8Array([0]));
        v = hmac(k, v);
      }
      first = false;
      const t: Uint8Array[] = [];
      let tlen = 0;
      while (tlen < qlen) {
        v = hmac(k, v);
        t.push(v);
        tlen += v.length * 8;
      }
      const candidate = bits2int(concatBytes(t), qlen);
      if (candidate >= 1n && candidate < n) return candidate;
    }
  };
}

/**
 * RFC 6979 `bits2int`: the leftmost `qlen` bits of `bytes` as an integer.
 * @example bits2int(new Uint8Array([0xff, 0x00]), 4) // 15n
 */
export function bits2int(bytes: Uint8Array, qlen: number): bigint {
  const value = bytesToBigint(bytes);
  const blen = bytes.length * 8;
  return blen > qlen ? value >> BigInt(blen - qlen) : value;
}

/**
 * `a^-1 mod m` (extended Euclid); `a` and `m` coprime.
 * @example modInverse(3n, 11n) // 4n
 */
export function modInverse(a: bigint, m: bigint): bigint {
  let [oldR, r] = [((a % m) + m) % m, m];
  let [oldS, s] = [1n, 0n];
  while (r !== 0n) {
    const q = oldR / r;
    [oldR, r] = [r, oldR - q * r];
    [oldS, s] = [s, oldS - q * s];
  }
  if (oldR !== 1n) throw new RangeError("modInverse: not invertible");
  return ((oldS % m) + m) % m;
}
