/**
 * Credentials of OTP and dynamic roles (`creds`), the role lookup by IP (`lookup`) and the
 * one-time password check (`verify`, unauthenticated). A one-time password lives in the mount
 * until it is verified once or its lease ends, whichever comes first.
 *
 * Spec: secrets.md "SSH engine" (`creds`, `lookup`, `verify`, credentials response);
 * FIDELITY.md "Secrets" (SSH OTP paragraph).
 */
import type { EngineContext, Lease } from "../engine.js";
import { badRequest, secretsError } from "../errors.js";
import { cidrListContains, formatIp, parseIp, type IpAddress } from "./ip-address.js";
import { generateRsa } from "../seeded-keys.js";
import { OTP_LEASE_KIND, type SshMountState, type SshRole } from "./ssh-state.js";

/**
 * The echo request an SSH helper sends as `otp` to check its connection.
 * @example verifyOtp(ctx, VERIFY_ECHO_REQUEST) // { message: VERIFY_ECHO_RESPONSE }
 */
export const VERIFY_ECHO_REQUEST = "verify-echo-request";

/**
 * The answer to {@link VERIFY_ECHO_REQUEST}.
 * @example verifyOtp(ctx, "verify-echo-request").message === VERIFY_ECHO_RESPONSE
 */
export const VERIFY_ECHO_RESPONSE = "verify-echo-response";

/** What `creds` answers. */
export type SshCredentials =
  | {
      readonly keyType: "otp";
      /** The lease the one-time password dies with. */
      readonly lease: Lease;
      /** `ip`, `key` (the one-time password), `key_type`, `port`, `username`. */
      readonly data: { readonly ip: string; readonly key: string; readonly key_type: "otp"; readonly port: number; readonly username: string };
    }
  | {
      readonly keyType: "dynamic";
      /** The spec's dynamic response: the role's fields and `key`, the generated RSA private key (PEM). */
      readonly data: Record<string, unknown>;
    };

/**
 * Issues credentials of role `roleName` for `username` at `ip`.
 *
 * OTP roles: a one-time password (a UUID from the seeded ids) with a lease
 * `<mount>/creds/<role>/<random>`; dynamic roles: a fresh RSA key pair of the role's `key_bits`
 * (no lease, `lease_duration` 0, as the spec's dynamic response shows).
 * @param input.username - default: the role's `default_user`.
 * @throws {DomainError} 400 `Missing ip`, `Role "<name>" not found`,
 *   `No default username registered. Use 'username' option`,
 *   `Username is not present is allowed users list`, `Invalid IP "<ip>"`,
 *   `Error validating IP: IP does not belong to role`; 500 (as the real service) for a dynamic
 *   role whose key was deleted or a role of another key type.
 * @example createCredentials(ctx, "otp-role", { ip: "10.0.0.5" }).data.key // "6f1c...-..."
 */
export function createCredentials(
  ctx: EngineContext<SshMountState>,
  roleName: string,
  input: { readonly username?: string; readonly ip?: string },
): SshCredentials {
  const operation = "create ssh credentials";
  const ipText = input.ip ?? "";
  if (ipText === "") throw badRequest(operation, "Missing ip");
  const role = ctx.mount.roles[roleName];
  if (role === undefined) throw badRequest(operation, `Role ${JSON.stringify(roleName)} not found`);
  let username = input.username ?? "";
  if (username === "") {
    if (role.defaultUser === "") throw badRequest(operation, "No default username registered. Use 'username' option");
    username = role.defaultUser;
  }
  if (!userAllowed(role, username)) throw badRequest(operation, "Username is not present is allowed users list");
  const ip = parseIp(ipText);
  if (ip === undefined) throw badRequest(operation, `Invalid IP ${JSON.stringify(ipText)}`);
  if (!ipAllowed(ctx.mount, role, ip)) throw badRequest(operation, "Error validating IP: IP does not belong to role");
  const ipString = formatIp(ip);
  if (role.keyType === "otp") {
    let otp = ctx.ids.uuid();
    while (ctx.mount.otps[otp] !== undefined) otp = ctx.ids.uuid();
    const lease = ctx.issueLease({
      idPath: `creds/${roleName}`,
      kind: OTP_LEASE_KIND,
      ref: otp,
      ttlMs: ctx.mount.otpTtlMs ?? ctx.leaseTtls.defaultMs, // the mount's default lease TTL (tuned, else 768h)
      renewable: false,
    });
    ctx.mount.otps[otp] = { username, ip: ipString, roleName, leaseId: lease.id };
    return { keyType: "otp", lease, data: { ip: ipString, key: otp, key_type: "otp", port: role.port, username } };
  }
  if (role.keyType === "dynamic") {
    if (ctx.mount.keys[role.key] === undefined) throw secretsError("internal", operation, `key ${JSON.stringify(role.key)} not found`);
    const privateKey = generateRsa(ctx.ids, role.keyBits).export({ type: "pkcs1", format: "pem" }).toString();
    return {
      keyType: "dynamic",
      data: {
        admin_user: role.adminUser,
        allowed_users: role.allowedUsers,
        cidr_list: role.cidrList,
        default_user: role.defaultUser,
        exclude_cidr_list: role.excludeCidrList,
        install_script: role.installScript,
        key: privateKey,
        key_bits: role.keyBits,
        key_option_specs: role.keyOptionSpecs,
        key_type: role.keyType,
        port: role.port,
      },
    };
  }
  throw secretsError("internal", operation, "key type unknown");
}

/**
 * Roles whose `cidr_list` contains `ip`, then the zero-address roles (each name once).
 * @throws {DomainError} 400 `Missing ip` or `Invalid IP "<ip>"`.
 * @example lookupRoles(mount, "10.0.0.5") // ["otp-role"]
 */
export function lookupRoles(mount: SshMountState, ipText: string | undefined): string[] {
  if (ipText === undefined || ipText === "") throw badRequest("look up ssh roles", "Missing ip");
  const ip = parseIp(ipText);
  if (ip === undefined) throw badRequest("look up ssh roles", `Invalid IP ${JSON.stringify(ipText)}`);
  const matching = Object.keys(mount.roles)
    .sort()
    .filter((name) => cidrListContains((mount.roles[name] as SshRole).cidrList, ip));
  for (const name of mount.zeroAddressRoles ?? []) if (!matching.includes(name)) matching.push(name);
  return matching;
}

/** What `verify` answers. */
export type SshVerifyResult =
  | { readonly message: typeof VERIFY_ECHO_RESPONSE }
  | { readonly username: string; readonly ip: string; readonly role_name: string };

/**
 * Consumes a one-time password: the first call answers its username, IP and role; later calls,
 * and calls after its lease ended, are refused. The echo request answers the echo response.
 * @throws {DomainError} 400 `Missing otp` or `OTP not found`.
 * @example verifyOtp(ctx, otp) // { username: "ubuntu", ip: "10.0.0.5", role_name: "otp-role" }
 */
export function verifyOtp(ctx: EngineContext<SshMountState>, otp: string | undefined): SshVerifyResult {
  if (otp === undefined || otp === "") throw badRequest("verify otp", "Missing otp");
  if (otp === VERIFY_ECHO_REQUEST) return { message: VERIFY_ECHO_RESPONSE };
  const record = ctx.mount.otps[otp];
  if (record === undefined) throw badRequest("verify otp", "OTP not found");
  delete ctx.mount.otps[otp];
  return { username: record.username, ip: record.ip, role_name: record.roleName };
}

/**
 * Lease end: a one-time password dies with its lease.
 * @example sshEngine.onLeaseEnd === onSshLeaseEnd
 */
export function onSshLeaseEnd(ctx: EngineContext<SshMountState>, lease: Lease): void {
  if (lease.kind !== OTP_LEASE_KIND) return;
  const record = ctx.mount.otps[lease.ref];
  if (record !== undefined && record.leaseId === lease.id) delete ctx.mount.otps[lease.ref];
}

/**
 * Whether `username` may get credentials: empty or `*` allows anyone, else the default user and the list.
 * @example userAllowed(role, "deploy") // true when allowed_users is empty, "*" or lists deploy
 */
export function userAllowed(role: SshRole, username: string): boolean {
  const allowed = role.allowedUsers.trim();
  if (allowed === "" || allowed === "*") return true;
  if (username === role.defaultUser) return true;
  return allowed.split(",").some((user) => user.trim() === username);
}

/**
 * Zero-address roles accept any IP; otherwise `cidr_list` must contain it and `exclude_cidr_list` must not.
 * @example ipAllowed(ctx.mount, role, parseIp("10.0.0.1")!) // true for 10.0.0.0/8
 */
export function ipAllowed(mount: SshMountState, role: SshRole, ip: IpAddress): boolean {
  if (mount.zeroAddressRoles?.includes(role.name)) return true;
  if (!cidrListContains(role.cidrList, ip)) return false;
  return !cidrListContains(role.excludeCidrList, ip);
}
