/**
 * The run orchestration service's public surface: the plugin, its scenario controls, the types
 * they take, the archive builder, and the HTTP service.
 */
export { RUNS_DEFAULT_BASES, runsPlugin } from "./plugin.js";
export {
  RunsScenario,
  type CommitOptions,
  type CommitResult,
  type ConfigurationFile,
  type ConfigurationVersionView,
  type OutcomeScript,
  type RunView,
  type TeamOptions as RunsTeamOptions,
  type TeamRef as RunsTeamRef,
  type UserOptions as RunsUserOptions,
  type UserRef as RunsUserRef,
  type WorkspaceOptions,
  type WorkspaceRef,
} from "./runs-scenario.js";
export { runsDefaultScenario, type RunsDefaultScenario } from "./default-scenario.js";
export { runsControlRoutes } from "./control-routes.js";
export { DEFAULT_MAIN_TF, configurationArchive } from "./archive.js";
export { runsHttp } from "../../interceptors/runs/service.js";
