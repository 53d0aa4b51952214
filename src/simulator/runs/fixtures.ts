/**
 * Fixture operations: organizations, workspaces, users, teams, permission grants and tokens. The
 * spec does not show how these are made ("How tokens are issued: not shown"); scenarios call these
 * operations to build the world a test needs. Bad arguments are library misuse ({@link UsageError}).
 */
import { UsageError } from "../kernel/errors.js";
import { peek } from "../kernel/journal.js";
import type { OperationContext } from "../kernel/simulator.js";
import { indexes, workspaceKey } from "./indexes.js";
import type { OutcomeOverride } from "./outcomes.js";
import {
  PERMISSION_LEVELS,
  type Organization,
  type PermissionLevel,
  type RunsState,
  type Team,
  type Token,
  type TokenKind,
  type User,
  type VcsRepo,
  type Workspace,
} from "./state.js";
import { dict } from "../kernel/dict.js";


/** Input of {@link createOrganization}. */
export interface OrganizationInput {
  readonly name: string;
  readonly email?: string;
  /** The `cost-estimation-enabled` setting (default false). */
  readonly costEstimationEnabled?: boolean;
}

/**
 * Creates an organization (its id is its name).
 * @throws {UsageError} when the name is taken or not a valid organization name.
 * @example
 * createOrganization(ctx, { name: "acme" }).name // "acme"
 */
export function createOrganization(ctx: OperationContext<RunsState>, input: OrganizationInput): Organization {
  if (!/^[A-Za-z0-9_-]+$/.test(input.name)) throw new UsageError(`runs: organization name ${JSON.stringify(input.name)} may hold only letters, digits, "-" and "_"`);
  if (ctx.state.organizations[input.name]) throw new UsageError(`runs: organization "${input.name}" already exists`);
  const org: Organization = {
    name: input.name,
    email: input.email ?? `admin@${input.name}.example`,
    costEstimationEnabled: input.costEstimationEnabled ?? false,
    createdAt: ctx.now,
  };
  ctx.state.organizations[org.name] = org;
  return org;
}

/** Input of {@link createWorkspace}. */
export interface WorkspaceInput {
  readonly organization: string;
  readonly name?: string;
  readonly autoApply?: boolean;
  readonly vcsRepo?: Partial<VcsRepo> & { readonly identifier: string };
  /** Default: the newest official, enabled engine version. */
  readonly engineVersion?: string;
  readonly outcome?: OutcomeOverride;
}

/**
 * Creates a workspace (id `ws-...`).
 * @throws {UsageError} for an unknown organization, a taken name, an unknown engine version or a
 *   VCS repository whose web address is not a URL.
 * @example
 * const ws = createWorkspace(ctx, { organization: "acme", name: "prod", autoApply: true });
 */
export function createWorkspace(ctx: OperationContext<RunsState>, input: WorkspaceInput): Workspace {
  const org = ctx.state.organizations[input.organization];
  if (!org) throw new UsageError(`runs: unknown organization "${input.organization}"`);
  const id = ctx.ids.prefixed("ws-");
  const lookup = indexes(ctx.state);
  const name = input.name ?? `workspace-${lookup.workspaceCount + 1}`;
  if (lookup.workspaceByName[workspaceKey(org.name, name)] !== undefined) {
    throw new UsageError(`runs: workspace "${name}" already exists in organization "${org.name}"`);
  }
  const engineVersion = input.engineVersion ?? defaultEngineVersion(ctx.state);
  if (!Object.values(peek(ctx.state.engineVersions)).some((v) => v.version === engineVersion)) {
    throw new UsageError(`runs: unknown engine version "${engineVersion}"`);
  }
  const repo = input.vcsRepo;
  const htmlUrl = repo ? (repo.htmlUrl ?? `https://${repo.provider ?? "github"}.com/${repo.identifier}`) : "";
  if (repo && !URL.canParse(htmlUrl)) throw new UsageError(`runs: the VCS repository's web address ${JSON.stringify(htmlUrl)} is not a URL`);
  const workspace: Workspace = {
    id,
    name,
    organization: org.name,
    autoApply: input.autoApply ?? false,
    vcsRepo: repo
      ? {
          identifier: repo.identifier,
          branch: repo.branch ?? "main",
          provider: repo.provider ?? "github",
          htmlUrl,
        }
      : null,
    engineVersion,
    permissions: dict(),
    lockedBy: null,
    lock: null,
    latestConfigurationVersionId: null,
    currentConfigurationVersionId: null,
    currentRunId: null,
    outcome: input.outcome ?? {},
    nextRunOutcomes: [],
    nextUploadOutcomes: [],
    createdAt: ctx.now,
  };
  ctx.state.workspaces[id] = workspace;
  lookup.workspaceByName[workspaceKey(org.name, name)] = id;
  lookup.workspaceCount += 1;
  return workspace;
}

/**
 * The newest official, enabled engine version (workspaces use it unless told otherwise).
 * @example
 * defaultEngineVersion(ctx.state) // "1.9.8"
 */
export function defaultEngineVersion(state: RunsState): string {
  const candidates = Object.values(peek(state.engineVersions))
    .filter((v) => v.official && v.enabled && !v.beta)
    .sort((a, b) => compareVersions(b.version, a.version));
  const best = candidates[0];
  if (!best) throw new UsageError("runs: no official, enabled engine version exists; pass engineVersion");
  return best.version;
}

/**
 * Compares `N.N.N[-x]` versions numerically.
 * @example
 * ["1.10.0", "1.9.8"].sort(compareVersions) // ["1.9.8", "1.10.0"]
 */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((p) => Number(p));
  const pb = b.split(/[.-]/).map((p) => Number(p));
  for (let i = 0; i < 3; i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0 && Number.isFinite(d)) return d;
  }
  return a.localeCompare(b);
}

/** Input of {@link createUser}. */
export interface UserInput {
  readonly username?: string;
  readonly email?: string | null;
  readonly siteAdmin?: boolean;
  /** Organization name -> a level on every workspace there (`admin` = the owners team). */
  readonly organizationAccess?: Readonly<Record<string, PermissionLevel>>;
  /** Workspace id -> level. */
  readonly permissions?: Readonly<Record<string, PermissionLevel>>;
  /** @internal service accounts of teams. */
  readonly serviceAccount?: boolean;
}

/**
 * Creates a user (id `user-...`).
 * @throws {UsageError} for a taken username, an unknown organization or workspace, or a bad level.
 * @example
 * const user = createUser(ctx, { username: "alice", permissions: { [ws.id]: "write" } });
 */
export function createUser(ctx: OperationContext<RunsState>, input: UserInput = {}): User {
  const id = ctx.ids.prefixed("user-");
  const username = input.username ?? `user-${ctx.ids.string(6, "abcdefghijklmnopqrstuvwxyz0123456789")}`;
  if (indexes(ctx.state).userByUsername[username] !== undefined) throw new UsageError(`runs: username "${username}" is taken`);
  for (const [org, level] of Object.entries(input.organizationAccess ?? {})) {
    if (!ctx.state.organizations[org]) throw new UsageError(`runs: unknown organization "${org}"`);
    checkLevel(level);
  }
  const user: User = {
    id,
    username,
    email: input.email === undefined ? `${username}@example.com` : input.email,
    siteAdmin: input.siteAdmin ?? false,
    serviceAccount: input.serviceAccount ?? false,
    avatarUrl: `https://www.gravatar.com/avatar/${ctx.ids.hex(32)}?s=100&d=mm`,
    organizationAccess: dict(Object.entries(input.organizationAccess ?? {})),
    createdAt: ctx.now,
  };
  ctx.state.users[id] = user;
  indexes(ctx.state).userByUsername[username] = id;
  for (const [workspaceId, level] of Object.entries(input.permissions ?? {})) grant(ctx, id, workspaceId, level);
  return user;
}

/** Input of {@link createTeam}. */
export interface TeamInput {
  readonly organization: string;
  readonly name?: string;
  /** User ids. */
  readonly members?: readonly string[];
  readonly organizationAccess?: PermissionLevel | null;
  /** Workspace id -> level. */
  readonly permissions?: Readonly<Record<string, PermissionLevel>>;
}

/**
 * Creates a team (id `team-...`) and its service account user (acting for team tokens).
 * @throws {UsageError} for an unknown organization or member.
 * @example
 * const team = createTeam(ctx, { organization: "acme", members: [user.id], permissions: { [ws.id]: "admin" } });
 */
export function createTeam(ctx: OperationContext<RunsState>, input: TeamInput): Team {
  if (!ctx.state.organizations[input.organization]) throw new UsageError(`runs: unknown organization "${input.organization}"`);
  for (const member of input.members ?? []) if (!ctx.state.users[member]) throw new UsageError(`runs: unknown user "${member}"`);
  if (input.organizationAccess) checkLevel(input.organizationAccess);
  const id = ctx.ids.prefixed("team-");
  const account = createUser(ctx, { username: `api-${id}`, email: null, serviceAccount: true });
  const team: Team = {
    id,
    name: input.name ?? `team-${Object.keys(ctx.state.teams).length + 1}`,
    organization: input.organization,
    members: [...(input.members ?? [])],
    organizationAccess: input.organizationAccess ?? null,
    serviceAccountUserId: account.id,
  };
  ctx.state.teams[id] = team;
  for (const [workspaceId, level] of Object.entries(input.permissions ?? {})) grant(ctx, id, workspaceId, level);
  return team;
}

/**
 * Grants a user or a team a permission level on a workspace (replacing an earlier grant).
 * @throws {UsageError} for an unknown principal or workspace, or a team of another organization.
 * @example
 * grant(ctx, user.id, ws.id, "plan");
 */
export function grant(ctx: OperationContext<RunsState>, principalId: string, workspaceId: string, level: PermissionLevel): void {
  const workspace = ctx.state.workspaces[workspaceId];
  if (!workspace) throw new UsageError(`runs: unknown workspace "${workspaceId}"`);
  checkLevel(level);
  const team = ctx.state.teams[principalId];
  if (!ctx.state.users[principalId] && !team) throw new UsageError(`runs: unknown user or team "${principalId}"`);
  if (team && team.organization !== workspace.organization) {
    throw new UsageError(`runs: team ${team.id} belongs to "${team.organization}", workspace ${workspace.id} to "${workspace.organization}"`);
  }
  workspace.permissions[principalId] = level;
}

function checkLevel(level: PermissionLevel): void {
  if (!PERMISSION_LEVELS.includes(level)) throw new UsageError(`runs: unknown permission level "${String(level)}" (use ${PERMISSION_LEVELS.join(", ")})`);
}

/** Input of {@link createToken}. */
export interface TokenInput {
  readonly kind: TokenKind;
  /** A user id, a team id or an organization name. */
  readonly owner: string;
  /** The bearer value (default: a generated `<14>.atlasv1.<67>` token). */
  readonly secret?: string;
  readonly description?: string;
}

/**
 * Issues a bearer token.
 * @throws {UsageError} for an unknown owner, an owner of the wrong kind or a taken secret.
 * @example
 * const { secret } = createToken(ctx, { kind: "team", owner: team.id });
 */
export function createToken(ctx: OperationContext<RunsState>, input: TokenInput): Token {
  const owner =
    input.kind === "user" ? ctx.state.users[input.owner] : input.kind === "team" ? ctx.state.teams[input.owner] : ctx.state.organizations[input.owner];
  if (!owner) throw new UsageError(`runs: no ${input.kind} "${input.owner}" to issue a ${input.kind} token for`);
  const secret = input.secret ?? `${ctx.ids.string(14)}.atlasv1.${ctx.ids.string(67)}`;
  if (secret === "" || /\s/.test(secret)) throw new UsageError("runs: a token may not be empty or contain spaces");
  if (ctx.state.tokens[secret]) throw new UsageError("runs: that token value is already issued");
  const token: Token = {
    id: ctx.ids.prefixed("at-"),
    secret,
    kind: input.kind,
    owner: input.owner,
    description: input.description ?? `${input.kind} token`,
    createdAt: ctx.now,
  };
  ctx.state.tokens[secret] = token;
  return token;
}
