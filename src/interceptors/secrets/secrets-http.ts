/**
 * The secrets service's HTTP face, assembled: the core routes (health, managed keys, MFA login
 * enforcement, leases) and the engines' routes under their mounts.
 */
import type { HttpService } from "../http.js";
import { SECRETS_ENGINES, type EngineRegistry } from "../../simulator/secrets/engines.js";
import type { CoreRoute } from "./core-route.js";
import { createSecretsHttpService } from "./dispatch.js";
import { SECRETS_ENGINE_HTTP, type EngineHttpRegistry } from "./engines.js";
import { LEASE_ROUTES } from "./lease-routes.js";
import { LOGIN_ENFORCEMENT_ROUTES } from "./login-enforcement-routes.js";
import { MANAGED_KEY_ROUTES } from "./managed-key-routes.js";
import { MOUNT_ROUTES } from "./mount-routes.js";
import { SYS_ROUTES } from "./sys-routes.js";
import { TOKEN_ROUTES } from "./token-routes.js";

/**
 * The service's own routes (everything but engines and `sys/health`): managed keys, MFA login
 * enforcement, leases, mounts, the token auth method (`auth/token/...`, `sys/capabilities-self`)
 * and the system routes around the spec's edges (seal status, init, UI mounts, response wrapping).
 * @example CORE_ROUTES.some((r) => r.path === "/sys/managed-keys/:type") // true
 */
export const CORE_ROUTES: readonly CoreRoute[] = Object.freeze([...MANAGED_KEY_ROUTES, ...LOGIN_ENFORCEMENT_ROUTES, ...LEASE_ROUTES, ...MOUNT_ROUTES, ...TOKEN_ROUTES, ...SYS_ROUTES]);

/** Options of {@link secretsHttp}. */
export interface SecretsHttpOptions {
  /** Engine types (simulator side); default the built-in registry. */
  readonly engines?: EngineRegistry;
  /** Engines' HTTP faces; default the built-in registry. */
  readonly engineHttp?: EngineHttpRegistry;
}

/**
 * Builds the secrets service's HTTP face.
 * @example const http = secretsHttp(); // SSH and cloud engines at their mounts
 */
export function secretsHttp(options: SecretsHttpOptions = {}): HttpService {
  return createSecretsHttpService({
    engines: options.engines ?? SECRETS_ENGINES,
    engineHttp: options.engineHttp ?? SECRETS_ENGINE_HTTP,
    coreRoutes: CORE_ROUTES,
  });
}
