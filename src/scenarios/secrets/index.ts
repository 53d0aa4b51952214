/**
 * The secrets service's public surface: the plugin, its scenario controls and the types they take.
 */
export { SECRETS_DEFAULT_BASE, SECRETS_KEY, createSecretsPlugin, secretsPlugin, type SecretsPluginOptions } from "./plugin.js";
export {
  SecretsScenario,
  type BackendKeyInput,
  type CreateTokenOptions,
  type LoginEnforcementOptions,
  type ManagedKeyOptions,
  type MountView,
  type SecretsToken,
} from "./secrets-scenario.js";
export { buildSecretsDevScenario, type SecretsDevBanner, type SecretsDevScenarioOptions } from "./dev-scenario.js";
export { secretsControlRoutes } from "./control-routes.js";
export { secretsHttp, CORE_ROUTES as SECRETS_CORE_ROUTES, type SecretsHttpOptions } from "../../interceptors/secrets/secrets-http.js";
export type { CoreRoute, CoreRouteContext } from "../../interceptors/secrets/core-route.js";
export type { Operation as SecretsOperation } from "../../interceptors/secrets/request.js";
export type { EngineHttp, EngineResult, EngineRoute, EngineRouteContext } from "../../interceptors/secrets/engine-routes.js";
export { SECRETS_ENGINE_HTTP, type EngineHttpRegistry } from "../../interceptors/secrets/engines.js";
export * from "./ssh/index.js"; // SSH ENGINE (ssh helper): sshScenario, installSshDefaults, inspectCertificate, ...
export * from "./cloud/index.js"; // CLOUD ENGINE (cloud helper): cloudScenario, installCloudDefaults, ...
