/**
 * The dev server's default secrets scenario: the SSH and cloud engines at `/ssh` and `/cloud`,
 * an OTP role `otp-role` for `10.0.0.0/8` and a CA role `ca-role` allowing any user certificate
 * (with a CA key generated from the seed), and cloud root credentials with roles `deploy`, `assume`
 * and `federate`. The banner shows the base URL and the root token.
 */
import { installCloudDefaults } from "./cloud/cloud-scenario.js";
import { installSshDefaults } from "./ssh/ssh-scenario.js";
import type { SecretsScenario } from "./secrets-scenario.js";

/** What the banner prints for the secrets service. */
export interface SecretsDevBanner {
  readonly baseUrl: string;
  readonly rootToken: string;
  /** `ssh/ (ssh)`, `cloud/ (cloud)`. */
  readonly mounts: readonly string[];
  /** The SSH roles made (when an SSH engine is mounted at `ssh`). */
  readonly sshRoles?: readonly string[];
  /** The cloud roles made (when a cloud engine is mounted at `cloud`): `deploy` (IAM user), `assume`, `federate`. */
  readonly cloudRoles?: readonly string[];
  readonly [key: string]: unknown;
}

/** Options of {@link buildSecretsDevScenario}. */
export interface SecretsDevScenarioOptions {
  /** The SSH CA's key type (default RSA 4096, the real default; `ssh-ed25519` is much faster to generate). */
  readonly sshCaKeyType?: string;
}

/**
 * Builds the default scenario and returns the banner entry.
 * @example buildSecretsDevScenario(doubles.secrets, "http://127.0.0.1:8080/v1")
 */
export function buildSecretsDevScenario(controls: SecretsScenario, baseUrl: string, options: SecretsDevScenarioOptions = {}): SecretsDevBanner {
  const mounts = controls.mounts();
  const ssh = mounts.find((m) => m.path === "ssh" && m.type === "ssh");
  const roles =
    ssh === undefined
      ? undefined
      : installSshDefaults(controls, { mountPath: "ssh", ...(options.sshCaKeyType !== undefined ? { keyType: options.sshCaKeyType } : {}) });
  const cloud = mounts.some((m) => m.path === "cloud" && m.type === "cloud") ? installCloudDefaults(controls, "cloud") : undefined;
  return {
    baseUrl,
    rootToken: controls.rootToken,
    mounts: mounts.map((m) => `${m.path}/ (${m.type})`),
    ...(roles === undefined ? {} : { sshRoles: [roles.otpRole, roles.caRole] }),
    ...(cloud === undefined ? {} : { cloudRoles: Object.values(cloud.roles) }),
  };
}
