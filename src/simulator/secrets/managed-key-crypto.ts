/**
 * Key material and real signing for the simulated managed-key backends.
 *
 * Keys come from the secrets service's one seeded key generator (`seeded-keys.ts`), driven by an
 * {@link IdSource} seeded with the hex of the key's seed bytes (drawn from the simulator's id
 * source), so the same seed and the same calls give the same keys.
 *
 * Signing uses node:crypto. ECDSA and RSA-PSS signatures are randomized there, which is harmless:
 * the test-sign answer is success or failure, never the signature bytes.
 *
 * Spec: secrets.md "Managed keys".
 */
import { type KeyObject, constants, createPrivateKey, createPublicKey, sign, verify } from "node:crypto";
import { IdSource } from "../kernel/ids.js";
import type { KeyMaterial } from "./managed-key-types.js";
import { generateEcdsa, generateEd25519, generateRsa } from "./seeded-keys.js";
import { CURVE_ORDERS } from "./ssh/deterministic-ecdsa.js";
import { CURVES, type EcdsaCurve } from "./ssh/public-key.js";

/** One managed-key curve: node:crypto's and JWK's names, the scalar size in bytes, the group order and the generator's curve name. */
export interface EcCurve {
  readonly node: string;
  readonly jwk: string;
  readonly bytes: number;
  readonly order: bigint;
  /** The curve's name for the seeded ECDSA key generator (`nistp256`, ...). */
  readonly nist: EcdsaCurve;
}

function ecCurve(nist: EcdsaCurve): EcCurve {
  const facts = CURVES[nist];
  return Object.freeze({ node: facts.nodeName, jwk: facts.jwkName, bytes: facts.bytes, order: CURVE_ORDERS[nist], nist });
}

/**
 * EC curves by the managed-key names (`curve`: `P256`, `P384`, `P521`), with node:crypto's and
 * JWK's names, the scalar size in bytes and the group order.
 * @example EC_CURVES.P384.node // "secp384r1"
 */
export const EC_CURVES: Readonly<Record<string, EcCurve>> = Object.freeze({
  P256: ecCurve("nistp256"),
  P384: ecCurve("nistp384"),
  P521: ecCurve("nistp521"),
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

/**
 * Generates key material from `seed` (at least 32 bytes from the simulator's id source).
 * Same seed and spec, same key.
 * @throws {RangeError} for a curve not in {@link EC_CURVES} or an RSA size below 512 bits.
 * @example generateKey(ids.bytes(32), { algorithm: "ec", curve: "P256" })
 */
export function generateKey(seed: Uint8Array, spec: KeySpec): KeyMaterial {
  const ids = new IdSource(Buffer.from(seed).toString("hex"));
  switch (spec.algorithm) {
    case "rsa":
      return exportMaterial(generateRsa(ids, spec.bits), spec);
    case "ec": {
      const curve = EC_CURVES[spec.curve];
      if (curve === undefined) throw new RangeError(`unknown curve ${spec.curve}`);
      return exportMaterial(generateEcdsa(ids, curve.nist), spec);
    }
    case "ed25519":
      return exportMaterial(generateEd25519(ids), spec);
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
