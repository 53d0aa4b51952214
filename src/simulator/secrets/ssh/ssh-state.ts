/**
 * The SSH engine's state inside one mount: registered keys, roles, the zero-address role list,
 * live one-time passwords and the CA key pair. Plain data (writes journaled for transactions, copied for snapshots).
 *
 * Spec: secrets.md "SSH key", "SSH role", "SSH engine".
 */
import { dict, type Dict } from "../../kernel/dict.js";

/** The three role key types. */
export type SshKeyType = "otp" | "dynamic" | "ca";

/** Signature algorithm choice of a CA role (`default` signs RSA keys with `rsa-sha2-256`). */
export type AlgorithmSigner = "default" | "ssh-rsa" | "rsa-sha2-256" | "rsa-sha2-512";

/**
 * A role as stored: every field of the spec's role table (only the ones of its `key_type` matter).
 * Durations are ms (whole seconds, as the real service keeps them); 0 means "not set".
 */
export interface SshRole {
  readonly name: string;
  readonly keyType: SshKeyType;
  /** Registered key name (dynamic). */
  readonly key: string;
  readonly adminUser: string;
  readonly defaultUser: string;
  readonly cidrList: string;
  readonly excludeCidrList: string;
  readonly port: number;
  /** Dynamic key size: 1024 or 2048 (0 for other key types). */
  readonly keyBits: number;
  readonly installScript: string;
  readonly allowedUsers: string;
  readonly allowedUsersTemplate: boolean;
  readonly allowedDomains: string;
  readonly keyOptionSpecs: string;
  readonly ttlMs: number;
  readonly maxTtlMs: number;
  readonly allowedCriticalOptions: string;
  readonly allowedExtensions: string;
  readonly defaultCriticalOptions: Readonly<Record<string, string>>;
  readonly defaultExtensions: Readonly<Record<string, string>>;
  readonly allowUserCertificates: boolean;
  readonly allowHostCertificates: boolean;
  readonly allowBareDomains: boolean;
  readonly allowSubdomains: boolean;
  readonly allowUserKeyIds: boolean;
  readonly keyIdFormat: string;
  readonly allowedUserKeyLengths: Readonly<Record<string, readonly number[]>>;
  readonly algorithmSigner: AlgorithmSigner;
  readonly notBeforeDurationMs: number;
}

/** A live one-time password, keyed by the password itself. */
export interface SshOtpRecord {
  readonly username: string;
  readonly ip: string;
  readonly roleName: string;
  readonly leaseId: string;
}

/** The CA key pair of the mount. */
export interface SshCaRecord {
  /** PKCS#8 PEM (never returned). */
  readonly privateKey: string;
  /** As configured or generated (`ssh-rsa AAAA...\n` for generated keys). */
  readonly publicKey: string;
}

/** One mount's SSH engine state. */
export interface SshMountState {
  /** Registered host keys by name (write-only private keys). */
  keys: Dict<{ readonly key: string }>;
  roles: Dict<SshRole>;
  /** `null` until `config/zeroaddress` is written (a read answers 404 then). */
  zeroAddressRoles: string[] | null;
  otps: Dict<SshOtpRecord>;
  ca: SshCaRecord | null;
  /**
   * Lease duration of one-time passwords, ms; `null` uses the system default lease TTL (768h).
   * A scenario setting (the spec shows no endpoint for it).
   */
  otpTtlMs: number | null;
}

/**
 * A fresh mount: nothing configured.
 * @example initialSshMountState().roles // {}
 */
export function initialSshMountState(): SshMountState {
  return { keys: dict(), roles: dict(), zeroAddressRoles: null, otps: dict(), ca: null, otpTtlMs: null };
}

/**
 * The lease kind of one-time passwords (`Lease.kind`).
 * @example ctx.issueLease({ idPath: "creds/otp-role", kind: OTP_LEASE_KIND, ref: otp, ttlMs })
 */
export const OTP_LEASE_KIND = "otp";
