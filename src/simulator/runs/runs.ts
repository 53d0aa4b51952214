/**
 * Runs (spec: run-orchestration.md, "Runs"): creation with the spec's defaults and rules, the
 * visibility rule, the list with its filters and searches, and what a run offers a caller now
 * (`actions` and `permissions`).
 */
import { enterState } from "../kernel/machine.js";
import type { OperationContext } from "../kernel/simulator.js";
import { can, levelAllows, permissionLevel, requireCapability, type Caller } from "./access.js";
import { invalidAttribute, notFound } from "./errors.js";
import { indexes } from "./indexes.js";
import { mergeOutcome, type OutcomeOverride } from "./outcomes.js";

/** The override an organization with `cost-estimation-enabled` adds to its runs' outcomes. */
const COST_ESTIMATION_ON: OutcomeOverride = Object.freeze({ costEstimation: true });
import { dispatch, isDiscardable, isPaused, needsWorkspace, reschedule } from "./progression.js";
import { RUNNING_STATES, runMachine } from "./run-machine.js";
import {
  nextSeq,
  type ConfigurationVersion,
  type Phase,
  type Run,
  type RunOperation,
  RUN_OPERATIONS,
  type RunSource,
  type RunVariable,
  type RunsState,
  type Workspace,
} from "./state.js";


const CV_POINTER = "/data/relationships/configuration-version/data/id";

/** Attributes of a new run (spec: "Create run body"); omitted ones take the spec's defaults. */
export interface CreateRunInput {
  readonly workspaceId: string;
  /** Default: the workspace's most recently used configuration version. */
  readonly configurationVersionId?: string;
  /** Default false. */
  readonly allowEmptyApply?: boolean;
  /** Default false. */
  readonly allowConfigGeneration?: boolean;
  /** Default: the workspace's auto-apply setting. */
  readonly autoApply?: boolean;
  /** Default false; mutually exclusive with `refreshOnly`. */
  readonly isDestroy?: boolean;
  /** Default `Queued manually via the API`. */
  readonly message?: string;
  /** Default true. */
  readonly refresh?: boolean;
  /** Default false. */
  readonly refreshOnly?: boolean;
  readonly replaceAddrs?: readonly string[] | null;
  readonly targetAddrs?: readonly string[] | null;
  /** Default `[]`. */
  readonly variables?: readonly RunVariable[];
  /** Default: the configuration version's `speculative`. */
  readonly planOnly?: boolean;
  /** Default false. */
  readonly savePlan?: boolean;
  /** Only on plan-only runs; must be an enabled engine version. */
  readonly engineVersion?: string;
  /** Default `svc-api` (`svc-ui` for runs a scenario queues "from the UI"). */
  readonly source?: RunSource;
}

/** Two create-run inputs that may not both be true (spec: "Runs", create run). */
export interface ExclusiveInputs {
  /** The two {@link CreateRunInput} members (for `planOnly`: the effective value, a speculative version's default included). */
  readonly inputs: readonly ["isDestroy" | "savePlan", "refreshOnly" | "planOnly"];
  /** The 422's `source.pointer`. */
  readonly pointer: string;
  /** The 422's detail. */
  readonly message: string;
}

/**
 * The create-run inputs that exclude each other, as data: `createRun` refuses each pair with its
 * 422, and the testing kit (`infra-doubles/testing`) keeps valid bodies clear of them and labels
 * invalid ones with them.
 * @example CREATE_RUN_EXCLUSIVE_INPUTS[0].message // "is-destroy and refresh-only are mutually exclusive"
 */
export const CREATE_RUN_EXCLUSIVE_INPUTS: readonly ExclusiveInputs[] = Object.freeze([
  Object.freeze({ inputs: ["isDestroy", "refreshOnly"] as const, pointer: "/data/attributes/is-destroy", message: "is-destroy and refresh-only are mutually exclusive" }),
  Object.freeze({ inputs: ["savePlan", "planOnly"] as const, pointer: "/data/attributes/save-plan", message: "save-plan and plan-only are mutually exclusive" }),
]);

/**
 * Create-run inputs allowed only on plan-only runs (spec: "Runs", create run), as data.
 * @example PLAN_ONLY_INPUTS[0].message // "engine-version can only be set on plan-only runs"
 */
export const PLAN_ONLY_INPUTS: readonly { readonly input: "engineVersion"; readonly pointer: string; readonly message: string }[] = Object.freeze([
  Object.freeze({ input: "engineVersion" as const, pointer: "/data/attributes/engine-version", message: "engine-version can only be set on plan-only runs" }),
]);

function refuseBoth(operation: string, rule: ExclusiveInputs | undefined, first: boolean | undefined, second: boolean | undefined): void {
  if (rule !== undefined && first === true && second === true) throw invalidAttribute(operation, rule.pointer, rule.message);
}

/**
 * Creates a run (`pending`), as `POST /runs` does.
 * @throws {DomainError} `not_found` (404) for an unknown or invisible workspace or configuration
 *   version, or a caller who may not queue plans (organization tokens included); `invalid` (422,
 *   with a pointer) for `is-destroy` with `refresh-only`, `engine-version` on a run that is not
 *   plan-only or unknown, a speculative version on a run that is not plan-only, `save-plan` with
 *   `plan-only`, or a configuration version that cannot be used (not uploaded).
 * @example createRun(ctx, caller, { workspaceId: "ws-abc", message: "deploy" })
 */
export function createRun(ctx: OperationContext<RunsState>, caller: Caller, input: CreateRunInput): Run {
  const operation = "create run";
  const state = ctx.state;
  const workspace = state.workspaces[input.workspaceId];
  if (workspace === undefined) throw notFound(operation, input.workspaceId);
  requireCapability(state, caller, workspace, "queue-plans", operation, workspace.id, { organizationTokens: "refused" });
  refuseBoth(operation, CREATE_RUN_EXCLUSIVE_INPUTS[0], input.isDestroy, input.refreshOnly);
  const version = resolveConfigurationVersion(state, caller, workspace, input.configurationVersionId);
  const planOnly = input.planOnly ?? version.speculative;
  if (version.speculative && !planOnly) {
    throw invalidAttribute(operation, "/data/attributes/plan-only", `configuration version ${version.id} is speculative; it can only be used for plan-only runs`);
  }
  refuseBoth(operation, CREATE_RUN_EXCLUSIVE_INPUTS[1], input.savePlan, planOnly);
  if (input.engineVersion !== undefined) {
    const planOnlyRule = PLAN_ONLY_INPUTS[0];
    if (!planOnly && planOnlyRule !== undefined) throw invalidAttribute(operation, planOnlyRule.pointer, planOnlyRule.message);
    const available = Object.values(state.engineVersions).some((v) => v.version === input.engineVersion && v.enabled);
    if (!available) {
      throw invalidAttribute(operation, "/data/attributes/engine-version", `engine version "${input.engineVersion}" is not an available version`);
    }
  }
  return queueRun(ctx, {
    workspace,
    configurationVersion: version,
    createdBy: caller.userId ?? "",
    queuedByApplier: can(state, caller, workspace, "apply-runs"),
    source: input.source ?? "svc-api",
    message: input.message ?? (input.source === "svc-ui" ? "Queued manually in the UI" : "Queued manually via the API"),
    planOnly,
    ...(input.allowEmptyApply !== undefined ? { allowEmptyApply: input.allowEmptyApply } : {}),
    ...(input.allowConfigGeneration !== undefined ? { allowConfigGeneration: input.allowConfigGeneration } : {}),
    ...(input.autoApply !== undefined ? { autoApply: input.autoApply } : {}),
    ...(input.isDestroy !== undefined ? { isDestroy: input.isDestroy } : {}),
    ...(input.refresh !== undefined ? { refresh: input.refresh } : {}),
    ...(input.refreshOnly !== undefined ? { refreshOnly: input.refreshOnly } : {}),
    ...(input.replaceAddrs !== undefined ? { replaceAddrs: input.replaceAddrs } : {}),
    ...(input.targetAddrs !== undefined ? { targetAddrs: input.targetAddrs } : {}),
    ...(input.variables !== undefined ? { variables: input.variables } : {}),
    ...(input.savePlan !== undefined ? { savePlan: input.savePlan } : {}),
    ...(input.engineVersion !== undefined ? { engineVersion: input.engineVersion } : {}),
  });
}

function resolveConfigurationVersion(state: RunsState, caller: Caller, workspace: Workspace, id: string | undefined): ConfigurationVersion {
  const operation = "create run";
  const chosen = id ?? workspace.latestConfigurationVersionId;
  if (chosen === null) {
    throw invalidAttribute(operation, CV_POINTER, `workspace ${workspace.id} has no configuration version; create and upload one first`);
  }
  const version = state.configurationVersions[chosen];
  const home = version === undefined ? undefined : state.workspaces[version.workspaceId];
  if (version === undefined || home === undefined) throw notFound(operation, chosen);
  requireCapability(state, caller, home, "read-runs", operation, chosen, { organizationTokens: "refused" });
  const usable = version.status === "uploaded" || (version.status === "archived" && version.vcs);
  if (!usable) {
    throw invalidAttribute(operation, CV_POINTER, `configuration version ${version.id} is "${version.status}"; only an uploaded version can be used for runs`);
  }
  return version;
}

/** Everything a new run needs once validated (internal: creation, uploads, VCS commits). */
export interface QueueRunInput {
  readonly workspace: Workspace;
  readonly configurationVersion: ConfigurationVersion;
  readonly createdBy: string;
  readonly queuedByApplier: boolean;
  readonly source: RunSource;
  readonly message: string;
  readonly planOnly: boolean;
  readonly allowEmptyApply?: boolean;
  readonly allowConfigGeneration?: boolean;
  readonly autoApply?: boolean;
  readonly isDestroy?: boolean;
  readonly refresh?: boolean;
  readonly refreshOnly?: boolean;
  readonly replaceAddrs?: readonly string[] | null;
  readonly targetAddrs?: readonly string[] | null;
  readonly variables?: readonly RunVariable[];
  readonly savePlan?: boolean;
  readonly engineVersion?: string;
}

/**
 * Creates the run, its plan and apply, resolves its outcome (the workspace's next one-shot
 * outcome, the workspace's, the organization's `cost-estimation-enabled` setting, the simulator's)
 * and lets it start or wait for the workspace.
 * @example
 * queueRun(ctx, { workspace, configurationVersion, createdBy: user.id, queuedByApplier: true, source: "svc-api", message: "x", planOnly: false })
 */
export function queueRun(ctx: OperationContext<RunsState>, input: QueueRunInput): Run {
  const { workspace, configurationVersion: version } = input;
  const state = ctx.state;
  const id = ctx.ids.prefixed("run-");
  const planId = ctx.ids.prefixed("plan-");
  const applyId = ctx.ids.prefixed("apply-");
  // The organization's cost-estimation setting sits between the simulator's outcome and the
  // workspace's: on, it adds the cost estimate stage; a workspace, next-run or run script still decides.
  const costEstimation = state.organizations[workspace.organization]?.costEstimationEnabled === true ? COST_ESTIMATION_ON : undefined;
  const outcome = mergeOutcome(state.settings.outcome, costEstimation, workspace.outcome, workspace.nextRunOutcomes.shift());
  const phase = (phaseId: string): Phase => ({
    id: phaseId,
    runId: id,
    status: "pending",
    statusTimestamps: { pending: ctx.now },
    hasChanges: false,
    resources: { add: 0, change: 0, destroy: 0, import: 0 },
  });
  state.plans[planId] = phase(planId);
  state.applies[applyId] = phase(applyId);
  const run: Run = {
    id,
    seq: nextSeq(state),
    workspaceId: workspace.id,
    configurationVersionId: version.id,
    createdBy: input.createdBy,
    createdAt: ctx.now,
    status: enterState(ctx, runMachine, "pending"),
    statusTimestamps: { pending: ctx.now },
    hasChanges: false,
    autoApply: input.autoApply ?? workspace.autoApply,
    queuedByApplier: input.queuedByApplier,
    allowEmptyApply: input.allowEmptyApply ?? false,
    allowConfigGeneration: input.allowConfigGeneration ?? false,
    isDestroy: input.isDestroy ?? false,
    message: input.message,
    planOnly: input.planOnly,
    source: input.source,
    triggerReason: "manual",
    targetAddrs: input.targetAddrs === undefined || input.targetAddrs === null ? null : [...input.targetAddrs],
    replaceAddrs: input.replaceAddrs === undefined || input.replaceAddrs === null ? null : [...input.replaceAddrs],
    refresh: input.refresh ?? true,
    refreshOnly: input.refreshOnly ?? false,
    savePlan: input.savePlan ?? false,
    variables: (input.variables ?? []).map((v) => ({ key: v.key, value: v.value })),
    engineVersion: input.engineVersion ?? workspace.engineVersion,
    canceledAt: null,
    forceCancelAvailableAt: null,
    outcome,
    pendingMove: null,
    policyOverridden: false,
    planId,
    applyId,
    costEstimateId: null,
    policyCheckIds: [],
    comments: [],
  };
  state.runs[id] = run;
  const lookup = indexes(state);
  (lookup.runsByWorkspace[workspace.id] ??= []).push(id);
  if (!run.planOnly) (lookup.listedRunsByWorkspace[workspace.id] ??= []).push(id);
  (lookup.runsByConfigurationVersion[version.id] ??= []).push(id);
  if (!version.provisional) workspace.latestConfigurationVersionId = version.id;
  if (needsWorkspace(run)) dispatch(ctx, workspace);
  else reschedule(ctx, run);
  return run;
}

/**
 * A run the caller may see (read runs on its workspace).
 * @throws {DomainError} `not_found` (404) when missing or invisible.
 * @example
 * const run = visibleRun(ctx.state, caller, "run-abc", "show run");
 */
export function visibleRun(state: RunsState, caller: Caller, runId: string, operation: string): Run {
  const run = state.runs[runId];
  const workspace = run === undefined ? undefined : state.workspaces[run.workspaceId];
  if (run === undefined || workspace === undefined) throw notFound(operation, runId);
  requireCapability(state, caller, workspace, "read-runs", operation, runId, { organizationTokens: "allowed" });
  return run;
}

/**
 * The run's operation (spec: run operations, `filter[operation]`).
 * @example
 * operationOf(run) // "destroy" for an is-destroy run
 */
export function operationOf(run: Run): RunOperation {
  if (run.planOnly) return "plan_only";
  if (run.savePlan) return "save_plan";
  if (run.refreshOnly) return "refresh_only";
  if (run.isDestroy) return "destroy";
  if (run.allowEmptyApply) return "empty_apply";
  return "plan_and_apply";
}

/** Filters and searches of the workspace run list (spec: "List runs query parameters"). */
export interface RunListQuery {
  /** Runs performing any of these operations; when absent, plan-only runs are left out. */
  readonly operations?: readonly string[];
  readonly statuses?: readonly string[];
  readonly sources?: readonly string[];
  /** VCS username (case-insensitive, exact); blank counts as absent. */
  readonly user?: string;
  /** Commit sha (case-insensitive prefix); blank counts as absent. */
  readonly commit?: string;
  /** Case-insensitive substring of VCS username, commit sha, run id or message; ignored with a non-blank `user` or `commit`. */
  readonly basic?: string;
}

/**
 * The workspace's runs matching `query`, newest first.
 * @throws {DomainError} `not_found` for an unknown or invisible workspace.
 * @example
 * listRuns(ctx.state, caller, "ws-abc", { statuses: ["planned"], user: "octocat" })
 */
export function listRuns(state: RunsState, caller: Caller, workspaceId: string, query: RunListQuery): Run[] {
  const workspace = state.workspaces[workspaceId];
  if (workspace === undefined) throw notFound("list runs", workspaceId);
  requireCapability(state, caller, workspace, "read-runs", "list runs", workspaceId, { organizationTokens: "allowed" });
  const ids = indexes(state).runsByWorkspace[workspaceId] ?? [];
  const out: Run[] = [];
  for (let i = ids.length - 1; i >= 0; i--) {
    const run = state.runs[ids[i] as string];
    if (run !== undefined && matches(state, run, query)) out.push(run);
  }
  return out;
}

/** One page of the workspace run list (see {@link listRunsPage}). */
export interface RunListPage {
  /** The page's runs, newest first. */
  readonly runs: Run[];
  /** How many runs match the query in all (every page). */
  readonly totalCount: number;
}

/**
 * Runs `offset` to `offset + limit - 1` (0-based, newest first) of the workspace's runs matching
 * `query`, and how many match in all: the same runs as `listRuns(...).slice(offset, offset + limit)`.
 * The default list (no filter, no search) and a list filtered on every operation are served from
 * the creation-ordered indexes in time proportional to the page; any other filter or search
 * (status, source, a subset of operations, user, commit, basic) scans the workspace's runs.
 * @param offset - 0-based index of the page's first run in the whole list.
 * @param limit - largest number of runs returned.
 * @throws {DomainError} `not_found` for an unknown or invisible workspace.
 * @example
 * listRunsPage(ctx.state, caller, "ws-abc", {}, 20, 20) // page 2 of 20: { runs: [...], totalCount: 57 }
 */
export function listRunsPage(state: RunsState, caller: Caller, workspaceId: string, query: RunListQuery, offset: number, limit: number): RunListPage {
  const ids = indexedIds(state, workspaceId, query);
  const workspace = state.workspaces[workspaceId];
  if (workspace === undefined) throw notFound("list runs", workspaceId);
  requireCapability(state, caller, workspace, "read-runs", "list runs", workspaceId, { organizationTokens: "allowed" });
  if (ids === undefined) {
    // A scan: counts every match, keeps only the page's.
    const all = indexes(state).runsByWorkspace[workspaceId] ?? [];
    const runs: Run[] = [];
    let totalCount = 0;
    for (let i = all.length - 1; i >= 0; i--) {
      const run = state.runs[all[i] as string];
      if (run === undefined || !matches(state, run, query)) continue;
      if (totalCount >= offset && runs.length < limit) runs.push(run);
      totalCount += 1;
    }
    return { runs, totalCount };
  }
  const runs: Run[] = [];
  for (let i = ids.length - 1 - offset; i >= 0 && runs.length < limit; i--) {
    const run = state.runs[ids[i] as string];
    if (run !== undefined) runs.push(run);
  }
  return { runs, totalCount: ids.length };
}

/** The index whose runs are exactly those matching `query`, or undefined when the query needs a scan. */
function indexedIds(state: RunsState, workspaceId: string, query: RunListQuery): readonly string[] | undefined {
  const filtered = (list: readonly string[] | undefined) => list !== undefined && list.length > 0;
  if (filtered(query.statuses) || filtered(query.sources)) return undefined;
  if (present(query.user) !== undefined || present(query.commit) !== undefined || present(query.basic) !== undefined) return undefined;
  const lookup = indexes(state);
  if (!filtered(query.operations)) return lookup.listedRunsByWorkspace[workspaceId] ?? [];
  if (RUN_OPERATIONS.every((operation) => query.operations?.includes(operation))) return lookup.runsByWorkspace[workspaceId] ?? [];
  return undefined;
}

function matches(state: RunsState, run: Run, query: RunListQuery): boolean {
  const operation = operationOf(run);
  if (query.operations !== undefined && query.operations.length > 0) {
    if (!query.operations.includes(operation)) return false;
  } else if (operation === "plan_only") return false;
  if (query.statuses !== undefined && query.statuses.length > 0 && !query.statuses.includes(run.status)) return false;
  if (query.sources !== undefined && query.sources.length > 0 && !query.sources.includes(run.source)) return false;
  const commit = commitOf(state, run);
  const username = commit?.senderUsername.toLowerCase();
  const sha = commit?.commitSha.toLowerCase();
  const user = present(query.user);
  const commitSha = present(query.commit);
  if (user !== undefined || commitSha !== undefined) {
    if (user !== undefined && username !== user.toLowerCase()) return false;
    if (commitSha !== undefined && (sha === undefined || !sha.startsWith(commitSha.toLowerCase()))) return false;
    return true;
  }
  const basic = present(query.basic);
  if (basic !== undefined) {
    const needle = basic.toLowerCase();
    const haystack = [username, sha, run.id.toLowerCase(), run.message.toLowerCase()];
    return haystack.some((text) => text !== undefined && text.includes(needle));
  }
  return true;
}

/** A search value, or undefined when absent or blank (a blank search is no search, like a blank filter). */
function present(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}

function commitOf(state: RunsState, run: Run): { senderUsername: string; commitSha: string } | undefined {
  const version = state.configurationVersions[run.configurationVersionId];
  return version?.ingressAttributesId ? state.ingressAttributes[version.ingressAttributesId] : undefined;
}

/** `actions` of a run: whether each action would be accepted now (by a caller allowed to take it). */
export interface RunActions {
  readonly isCancelable: boolean;
  readonly isConfirmable: boolean;
  readonly isDiscardable: boolean;
  readonly isForceCancelable: boolean;
}

/** `permissions` of a run for the caller. */
export interface RunPermissions {
  readonly canApply: boolean;
  readonly canCancel: boolean;
  readonly canComment: boolean;
  readonly canDiscard: boolean;
  readonly canForceExecute: boolean;
  readonly canForceCancel: boolean;
  readonly canOverridePolicyCheck: boolean;
}

/**
 * What the run's action endpoints would accept now (`now`: ms since the epoch).
 * @example
 * runActions(ctx.state, run, ctx.now).isConfirmable // true when paused for confirmation
 */
export function runActions(state: RunsState, run: Run, now: number): RunActions {
  const running = RUNNING_STATES.includes(run.status);
  return {
    isCancelable: running,
    isConfirmable: isPaused(state, run),
    isDiscardable: isDiscardable(state, run),
    isForceCancelable: running && run.canceledAt !== null && run.forceCancelAvailableAt !== null && now >= run.forceCancelAvailableAt,
  };
}

/**
 * What the caller may do to the run.
 * @example
 * runPermissions(ctx.state, caller, run).canApply
 */
export function runPermissions(state: RunsState, caller: Caller, run: Run): RunPermissions {
  const workspace = state.workspaces[run.workspaceId];
  // Organization tokens hold none of these (see `can`); the caller's level is found once, not per
  // permission (every run a response shows asks).
  const level = workspace === undefined || caller.tokenKind === "organization" ? null : permissionLevel(state, caller, workspace);
  const apply = levelAllows(level, "apply-runs");
  const admin = levelAllows(level, "admin");
  return {
    canApply: apply,
    canCancel: apply,
    canComment: levelAllows(level, "queue-plans"),
    canDiscard: apply,
    canForceExecute: apply,
    canForceCancel: admin,
    canOverridePolicyCheck: admin,
  };
}
