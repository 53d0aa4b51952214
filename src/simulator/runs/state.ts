/**
 * The run orchestration service's state: organizations, workspaces, users, teams, tokens,
 * configuration versions, ingress attributes, runs (with their plans, applies, cost estimates and
 * policy checks), engine versions and the service-wide settings. Plain data only (the kernel journals
 * writes for transactions and copies it with `clonePlain` for snapshots). Times are ms since the Unix epoch.
 *
 * Spec: run-orchestration.md, "Resources and their fields".
 */
import type { OutcomeOverride, ProgressionMode, ResourceCounts, RunOutcome } from "./outcomes.js";

// Defined beside the outcomes that produce them (outcomes.ts imports nothing from this module).
export type { ProgressionMode, ResourceCounts };
import type { RunStatus } from "./run-machine.js";
import type { ConfigurationVersionStatus } from "./configuration-version-machine.js";
import type { Dict } from "../kernel/dict.js";

/**
 * Per-workspace permission levels, lowest first: `read` (read runs), `plan` (queue plans),
 * `write` (apply runs), `admin` (workspace admin). Each level includes the ones before it.
 */
export type PermissionLevel = "read" | "plan" | "write" | "admin";

/**
 * The permission levels in increasing order.
 * @example
 * PERMISSION_LEVELS.indexOf("write") > PERMISSION_LEVELS.indexOf("plan") // true
 */
export const PERMISSION_LEVELS: readonly PermissionLevel[] = Object.freeze(["read", "plan", "write", "admin"]);

/** Bearer token kinds the spec names (Authentication). */
export type TokenKind = "user" | "team" | "organization";

/** Run sources (spec: `filter[source]` values). */
export type RunSource = "svc-ui" | "svc-api" | "svc-configuration-version";

/**
 * The run sources in spec order.
 * @example
 * RUN_SOURCES.includes("svc-ui") // true
 */
export const RUN_SOURCES: readonly RunSource[] = Object.freeze(["svc-ui", "svc-api", "svc-configuration-version"]);

/** Run operations (spec: `filter[operation]` values). */
export type RunOperation = "plan_only" | "plan_and_apply" | "save_plan" | "refresh_only" | "destroy" | "empty_apply";

/**
 * The run operations in spec order.
 * @example
 * RUN_OPERATIONS.includes("empty_apply") // true
 */
export const RUN_OPERATIONS: readonly RunOperation[] = Object.freeze([
  "plan_only",
  "plan_and_apply",
  "save_plan",
  "refresh_only",
  "destroy",
  "empty_apply",
]);


/** An organization (scenario fixture): its name is its id, as in the real service's paths. */
export interface Organization {
  readonly name: string;
  readonly email: string;
  /**
   * The organization's `cost-estimation-enabled` setting (default false): runs created while it is
   * on pass through `cost_estimating` after a plan with changes (an outcome script may still say otherwise).
   */
  costEstimationEnabled: boolean;
  readonly createdAt: number;
}

/** Who holds a workspace lock taken through `POST /workspaces/:id/actions/lock`. */
export interface WorkspaceLock {
  /** `user` for a user token's lock, `team` for a team token's. */
  readonly kind: "user" | "team";
  /** The user id (`user-...`) or team id (`team-...`). */
  readonly id: string;
  /** The `reason` given when locking, or null. */
  readonly reason: string | null;
  /** When the lock was taken, ms since the epoch. */
  readonly at: number;
}

/** The VCS repository a workspace is connected to. */
export interface VcsRepo {
  /** `owner/repo`. */
  readonly identifier: string;
  readonly branch: string;
  /** The VCS provider's name; VCS-created configuration versions carry it as `source` (e.g. `github`). */
  readonly provider: string;
  /** Web address of the repository, e.g. `https://github.com/owner/repo`. */
  readonly htmlUrl: string;
}

/** A workspace: where runs execute, with its auto-apply setting, VCS repository, queue and engine version. */
export interface Workspace {
  readonly id: string;
  readonly name: string;
  readonly organization: string;
  autoApply: boolean;
  vcsRepo: VcsRepo | null;
  /** The engine version the workspace uses (counts in the engine version's `usage`). */
  engineVersion: string;
  /** Principal id (`user-...`, `team-...`) -> permission level on this workspace. */
  permissions: Dict<PermissionLevel>;
  /** The run holding the workspace (a run that will apply), or null. */
  lockedBy: string | null;
  /**
   * A lock a user or team took through the API, or null. While set, no run takes the workspace
   * (runs that would apply wait in `pending`); never set together with a live `lockedBy` run.
   */
  lock: WorkspaceLock | null;
  /** The most recently used configuration version (runs without an explicit one use it). */
  latestConfigurationVersionId: string | null;
  /** The configuration version of the last applied run (provisional versions become current when applied). */
  currentConfigurationVersionId: string | null;
  /** The latest run that is not plan-only (the workspace's current run). */
  currentRunId: string | null;
  /** Outcome defaults for runs of this workspace (over the simulator's). */
  outcome: OutcomeOverride;
  /** One-shot outcomes: the next runs created on this workspace take them, first in first out. */
  nextRunOutcomes: OutcomeOverride[];
  /** One-shot upload outcomes for the next configuration versions uploaded or fetched here. */
  nextUploadOutcomes: UploadOutcome[];
  readonly createdAt: number;
}

/** What happens to an uploaded or fetched archive: processed (`uploaded`) or not (`errored`). */
export type UploadOutcome = "succeeds" | "errors";

/** A user (id prefix `user-`): username, site-administrator flag and per-workspace permission levels. */
export interface User {
  readonly id: string;
  readonly username: string;
  readonly email: string | null;
  readonly siteAdmin: boolean;
  /** Service accounts stand in for team and organization tokens. */
  readonly serviceAccount: boolean;
  readonly avatarUrl: string;
  /** Organization name -> a permission level on every workspace of that organization (owners: `admin`). */
  readonly organizationAccess: Dict<PermissionLevel>;
  readonly createdAt: number;
}

/** A team of an organization: members and per-workspace permission levels, used by team tokens. */
export interface Team {
  readonly id: string;
  readonly name: string;
  readonly organization: string;
  /** User ids. */
  readonly members: string[];
  /** A permission level on every workspace of the team's organization, or null (grants per workspace only). */
  readonly organizationAccess: PermissionLevel | null;
  /** The service account user acting for this team's token. */
  readonly serviceAccountUserId: string;
}

/** A bearer token (spec "Authentication"): user, team or organization kind, or a site administrator's. */
export interface Token {
  readonly id: string;
  /** The bearer value. */
  readonly secret: string;
  readonly kind: TokenKind;
  /** `user-...` for user tokens, `team-...` for team tokens, the organization name for organization tokens. */
  readonly owner: string;
  readonly description: string;
  readonly createdAt: number;
}

/** A configuration version (spec "configuration-versions", id prefix `cv-`); times in ms since the epoch. */
export interface ConfigurationVersion {
  readonly id: string;
  readonly seq: number;
  readonly workspaceId: string;
  /** `svc-api` for API-created versions, the VCS provider's name for VCS-created ones. */
  readonly source: string;
  readonly vcs: boolean;
  status: ConfigurationVersionStatus;
  /** State -> ms since the epoch, for each state reached after `pending`. */
  statusTimestamps: Partial<Record<ConfigurationVersionStatus, number>>;
  readonly autoQueueRuns: boolean;
  readonly speculative: boolean;
  readonly provisional: boolean;
  error: string | null;
  errorMessage: string | null;
  /** The one-shot token of the upload URL; null once used (or for VCS-created versions). */
  uploadToken: string | null;
  /** Key of the archive bytes in the simulator's blob store, when it holds them. */
  blobKey: string | null;
  readonly ingressAttributesId: string | null;
  /** The user who created it (the uploader for API versions, the commit sender for VCS ones). */
  readonly createdBy: string;
  /** Whether the creator could apply runs (the auto-queued run may then auto-apply). */
  readonly creatorMayApply: boolean;
  readonly createdAt: number;
  /** Scheduled fetch completion of a VCS-created version still `fetching`. */
  pendingMove: number | null;
  /** The fetch outcome of a VCS-created version still `fetching`. */
  fetchOutcome: UploadOutcome;
}

/** Commit information (spec: ingress-attributes). */
export interface IngressAttributes {
  readonly id: string;
  readonly configurationVersionId: string;
  readonly branch: string;
  readonly cloneUrl: string;
  readonly commitMessage: string;
  readonly commitSha: string;
  readonly commitUrl: string;
  readonly compareUrl: string;
  readonly identifier: string;
  readonly isPullRequest: boolean;
  readonly onDefaultBranch: boolean;
  readonly pullRequestNumber: number | null;
  readonly pullRequestUrl: string | null;
  readonly pullRequestTitle: string | null;
  readonly pullRequestBody: string | null;
  readonly tag: string | null;
  readonly senderUsername: string;
  readonly senderAvatarUrl: string;
  readonly senderHtmlUrl: string;
  /** The user the commit's sender maps to. */
  readonly createdBy: string;
}

/** A run-specific variable: `value` is a literal of the configuration language. */
export interface RunVariable {
  readonly key: string;
  readonly value: string;
}


/** A comment left by a run action (`{comment}` of apply, discard, cancel, force-cancel). */
export interface RunComment {
  readonly id: string;
  readonly body: string;
  readonly action: string;
  readonly by: string;
  readonly at: number;
}

/** A run (spec "runs", id prefix `run-`): attributes, status and its timestamps (ms since the epoch), outcome and phases. */
export interface Run {
  readonly id: string;
  readonly seq: number;
  readonly workspaceId: string;
  readonly configurationVersionId: string;
  readonly createdBy: string;
  readonly createdAt: number;
  status: RunStatus;
  /** State -> ms since the epoch, for each state reached. */
  statusTimestamps: Partial<Record<RunStatus, number>>;
  hasChanges: boolean;
  readonly autoApply: boolean;
  /** Whether the creator could apply runs when queuing (auto-apply needs it, or a VCS commit). */
  readonly queuedByApplier: boolean;
  readonly allowEmptyApply: boolean;
  readonly allowConfigGeneration: boolean;
  readonly isDestroy: boolean;
  readonly message: string;
  readonly planOnly: boolean;
  readonly source: RunSource;
  readonly triggerReason: string;
  readonly targetAddrs: string[] | null;
  readonly replaceAddrs: string[] | null;
  readonly refresh: boolean;
  readonly refreshOnly: boolean;
  readonly savePlan: boolean;
  readonly variables: RunVariable[];
  readonly engineVersion: string;
  /** When the initial (non-forceful) cancel was asked, or when the run was canceled otherwise. */
  canceledAt: number | null;
  /** From when force-cancel is allowed (set by the initial cancel: cancel time + cool-off). */
  forceCancelAvailableAt: number | null;
  /** The outcome this run follows (settable until the phase it concerns has happened). */
  outcome: RunOutcome;
  /** Id of the scheduled automatic move (timed mode), or null. */
  pendingMove: number | null;
  /** Whether a soft-failed policy check was overridden. */
  policyOverridden: boolean;
  readonly planId: string;
  readonly applyId: string;
  costEstimateId: string | null;
  policyCheckIds: string[];
  comments: RunComment[];
}

/** Status of a plan or an apply. */
export type PhaseStatus = "pending" | "queued" | "running" | "finished" | "errored" | "canceled" | "unreachable";

/** A plan or an apply. */
export interface Phase {
  readonly id: string;
  readonly runId: string;
  status: PhaseStatus;
  statusTimestamps: Partial<Record<PhaseStatus, number>>;
  hasChanges: boolean;
  resources: ResourceCounts;
  /**
   * The resource addresses (`null_resource.foo`) the phase acts on, from the configuration's
   * resource blocks; absent (or empty) when an outcome's counts were used instead. The log lists them.
   */
  addresses?: readonly string[];
}

/** States of a run's cost estimate (the resource behind the `cost-estimate` relationship; FIDELITY choice). */
export type CostEstimateStatus = "pending" | "queued" | "finished" | "errored" | "canceled";

/** A run's cost estimate (id prefix `ce-`), included with `include=cost_estimate`. */
export interface CostEstimate {
  readonly id: string;
  readonly runId: string;
  status: CostEstimateStatus;
  statusTimestamps: Partial<Record<CostEstimateStatus, number>>;
  /** Monthly costs in dollars, as decimal strings (`"25.48"`). */
  priorMonthlyCost: string;
  proposedMonthlyCost: string;
  deltaMonthlyCost: string;
  matchedResourcesCount: number;
  unmatchedResourcesCount: number;
  resourcesCount: number;
}

/** States of a run's policy check (the resource behind `policy-checks`). */
export type PolicyCheckStatus = "pending" | "queued" | "passed" | "soft_failed" | "hard_failed" | "overridden" | "canceled";

/** A run's policy check: passes, soft-fails (overridable) or hard-fails, as the run's outcome says. */
export interface PolicyCheck {
  readonly id: string;
  readonly runId: string;
  status: PolicyCheckStatus;
  statusTimestamps: Partial<Record<PolicyCheckStatus, number>>;
}

/** An engine version (admin API). */
export interface EngineVersion {
  readonly id: string;
  readonly seq: number;
  version: string;
  url: string;
  sha: string;
  deprecated: boolean;
  deprecatedReason: string | null;
  official: boolean;
  enabled: boolean;
  beta: boolean;
  readonly createdAt: number | null;
}

/** A temporary download URL of a configuration version's archive. */
export interface DownloadLink {
  readonly token: string;
  readonly configurationVersionId: string;
  readonly blobKey: string;
  /** ms since the epoch; the link answers 404 from then on. */
  readonly expiresAt: number;
}

/** Service-wide settings. */
export interface RunsSettings {
  /** Force-cancel cool-off after an initial cancel, ms (default 10 000). */
  coolOffMs: number;
  /** How long a download URL stays valid, ms (default 5 minutes). */
  downloadLinkTtlMs: number;
  /** The HMAC key of `log-read-url` tokens (hex); derived from the seed when the state is made. */
  logSigningKey?: string;
  /** Outcome and progression defaults of every run. */
  outcome: RunOutcome;
  /** What happens to uploads and VCS fetches when no one-shot outcome is queued. */
  uploadOutcome: UploadOutcome;
}

/** The whole state of the run orchestration service. */
export interface RunsState {
  seq: number;
  settings: RunsSettings;
  organizations: Dict<Organization>;
  workspaces: Dict<Workspace>;
  users: Dict<User>;
  teams: Dict<Team>;
  /** Keyed by the bearer secret. */
  tokens: Dict<Token>;
  configurationVersions: Dict<ConfigurationVersion>;
  ingressAttributes: Dict<IngressAttributes>;
  runs: Dict<Run>;
  plans: Dict<Phase>;
  applies: Dict<Phase>;
  costEstimates: Dict<CostEstimate>;
  policyChecks: Dict<PolicyCheck>;
  engineVersions: Dict<EngineVersion>;
  downloadLinks: Dict<DownloadLink>;
  /** Lookups kept with the data (see `indexes.ts`); rebuilt from the data when absent. */
  indexes?: RunsIndexes;
}

/**
 * Next value of the state's creation sequence (orders resources created in the same ms).
 * @example
 * const seq = nextSeq(ctx.state); // orders resources created in the same ms
 */
export function nextSeq(state: RunsState): number {
  state.seq += 1;
  return state.seq;
}

/** The lookups of a {@link RunsState} (kept up to date by `indexes.ts`). */
export interface RunsIndexes {
  /** Workspace id -> its run ids, oldest first (creation order, which is `seq` order). */
  runsByWorkspace: Dict<string[]>;
  /**
   * Workspace id -> the ids of its runs the workspace run list shows by default (every run but
   * plan-only ones), oldest first: page N of the default list is a slice, its length the total.
   */
  listedRunsByWorkspace: Dict<string[]>;
  /** Configuration version id -> the ids of the runs that use it, oldest first. */
  runsByConfigurationVersion: Dict<string[]>;
  /** `organization/name` -> workspace id. */
  workspaceByName: Dict<string>;
  /** Upload token not used yet -> configuration version id. */
  versionByUploadToken: Dict<string>;
  /** Username -> user id (usernames are unique). */
  userByUsername: Dict<string>;
  /** How many workspaces are stored (none is ever removed): the default name's number. */
  workspaceCount: number;
}
