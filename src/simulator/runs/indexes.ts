/**
 * Lookups kept beside the run orchestration state, so that an operation finds what it needs
 * without scanning everything stored: a workspace's runs in creation order (the queue, run lists),
 * a configuration version's runs, a workspace by organization and name, a configuration version
 * by its one-shot upload token, a user by username, the number of workspaces.
 *
 * They are part of the state (plain data): the operations that change what they index keep them
 * up to date, a failed request's changes to them are undone with the rest, and a snapshot carries
 * them. A state without them (built by hand) gets them rebuilt from its data on first use.
 */
import type { RunsIndexes, RunsState } from "./state.js";
import { dict } from "../kernel/dict.js";

// Defined beside the state that holds them (state.ts imports nothing from this module).
export type { RunsIndexes };


/**
 * Empty lookups, for a new state.
 * @example const state = { ...fields, indexes: emptyIndexes() };
 */
export function emptyIndexes(): RunsIndexes {
  return { runsByWorkspace: dict(), listedRunsByWorkspace: dict(), runsByConfigurationVersion: dict(), workspaceByName: dict(), versionByUploadToken: dict(), userByUsername: dict(), workspaceCount: 0 };
}

/**
 * The state's lookups (rebuilt from the data, deterministically, when the state has none).
 * @example indexes(ctx.state).runsByWorkspace[workspace.id] // ["run-...", ...]
 */
export function indexes(state: RunsState): RunsIndexes {
  if (state.indexes !== undefined) return state.indexes;
  const built = emptyIndexes();
  for (const run of Object.values(state.runs).sort((a, b) => a.seq - b.seq)) {
    (built.runsByWorkspace[run.workspaceId] ??= []).push(run.id);
    if (!run.planOnly) (built.listedRunsByWorkspace[run.workspaceId] ??= []).push(run.id);
    (built.runsByConfigurationVersion[run.configurationVersionId] ??= []).push(run.id);
  }
  for (const workspace of Object.values(state.workspaces)) built.workspaceByName[workspaceKey(workspace.organization, workspace.name)] = workspace.id;
  built.workspaceCount = Object.keys(state.workspaces).length;
  for (const user of Object.values(state.users)) built.userByUsername[user.username] ??= user.id;
  for (const version of Object.values(state.configurationVersions)) {
    if (version.uploadToken !== null) built.versionByUploadToken[version.uploadToken] = version.id;
  }
  state.indexes = built;
  return built;
}

/**
 * The key of a workspace in {@link RunsIndexes.workspaceByName}.
 * @example workspaceKey("acme", "prod") // "acme/prod"
 */
export function workspaceKey(organization: string, name: string): string {
  return `${organization}/${name}`;
}
