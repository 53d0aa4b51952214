/**
 * Scenario controls of an SSH engine mount: roles, keys, the CA, zero-address roles, the OTP
 * lease duration, and a look at live one-time passwords - without going through HTTP. Also the
 * default scenario (an OTP role `otp-role` for `10.0.0.0/8` and a CA role `ca-role` with a
 * generated CA) that the dev server and tests can install.
 *
 * Spec: secrets.md "SSH engine" (fixtures for the same resources the endpoints manage).
 */
import { parseDuration, type Duration } from "../../../simulator/kernel/duration.js";
import { UsageError } from "../../../simulator/kernel/errors.js";
import { configureCa, deleteCa } from "../../../simulator/secrets/ssh/certificate-authority.js";
import { createCredentials } from "../../../simulator/secrets/ssh/ssh-credentials.js";
import { writeKey } from "../../../simulator/secrets/ssh/ssh-keys.js";
import { roleReadForm, writeRole, type SshRoleInput } from "../../../simulator/secrets/ssh/ssh-roles.js";
import type { SshMountState, SshOtpRecord } from "../../../simulator/secrets/ssh/ssh-state.js";
import { writeZeroAddressRoles } from "../../../simulator/secrets/ssh/zero-address.js";
import type { SecretsScenario } from "../secrets-scenario.js";

/** Options of {@link SshScenario.addOtpRole}. */
export interface OtpRoleOptions {
  /** Comma-separated CIDR blocks (default `10.0.0.0/8`). */
  readonly cidrList?: string;
  readonly excludeCidrList?: string;
  /** Default `ubuntu`. */
  readonly defaultUser?: string;
  /** Comma-separated; empty or `*` allows any user. */
  readonly allowedUsers?: string;
  /** Default 22. */
  readonly port?: number;
}

/** Options of {@link SshScenario.addCaRole} (the spec's `ca` role parameters, camel-cased; durations as ms or strings). */
export interface CaRoleOptions {
  /** Default `ubuntu`. */
  readonly defaultUser?: string;
  /** Default `*` (any user). */
  readonly allowedUsers?: string;
  /** Default true. */
  readonly allowUserCertificates?: boolean;
  readonly allowHostCertificates?: boolean;
  readonly allowedDomains?: string;
  readonly allowBareDomains?: boolean;
  readonly allowSubdomains?: boolean;
  readonly allowUserKeyIds?: boolean;
  readonly keyIdFormat?: string;
  readonly ttl?: Duration;
  readonly maxTtl?: Duration;
  readonly notBeforeDuration?: Duration;
  readonly allowedCriticalOptions?: string;
  readonly allowedExtensions?: string;
  readonly defaultCriticalOptions?: Readonly<Record<string, string>>;
  readonly defaultExtensions?: Readonly<Record<string, string>>;
  readonly allowedUserKeyLengths?: Readonly<Record<string, readonly number[]>>;
  readonly algorithmSigner?: "default" | "ssh-rsa" | "rsa-sha2-256" | "rsa-sha2-512";
}

/** What {@link installSshDefaults} made. */
export interface SshDefaults {
  readonly otpRole: string;
  readonly caRole: string;
  /** The generated CA public key (`ssh-rsa AAAA...\n`). */
  readonly caPublicKey: string;
}

/**
 * Scenario controls of the SSH engine mounted at `mountPath` (default `ssh`).
 *
 * @example
 * const ssh = sshScenario(doubles.secrets);
 * ssh.addOtpRole("otp-role", { cidrList: "10.0.0.0/8" });
 * const caKey = ssh.generateCa({ keyType: "ed25519" });
 */
export class SshScenario {
  constructor(
    private readonly secrets: SecretsScenario,
    /** The mount path, e.g. `ssh`. */
    readonly mountPath = "ssh",
  ) {}

  /**
   * Creates or replaces an OTP role (defaults: `cidr_list` `10.0.0.0/8`, `default_user` `ubuntu`, port 22).
   * @throws {UsageError} when the role is refused (e.g. a bad CIDR block).
   * @example ssh.addOtpRole("otp-role", { cidrList: "192.168.0.0/16", allowedUsers: "deploy" });
   */
  addOtpRole(name: string, options: OtpRoleOptions = {}): void {
    this.addRole(name, {
      keyType: "otp",
      cidrList: options.cidrList ?? "10.0.0.0/8",
      defaultUser: options.defaultUser ?? "ubuntu",
      ...(options.excludeCidrList !== undefined ? { excludeCidrList: options.excludeCidrList } : {}),
      ...(options.allowedUsers !== undefined ? { allowedUsers: options.allowedUsers } : {}),
      ...(options.port !== undefined ? { port: options.port } : {}),
    });
  }

  /**
   * Creates or replaces a CA role (by default: user certificates for any user, default user
   * `ubuntu`). Durations are ms or duration strings (`"1h"`), kept in whole seconds.
   * @throws {UsageError} when the role is refused (e.g. ttl above max_ttl, no certificate type allowed).
   * @example ssh.addCaRole("hosts", { allowUserCertificates: false, allowHostCertificates: true, allowedDomains: "example.com", allowSubdomains: true });
   */
  addCaRole(name: string, options: CaRoleOptions = {}): void {
    const { ttl, maxTtl, notBeforeDuration, ...rest } = options;
    this.addRole(name, {
      keyType: "ca",
      defaultUser: "ubuntu",
      allowedUsers: "*",
      allowUserCertificates: true,
      ...rest,
      ...(ttl !== undefined ? { ttlMs: toMs(ttl) } : {}),
      ...(maxTtl !== undefined ? { maxTtlMs: toMs(maxTtl) } : {}),
      ...(notBeforeDuration !== undefined ? { notBeforeDurationMs: toMs(notBeforeDuration) } : {}),
    });
  }

  /**
   * Creates or replaces a role of any key type from the engine's own role input (durations in ms).
   * @throws {UsageError} when the role is refused.
   * @example ssh.addRole("dyn", { keyType: "dynamic", key: "admin-key", adminUser: "admin", defaultUser: "ubuntu", cidrList: "10.0.0.0/8" });
   */
  addRole(name: string, input: SshRoleInput): void {
    this.secrets.updateMount<SshMountState, void>(this.mountPath, (ctx) => void writeRole(ctx, name, input));
  }

  /**
   * A role in its read form (as `GET roles/:name` answers; durations in seconds), or undefined.
   * @example ssh.role("otp-role")?.cidr_list // "10.0.0.0/8"
   */
  role(name: string): Record<string, unknown> | undefined {
    return this.secrets.readMount<SshMountState, Record<string, unknown> | undefined>(this.mountPath, (ctx) => {
      const role = ctx.mount.roles[name];
      return role === undefined ? undefined : roleReadForm(role);
    });
  }

  /**
   * Registers a named private key (PEM or OpenSSH form) for dynamic roles, like `POST keys/:name`.
   * @throws {UsageError} for a missing or unreadable key.
   * @example ssh.addKey("admin-key", readFileSync("id_rsa", "utf8"));
   */
  addKey(name: string, privateKey: string): void {
    this.secrets.updateMount<SshMountState, void>(this.mountPath, (ctx) => writeKey(ctx, name, privateKey));
  }

  /**
   * Generates the CA key pair from the seed (replacing any), like `POST config/ca`.
   * @param options.keyType - `ssh-rsa` (default), `ec`, `ed25519` or an OpenSSH key type.
   * @param options.keyBits - RSA size (default 4096) or the `ec` curve (256, 384, 521).
   * @returns the CA public key (`<type> <base64>\n`).
   * @throws {UsageError} for an unknown key type or size.
   * @example const caKey = ssh.generateCa({ keyType: "ec", keyBits: 384 }); // "ecdsa-sha2-nistp384 AAAA...\n"
   */
  generateCa(options: { keyType?: string; keyBits?: number } = {}): string {
    return this.secrets.updateMount<SshMountState, string>(this.mountPath, (ctx) => {
      deleteCa(ctx);
      return configureCa(ctx, { generateSigningKey: true, ...options }).publicKey;
    });
  }

  /**
   * Imports a CA key pair (replacing any), like `POST config/ca` with `private_key` and `public_key`.
   * @throws {UsageError} when either key cannot be read.
   * @example ssh.importCa(readFileSync("ca", "utf8"), readFileSync("ca.pub", "utf8"));
   */
  importCa(privateKey: string, publicKey: string): void {
    this.secrets.updateMount<SshMountState, void>(this.mountPath, (ctx) => {
      deleteCa(ctx);
      configureCa(ctx, { generateSigningKey: false, privateKey, publicKey });
    });
  }

  /**
   * The CA public key, or undefined when none is configured.
   * @example writeFileSync("trusted-user-ca-keys.pub", ssh.caPublicKey() ?? "");
   */
  caPublicKey(): string | undefined {
    return this.secrets.readMount<SshMountState, string | undefined>(this.mountPath, (ctx) => ctx.mount.ca?.publicKey);
  }

  /**
   * Replaces the zero-address roles (roles allowed for any IP), like `POST config/zeroaddress`.
   * @throws {UsageError} for an empty list or a role that does not exist.
   * @example ssh.setZeroAddressRoles(["otp-role"]);
   */
  setZeroAddressRoles(roles: readonly string[]): void {
    this.secrets.updateMount<SshMountState, void>(this.mountPath, (ctx) => writeZeroAddressRoles(ctx, roles));
  }

  /**
   * Sets how long one-time passwords live (their lease duration); `null` restores the system
   * default (768h). Applies to OTPs issued afterwards.
   * @example ssh.setOtpTtl("5m");
   */
  setOtpTtl(ttl: Duration | null): void {
    const ms = ttl === null ? null : toMs(ttl);
    this.secrets.updateMount<SshMountState, void>(this.mountPath, (ctx) => {
      ctx.mount.otpTtlMs = ms;
    });
  }

  /**
   * Issues a one-time password without HTTP (as `POST creds/:role` would).
   * @returns the password and its lease id.
   * @throws {UsageError} when the request would be refused, or the role is not an OTP role.
   * @example const { otp } = ssh.issueOtp("otp-role", "10.0.0.5");
   */
  issueOtp(role: string, ip: string, username?: string): { otp: string; leaseId: string } {
    return this.secrets.updateMount<SshMountState, { otp: string; leaseId: string }>(this.mountPath, (ctx) => {
      const creds = createCredentials(ctx, role, { ip, ...(username !== undefined ? { username } : {}) });
      if (creds.keyType !== "otp") throw new UsageError(`secrets: role "${role}" is not an OTP role`);
      return { otp: creds.data.key, leaseId: creds.lease.id };
    });
  }

  /**
   * Live (issued, not yet verified, lease not ended) one-time passwords.
   * @example ssh.liveOtps().map((o) => o.username) // ["ubuntu"]
   */
  liveOtps(): (SshOtpRecord & { readonly otp: string })[] {
    return this.secrets.readMount<SshMountState, (SshOtpRecord & { otp: string })[]>(this.mountPath, (ctx) =>
      Object.entries(ctx.mount.otps).map(([otp, record]) => ({ otp, ...record })),
    );
  }
}

/**
 * The SSH scenario controls of a mount.
 * @example sshScenario(doubles.secrets).addCaRole("ca-role")
 */
export function sshScenario(secrets: SecretsScenario, mountPath = "ssh"): SshScenario {
  return new SshScenario(secrets, mountPath);
}

/**
 * The default SSH scenario: OTP role `otp-role` for `10.0.0.0/8` (default user `ubuntu`), CA role
 * `ca-role` allowing user certificates for any user (default user `ubuntu`, allowed users `*`),
 * and a CA key pair generated from the seed (RSA 4096 unless `keyType` says otherwise).
 * @example installSshDefaults(doubles.secrets) // { otpRole: "otp-role", caRole: "ca-role", caPublicKey: "ssh-rsa AAAA...\n" }
 */
export function installSshDefaults(secrets: SecretsScenario, options: { mountPath?: string; keyType?: string; keyBits?: number } = {}): SshDefaults {
  const ssh = sshScenario(secrets, options.mountPath ?? "ssh");
  ssh.addOtpRole("otp-role", { cidrList: "10.0.0.0/8" });
  ssh.addCaRole("ca-role");
  const caPublicKey = ssh.generateCa({
    ...(options.keyType !== undefined ? { keyType: options.keyType } : {}),
    ...(options.keyBits !== undefined ? { keyBits: options.keyBits } : {}),
  });
  return { otpRole: "otp-role", caRole: "ca-role", caPublicKey };
}

function toMs(duration: Duration): number {
  try {
    const ms = parseDuration(duration);
    if (ms < 0) throw new Error("negative");
    return Math.floor(ms / 1000) * 1000;
  } catch {
    throw new UsageError(`secrets: not a duration: ${JSON.stringify(duration)}`);
  }
}
