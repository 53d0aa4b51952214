/**
 * Registered SSH keys (`/ssh/keys/:name`): named private keys with privileges on remote hosts,
 * used by dynamic roles. The key value is write-only.
 *
 * Spec: secrets.md "SSH key", "SSH engine" (`POST`/`DELETE /ssh/keys/:name`).
 */
import type { EngineContext } from "../engine.js";
import { badRequest } from "../errors.js";
import { parsePrivateKeyText, SshPrivateKeyError } from "./private-key.js";
import type { SshMountState } from "./ssh-state.js";

/**
 * Registers (or replaces) key `name`.
 * @param key - an SSH private key (PEM or OpenSSH form).
 * @throws {DomainError} 400 `Missing key` or `Invalid key`.
 * @example writeKey(ctx, "admin-key", pem)
 */
export function writeKey(ctx: EngineContext<SshMountState>, name: string, key: string | undefined): void {
  if (key === undefined || key === "") throw badRequest("write ssh key", "Missing key");
  try {
    parsePrivateKeyText(key);
  } catch (error) {
    if (error instanceof SshPrivateKeyError) throw badRequest("write ssh key", "Invalid key");
    throw error;
  }
  ctx.mount.keys[name] = { key };
}

/**
 * Deletes key `name` (no error when absent; roles naming it keep the name).
 * @example deleteKey(ctx, "admin-key")
 */
export function deleteKey(ctx: EngineContext<SshMountState>, name: string): void {
  delete ctx.mount.keys[name];
}
