/**
 * SSH roles: create or replace (with each key type's required fields), read in the form of the
 * role's `key_type`, list with `key_info`, delete (which also drops the role from the zero-address
 * list).
 *
 * Spec: secrets.md "SSH engine" (role endpoints, role parameters, read-role responses);
 * FIDELITY.md "Secrets" (error wording). Choices where the spec is silent: docs/decisions/secrets-ssh.md.
 */
import type { EngineContext } from "../engine.js";
import { badRequest, missing, secretsError } from "../errors.js";
import { parseCidrList } from "./ip-address.js";
import type { AlgorithmSigner, SshKeyType, SshMountState, SshRole } from "./ssh-state.js";

/**
 * The default `not_before_duration` (spec Limits: 30s), ms.
 * @example readRole(mount, "ca-role").not_before_duration // 30 (DEFAULT_NOT_BEFORE_MS / 1000)
 */
export const DEFAULT_NOT_BEFORE_MS = 30_000;

/**
 * The default dynamic key size (spec: 1024).
 * @example readRole(mount, "dyn").key_bits // 1024 when not set
 */
export const DEFAULT_DYNAMIC_KEY_BITS = 1024;

/**
 * The built-in install script stored on dynamic roles that give none.
 * @example readRole(mount, "dyn").install_script === DEFAULT_INSTALL_SCRIPT // when none was given
 */
export const DEFAULT_INSTALL_SCRIPT = `#!/bin/bash
# Installs or uninstalls a public key in an authorized_keys file.
# Usage: <script> install|uninstall <public key file> <authorized_keys file>
set -e
mode="$1"; key_file="$2"; auth_file="$3"
case "$mode" in
  install) mkdir -p "$(dirname "$auth_file")"; cat "$key_file" >> "$auth_file" ;;
  uninstall) grep -vFf "$key_file" "$auth_file" > "$auth_file.tmp" || true; mv "$auth_file.tmp" "$auth_file" ;;
  *) echo "unknown mode: $mode" >&2; exit 1 ;;
esac
rm -f "$key_file"
`;

/**
 * A role write as the HTTP layer decoded it; `undefined` means the field was not sent.
 * Durations are ms.
 */
export interface SshRoleInput {
  readonly keyType?: string;
  readonly key?: string;
  readonly adminUser?: string;
  readonly defaultUser?: string;
  readonly cidrList?: string;
  readonly excludeCidrList?: string;
  readonly port?: number;
  readonly keyBits?: number;
  readonly installScript?: string;
  readonly allowedUsers?: string;
  readonly allowedUsersTemplate?: boolean;
  readonly allowedDomains?: string;
  readonly keyOptionSpecs?: string;
  readonly ttlMs?: number;
  readonly maxTtlMs?: number;
  readonly allowedCriticalOptions?: string;
  readonly allowedExtensions?: string;
  readonly defaultCriticalOptions?: Readonly<Record<string, string>>;
  readonly defaultExtensions?: Readonly<Record<string, string>>;
  readonly allowUserCertificates?: boolean;
  readonly allowHostCertificates?: boolean;
  readonly allowBareDomains?: boolean;
  readonly allowSubdomains?: boolean;
  readonly allowUserKeyIds?: boolean;
  readonly keyIdFormat?: string;
  readonly allowedUserKeyLengths?: Readonly<Record<string, readonly number[]>>;
  readonly algorithmSigner?: string;
  readonly notBeforeDurationMs?: number;
}

const OPERATION = "write ssh role";

/**
 * Creates or replaces role `name` (a write replaces every field; fields not sent take defaults).
 * @throws {DomainError} 400 `missing key type`, `invalid key type`, `missing default user`,
 *   `admin user not required for OTP type`, `missing cidr_list`, `missing key name`,
 *   `invalid 'key': "<name>"`, `missing admin username`, `invalid key_bits field`,
 *   `Either 'allow_user_certificates' or 'allow_host_certificates' must be set to 'true'`,
 *   `"ttl" value must be less than "max_ttl" when both are specified`; 500 (as the real service)
 *   `failed to validate cidr_list: ...` and `unknown algorithm signer "<x>"`.
 * @example writeRole(ctx, "otp-role", { keyType: "otp", defaultUser: "ubuntu", cidrList: "10.0.0.0/8" })
 */
export function writeRole(ctx: EngineContext<SshMountState>, name: string, input: SshRoleInput): SshRole {
  const cidrList = input.cidrList ?? "";
  const excludeCidrList = input.excludeCidrList ?? "";
  const badCidr = parseCidrList(cidrList).invalid;
  if (badCidr !== undefined) throw secretsError("internal", OPERATION, `failed to validate cidr_list: invalid CIDR address: ${badCidr}`);
  const badExclude = parseCidrList(excludeCidrList).invalid;
  if (badExclude !== undefined) {
    throw secretsError("internal", OPERATION, `failed to validate exclude_cidr_list entry: invalid CIDR address: ${badExclude}`);
  }
  const port = input.port === undefined || input.port === 0 ? 22 : input.port;
  const keyType = (input.keyType ?? "").toLowerCase();
  if (keyType === "") throw badRequest(OPERATION, "missing key type");
  const base = blankRole(name, keyType as SshKeyType);
  const allowedUsers = input.allowedUsers ?? "";
  const defaultUser = input.defaultUser ?? "";
  let role: SshRole;
  if (keyType === "otp") {
    if (defaultUser === "") throw badRequest(OPERATION, "missing default user");
    if ((input.adminUser ?? "") !== "") throw badRequest(OPERATION, "admin user not required for OTP type");
    requireCidrList(ctx, name, cidrList);
    role = { ...base, defaultUser, cidrList, excludeCidrList, port, allowedUsers };
  } else if (keyType === "dynamic") {
    if (defaultUser === "") throw badRequest(OPERATION, "missing default user");
    const key = input.key ?? "";
    if (key === "") throw badRequest(OPERATION, "missing key name");
    if (ctx.mount.keys[key] === undefined) throw badRequest(OPERATION, `invalid 'key': ${JSON.stringify(key)}`);
    const adminUser = input.adminUser ?? "";
    if (adminUser === "") throw badRequest(OPERATION, "missing admin username");
    const keyBits = input.keyBits ?? 0;
    if (keyBits !== 0 && keyBits !== 1024 && keyBits !== 2048) throw badRequest(OPERATION, "invalid key_bits field");
    requireCidrList(ctx, name, cidrList);
    role = {
      ...base,
      key,
      adminUser,
      defaultUser,
      cidrList,
      excludeCidrList,
      port,
      keyBits: keyBits === 0 ? DEFAULT_DYNAMIC_KEY_BITS : keyBits,
      installScript: (input.installScript ?? "") === "" ? DEFAULT_INSTALL_SCRIPT : (input.installScript ?? ""),
      allowedUsers,
      keyOptionSpecs: input.keyOptionSpecs ?? "",
    };
  } else if (keyType === "ca") {
    const algorithmSigner = checkAlgorithmSigner(input.algorithmSigner);
    const allowUserCertificates = input.allowUserCertificates ?? false;
    const allowHostCertificates = input.allowHostCertificates ?? false;
    if (!allowUserCertificates && !allowHostCertificates) {
      throw badRequest(OPERATION, "Either 'allow_user_certificates' or 'allow_host_certificates' must be set to 'true'");
    }
    const ttlMs = input.ttlMs ?? 0;
    const maxTtlMs = input.maxTtlMs ?? 0;
    if (ttlMs !== 0 && maxTtlMs !== 0 && ttlMs > maxTtlMs) {
      throw badRequest(OPERATION, `"ttl" value must be less than "max_ttl" when both are specified`);
    }
    role = {
      ...base,
      allowedCriticalOptions: input.allowedCriticalOptions ?? "",
      allowedExtensions: input.allowedExtensions ?? "",
      allowUserCertificates,
      allowHostCertificates,
      allowedUsers,
      allowedUsersTemplate: input.allowedUsersTemplate ?? false,
      allowedDomains: input.allowedDomains ?? "",
      defaultUser,
      allowBareDomains: input.allowBareDomains ?? false,
      allowSubdomains: input.allowSubdomains ?? false,
      allowUserKeyIds: input.allowUserKeyIds ?? false,
      keyIdFormat: input.keyIdFormat ?? "",
      algorithmSigner,
      ttlMs,
      maxTtlMs,
      defaultCriticalOptions: { ...(input.defaultCriticalOptions ?? {}) },
      defaultExtensions: { ...(input.defaultExtensions ?? {}) },
      allowedUserKeyLengths: Object.fromEntries(
        Object.entries(input.allowedUserKeyLengths ?? {}).map(([k, v]) => [k, [...v]]),
      ),
      notBeforeDurationMs: input.notBeforeDurationMs ?? DEFAULT_NOT_BEFORE_MS,
    };
  } else {
    throw badRequest(OPERATION, "invalid key type");
  }
  ctx.mount.roles[name] = role;
  return role;
}

/**
 * The read form of role `name`: only the fields of its key type (spec "Read-role responses",
 * plus the other fields the real service returns for that type). Durations are whole seconds.
 * @throws {DomainError} 404 with no message when the role does not exist.
  * @example readRole(ctx.mount, "otp-role") // { cidr_list: "10.0.0.0/8", default_user: "ubuntu", key_type: "otp", port: 22, ... }
 */
export function readRole(mount: SshMountState, name: string): Record<string, unknown> {
  const role = mount.roles[name];
  if (role === undefined) throw missing("read ssh role", name);
  return roleReadForm(role);
}

/**
 * The read form of a role (see {@link readRole}).
 * @example roleReadForm(ctx.mount.roles["ca-role"]!).ttl // seconds
 */
export function roleReadForm(role: SshRole): Record<string, unknown> {
  switch (role.keyType) {
    case "otp":
      return {
        allowed_users: role.allowedUsers,
        cidr_list: role.cidrList,
        default_user: role.defaultUser,
        exclude_cidr_list: role.excludeCidrList,
        key_type: role.keyType,
        port: role.port,
      };
    case "dynamic":
      return {
        admin_user: role.adminUser,
        allowed_users: role.allowedUsers,
        cidr_list: role.cidrList,
        default_user: role.defaultUser,
        exclude_cidr_list: role.excludeCidrList,
        install_script: role.installScript,
        key: role.key,
        key_bits: role.keyBits,
        key_option_specs: role.keyOptionSpecs,
        key_type: role.keyType,
        port: role.port,
      };
    case "ca":
      return {
        algorithm_signer: role.algorithmSigner,
        allow_bare_domains: role.allowBareDomains,
        allow_host_certificates: role.allowHostCertificates,
        allow_subdomains: role.allowSubdomains,
        allow_user_certificates: role.allowUserCertificates,
        allow_user_key_ids: role.allowUserKeyIds,
        allowed_critical_options: role.allowedCriticalOptions,
        allowed_domains: role.allowedDomains,
        allowed_extensions: role.allowedExtensions,
        allowed_user_key_lengths: role.allowedUserKeyLengths,
        allowed_users: role.allowedUsers,
        allowed_users_template: role.allowedUsersTemplate,
        default_critical_options: role.defaultCriticalOptions,
        default_extensions: role.defaultExtensions,
        default_user: role.defaultUser,
        key_id_format: role.keyIdFormat,
        key_type: role.keyType,
        max_ttl: Math.floor(role.maxTtlMs / 1000),
        not_before_duration: Math.floor(role.notBeforeDurationMs / 1000),
        ttl: Math.floor(role.ttlMs / 1000),
      };
  }
}

/**
 * Role names (sorted) and `key_info` (`{name: {key_type}}`).
 * @throws {DomainError} 404 with no message when there are no roles (the real service's empty list).
  * @example listRoles(ctx.mount) // { keys: ["otp-role"], key_info: { "otp-role": { key_type: "otp" } } }
 */
export function listRoles(mount: SshMountState): { keys: string[]; key_info: Record<string, { key_type: SshKeyType }> } {
  const keys = Object.keys(mount.roles).sort();
  if (keys.length === 0) throw missing("list ssh roles");
  const keyInfo: Record<string, { key_type: SshKeyType }> = {};
  for (const name of keys) keyInfo[name] = { key_type: (mount.roles[name] as SshRole).keyType };
  return { keys, key_info: keyInfo };
}

/**
 * Deletes role `name` (no error when absent) and drops it from the zero-address roles.
 * @example deleteRole(ctx, "otp-role")
 */
export function deleteRole(ctx: EngineContext<SshMountState>, name: string): void {
  if (ctx.mount.zeroAddressRoles !== null) {
    ctx.mount.zeroAddressRoles = ctx.mount.zeroAddressRoles.filter((role) => role !== name);
  }
  delete ctx.mount.roles[name];
}

function requireCidrList(ctx: EngineContext<SshMountState>, name: string, cidrList: string): void {
  if (parseCidrList(cidrList).blocks.length > 0) return;
  if (ctx.mount.zeroAddressRoles?.includes(name)) return;
  throw badRequest(OPERATION, "missing cidr_list");
}

function checkAlgorithmSigner(value: string | undefined): AlgorithmSigner {
  switch (value) {
    case undefined:
    case "":
    case "default":
      return "default";
    case "ssh-rsa":
    case "rsa-sha2-256":
    case "rsa-sha2-512":
      return value;
    default:
      throw secretsError("internal", OPERATION, `unknown algorithm signer ${JSON.stringify(value)}`);
  }
}

function blankRole(name: string, keyType: SshKeyType): SshRole {
  return {
    name,
    keyType,
    key: "",
    adminUser: "",
    defaultUser: "",
    cidrList: "",
    excludeCidrList: "",
    port: 0,
    keyBits: 0,
    installScript: "",
    allowedUsers: "",
    allowedUsersTemplate: false,
    allowedDomains: "",
    keyOptionSpecs: "",
    ttlMs: 0,
    maxTtlMs: 0,
    allowedCriticalOptions: "",
    allowedExtensions: "",
    defaultCriticalOptions: {},
    defaultExtensions: {},
    allowUserCertificates: false,
    allowHostCertificates: false,
    allowBareDomains: false,
    allowSubdomains: false,
    allowUserKeyIds: false,
    keyIdFormat: "",
    allowedUserKeyLengths: {},
    algorithmSigner: "default",
    notBeforeDurationMs: 0,
  };
}
