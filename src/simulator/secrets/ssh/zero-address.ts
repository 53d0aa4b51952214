/**
 * Zero-address roles (`/ssh/config/zeroaddress`): roles allowed for any IP address; their CIDR
 * blocks are ignored when credentials are issued.
 *
 * Spec: secrets.md "SSH engine" (`config/zeroaddress` read, write, delete).
 */
import type { EngineContext } from "../engine.js";
import { badRequest, missing } from "../errors.js";
import type { SshMountState } from "./ssh-state.js";

/**
 * Replaces the zero-address role list.
 * @param roles - role names (already split from a comma-separated string or taken from an array).
 * @throws {DomainError} 400 `Missing roles` or `Role "<name>" does not exist`.
 * @example writeZeroAddressRoles(ctx, ["otp-role"])
 */
export function writeZeroAddressRoles(ctx: EngineContext<SshMountState>, roles: readonly string[]): void {
  if (roles.length === 0) throw badRequest("write zero-address roles", "Missing roles");
  for (const role of roles) {
    if (ctx.mount.roles[role] === undefined) throw badRequest("write zero-address roles", `Role ${JSON.stringify(role)} does not exist`);
  }
  ctx.mount.zeroAddressRoles = [...roles];
}

/**
 * The zero-address roles.
 * @throws {DomainError} 404 with no message when none were ever configured (or they were deleted).
  * @example readZeroAddressRoles(ctx.mount) // ["otp-role"]
 */
export function readZeroAddressRoles(mount: SshMountState): string[] {
  if (mount.zeroAddressRoles === null) throw missing("read zero-address roles");
  return [...mount.zeroAddressRoles];
}

/**
 * Forgets the zero-address configuration.
 * @example deleteZeroAddressRoles(ctx) // GET config/zeroaddress now answers 404
 */
export function deleteZeroAddressRoles(ctx: EngineContext<SshMountState>): void {
  ctx.mount.zeroAddressRoles = null;
}
