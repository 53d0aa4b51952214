/**
 * The run orchestration simulator (`runs` namespace of the package): state, transition tables,
 * outcomes and the operations, for users who drive the rules without HTTP.
 */
export { runsDefinition, initialRunsState, DEFAULT_COOL_OFF_MS, DEFAULT_DOWNLOAD_LINK_TTL_MS, SEEDED_ENGINE_VERSIONS } from "./definition.js";
export {
  PAUSE_STATES,
  RUNNING_STATES,
  RUN_EVENTS,
  RUN_STATUSES,
  USER_EVENTS,
  isFinalRunStatus,
  runMachine,
  type RunEvent,
  type RunStatus,
} from "./run-machine.js";
export {
  CONFIGURATION_VERSION_STATUSES,
  configurationVersionMachine,
  type ConfigurationVersionEvent,
  type ConfigurationVersionStatus,
} from "./configuration-version-machine.js";
export {
  DEFAULT_DURATIONS,
  DEFAULT_OUTCOME,
  combineOverrides,
  mergeOutcome,
  type ApplyOutcome,
  type InterruptOutcome,
  type OutcomeOverride,
  type PhaseDurations,
  type PhaseName,
  type PlanOutcome,
  type PolicyOutcome,
  type RunOutcome,
} from "./outcomes.js";
export { authenticate, can, permissionLevel, requireCapability, requireSiteAdmin, type Caller, type Capability } from "./access.js";
export {
  archiveConfigurationVersion,
  completeFetch,
  createConfigurationVersion,
  createDownloadLink,
  createRunDownloadLink,
  ingressAttributesOf,
  isUsable,
  listConfigurationVersions,
  pushCommit,
  readDownload,
  uploadArchive,
  visibleConfigurationVersion,
  type CommitInput,
  type ConfigurationVersionInput,
  type UploadResult,
  UNPROCESSABLE_ARCHIVE,
} from "./configuration-versions.js";
export { MAX_CONFIGURATION_BYTES, checkConfigurationArchive, readConfigurationArchive, type ArchiveCheck, type ArchiveReading, type ArchivedFile } from "./configuration-archive.js";
export { createRun, listRuns, listRunsPage, type RunListPage, operationOf, queueRun, type QueueRunInput, runActions, runPermissions, visibleRun, type CreateRunInput, type RunActions, type RunListQuery, type RunPermissions } from "./runs.js";
export { applyRun, cancelRun, discardRun, forceCancelRun, forceExecuteRun, type RunAction } from "./run-actions.js";
export { autoApplies, dispatch, isDiscardable, isPaused, needsWorkspace, nextAutomatic, step } from "./progression.js";
export {
  createEngineVersion,
  deleteEngineVersion,
  listEngineVersions,
  showEngineVersion,
  updateEngineVersion,
  usageOf,
  type EngineVersionInput,
  type EngineVersionQuery,
} from "./engine-versions.js";
export {
  createOrganization,
  createTeam,
  createToken,
  createUser,
  createWorkspace,
  grant,
  type OrganizationInput,
  type TeamInput,
  type TokenInput,
  type UserInput,
  type WorkspaceInput,
} from "./fixtures.js";
export {
  currentAccount,
  forceUnlockWorkspace,
  listWorkspacesPage,
  lockHolder,
  lockWorkspace,
  organizationRole,
  unlockWorkspace,
  visibleOrganization,
  visibleWorkspace,
  workspaceByName,
  workspacePermissions,
  type Account,
  type LockHolder,
  type WorkspaceListPage,
  type WorkspaceListQuery,
  type WorkspacePermissions,
} from "./workspaces.js";
export { RUNS } from "./errors.js";
export type * from "./state.js";
export { PERMISSION_LEVELS, RUN_OPERATIONS, RUN_SOURCES } from "./state.js";
