/**
 * OpenSSH certificates (PROTOCOL.certkeys): encoding, signing with the CA key, and decoding.
 *
 * A certificate is the key type `<key type>-cert-v01@openssh.com`, a 32-byte nonce, the subject
 * key's fields, serial, type (1 user, 2 host), key id, principals, validity (Unix seconds),
 * critical options and extensions (sorted by name; a non-empty value is itself a string), a
 * reserved string, the CA public key, and the CA's signature over everything before it.
 * Signatures: RSA PKCS#1 v1.5 with SHA-1 (`ssh-rsa`), SHA-256 (`rsa-sha2-256`) or SHA-512
 * (`rsa-sha2-512`); ECDSA as `mpint r, mpint s` (deterministic, RFC 6979); Ed25519.
 *
 * Spec: secrets.md "SSH engine" (`sign`: `signed_key`, `serial_number`; role `algorithm_signer`).
 */
import { sign as cryptoSign, verify as cryptoVerify, type KeyObject } from "node:crypto";
import { signEcdsaDeterministic } from "./deterministic-ecdsa.js";
import { CURVES, keyObjectOf, parsePublicKeyBlob, type SshPublicKey } from "./public-key.js";
import { base64UrlToBigint, SshFormatError, SshReader, SshWriter } from "./ssh-wire.js";

/**
 * Certificate type numbers of PROTOCOL.certkeys.
 * @example CERT_TYPE.host // 2
 */
export const CERT_TYPE = Object.freeze({ user: 1, host: 2 } as const);

/** Signature algorithms an RSA CA can use (`algorithm_signer`). */
export type RsaSignatureAlgorithm = "ssh-rsa" | "rsa-sha2-256" | "rsa-sha2-512";

/** What goes into a certificate. */
export interface CertificateInput {
  /** 32 bytes. */
  readonly nonce: Uint8Array;
  /** The subject key (the user's or host's public key). */
  readonly publicKey: SshPublicKey;
  /** Unsigned 64-bit serial. */
  readonly serial: bigint;
  readonly certType: "user" | "host";
  readonly keyId: string;
  readonly principals: readonly string[];
  /** Unix seconds. */
  readonly validAfter: bigint;
  /** Unix seconds. */
  readonly validBefore: bigint;
  readonly criticalOptions: Readonly<Record<string, string>>;
  readonly extensions: Readonly<Record<string, string>>;
}

/** A decoded certificate. */
export interface ParsedCertificate extends CertificateInput {
  /** e.g. `ssh-ed25519-cert-v01@openssh.com`. */
  readonly certAlgorithm: string;
  /** The CA public key. */
  readonly signatureKey: SshPublicKey;
  /** The signature's algorithm name, e.g. `rsa-sha2-256`. */
  readonly signatureAlgorithm: string;
  /** The raw signature bytes inside the signature blob. */
  readonly signature: Uint8Array;
  /** The bytes the signature covers. */
  readonly signedBytes: Uint8Array;
}

/**
 * A certificate the engine could not read; the message says what was wrong.
 * @example try { parseCertificate("nope") } catch (e) { e instanceof CertificateError } // true
 */
export class CertificateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CertificateError";
  }
}

/**
 * The certificate key type for a subject key type: `ssh-ed25519` -> `ssh-ed25519-cert-v01@openssh.com`.
 * @example certAlgorithmOf("ssh-ed25519") // "ssh-ed25519-cert-v01@openssh.com"
 */
export function certAlgorithmOf(keyAlgorithm: string): string {
  return `${keyAlgorithm}-cert-v01@openssh.com`;
}

/**
 * The signature algorithm a CA key signs with: `rsaAlgorithm` for RSA keys (default
 * `rsa-sha2-256`), the key's own for ECDSA and Ed25519.
 * @throws {CertificateError} when an RSA algorithm is asked of a non-RSA key.
  * @example signatureAlgorithmFor(rsaCaKey, undefined) // "rsa-sha2-256"
 */
export function signatureAlgorithmFor(caKey: SshPublicKey, rsaAlgorithm: RsaSignatureAlgorithm | undefined): string {
  if (caKey.kind === "rsa") return rsaAlgorithm ?? "rsa-sha2-256";
  if (rsaAlgorithm !== undefined) {
    throw new CertificateError(`ssh: unsupported signature algorithm ${rsaAlgorithm} for key type ${caKey.algorithm}`);
  }
  return caKey.algorithm;
}

/**
 * Builds and signs a certificate.
 * @param caKey - the CA private key (RSA, ECDSA on a NIST curve, or Ed25519).
 * @param caPublicKey - its OpenSSH public key (embedded as the signature key).
 * @param rsaAlgorithm - for an RSA CA: `ssh-rsa`, `rsa-sha2-256` (default) or `rsa-sha2-512`.
 * @returns the certificate wire blob.
 * @throws {CertificateError} when the CA key cannot sign with the algorithm asked.
 * @example signCertificate(input, ca.key, ca.publicKey, "rsa-sha2-256")
 */
export function signCertificate(
  input: CertificateInput,
  caKey: KeyObject,
  caPublicKey: SshPublicKey,
  rsaAlgorithm?: RsaSignatureAlgorithm,
): Uint8Array {
  const algorithm = signatureAlgorithmFor(caPublicKey, rsaAlgorithm);
  const body = encodeToBeSigned(input, caPublicKey);
  const signature = new SshWriter().string(algorithm).string(rawSignature(algorithm, caKey, caPublicKey, body)).bytes();
  return new SshWriter().raw(body).string(signature).bytes();
}

/**
 * The `authorized_keys`-style line of a certificate blob, with a trailing newline (as the real service answers).
 * @example certificateText(blob) // "ssh-ed25519-cert-v01@openssh.com AAAA...\n"
 */
export function certificateText(blob: Uint8Array): string {
  const algorithm = new SshReader(blob).text();
  return `${algorithm} ${Buffer.from(blob).toString("base64")}\n`;
}

/**
 * Decodes a certificate from its text line (`ssh-ed25519-cert-v01@openssh.com AAAA...`) or blob.
 * @throws {CertificateError} when it is not a well-formed certificate.
 * @example parseCertificate(signedKey).principals // ["alice"]
 */
export function parseCertificate(certificate: string | Uint8Array): ParsedCertificate {
  const blob =
    typeof certificate === "string"
      ? new Uint8Array(Buffer.from((certificate.trim().split(/\s+/)[1] ?? "").replace(/[\r\n]/g, ""), "base64"))
      : certificate;
  try {
    const reader = new SshReader(blob);
    const certAlgorithm = reader.text();
    const suffix = "-cert-v01@openssh.com";
    if (!certAlgorithm.endsWith(suffix)) throw new CertificateError(`not a certificate: ${certAlgorithm}`);
    const keyAlgorithm = certAlgorithm.slice(0, -suffix.length);
    const nonce = reader.string();
    const fields = readKeyFields(reader, keyAlgorithm);
    const publicKey = parsePublicKeyBlob(new SshWriter().string(keyAlgorithm).raw(fields).bytes());
    const serial = reader.uint64();
    const typeNumber = reader.uint32();
    if (typeNumber !== CERT_TYPE.user && typeNumber !== CERT_TYPE.host) throw new CertificateError(`bad certificate type ${typeNumber}`);
    const keyId = reader.text();
    const principalReader = new SshReader(reader.string());
    const principals: string[] = [];
    while (principalReader.remaining > 0) principals.push(principalReader.text());
    const validAfter = reader.uint64();
    const validBefore = reader.uint64();
    const criticalOptions = decodeOptions(reader.string());
    const extensions = decodeOptions(reader.string());
    reader.string();
    const signatureKey = parsePublicKeyBlob(reader.string());
    const signedBytes = blob.subarray(0, blob.length - reader.remaining);
    const signatureReader = new SshReader(reader.string());
    reader.end();
    const signatureAlgorithm = signatureReader.text();
    const signature = signatureReader.string();
    return {
      certAlgorithm,
      nonce,
      publicKey,
      serial,
      certType: typeNumber === CERT_TYPE.user ? "user" : "host",
      keyId,
      principals,
      validAfter,
      validBefore,
      criticalOptions,
      extensions,
      signatureKey,
      signatureAlgorithm,
      signature,
      signedBytes,
    };
  } catch (error) {
    if (error instanceof CertificateError) throw error;
    throw new CertificateError((error as Error).message);
  }
}

/**
 * Checks a decoded certificate's signature against its embedded CA key with node:crypto.
 * @returns whether the signature is valid (false for an algorithm that does not fit the key).
  * @example verifyCertificateSignature(parseCertificate(signedKey)) // true
 */
export function verifyCertificateSignature(certificate: ParsedCertificate): boolean {
  const key = keyObjectOf(certificate.signatureKey);
  const { signatureAlgorithm: algorithm, signature, signedBytes } = certificate;
  switch (certificate.signatureKey.kind) {
    case "rsa": {
      const hash = { "ssh-rsa": "sha1", "rsa-sha2-256": "sha256", "rsa-sha2-512": "sha512" }[algorithm];
      return hash !== undefined && cryptoVerify(hash, signedBytes, key, signature);
    }
    case "ecdsa": {
      if (algorithm !== certificate.signatureKey.algorithm) return false;
      const curve = certificate.signatureKey.curve ?? "nistp256";
      const reader = new SshReader(signature);
      const r = reader.mpint();
      const s = reader.mpint();
      reader.end();
      const size = CURVES[curve].bytes;
      const p1363 = Buffer.concat([Buffer.from(r.toString(16).padStart(size * 2, "0"), "hex"), Buffer.from(s.toString(16).padStart(size * 2, "0"), "hex")]);
      return cryptoVerify(CURVES[curve].hash, signedBytes, { key, dsaEncoding: "ieee-p1363" }, p1363);
    }
    case "ed25519":
      return algorithm === "ssh-ed25519" && cryptoVerify(null, signedBytes, key, signature);
    default:
      return false;
  }
}

function encodeToBeSigned(input: CertificateInput, caPublicKey: SshPublicKey): Uint8Array {
  const principals = new SshWriter();
  for (const principal of input.principals) principals.string(principal);
  return new SshWriter()
    .string(certAlgorithmOf(input.publicKey.algorithm))
    .string(input.nonce)
    .raw(input.publicKey.fields)
    .uint64(input.serial)
    .uint32(CERT_TYPE[input.certType])
    .string(input.keyId)
    .string(principals.bytes())
    .uint64(input.validAfter)
    .uint64(input.validBefore)
    .string(encodeOptions(input.criticalOptions))
    .string(encodeOptions(input.extensions))
    .string(new Uint8Array(0))
    .string(caPublicKey.blob)
    .bytes();
}

/** Options sorted by name (byte order); a non-empty value is wrapped in its own string. */
function encodeOptions(options: Readonly<Record<string, string>>): Uint8Array {
  const writer = new SshWriter();
  const names = Object.keys(options).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  for (const name of names) {
    const value = options[name] ?? "";
    writer.string(name);
    writer.string(value === "" ? new Uint8Array(0) : new SshWriter().string(value).bytes());
  }
  return writer.bytes();
}

function decodeOptions(bytes: Uint8Array): Record<string, string> {
  const reader = new SshReader(bytes);
  const out: Record<string, string> = {};
  while (reader.remaining > 0) {
    const name = reader.text();
    const data = reader.string();
    out[name] = data.length === 0 ? "" : new SshReader(data).text();
  }
  return out;
}

function readKeyFields(reader: SshReader, keyAlgorithm: string): Uint8Array {
  const writer = new SshWriter();
  switch (keyAlgorithm) {
    case "ssh-rsa":
      writer.mpint(reader.mpint()).mpint(reader.mpint());
      break;
    case "ssh-dss":
      writer.mpint(reader.mpint()).mpint(reader.mpint()).mpint(reader.mpint()).mpint(reader.mpint());
      break;
    case "ecdsa-sha2-nistp256":
    case "ecdsa-sha2-nistp384":
    case "ecdsa-sha2-nistp521":
      writer.string(reader.string()).string(reader.string());
      break;
    case "ssh-ed25519":
      writer.string(reader.string());
      break;
    default:
      throw new SshFormatError(`ssh: unknown certificate key type ${keyAlgorithm}`);
  }
  return writer.bytes();
}

function rawSignature(algorithm: string, caKey: KeyObject, caPublicKey: SshPublicKey, body: Uint8Array): Uint8Array {
  switch (algorithm) {
    case "ssh-rsa":
      return new Uint8Array(cryptoSign("sha1", body, caKey));
    case "rsa-sha2-256":
      return new Uint8Array(cryptoSign("sha256", body, caKey));
    case "rsa-sha2-512":
      return new Uint8Array(cryptoSign("sha512", body, caKey));
    case "ssh-ed25519":
      return new Uint8Array(cryptoSign(null, body, caKey));
    case "ecdsa-sha2-nistp256":
    case "ecdsa-sha2-nistp384":
    case "ecdsa-sha2-nistp521": {
      const jwk = caKey.export({ format: "jwk" });
      const { r, s } = signEcdsaDeterministic(caPublicKey.curve ?? "nistp256", base64UrlToBigint(jwk.d ?? ""), body);
      return new SshWriter().mpint(r).mpint(s).bytes();
    }
    default:
      throw new CertificateError(`ssh: unsupported signature algorithm ${algorithm}`);
  }
}

