/**
 * The registry of secrets engine types (simulator side). The SSH and cloud credentials engines
 * register here; the core mounts them by default at `/ssh` and `/cloud`.
 *
 * Spec: secrets.md "What the service does" (engines), "Endpoints" (mount locations).
 */
import type { SecretsEngine } from "./engine.js";
import { sshEngine } from "./ssh/ssh-engine.js"; // SSH ENGINE (ssh helper)
import { cloudEngine } from "./cloud/cloud-engine.js"; // CLOUD ENGINE (cloud helper)

/** Engine types by mount type. */
// The registry holds engines of different mount state types.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type EngineRegistry = Readonly<Record<string, SecretsEngine<any>>>;

/**
 * Every built-in engine type, by mount type: `ssh` (spec "SSH engine") and `cloud` (spec
 * "Cloud-account engine").
 * @example secretsDefinition({ engines: { ssh: SECRETS_ENGINES.ssh } }) // the SSH engine alone
 */
export const SECRETS_ENGINES: EngineRegistry = Object.freeze({
  ssh: sshEngine, // SSH ENGINE (ssh helper)
  cloud: cloudEngine, // CLOUD ENGINE (cloud helper)
});

/** A mount made when the service starts. */
export interface DefaultMount {
  readonly path: string;
  readonly type: string;
  readonly description?: string;
}

/**
 * The default mounts: each engine type at its own name (`ssh` at `/ssh`, `cloud` at `/cloud`), as
 * the spec assumes ("The SSH engine is assumed to be mounted at `/ssh` ...").
 * @example defaultMountsOf(SECRETS_ENGINES) // [{ path: "ssh", type: "ssh" }, { path: "cloud", type: "cloud" }]
 */
export function defaultMountsOf(engines: EngineRegistry): DefaultMount[] {
  return Object.keys(engines).map((type) => ({ path: type, type }));
}
