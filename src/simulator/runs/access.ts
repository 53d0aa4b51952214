/**
 * Authentication and permissions (spec: run-orchestration.md, "Authentication").
 *
 * A bearer token is a user token, a team token or an organization token. Users and teams hold a
 * permission level per workspace (`read` < `plan` < `write` < `admin`) or on every workspace of an
 * organization; a user also gets the levels of the teams they belong to. Organization tokens may see
 * every workspace of their organization but may not create configuration versions or runs, nor
 * apply, discard, cancel, force-cancel or force-execute. Site administrators alone may use the
 * engine versions admin API. Refusals are `not_found` (404: the service hides existence).
 */
import { PERMISSION_LEVELS, type PermissionLevel, type RunsState, type TokenKind, type Workspace } from "./state.js";
import { notFound, unauthenticated } from "./errors.js";

/** Who is calling, resolved from the bearer token. */
export interface Caller {
  readonly tokenId: string;
  readonly tokenKind: TokenKind;
  /** The acting user: the token's user, or the service account of a team; null for organization tokens. */
  readonly userId: string | null;
  readonly teamId: string | null;
  /** The organization of an organization token. */
  readonly organization: string | null;
  readonly siteAdmin: boolean;
}

/** What an operation needs on a workspace (spec: Authentication, "Permissions"). */
export type Capability = "read-runs" | "queue-plans" | "apply-runs" | "admin";

const CAPABILITY_LEVEL: Readonly<Record<Capability, PermissionLevel>> = Object.freeze({
  "read-runs": "read",
  "queue-plans": "plan",
  "apply-runs": "write",
  admin: "admin",
});

/**
 * Resolves a bearer token.
 * @param secret - the value after `Bearer `, or undefined when the header is missing.
 * @throws {DomainError} `unauthenticated` (401) for a missing or unknown token.
 * @example
 * const caller = authenticate(ctx.state, "abc.atlasv1.def", "show run");
 */
export function authenticate(state: RunsState, secret: string | undefined, operation: string): Caller {
  const token = secret === undefined || secret === "" ? undefined : state.tokens[secret];
  if (token === undefined) throw unauthenticated(operation);
  switch (token.kind) {
    case "user": {
      const user = state.users[token.owner];
      if (user === undefined) throw unauthenticated(operation);
      return { tokenId: token.id, tokenKind: "user", userId: user.id, teamId: null, organization: null, siteAdmin: user.siteAdmin };
    }
    case "team": {
      const team = state.teams[token.owner];
      if (team === undefined) throw unauthenticated(operation);
      return {
        tokenId: token.id,
        tokenKind: "team",
        userId: team.serviceAccountUserId,
        teamId: team.id,
        organization: team.organization,
        siteAdmin: false,
      };
    }
    case "organization": {
      if (state.organizations[token.owner] === undefined) throw unauthenticated(operation);
      return { tokenId: token.id, tokenKind: "organization", userId: null, teamId: null, organization: token.owner, siteAdmin: false };
    }
  }
}

/**
 * The caller's permission level on `workspace`, or null when it may not even see it.
 * @example
 * permissionLevel(ctx.state, caller, workspace) // "write"
 */
export function permissionLevel(state: RunsState, caller: Caller, workspace: Workspace): PermissionLevel | null {
  // The highest rank (index in PERMISSION_LEVELS) among the grants found; -1: none. Counted without
  // collecting the grants: this runs for every run a response shows (its permissions).
  const org = workspace.organization;
  if (caller.tokenKind === "organization") return caller.organization === org ? "admin" : null;
  if (caller.tokenKind === "team") {
    const team = caller.teamId === null ? undefined : state.teams[caller.teamId];
    if (team === undefined || team.organization !== org) return null;
    return levelOfRank(teamRank(-1, team.id, team.organizationAccess, workspace));
  }
  const user = caller.userId === null ? undefined : state.users[caller.userId];
  if (user === undefined) return null;
  let best = higher(-1, user.organizationAccess[org]);
  best = higher(best, workspace.permissions[user.id]);
  for (const teamId in state.teams) {
    const team = state.teams[teamId];
    if (team !== undefined && team.organization === org && team.members.includes(user.id)) best = teamRank(best, team.id, team.organizationAccess, workspace);
  }
  return levelOfRank(best);
}

function teamRank(best: number, teamId: string, orgAccess: PermissionLevel | null, workspace: Workspace): number {
  return higher(higher(best, orgAccess ?? undefined), workspace.permissions[teamId]);
}

function higher(best: number, level: PermissionLevel | undefined): number {
  return level === undefined ? best : Math.max(best, PERMISSION_LEVELS.indexOf(level));
}

function levelOfRank(rank: number): PermissionLevel | null {
  return rank < 0 ? null : (PERMISSION_LEVELS[rank] ?? null);
}

/**
 * Whether a level includes a capability.
 * @example
 * levelAllows("plan", "apply-runs") // false
 */
export function levelAllows(level: PermissionLevel | null, capability: Capability): boolean {
  if (level === null) return false;
  return PERMISSION_LEVELS.indexOf(level) >= PERMISSION_LEVELS.indexOf(CAPABILITY_LEVEL[capability]);
}

/**
 * Whether the caller holds `capability` on `workspace` (organization tokens: see {@link requireCapability}).
 * @example
 * can(ctx.state, caller, workspace, "apply-runs") // true for write and admin
 */
export function can(state: RunsState, caller: Caller, workspace: Workspace, capability: Capability): boolean {
  if (caller.tokenKind === "organization" && capability !== "read-runs") return false;
  return levelAllows(permissionLevel(state, caller, workspace), capability);
}

/**
 * Requires a capability on a workspace.
 * @param options.organizationTokens - `"refused"` for the operations organization tokens may not
 *   call (create configuration version, create run and the five run actions); `"allowed"` lets an
 *   organization token through on its own organization's workspaces.
 * @throws {DomainError} `not_found` (404) when the caller may not see the workspace or lacks the capability.
 * @example
 * requireCapability(ctx.state, caller, workspace, "queue-plans", "create run", workspace.id, { organizationTokens: "refused" });
 */
export function requireCapability(
  state: RunsState,
  caller: Caller,
  workspace: Workspace,
  capability: Capability,
  operation: string,
  resource: string,
  options: { organizationTokens: "refused" | "allowed" },
): void {
  if (caller.tokenKind === "organization") {
    if (options.organizationTokens === "refused" || caller.organization !== workspace.organization) throw notFound(operation, resource);
    return;
  }
  if (!levelAllows(permissionLevel(state, caller, workspace), capability)) throw notFound(operation, resource);
}

/**
 * Requires a site administrator (engine versions admin API).
 * @throws {DomainError} `not_found` (404) for every other caller.
 * @example
 * requireSiteAdmin(caller, "list engine versions"); // throws not_found unless a site administrator
 */
export function requireSiteAdmin(caller: Caller, operation: string): void {
  if (!caller.siteAdmin) throw notFound(operation);
}
