/**
 * The cloud-account engine's public surface for tests: scenario controls of a cloud mount (the
 * simulated cloud account behind it), what they return, and the engine's HTTP face.
 */
export {
  CloudScenario,
  cloudScenario,
  installCloudDefaults,
  type CloudDefaults,
  type AccessKeyPair,
  type CloudRoleOptions,
  type CloudRoleView,
  type ConfigureRootOptions,
  type IamUserView,
  type MountAccess,
  type StaticRoleView,
} from "./cloud-scenario.js";
export type { CredentialStatus } from "../../../simulator/secrets/cloud/cloud-account.js";
export {
  SERVER_CREDENTIAL_PRECEDENCE,
  type CloudAccount,
  type CloudLeaseConfig,
  type CloudMountState,
  type CloudRole,
  type CloudRootConfig,
  type IamAccessKey,
  type IamGroup,
  type IamRoleDeclaration,
  type IamUser,
  type IamUserOrigin,
  type ServerCredentialSource,
  type StaticCredential,
  type StaticRoleRecord,
  type StsSession,
} from "../../../simulator/secrets/cloud/state.js";
export { DEFAULT_USERNAME_TEMPLATE, USERNAME_PREFIX } from "../../../simulator/secrets/cloud/username-template.js";
export { cloudHttp, CLOUD_ROUTES } from "../../../interceptors/secrets/cloud/cloud-http.js";
