/** The access-control service's scenario side: plugin, controls, dev scenario. */
export { ACCESS_CONTROL_DEFAULT_BASE, ACCESS_CONTROL_KEY, accessControlPlugin, createAccessControlPlugin } from "./plugin.js";
export {
  AccessControlScenario,
  type LinkRef,
  type ScenarioAuthMethodInput,
  type ScenarioLoginInput,
  type ScenarioTokenInput,
  type TokenCredentials,
} from "./scenario.js";
export { DEV_AUTH_METHOD, DEV_BEARER_TOKEN, buildDevScenario, type DevScenarioInfo } from "./dev-scenario.js";
