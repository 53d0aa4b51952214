/**
 * OpenSSH public keys: parsing the `authorized_keys` form users submit for signing (`ssh-rsa`,
 * `ssh-dss`, `ecdsa-sha2-nistp256/384/521`, `ssh-ed25519`), and building the wire form of a
 * node:crypto key (the CA's public key, a generated key).
 *
 * Spec: secrets.md "SSH engine" (`public_key` of `sign`, `allowed_user_key_lengths`, `public_key` of `config/ca`).
 */
import { createHash, createPublicKey, type KeyObject } from "node:crypto";
import { base64UrlToBigint, bigintToBase64Url, SshFormatError, SshReader, SshWriter } from "./ssh-wire.js";

/** The key families the engine knows, named as `allowed_user_key_lengths` names them. */
export type SshKeyKind = "rsa" | "dsa" | "ecdsa" | "ed25519";

/** The three NIST curves of OpenSSH ECDSA keys. */
export type EcdsaCurve = "nistp256" | "nistp384" | "nistp521";

/** A parsed public key. */
export interface SshPublicKey {
  /** The OpenSSH key type, e.g. `ssh-ed25519`, `ecdsa-sha2-nistp256`. */
  readonly algorithm: string;
  readonly kind: SshKeyKind;
  /** RSA: modulus bits; DSA: bits of `p`; ECDSA: 256, 384 or 521; Ed25519: 256. */
  readonly bits: number;
  /** The canonical wire blob (`string algorithm` followed by the key fields). */
  readonly blob: Uint8Array;
  /** The key fields after the algorithm name, as a certificate embeds them. */
  readonly fields: Uint8Array;
  /** ECDSA only. */
  readonly curve?: EcdsaCurve;
}

/**
 * Curve facts: node:crypto / JWK names, coordinate size, signature hash.
 * @example CURVES.nistp384.hash // "sha384"
 */
export const CURVES: Readonly<Record<EcdsaCurve, { readonly nodeName: string; readonly jwkName: string; readonly bits: number; readonly bytes: number; readonly hash: string }>> =
  Object.freeze({
    nistp256: { nodeName: "prime256v1", jwkName: "P-256", bits: 256, bytes: 32, hash: "sha256" },
    nistp384: { nodeName: "secp384r1", jwkName: "P-384", bits: 384, bytes: 48, hash: "sha384" },
    nistp521: { nodeName: "secp521r1", jwkName: "P-521", bits: 521, bytes: 66, hash: "sha512" },
  });

/**
 * A public key that could not be parsed; `message` follows the Go SSH library's wording.
 * @example try { parsePublicKeyText("ssh-rsa !!") } catch (e) { (e as SshKeyError).message } // "illegal base64 data at input byte 0"
 */
export class SshKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SshKeyError";
  }
}

/**
 * Parses a public key in `authorized_keys` form (`ssh-ed25519 AAAA... comment`) or as the bare
 * base64 blob, like the real service: the second space-separated word is the blob when there are
 * several words; newlines inside the base64 text are ignored.
 * @throws {SshKeyError} on bad base64, an unknown algorithm or a malformed blob.
 * @example parsePublicKeyText("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI... me@host").algorithm // "ssh-ed25519"
 */
export function parsePublicKeyText(text: string): SshPublicKey {
  const words = text.split(" ");
  const encoded = (words.length > 1 ? (words[1] ?? "") : text).replace(/[\r\n]/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded) || encoded.length % 4 !== 0) {
    throw new SshKeyError(`illegal base64 data at input byte ${firstBadBase64(encoded)}`);
  }
  return parsePublicKeyBlob(new Uint8Array(Buffer.from(encoded, "base64")));
}

/**
 * Parses a public key wire blob.
 * @throws {SshKeyError} on an unknown algorithm or a malformed blob.
  * @example parsePublicKeyBlob(blob).bits // 2048
 */
export function parsePublicKeyBlob(blob: Uint8Array): SshPublicKey {
  try {
    const reader = new SshReader(blob);
    const algorithm = reader.text();
    const writer = new SshWriter().string(algorithm);
    let kind: SshKeyKind;
    let bits: number;
    let curve: EcdsaCurve | undefined;
    switch (algorithm) {
      case "ssh-rsa": {
        const e = reader.mpint();
        const n = reader.mpint();
        if (e < 3n) throw new SshKeyError("ssh: incorrect exponent");
        if (e.toString(2).length > 24) throw new SshKeyError("ssh: exponent too large");
        writer.mpint(e).mpint(n);
        kind = "rsa";
        bits = n.toString(2).length;
        break;
      }
      case "ssh-dss": {
        const p = reader.mpint();
        const q = reader.mpint();
        const g = reader.mpint();
        const y = reader.mpint();
        writer.mpint(p).mpint(q).mpint(g).mpint(y);
        kind = "dsa";
        bits = p.toString(2).length;
        break;
      }
      case "ecdsa-sha2-nistp256":
      case "ecdsa-sha2-nistp384":
      case "ecdsa-sha2-nistp521": {
        const named = algorithm.slice("ecdsa-sha2-".length) as EcdsaCurve;
        const curveName = reader.text();
        if (curveName !== named) throw new SshKeyError("ssh: curve name mismatch");
        const point = reader.string();
        checkPointOnCurve(named, point);
        writer.string(curveName).string(point);
        kind = "ecdsa";
        bits = CURVES[named].bits;
        curve = named;
        break;
      }
      case "ssh-ed25519": {
        const key = reader.string();
        if (key.length !== 32) throw new SshKeyError(`ssh: invalid size ${key.length} for Ed25519 public key`);
        writer.string(key);
        kind = "ed25519";
        bits = 256;
        break;
      }
      default:
        throw new SshKeyError(`ssh: unknown key algorithm: ${algorithm}`);
    }
    reader.end();
    const canonical = writer.bytes();
    const fields = canonical.subarray(4 + Buffer.byteLength(algorithm));
    return curve === undefined
      ? { algorithm, kind, bits, blob: canonical, fields }
      : { algorithm, kind, bits, blob: canonical, fields, curve };
  } catch (error) {
    if (error instanceof SshFormatError) throw new SshKeyError(error.message);
    throw error;
  }
}

/**
 * The OpenSSH public key of a node:crypto key (RSA, EC on the three NIST curves, Ed25519).
 * @throws {SshKeyError} for other key types.
  * @example authorizedKeyText(publicKeyOf(privateKey)) // "ssh-ed25519 AAAA..."
 */
export function publicKeyOf(key: KeyObject): SshPublicKey {
  const jwk = (key.type === "public" ? key : createPublicKey(key)).export({ format: "jwk" });
  const writer = new SshWriter();
  switch (jwk.kty) {
    case "RSA":
      writer.string("ssh-rsa").mpint(base64UrlToBigint(jwk.e ?? "")).mpint(base64UrlToBigint(jwk.n ?? ""));
      break;
    case "EC": {
      const curve = curveOfJwk(jwk.crv);
      const size = CURVES[curve].bytes;
      const point = Buffer.concat([
        Buffer.from([4]),
        Buffer.from(pad(Buffer.from(jwk.x ?? "", "base64url"), size)),
        Buffer.from(pad(Buffer.from(jwk.y ?? "", "base64url"), size)),
      ]);
      writer.string(`ecdsa-sha2-${curve}`).string(curve).string(new Uint8Array(point));
      break;
    }
    case "OKP":
      if (jwk.crv !== "Ed25519") throw new SshKeyError(`ssh: unsupported key type ${jwk.crv ?? "OKP"}`);
      writer.string("ssh-ed25519").string(new Uint8Array(Buffer.from(jwk.x ?? "", "base64url")));
      break;
    default:
      throw new SshKeyError(`ssh: unsupported key type ${String(jwk.kty)}`);
  }
  return parsePublicKeyBlob(writer.bytes());
}

/**
 * A node:crypto public key for an OpenSSH public key (RSA, ECDSA, Ed25519), e.g. to verify a
 * signature with `crypto.verify`.
 * @throws {SshKeyError} for DSA keys (not needed by the engine).
  * @example crypto.verify(null, data, keyObjectOf(parsePublicKeyText(line)), signature)
 */
export function keyObjectOf(key: SshPublicKey): KeyObject {
  const reader = new SshReader(key.fields);
  switch (key.kind) {
    case "rsa": {
      const e = reader.mpint();
      const n = reader.mpint();
      return createPublicKey({ key: { kty: "RSA", n: bigintToBase64Url(n), e: bigintToBase64Url(e) }, format: "jwk" });
    }
    case "ecdsa": {
      const curve = key.curve ?? "nistp256";
      reader.text();
      const point = reader.string();
      return createPublicKey({ key: ecPointJwk(curve, point), format: "jwk" });
    }
    case "ed25519":
      return createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(reader.string()).toString("base64url") }, format: "jwk" });
    default:
      throw new SshKeyError(`ssh: no node:crypto form for ${key.algorithm}`);
  }
}

/**
 * The `authorized_keys` line of a key, without comment or newline: `ssh-ed25519 AAAA...`.
 * @example authorizedKeyText(parsePublicKeyText("ssh-ed25519 AAAA... me")) // "ssh-ed25519 AAAA..."
 */
export function authorizedKeyText(key: SshPublicKey): string {
  return `${key.algorithm} ${Buffer.from(key.blob).toString("base64")}`;
}

/**
 * The SHA-256 fingerprint as `ssh-keygen -l` prints it: `SHA256:` and unpadded base64.
 * @example fingerprintSha256(parsePublicKeyText(line)) // "SHA256:..." (as ssh-keygen -l)
 */
export function fingerprintSha256(key: SshPublicKey): string {
  const digest = createHash("sha256").update(key.blob).digest("base64");
  return `SHA256:${digest.replace(/=+$/, "")}`;
}

/**
 * The curve of a JWK `crv` member.
 * @example curveOfJwk("P-521") // "nistp521"
 */
export function curveOfJwk(crv: string | undefined): EcdsaCurve {
  for (const [curve, facts] of Object.entries(CURVES) as [EcdsaCurve, (typeof CURVES)[EcdsaCurve]][]) {
    if (facts.jwkName === crv) return curve;
  }
  throw new SshKeyError(`ssh: unsupported curve ${crv ?? "(none)"}`);
}

/**
 * The JWK members (`kty`, `crv`, `x`, `y`) of an uncompressed point (`04 || x || y`) on `curve`;
 * add `d` for a private key.
 * @example createPublicKey({ key: ecPointJwk("nistp256", point), format: "jwk" })
 */
export function ecPointJwk(curve: EcdsaCurve, point: Uint8Array): { kty: "EC"; crv: string; x: string; y: string } {
  const size = CURVES[curve].bytes;
  return {
    kty: "EC",
    crv: CURVES[curve].jwkName,
    x: Buffer.from(point.subarray(1, 1 + size)).toString("base64url"),
    y: Buffer.from(point.subarray(1 + size)).toString("base64url"),
  };
}

function pad(bytes: Uint8Array, size: number): Uint8Array {
  if (bytes.length >= size) return bytes;
  const out = new Uint8Array(size);
  out.set(bytes, size - bytes.length);
  return out;
}

function checkPointOnCurve(curve: EcdsaCurve, point: Uint8Array): void {
  const size = CURVES[curve].bytes;
  if (point.length !== 1 + 2 * size || point[0] !== 4) throw new SshKeyError("ssh: invalid ECDSA public key");
  try {
    createPublicKey({ key: ecPointJwk(curve, point), format: "jwk" });
  } catch {
    throw new SshKeyError("ssh: invalid ECDSA public key");
  }
}

function firstBadBase64(text: string): number {
  for (let i = 0; i < text.length; i++) if (!/[A-Za-z0-9+/=]/.test(text[i] ?? "")) return i;
  return text.length - (text.length % 4);
}
