/**
 * The SSH secrets engine type (`ssh`): its mount state and what dies when a lease ends.
 *
 * Spec: secrets.md "SSH engine".
 */
import type { SecretsEngine } from "../engine.js";
import { onSshLeaseEnd } from "./ssh-credentials.js";
import { initialSshMountState, type SshMountState } from "./ssh-state.js";

/**
 * The `ssh` engine: keys, roles (otp, dynamic, ca), zero-address roles, one-time passwords that
 * die with their leases, and a certificate authority signing real OpenSSH certificates.
 * @example SECRETS_ENGINES.ssh === sshEngine
 */
export const sshEngine: SecretsEngine<SshMountState> = Object.freeze({
  type: "ssh",
  initialMountState: initialSshMountState,
  onLeaseEnd: onSshLeaseEnd,
});
