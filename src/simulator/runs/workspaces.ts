/**
 * Organizations, workspaces and the caller's account as the real API reads them (the spec is
 * silent on these endpoints; docs/decisions/runs.md, "Organizations, workspaces and the account"),
 * and workspace locks (`POST /workspaces/:id/actions/lock`, `unlock`, `force-unlock`) tied to the
 * run queue: a run that holds the workspace locks it; a user or team lock keeps every run that
 * would apply waiting in `pending` until it is unlocked.
 *
 * Refusals follow the service's habit: 404 when the caller may not see or do it; 409 `conflict`
 * with the real service's detail for a lock in the way.
 */
import { DomainError } from "../kernel/errors.js";
import type { OperationContext } from "../kernel/simulator.js";
import { levelAllows, permissionLevel, requireCapability, type Caller } from "./access.js";
import { notFound, RUNS } from "./errors.js";
import { indexes, workspaceKey } from "./indexes.js";
import { dispatch } from "./progression.js";
import { isFinalRunStatus } from "./run-machine.js";
import type { Organization, PermissionLevel, RunsState, User, Workspace } from "./state.js";

/**
 * How the caller belongs to an organization: `owner` (organization-wide admin, or the
 * organization's own token), `member` (any grant, team or team token there), or null (a stranger:
 * the organization answers 404).
 * @example
 * organizationRole(ctx.state, caller, "acme") // "member" for a user with a grant on one of acme's workspaces
 */
export function organizationRole(state: RunsState, caller: Caller, organization: string): "owner" | "member" | null {
  if (state.organizations[organization] === undefined) return null;
  if (caller.tokenKind === "organization") return caller.organization === organization ? "owner" : null;
  if (caller.tokenKind === "team") {
    const team = caller.teamId === null ? undefined : state.teams[caller.teamId];
    if (team === undefined || team.organization !== organization) return null;
    return team.organizationAccess === "admin" ? "owner" : "member";
  }
  const user = caller.userId === null ? undefined : state.users[caller.userId];
  if (user === undefined) return null;
  const orgLevel = user.organizationAccess[organization];
  if (orgLevel === "admin") return "owner";
  let member = orgLevel !== undefined;
  for (const teamId in state.teams) {
    const team = state.teams[teamId];
    if (team === undefined || team.organization !== organization || !team.members.includes(user.id)) continue;
    if (team.organizationAccess === "admin") return "owner";
    member = true;
  }
  if (member) return "member";
  for (const id in state.workspaces) {
    const workspace = state.workspaces[id];
    if (workspace !== undefined && workspace.organization === organization && workspace.permissions[user.id] !== undefined) return "member";
  }
  return null;
}

/**
 * An organization the caller belongs to.
 * @throws {DomainError} `not_found` (404) when it does not exist or the caller is no member.
 * @example
 * visibleOrganization(ctx.state, caller, "acme", "show organization").costEstimationEnabled // false
 */
export function visibleOrganization(state: RunsState, caller: Caller, name: string, operation: string): Organization {
  const organization = state.organizations[name];
  if (organization === undefined || organizationRole(state, caller, name) === null) throw notFound(operation, name);
  return organization;
}

/**
 * A workspace the caller may read (any level on it; an organization token on its own organization's).
 * @throws {DomainError} `not_found` (404) when missing or invisible.
 * @example
 * visibleWorkspace(ctx.state, caller, "ws-abc", "show workspace").name // "prod"
 */
export function visibleWorkspace(state: RunsState, caller: Caller, workspaceId: string, operation: string): Workspace {
  const workspace = state.workspaces[workspaceId];
  if (workspace === undefined) throw notFound(operation, workspaceId);
  requireCapability(state, caller, workspace, "read-runs", operation, workspaceId, { organizationTokens: "allowed" });
  return workspace;
}

/**
 * A workspace by organization and name, when the caller may read it.
 * @throws {DomainError} `not_found` (404) when either is missing or invisible.
 * @example
 * workspaceByName(ctx.state, caller, "acme", "prod", "show workspace").id // "ws-..."
 */
export function workspaceByName(state: RunsState, caller: Caller, organization: string, name: string, operation: string): Workspace {
  const id = indexes(state).workspaceByName[workspaceKey(organization, name)];
  if (id === undefined) throw notFound(operation, `${organization}/${name}`);
  return visibleWorkspace(state, caller, id, operation);
}

/** What `GET /organizations/:organization_name/workspaces` filters on. */
export interface WorkspaceListQuery {
  /** `search[name]`: a case-insensitive part of the name; blank counts as absent. */
  readonly name?: string;
}

/** One page of an organization's workspaces. */
export interface WorkspaceListPage {
  /** The page's workspaces, by name. */
  readonly workspaces: Workspace[];
  /** How many match in all (every page). */
  readonly totalCount: number;
}

/**
 * Workspaces `offset` to `offset + limit - 1` (0-based, ordered by name) of the organization's
 * workspaces the caller may read and whose name contains `query.name`, and how many match in all.
 * @throws {DomainError} `not_found` (404) for an unknown organization or one the caller is no member of.
 * @example
 * listWorkspacesPage(ctx.state, caller, "acme", { name: "prod" }, 0, 20) // { workspaces: [...], totalCount: 2 }
 */
export function listWorkspacesPage(state: RunsState, caller: Caller, organization: string, query: WorkspaceListQuery, offset: number, limit: number): WorkspaceListPage {
  visibleOrganization(state, caller, organization, "list workspaces");
  const needle = query.name === undefined || query.name.trim() === "" ? undefined : query.name.toLowerCase();
  const matching: Workspace[] = [];
  for (const id in state.workspaces) {
    const workspace = state.workspaces[id];
    if (workspace === undefined || workspace.organization !== organization) continue;
    if (needle !== undefined && !workspace.name.toLowerCase().includes(needle)) continue;
    if (permissionLevel(state, caller, workspace) === null) continue;
    matching.push(workspace);
  }
  matching.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { workspaces: matching.slice(offset, offset + limit), totalCount: matching.length };
}

/** Who holds a workspace's lock, as the `locked-by` relationship names it. */
export interface LockHolder {
  readonly type: "runs" | "users" | "teams";
  readonly id: string;
}

/**
 * Who locks the workspace now: the run holding it (a run that will apply, from its start to a
 * final state), the user or team that locked it through the API, or null.
 * @example
 * lockHolder(ctx.state, workspace) // { type: "runs", id: "run-abc" } while run-abc plans
 */
export function lockHolder(state: RunsState, workspace: Workspace): LockHolder | null {
  if (workspace.lockedBy !== null) {
    const run = state.runs[workspace.lockedBy];
    if (run !== undefined && !isFinalRunStatus(run.status)) return { type: "runs", id: run.id };
  }
  const lock = workspace.lock;
  if (lock === null || lock === undefined) return null;
  return { type: lock.kind === "user" ? "users" : "teams", id: lock.id };
}

/** The 409 the lock endpoints answer: title `conflict` and the real service's detail. */
function lockConflict(operation: string, workspace: Workspace, message: string): DomainError {
  return new DomainError({ code: "conflict", service: RUNS, operation, resource: workspace.id, state: "locked", message, title: "conflict" });
}

const HOLDER_NAMES: Readonly<Record<LockHolder["type"], string>> = Object.freeze({ runs: "Run", users: "User", teams: "Team" });

function lockedByMessage(holder: LockHolder): string {
  return `Unable to unlock workspace. The workspace is locked by ${HOLDER_NAMES[holder.type]} ${holder.id} and may not be unlocked except by them.`;
}

/** The principal a lock by this caller records: the user of a user token, the team of a team token. */
function lockOwner(caller: Caller): { kind: "user" | "team"; id: string } | null {
  if (caller.tokenKind === "team" && caller.teamId !== null) return { kind: "team", id: caller.teamId };
  if (caller.tokenKind === "user" && caller.userId !== null) return { kind: "user", id: caller.userId };
  return null;
}

/** The workspace, when the caller may take `capability`-level lock actions on it (organization tokens may not). */
function lockTarget(ctx: OperationContext<RunsState>, caller: Caller, workspaceId: string, operation: string, capability: "apply-runs" | "admin"): Workspace {
  const workspace = ctx.state.workspaces[workspaceId];
  if (workspace === undefined) throw notFound(operation, workspaceId);
  requireCapability(ctx.state, caller, workspace, capability, operation, workspaceId, { organizationTokens: "refused" });
  return workspace;
}

/**
 * Locks a workspace for the caller's user (user token) or team (team token), with an optional
 * reason. Runs that would apply wait in `pending` until it is unlocked; plan-only runs go on.
 * @throws {DomainError} `not_found` (404) when missing, or the caller may not apply runs there (or
 *   holds an organization token); `conflict` (409 `Unable to lock workspace. The workspace is
 *   already locked.`) when a run, a user or a team holds it.
 * @example
 * lockWorkspace(ctx, caller, "ws-abc", "maintenance").lock // { kind: "user", id: "user-...", reason: "maintenance", at }
 */
export function lockWorkspace(ctx: OperationContext<RunsState>, caller: Caller, workspaceId: string, reason: string | null): Workspace {
  const operation = "lock workspace";
  const workspace = lockTarget(ctx, caller, workspaceId, operation, "apply-runs");
  if (lockHolder(ctx.state, workspace) !== null) throw lockConflict(operation, workspace, "Unable to lock workspace. The workspace is already locked.");
  const owner = lockOwner(caller);
  if (owner === null) throw notFound(operation, workspaceId);
  workspace.lock = { kind: owner.kind, id: owner.id, reason, at: ctx.now };
  return workspace;
}

/**
 * Unlocks a workspace the caller's user or team locked; runs waiting for it then take it in order.
 * @throws {DomainError} `not_found` (404) as for {@link lockWorkspace}; `conflict` (409) when it is
 *   not locked (`Unable to unlock workspace. The workspace is not locked.`) or someone else holds
 *   it (`... The workspace is locked by Run run-abc and may not be unlocked except by them.`, or by
 *   `User` / `Team`).
 * @example
 * unlockWorkspace(ctx, caller, "ws-abc").lock // null
 */
export function unlockWorkspace(ctx: OperationContext<RunsState>, caller: Caller, workspaceId: string): Workspace {
  const operation = "unlock workspace";
  const workspace = lockTarget(ctx, caller, workspaceId, operation, "apply-runs");
  const holder = lockHolder(ctx.state, workspace);
  if (holder === null) throw lockConflict(operation, workspace, "Unable to unlock workspace. The workspace is not locked.");
  const owner = lockOwner(caller);
  const mine = holder.type !== "runs" && owner !== null && holder.id === owner.id;
  if (!mine) throw lockConflict(operation, workspace, lockedByMessage(holder));
  workspace.lock = null;
  dispatch(ctx, workspace);
  return workspace;
}

/**
 * Removes a user's or team's lock, whoever took it (workspace admins only); runs waiting for the
 * workspace then take it in order. A run's hold is the run table's to end (cancel, discard,
 * force-cancel, force-execute), so a workspace locked by a run is refused.
 * @throws {DomainError} `not_found` (404) when missing or the caller is no workspace admin (or
 *   holds an organization token); `conflict` (409) when it is not locked
 *   (`Unable to force-unlock workspace. The workspace is not locked.`) or a run holds it.
 * @example
 * forceUnlockWorkspace(ctx, adminCaller, "ws-abc").lock // null
 */
export function forceUnlockWorkspace(ctx: OperationContext<RunsState>, caller: Caller, workspaceId: string): Workspace {
  const operation = "force-unlock workspace";
  const workspace = lockTarget(ctx, caller, workspaceId, operation, "admin");
  const holder = lockHolder(ctx.state, workspace);
  if (holder === null) throw lockConflict(operation, workspace, "Unable to force-unlock workspace. The workspace is not locked.");
  if (holder.type === "runs") throw lockConflict(operation, workspace, lockedByMessage(holder));
  workspace.lock = null;
  dispatch(ctx, workspace);
  return workspace;
}

/** What the caller may do on a workspace (the workspace document's `permissions`). */
export interface WorkspacePermissions {
  readonly level: PermissionLevel | null;
  readonly canReadRuns: boolean;
  readonly canQueueRuns: boolean;
  readonly canApplyRuns: boolean;
  readonly canAdmin: boolean;
}

/**
 * The caller's rights on a workspace. Organization tokens read but may not queue, apply or lock.
 * @example
 * workspacePermissions(ctx.state, caller, workspace).canApplyRuns // true for write and admin
 */
export function workspacePermissions(state: RunsState, caller: Caller, workspace: Workspace): WorkspacePermissions {
  const level = permissionLevel(state, caller, workspace);
  const acts = caller.tokenKind !== "organization";
  return {
    level,
    canReadRuns: levelAllows(level, "read-runs"),
    canQueueRuns: acts && levelAllows(level, "queue-plans"),
    canApplyRuns: acts && levelAllows(level, "apply-runs"),
    canAdmin: acts && levelAllows(level, "admin"),
  };
}

/** The account behind a token (`GET /account/details`). */
export type Account =
  | { readonly kind: "user"; readonly user: User }
  | { readonly kind: "organization"; readonly organization: string; readonly tokenId: string };

/**
 * The user a token acts as: the token's user, the service account of a team token, or the
 * organization's service user for an organization token (no stored user: its id is derived from
 * the token's, `user-<token id without "at-">`).
 * @example
 * currentAccount(ctx.state, caller) // { kind: "user", user: { username: "alice", ... } }
 */
export function currentAccount(state: RunsState, caller: Caller): Account {
  if (caller.tokenKind === "organization") return { kind: "organization", organization: caller.organization ?? "", tokenId: caller.tokenId };
  const user = caller.userId === null ? undefined : state.users[caller.userId];
  if (user === undefined) throw notFound("show account");
  return { kind: "user", user };
}
