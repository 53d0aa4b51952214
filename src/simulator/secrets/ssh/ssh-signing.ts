/**
 * Signing a user's or host's public key with the mount's CA (`/ssh/sign/:name`): the role decides
 * which principals, key ids, key types and sizes, options, extensions and validity are allowed;
 * the result is a real OpenSSH certificate.
 *
 * Spec: secrets.md "SSH engine" (Sign parameters, role parameters of `ca` roles, Errors row "SSH
 * sign with update capability only and no existing key"); FIDELITY.md "Secrets" (SSH CA paragraph).
 */
import { createHash } from "node:crypto";
import type { EngineContext } from "../engine.js";
import { badRequest, secretsError } from "../errors.js";
import { caKeySpec, caSigningKey, generateCa } from "./certificate-authority.js";
import { CertificateError, certificateText, signCertificate, type RsaSignatureAlgorithm } from "./certificate.js";
import { parsePublicKeyText, SshKeyError, type SshPublicKey } from "./public-key.js";
import type { SshMountState, SshRole } from "./ssh-state.js";
import { bytesToBigint } from "./ssh-wire.js";

/** A `sign` request as the HTTP layer decoded it (`undefined`: not sent). */
export interface SignInput {
  readonly publicKey?: string;
  /** ms; `undefined` uses the role's `ttl`. */
  readonly ttlMs?: number;
  /** Comma-separated; `undefined` uses the default principal. */
  readonly validPrincipals?: string;
  readonly certType?: string;
  readonly keyId?: string;
  readonly criticalOptions?: Readonly<Record<string, string>>;
  readonly extensions?: Readonly<Record<string, string>>;
}

/** What `sign` answers. */
export interface SignResult {
  /** The serial in lowercase hexadecimal without padding. */
  readonly serial_number: string;
  /** `<type>-cert-v01@openssh.com AAAA...\n`. */
  readonly signed_key: string;
}

/** How a missing CA key is handled, by the caller's capabilities (spec: "Signing needs both create and update"). */
export type MissingCaPolicy = "create-default" | "refuse";

const OPERATION = "sign ssh key";

/**
 * Signs `input.publicKey` under role `roleName`.
 * @param missingCa - what to do when the mount has no CA key: `create-default` generates one
 *   with default parameters (a caller holding `create`), `refuse` fails (a caller with `update` only).
 * @throws {DomainError} 400 `Unknown role: <name>`, `missing public_key`,
 *   `failed to parse public_key as SSH key: ...`, `public_key failed to meet the key requirements: ...`,
 *   `setting key_id is not allowed by role`, `cert_type '<t>' is not allowed by role`,
 *   `cert_type must be either 'user' or 'host'`, `empty valid principals not allowed by role`,
 *   `role is not configured to allow any principals`, `<p> is not a valid value for valid_principals`,
 *   `ttl is larger than maximum allowed <seconds>`, `critical options not on allowed list: [...]`,
 *   `extensions [...] are not on allowed list`, and (update only, no CA)
 *   `failed to read CA private key: ...`; 500 (as the real service) when the role's
 *   `algorithm_signer` does not fit the CA key.
 * @example signPublicKey(ctx, "ca-role", { publicKey: "ssh-ed25519 AAAA..." }, "refuse").signed_key
 */
export function signPublicKey(ctx: EngineContext<SshMountState>, roleName: string, input: SignInput, missingCa: MissingCaPolicy): SignResult {
  const role = ctx.mount.roles[roleName];
  if (role === undefined) throw badRequest(OPERATION, `Unknown role: ${roleName}`);
  const publicKeyText = input.publicKey ?? "";
  if (publicKeyText === "") throw badRequest(OPERATION, "missing public_key");
  let publicKey: SshPublicKey;
  try {
    publicKey = parsePublicKeyText(publicKeyText);
  } catch (error) {
    if (error instanceof SshKeyError) throw badRequest(OPERATION, `failed to parse public_key as SSH key: ${error.message}`);
    throw error;
  }
  const keyProblem = keyRequirementProblem(role, publicKey);
  if (keyProblem !== undefined) throw badRequest(OPERATION, `public_key failed to meet the key requirements: ${keyProblem}`);
  const keyId = calculateKeyId(ctx, role, input.keyId, publicKey);
  const certType = calculateCertType(role, input.certType ?? "user");
  const principals =
    certType === "host"
      ? calculatePrincipals(input.validPrincipals, "", role.allowedDomains, (allowed, p) => hostAllowed(role, allowed, p))
      : calculatePrincipals(input.validPrincipals, role.defaultUser, role.allowedUsers, (allowed, p) => allowed.includes(p));
  const ttlMs = calculateTtl(role, input.ttlMs, ctx.leaseTtls);
  const criticalOptions = calculateCriticalOptions(role, input.criticalOptions ?? {});
  const extensions = calculateExtensions(role, input.extensions ?? {});
  if (ctx.mount.ca === null) {
    if (missingCa === "refuse") {
      throw badRequest(OPERATION, "failed to read CA private key: no CA key is configured, and creating one needs the create capability");
    }
    ctx.mount.ca = generateCa(ctx.ids, caKeySpec(undefined, undefined));
  }
  const ca = caSigningKey(ctx.mount.ca);
  const serial = bytesToBigint(ctx.ids.bytes(8));
  const nonce = ctx.ids.bytes(32);
  const rsaAlgorithm: RsaSignatureAlgorithm | undefined =
    role.algorithmSigner === "default" ? (ca.publicKey.kind === "rsa" ? "rsa-sha2-256" : undefined) : role.algorithmSigner;
  let blob: Uint8Array;
  try {
    blob = signCertificate(
      {
        nonce,
        publicKey,
        serial,
        certType,
        keyId,
        principals,
        validAfter: unixSeconds(ctx.now - role.notBeforeDurationMs),
        validBefore: unixSeconds(ctx.now + ttlMs),
        criticalOptions,
        extensions,
      },
      ca.key,
      ca.publicKey,
      rsaAlgorithm,
    );
  } catch (error) {
    if (error instanceof CertificateError) {
      throw secretsError("internal", OPERATION, `failed to generate signed SSH key: sign error: ${error.message}`);
    }
    throw error;
  }
  return { serial_number: serial.toString(16), signed_key: certificateText(blob) };
}

/**
 * Why `key` breaks the role's `allowed_user_key_lengths`, or `undefined` when it is acceptable.
 * With no lengths configured every key type but DSA is accepted (OpenSSH no longer accepts DSA);
 * otherwise the key's family must be listed (as `rsa`, `dsa`, `ecdsa`/`ec`, `ed25519` or an OpenSSH
 * key type) with its exact size (ignored where the algorithm fixes it).
  * @example keyRequirementProblem(role, parsePublicKeyText(rsa1024)) // "key is of an invalid size: 1024"
 */
export function keyRequirementProblem(role: SshRole, key: SshPublicKey): string | undefined {
  const lengths = role.allowedUserKeyLengths;
  if (Object.keys(lengths).length === 0) {
    return key.kind === "dsa" ? "key of type dsa is not allowed" : undefined;
  }
  const names: Record<string, readonly string[]> = {
    rsa: ["rsa", "ssh-rsa"],
    dsa: ["dsa", "ssh-dss"],
    ecdsa: ["ecdsa", "ec", ...(key.kind === "ecdsa" ? [key.algorithm] : [])],
    ed25519: ["ed25519", "ssh-ed25519"],
  };
  let present = false;
  let pass = false;
  for (const name of names[key.kind] ?? []) {
    const allowed = lengths[name];
    if (allowed === undefined) continue;
    present = true;
    for (const size of allowed) {
      const sizeMatters = key.kind === "rsa" || key.kind === "dsa" || name === "ecdsa" || name === "ec";
      if (!sizeMatters || size === key.bits) pass = true;
    }
  }
  if (!present) return `key of type ${key.kind} is not allowed`;
  if (!pass) return `key is of an invalid size: ${key.bits}`;
  return undefined;
}

function calculateKeyId(ctx: EngineContext<SshMountState>, role: SshRole, requested: string | undefined, key: SshPublicKey): string {
  if (requested !== undefined && requested !== "") {
    if (!role.allowUserKeyIds) throw badRequest(OPERATION, "setting key_id is not allowed by role");
    return requested;
  }
  const displayName = ctx.caller?.displayName ?? "";
  if (role.keyIdFormat === "") return displayName === "" ? role.name : displayName;
  const values: Record<string, string> = {
    token_display_name: displayName,
    role_name: role.name,
    public_key_hash: createHash("sha256").update(key.blob).digest("hex"),
  };
  return role.keyIdFormat.replace(/\{\{(token_display_name|role_name|public_key_hash)\}\}/g, (_, name: string) => values[name] ?? "");
}

function calculateCertType(role: SshRole, requested: string): "user" | "host" {
  if (requested === "user") {
    if (!role.allowUserCertificates) throw badRequest(OPERATION, "cert_type 'user' is not allowed by role");
    return "user";
  }
  if (requested === "host") {
    if (!role.allowHostCertificates) throw badRequest(OPERATION, "cert_type 'host' is not allowed by role");
    return "host";
  }
  throw badRequest(OPERATION, "cert_type must be either 'user' or 'host'");
}

function calculatePrincipals(
  requested: string | undefined,
  defaultPrincipal: string,
  allowedByRole: string,
  isAllowed: (allowed: readonly string[], principal: string) => boolean,
): string[] {
  let principals = uniqueSorted(requested ?? defaultPrincipal);
  if (principals.length === 0 && defaultPrincipal !== "") principals = [defaultPrincipal];
  if (principals.length === 0) throw badRequest(OPERATION, "empty valid principals not allowed by role");
  const allowed = uniqueSorted(allowedByRole);
  if (allowed.length === 0) throw badRequest(OPERATION, "role is not configured to allow any principals");
  if (allowedByRole === "*") return principals;
  for (const principal of principals) {
    if (!isAllowed(allowed, principal)) throw badRequest(OPERATION, `${principal} is not a valid value for valid_principals`);
  }
  return principals;
}

function hostAllowed(role: SshRole, allowed: readonly string[], principal: string): boolean {
  return allowed.some((domain) => (role.allowBareDomains && principal === domain) || (role.allowSubdomains && principal.endsWith(`.${domain}`)));
}

/**
 * The certificate's TTL: the requested one, else the role's, else the mount's default lease TTL;
 * capped by the role's `max_ttl`, else the mount's maximum ("the system default / maximum lease
 * TTL" of the spec is the mount's view of it: its tuned values, else 768h).
 */
function calculateTtl(role: SshRole, requested: number | undefined, mountTtls: { readonly defaultMs: number; readonly maxMs: number }): number {
  let ttl = requested ?? role.ttlMs;
  if (ttl === 0) ttl = mountTtls.defaultMs;
  const max = role.maxTtlMs === 0 ? mountTtls.maxMs : role.maxTtlMs;
  if (ttl > max) {
    if (requested === undefined) return max;
    throw badRequest(OPERATION, `ttl is larger than maximum allowed ${Math.floor(max / 1000)}`);
  }
  return ttl;
}

function calculateCriticalOptions(role: SshRole, requested: Readonly<Record<string, string>>): Record<string, string> {
  if (Object.keys(requested).length === 0) return { ...role.defaultCriticalOptions };
  if (role.allowedCriticalOptions !== "") {
    const allowed = role.allowedCriticalOptions.split(",");
    const refused = Object.keys(requested).filter((name) => !allowed.includes(name)).sort();
    if (refused.length > 0) throw badRequest(OPERATION, `critical options not on allowed list: [${refused.join(" ")}]`);
  }
  return { ...requested };
}

function calculateExtensions(role: SshRole, requested: Readonly<Record<string, string>>): Record<string, string> {
  if (Object.keys(requested).length === 0) return { ...role.defaultExtensions };
  if (role.allowedExtensions === "*") return { ...requested };
  const allowed = role.allowedExtensions.split(",");
  const refused = Object.keys(requested).filter((name) => !allowed.includes(name)).sort();
  if (refused.length > 0) throw badRequest(OPERATION, `extensions [${refused.join(" ")}] are not on allowed list`);
  return { ...requested };
}

/** Comma-separated values, trimmed, empty ones dropped, duplicates removed, sorted (byte order). */
function uniqueSorted(list: string): string[] {
  const items = new Set(list.split(",").map((item) => item.trim()).filter((item) => item !== ""));
  return [...items].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

function unixSeconds(ms: number): bigint {
  return BigInt(Math.max(0, Math.floor(ms / 1000)));
}
