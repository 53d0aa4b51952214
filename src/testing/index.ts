/**
 * `infra-doubles/testing`: fast-check arbitraries and model commands for testing your own client
 * against the doubles (fast-check is an optional peer dependency, loaded only by this entry).
 *
 * - bodies: valid request bodies of every create/update endpoint the kit covers, generated from
 *   the same field rules the fake validates with, and invalid ones labelled with the error
 *   (status, message, pointer) the service answers;
 * - fixtures and timelines: workspaces with runs in given states, tokens with expiry, SSH roles;
 *   sequences of clock advances and outcome scripts;
 * - model commands (`fc.commands`) per service, whose `run` goes through HTTP and whose
 *   `toString` reads like a story, with a hook where your own client acts.
 *
 * @packageDocumentation
 * @module infra-doubles/testing
 */
export { readServiceError, type ExpectedError, type InvalidBody, type ServiceKey } from "./errors.js";
export { handlerFetch, type FetchLike } from "./http.js";
export {
  createConfigurationVersionBody,
  createRunBody,
  engineVersionBody,
  engineVersionUpdateBody,
  invalidCreateConfigurationVersionBody,
  invalidCreateRunBody,
  invalidEngineVersionBody,
  runActionBody,
  type CreateRunBodyOptions,
  type EngineVersionBodyOptions,
  type JsonApiBody,
} from "./runs-bodies.js";
export {
  bindingRuleBody,
  bindingRuleUpdateBody,
  cloneTokenBody,
  expirationTtl,
  invalidBindingRuleBody,
  invalidBindingRuleUpdateBody,
  invalidLoginBody,
  invalidTokenBody,
  invalidTokenLinkBody,
  loginBody,
  tokenBody,
  tokenUpdateBody,
  type AuthMethodShape,
  type BindingRuleBody,
  type InvalidBindingRuleOptions,
  type InvalidLoginOptions,
  type TokenBody,
  type TokenBodyOptions,
  type TokenLinkOptions,
} from "./access-control-bodies.js";
export {
  cloudRoleBody,
  cloudStaticRoleBody,
  invalidCloudRoleBody,
  invalidCloudStaticRoleBody,
  invalidLoginEnforcementBody,
  invalidManagedKeyBody,
  invalidSshRoleBody,
  invalidSshSignBody,
  leaseRenewBody,
  loginEnforcementBody,
  managedKeyBody,
  otpVerifyBody,
  sshCredsBody,
  sshRoleBody,
  sshSignBody,
  wireForm,
  type CloudRoleBodyOptions,
  type CloudStaticRoleOptions,
  type InvalidManagedKey,
  type LoginEnforcementTargets,
  type InvalidManagedKeyOptions,
  type KmscKeyRing,
  type ManagedKeyBodyOptions,
  type SecretsBody,
  type SshRoleBodyOptions,
} from "./secrets-bodies.js";
export {
  installSshRoles,
  installToken,
  installWorkspace,
  sshRoleFixture,
  tokenFixture,
  workspaceFixture,
  type FinishedRunState,
  type InstalledToken,
  type InstalledWorkspace,
  type SshRoleFixture,
  type TokenFixture,
  type WorkspaceFixture,
} from "./fixtures.js";
export {
  ModelMismatch,
  commandFault,
  describeFault,
  sendFaulted,
  storyDuration,
  type ClientHook,
  type CommandFault,
  type FaultedAnswer,
  type ModelTarget,
  type ModelUrls,
  type ResolvedTarget,
} from "./models/common.js";
export { runOutcome, runsCommands, runsModelSetup, type RunsCommand, type RunsCommandsOptions, type RunsModel, type RunsWorld } from "./models/runs-model.js";
export { tokensCommands, tokensModelSetup, type ModelToken, type TokensCommand, type TokensCommandsOptions, type TokensModel, type TokensWorld } from "./models/tokens-model.js";
export { secretsCommands, secretsModelSetup, type ModelLease, type SecretsCommand, type SecretsCommandsOptions, type SecretsModel, type SecretsWorld } from "./models/secrets-model.js";
export { describeTimeline, faultStep, playStep, timeline, type TimelineOptions, type TimelineStep } from "./timelines.js";
export type { SecretsFieldKind } from "../interceptors/secrets/request.js";
