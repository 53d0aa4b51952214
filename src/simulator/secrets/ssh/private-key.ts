/**
 * SSH private keys the engine accepts: PEM `RSA PRIVATE KEY` (PKCS#1), `EC PRIVATE KEY` (SEC1),
 * `PRIVATE KEY` (PKCS#8) and unencrypted `OPENSSH PRIVATE KEY` (the `ssh-keygen` default), for RSA,
 * ECDSA on the NIST curves and Ed25519 - the key types a CA can sign certificates with.
 *
 * Spec: secrets.md "SSH engine" (`private_key` of `config/ca`, `key` of `keys/:name`).
 */
import { createPrivateKey, type KeyObject } from "node:crypto";
import { CURVES, ecPointJwk, publicKeyOf, type EcdsaCurve, type SshPublicKey } from "./public-key.js";
import { bigintToBase64Url, SshFormatError, SshReader } from "./ssh-wire.js";
import { rsaPrivateKey } from "../seeded-keys.js";

/**
 * A private key that could not be used; `message` follows the Go SSH library's wording.
 * @example try { parsePrivateKeyText("x") } catch (e) { (e as SshPrivateKeyError).message } // "ssh: no key found"
 */
export class SshPrivateKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SshPrivateKeyError";
  }
}

/** A usable signing key: the node:crypto key and its OpenSSH public key. */
export interface SshSigningKey {
  readonly key: KeyObject;
  readonly publicKey: SshPublicKey;
}

const PEM = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/;
const cache = new Map<string, SshSigningKey>();
const CACHE_LIMIT = 64;

/**
 * Parses a private key text (see the module comment for the forms).
 * @throws {SshPrivateKeyError} `ssh: no key found`, `ssh: this private key is passphrase protected`,
 *   `ssh: unsupported key type "..."`, or a parse failure.
 * @example parsePrivateKeyText(pem).publicKey.algorithm // "ssh-ed25519"
 */
export function parsePrivateKeyText(text: string): SshSigningKey {
  const cached = cache.get(text);
  if (cached !== undefined) return cached;
  const parsed = parseUncached(text);
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(text, parsed);
  return parsed;
}

/**
 * The PKCS#8 PEM of a private key (the form the engine stores).
 * @example pkcs8Pem(key) // "-----BEGIN PRIVATE KEY-----\n..."
 */
export function pkcs8Pem(key: KeyObject): string {
  return key.export({ type: "pkcs8", format: "pem" }).toString();
}

function parseUncached(text: string): SshSigningKey {
  const match = PEM.exec(text);
  if (match === null) throw new SshPrivateKeyError("ssh: no key found");
  const [, label = "", body = ""] = match;
  if (/Proc-Type:\s*4,ENCRYPTED/.test(body) || label === "ENCRYPTED PRIVATE KEY") {
    throw new SshPrivateKeyError("ssh: this private key is passphrase protected");
  }
  let key: KeyObject;
  switch (label) {
    case "RSA PRIVATE KEY":
    case "EC PRIVATE KEY":
    case "PRIVATE KEY":
      try {
        key = createPrivateKey({ key: match[0], format: "pem" });
      } catch (error) {
        throw new SshPrivateKeyError(`asn1: structure error: ${(error as Error).message}`);
      }
      break;
    case "OPENSSH PRIVATE KEY":
      key = parseOpenSshBody(body);
      break;
    default:
      throw new SshPrivateKeyError(`ssh: unsupported key type "${label}"`);
  }
  const type = key.asymmetricKeyType;
  if (type !== "rsa" && type !== "ec" && type !== "ed25519") {
    throw new SshPrivateKeyError(`ssh: unsupported key type "${type ?? "unknown"}"`);
  }
  try {
    return { key, publicKey: publicKeyOf(key) };
  } catch (error) {
    throw new SshPrivateKeyError((error as Error).message);
  }
}

function parseOpenSshBody(body: string): KeyObject {
  const bytes = new Uint8Array(Buffer.from(body.replace(/\s+/g, ""), "base64"));
  const magic = "openssh-key-v1\0";
  if (Buffer.from(bytes.subarray(0, magic.length)).toString("latin1") !== magic) {
    throw new SshPrivateKeyError("ssh: invalid openssh private key format");
  }
  try {
    const reader = new SshReader(bytes.subarray(magic.length));
    const cipher = reader.text();
    const kdf = reader.text();
    reader.string();
    if (cipher !== "none" || kdf !== "none") throw new SshPrivateKeyError("ssh: this private key is passphrase protected");
    const count = reader.uint32();
    if (count !== 1) throw new SshPrivateKeyError("ssh: multi-key files are not supported");
    reader.string();
    const section = new SshReader(reader.string());
    if (section.uint32() !== section.uint32()) throw new SshPrivateKeyError("ssh: malformed OpenSSH key");
    const algorithm = section.text();
    switch (algorithm) {
      case "ssh-rsa": {
        const n = section.mpint();
        const e = section.mpint();
        const d = section.mpint();
        const qi = section.mpint();
        const p = section.mpint();
        const q = section.mpint();
        return rsaPrivateKey({ n, e, d, p, q, qi });
      }
      case "ssh-ed25519": {
        const pub = section.string();
        const priv = section.string();
        if (pub.length !== 32 || priv.length !== 64) throw new SshPrivateKeyError("ssh: malformed OpenSSH key");
        return createPrivateKey({
          key: { kty: "OKP", crv: "Ed25519", d: Buffer.from(priv.subarray(0, 32)).toString("base64url"), x: Buffer.from(pub).toString("base64url") },
          format: "jwk",
        });
      }
      case "ecdsa-sha2-nistp256":
      case "ecdsa-sha2-nistp384":
      case "ecdsa-sha2-nistp521": {
        const curve = section.text() as EcdsaCurve;
        const facts = CURVES[curve];
        if (facts === undefined) throw new SshPrivateKeyError("ssh: unsupported curve");
        const point = section.string();
        const d = section.mpint();
        return createPrivateKey({ key: { ...ecPointJwk(curve, point), d: bigintToBase64Url(d, facts.bytes) }, format: "jwk" });
      }
      default:
        throw new SshPrivateKeyError(`ssh: unhandled key type ${algorithm}`);
    }
  } catch (error) {
    if (error instanceof SshPrivateKeyError) throw error;
    if (error instanceof SshFormatError) throw new SshPrivateKeyError(error.message);
    throw new SshPrivateKeyError(`ssh: malformed OpenSSH key: ${(error as Error).message}`);
  }
}
