/**
 * The mount's SSH certificate authority (`/ssh/config/ca`, `/ssh/public_key`): import a key pair or
 * generate one deterministically from the seeded ids (RSA 4096 bits by default, RSA of any size from
 * 2048 to 8192 bits, ECDSA P-256/384/521, Ed25519).
 *
 * Spec: secrets.md "SSH engine" (Submit CA parameters, `config/ca` read/delete, `public_key`);
 * FIDELITY.md "Secrets" (SSH CA paragraph).
 */
import type { KeyObject } from "node:crypto";
import type { IdSource } from "../../kernel/ids.js";
import type { EngineContext } from "../engine.js";
import { badRequest, missing, secretsError } from "../errors.js";
import { generateEcdsa, generateEd25519, generateRsa } from "../seeded-keys.js";
import { parsePrivateKeyText, pkcs8Pem, SshPrivateKeyError, type SshSigningKey } from "./private-key.js";
import { authorizedKeyText, parsePublicKeyText, publicKeyOf, SshKeyError, type EcdsaCurve } from "./public-key.js";
import type { SshCaRecord, SshMountState } from "./ssh-state.js";

/**
 * RSA size when `key_bits` is 0.
 * @example caKeySpec("rsa", 0) // { kind: "rsa", bits: DEFAULT_CA_RSA_BITS }
 */
export const DEFAULT_CA_RSA_BITS = 4096;

/**
 * The largest RSA key the fake generates (larger sizes take minutes in a seeded search).
 * @example caKeySpec("rsa", MAX_CA_RSA_BITS) // allowed; one bit more is a 400
 */
export const MAX_CA_RSA_BITS = 8192;

/** A `config/ca` write as the HTTP layer decoded it (`undefined`: not sent). */
export interface CaConfigInput {
  readonly privateKey?: string;
  readonly publicKey?: string;
  readonly generateSigningKey?: boolean;
  readonly keyType?: string;
  readonly keyBits?: number;
}

/** A generation request, resolved from `key_type` and `key_bits`. */
export type CaKeySpec = { readonly kind: "rsa"; readonly bits: number } | { readonly kind: "ecdsa"; readonly curve: EcdsaCurve } | { readonly kind: "ed25519" };

const OPERATION = "configure ssh ca";

/**
 * Imports or generates the CA key pair. Existing CA information is overwritten (the spec's rule; the
 * real service refuses with "keys are already configured", see docs/decisions/secrets-ssh.md).
 * @returns `generated` and, when generated, the public key to answer (`ssh-rsa AAAA...\n`).
 * @throws {DomainError} 400 `public_key and private_key must not be set when generate_signing_key is set to true`,
 *   `missing public_key`, `missing private_key`, `Unable to parse private_key as an SSH private key: ...`,
 *   `Unable to parse public_key as an SSH public key: ...`, `only one of public_key and private_key set; ...`;
 *   500 (as the real service)
 *   `unknown ssh key pair algorithm: <x>`, `refusing to generate weak <type> key: <n> bits < 2048 bits`.
 * @example configureCa(ctx, { keyType: "ed25519" }) // { generated: true, publicKey: "ssh-ed25519 AAAA...\n" }
 */
export function configureCa(ctx: EngineContext<SshMountState>, input: CaConfigInput): { generated: boolean; publicKey: string } {
  const publicKey = input.publicKey ?? "";
  const privateKey = input.privateKey ?? "";
  let generate: boolean;
  if (input.generateSigningKey === true) {
    if (publicKey !== "" || privateKey !== "") {
      throw badRequest(OPERATION, "public_key and private_key must not be set when generate_signing_key is set to true");
    }
    generate = true;
  } else if (input.generateSigningKey === false || (publicKey !== "" && privateKey !== "")) {
    if (publicKey === "") throw badRequest(OPERATION, "missing public_key");
    if (privateKey === "") throw badRequest(OPERATION, "missing private_key");
    generate = false;
  } else if (publicKey === "" && privateKey === "") {
    generate = true;
  } else {
    throw badRequest(OPERATION, "only one of public_key and private_key set; both must be set to use, or both must be blank to auto-generate");
  }
  if (!generate) {
    const signing = importPrivateKey(privateKey);
    try {
      parsePublicKeyText(publicKey);
    } catch (error) {
      if (error instanceof SshKeyError) throw badRequest(OPERATION, `Unable to parse public_key as an SSH public key: ${error.message}`);
      throw error;
    }
    ctx.mount.ca = { privateKey: pkcs8Pem(signing.key), publicKey };
    return { generated: false, publicKey };
  }
  const spec = caKeySpec(input.keyType, input.keyBits);
  ctx.mount.ca = generateCa(ctx.ids, spec);
  return { generated: true, publicKey: ctx.mount.ca.publicKey };
}

/**
 * Resolves `key_type` (OpenSSH identifiers or `rsa`, `ec`, `ed25519`; default `ssh-rsa`) and
 * `key_bits` (RSA size, 0 = 4096; for `ec` the curve, 0 = P-256).
 * @throws {DomainError} 500 for an unknown type or curve and RSA below 2048 bits (the real
 *   service's answers); 400 above {@link MAX_CA_RSA_BITS}.
  * @example caKeySpec("ec", 384) // { kind: "ecdsa", curve: "nistp384" }
 */
export function caKeySpec(keyType: string | undefined, keyBits: number | undefined): CaKeySpec {
  const type = keyType === undefined || keyType === "" ? "ssh-rsa" : keyType;
  const bits = keyBits ?? 0;
  switch (type) {
    case "ssh-rsa":
    case "rsa": {
      const size = bits === 0 ? DEFAULT_CA_RSA_BITS : bits;
      if (size < 2048) throw secretsError("internal", OPERATION, `refusing to generate weak ${type} key: ${size} bits < 2048 bits`);
      if (size > MAX_CA_RSA_BITS) throw badRequest(OPERATION, `key_bits above ${MAX_CA_RSA_BITS} are not supported by infra-doubles`);
      return { kind: "rsa", bits: size };
    }
    case "ecdsa-sha2-nistp256":
      return { kind: "ecdsa", curve: "nistp256" };
    case "ecdsa-sha2-nistp384":
      return { kind: "ecdsa", curve: "nistp384" };
    case "ecdsa-sha2-nistp521":
      return { kind: "ecdsa", curve: "nistp521" };
    case "ec": {
      const curve = ({ 0: "nistp256", 256: "nistp256", 384: "nistp384", 521: "nistp521" } as Record<number, EcdsaCurve>)[bits];
      if (curve === undefined) throw secretsError("internal", OPERATION, `unknown ECDSA key pair algorithm: ${type}`);
      return { kind: "ecdsa", curve };
    }
    case "ssh-ed25519":
    case "ed25519":
      return { kind: "ed25519" };
    default:
      throw secretsError("internal", OPERATION, `unknown ssh key pair algorithm: ${type}`);
  }
}

/**
 * Generates a CA key pair from the seeded ids; the public key is `<type> <base64>\n`.
 * @example generateCa(ctx.ids, { kind: "ed25519" }).publicKey // "ssh-ed25519 AAAA...\n"
 */
export function generateCa(ids: IdSource, spec: CaKeySpec): SshCaRecord {
  let key: KeyObject;
  if (spec.kind === "rsa") key = generateRsa(ids, spec.bits);
  else if (spec.kind === "ecdsa") key = generateEcdsa(ids, spec.curve);
  else key = generateEd25519(ids);
  return { privateKey: pkcs8Pem(key), publicKey: `${authorizedKeyText(publicKeyOf(key))}\n` };
}

/**
 * The configured CA public key.
 * @throws {DomainError} 400 `keys haven't been configured yet`.
  * @example readCaPublicKey(ctx.mount) // "ssh-rsa AAAA...\n"
 */
export function readCaPublicKey(mount: SshMountState): string {
  if (mount.ca === null) throw badRequest("read ssh ca", "keys haven't been configured yet");
  return mount.ca.publicKey;
}

/**
 * The public key served as `text/plain` by the unauthenticated `public_key` endpoint.
 * @throws {DomainError} 404 with no message when no CA is configured.
  * @example servedPublicKey(ctx.mount) // the body of GET /ssh/public_key
 */
export function servedPublicKey(mount: SshMountState): string {
  if (mount.ca === null || mount.ca.publicKey === "") throw missing("read ssh public key");
  return mount.ca.publicKey;
}

/**
 * Deletes the CA key pair (no error when none).
 * @example deleteCa(ctx) // GET config/ca now answers 400
 */
export function deleteCa(ctx: EngineContext<SshMountState>): void {
  ctx.mount.ca = null;
}

/**
 * The CA's signing key.
 * @example caSigningKey(ctx.mount.ca!).publicKey.algorithm // "ssh-rsa"
 */
export function caSigningKey(ca: SshCaRecord): SshSigningKey {
  return parsePrivateKeyText(ca.privateKey);
}

function importPrivateKey(text: string): SshSigningKey {
  try {
    return parsePrivateKeyText(text);
  } catch (error) {
    if (error instanceof SshPrivateKeyError) throw badRequest(OPERATION, `Unable to parse private_key as an SSH private key: ${error.message}`);
    throw error;
  }
}
