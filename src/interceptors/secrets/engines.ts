/**
 * The registry of secrets engines' HTTP faces. The SSH and cloud credentials engines register
 * here; the core dispatches requests under their mounts to these routes.
 */
import type { EngineHttp } from "./engine-routes.js";
import { sshHttp } from "./ssh/ssh-http.js"; // SSH ENGINE (ssh helper)
import { cloudHttp } from "./cloud/cloud-http.js"; // CLOUD ENGINE (cloud helper)

/** HTTP faces of engine types, by mount type. */
// The registry holds engines of different mount state types.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type EngineHttpRegistry = Readonly<Record<string, EngineHttp<any>>>;

/**
 * Every built-in engine's HTTP face, by mount type.
 * @example secretsHttp({ engines: { ssh: sshEngine }, engineHttp: { ssh: SECRETS_ENGINE_HTTP.ssh } })
 */
export const SECRETS_ENGINE_HTTP: EngineHttpRegistry = Object.freeze({
  ssh: sshHttp, // SSH ENGINE (ssh helper)
  cloud: cloudHttp, // CLOUD ENGINE (cloud helper)
});
