/**
 * Configuration versions (spec: run-orchestration.md, "Configuration versions" and "Configuration
 * version states"): create (`pending`, with a one-shot upload token), upload (`uploaded`, and a
 * run queued unless `auto-queue-runs` is false), VCS commits (`fetching` -> `uploaded`, timed),
 * archive (API-created, `uploaded`, no runs in progress), downloads through temporary links, and
 * ingress attributes.
 */
import { UsageError } from "../kernel/errors.js";
import { enterState, takeTransition } from "../kernel/machine.js";
import type { MovePayload } from "../kernel/scheduler.js";
import type { OperationContext, ReadContext } from "../kernel/simulator.js";
import { can, requireCapability, type Caller } from "./access.js";
import { checkConfigurationArchive } from "./configuration-archive.js";
import { configurationVersionMachine } from "./configuration-version-machine.js";
import { conflict, notFound } from "./errors.js";
import { indexes } from "./indexes.js";
import { mergeOutcome } from "./outcomes.js";
import { isFinalRunStatus } from "./run-machine.js";
import { queueRun, visibleRun } from "./runs.js";
import {
  nextSeq,
  type ConfigurationVersion,
  type DownloadLink,
  type IngressAttributes,
  type Run,
  type RunsState,
  type UploadOutcome,
  type Workspace,
} from "./state.js";
import { dict } from "../kernel/dict.js";


/**
 * Name of the timed move that completes a VCS fetch.
 * @example
 * ctx.schedule(ctx.now + 5_000, VCS_FETCH_MOVE, { configurationVersionId: "cv-abc" });
 */
export const VCS_FETCH_MOVE = "configuration-version-fetch";

/** Attributes of a new configuration version (spec: "Create configuration version body"). */
export interface ConfigurationVersionInput {
  /** Queue a run when the version is uploaded (default true). */
  readonly autoQueueRuns?: boolean;
  /** Only for speculative (plan-only) runs (default false). */
  readonly speculative?: boolean;
  /** Does not become the workspace's current version until its run is applied (default false). */
  readonly provisional?: boolean;
}

/**
 * A workspace the caller may see, or 404.
 * @example
 * const workspace = visibleWorkspace(ctx.state, caller, "ws-abc", "list runs");
 */
export function visibleWorkspace(state: RunsState, caller: Caller, workspaceId: string, operation: string): Workspace {
  const workspace = state.workspaces[workspaceId];
  if (workspace === undefined) throw notFound(operation, workspaceId);
  requireCapability(state, caller, workspace, "read-runs", operation, workspaceId, { organizationTokens: "allowed" });
  return workspace;
}

/**
 * A configuration version the caller may see (read runs on its workspace).
 * @throws {DomainError} `not_found` when missing or invisible.
 * @example
 * const version = visibleConfigurationVersion(ctx.state, caller, "cv-abc", "show configuration version");
 */
export function visibleConfigurationVersion(state: RunsState, caller: Caller, id: string, operation: string): ConfigurationVersion {
  const version = state.configurationVersions[id];
  const workspace = version === undefined ? undefined : state.workspaces[version.workspaceId];
  if (version === undefined || workspace === undefined) throw notFound(operation, id);
  requireCapability(state, caller, workspace, "read-runs", operation, id, { organizationTokens: "allowed" });
  return version;
}

/**
 * Creates a configuration version in `pending` with a one-shot upload token.
 * @throws {DomainError} `not_found` (404) for an unknown workspace, or a caller who may not queue
 *   plans there (organization tokens included).
 * @example createConfigurationVersion(ctx, caller, "ws-abc", { autoQueueRuns: false })
 */
export function createConfigurationVersion(
  ctx: OperationContext<RunsState>,
  caller: Caller,
  workspaceId: string,
  input: ConfigurationVersionInput,
): ConfigurationVersion {
  const operation = "create configuration version";
  const workspace = ctx.state.workspaces[workspaceId];
  if (workspace === undefined) throw notFound(operation, workspaceId);
  requireCapability(ctx.state, caller, workspace, "queue-plans", operation, workspaceId, { organizationTokens: "refused" });
  const version: ConfigurationVersion = {
    id: ctx.ids.prefixed("cv-"),
    seq: nextSeq(ctx.state),
    workspaceId,
    source: "svc-api",
    vcs: false,
    status: enterState(ctx, configurationVersionMachine, "pending"),
    statusTimestamps: {},
    autoQueueRuns: input.autoQueueRuns ?? true,
    speculative: input.speculative ?? false,
    provisional: input.provisional ?? false,
    error: null,
    errorMessage: null,
    uploadToken: ctx.ids.string(48),
    blobKey: null,
    ingressAttributesId: null,
    createdBy: caller.userId ?? "",
    creatorMayApply: can(ctx.state, caller, workspace, "apply-runs"),
    createdAt: ctx.now,
    pendingMove: null,
    fetchOutcome: "succeeds",
  };
  ctx.state.configurationVersions[version.id] = version;
  if (version.uploadToken !== null) indexes(ctx.state).versionByUploadToken[version.uploadToken] = version.id;
  if (!version.provisional) workspace.latestConfigurationVersionId = version.id;
  return version;
}

/** Result of an upload. */
export interface UploadResult {
  readonly configurationVersion: ConfigurationVersion;
  /** The run queued by the upload, if any. */
  readonly run: Run | undefined;
  /** The paths of the regular files the archive holds, in archive order (none when it was not read). */
  readonly files: readonly string[];
}

/**
 * The `error` of a configuration version whose archive could not be extracted (a scripted upload
 * outcome, or an upload that is not a gzip-compressed tar).
 * @example
 * version.error === UNPROCESSABLE_ARCHIVE // errored at upload
 */
export const UNPROCESSABLE_ARCHIVE = "unprocessable_archive";

/**
 * Stores the archive PUT to an upload URL (bytes kept exactly) and processes it: `uploaded` (and
 * a run queued when `auto-queue-runs`) when it is a gzip-compressed tar, `errored` when it is not
 * (`error` {@link UNPROCESSABLE_ARCHIVE}, `error-message` go-slug's reason, e.g. `failed to untar
 * slug: unexpected EOF`; see {@link checkConfigurationArchive}) or when the workspace's upload outcome
 * says so. The token is one-shot.
 * @throws {DomainError} `not_found` for an unknown or used upload token.
 * @example
 * const { run } = uploadArchive(ctx, version.uploadToken ?? "", bytes); // run queued unless auto-queue-runs is false
 */
export function uploadArchive(ctx: OperationContext<RunsState>, token: string, bytes: Uint8Array): UploadResult {
  const lookup = indexes(ctx.state);
  const versionId = Object.prototype.hasOwnProperty.call(lookup.versionByUploadToken, token) ? lookup.versionByUploadToken[token] : undefined;
  const version = versionId === undefined ? undefined : ctx.state.configurationVersions[versionId];
  if (version === undefined || version.uploadToken === null || version.uploadToken !== token) throw notFound("upload configuration files");
  const workspace = ctx.state.workspaces[version.workspaceId];
  if (workspace === undefined) throw notFound("upload configuration files", version.id);
  delete lookup.versionByUploadToken[token];
  version.uploadToken = null;
  const outcome = takeUploadOutcome(ctx.state, workspace);
  const reading = outcome === "errors" ? undefined : checkConfigurationArchive(bytes);
  if (reading === undefined || !reading.ok) {
    version.status = takeTransition(ctx, configurationVersionMachine, version.status, "upload-error", { resource: version.id });
    version.statusTimestamps.errored = ctx.now;
    version.error = UNPROCESSABLE_ARCHIVE;
    version.errorMessage = reading === undefined ? "The configuration archive could not be extracted." : reading.message;
    return { configurationVersion: version, run: undefined, files: [] };
  }
  version.blobKey = ctx.putBlob(bytes);
  version.status = takeTransition(ctx, configurationVersionMachine, version.status, "upload", { resource: version.id });
  version.statusTimestamps.uploaded = ctx.now;
  const run = version.autoQueueRuns ? autoQueue(ctx, version, workspace, "Triggered via API") : undefined;
  return { configurationVersion: version, run, files: [...reading.paths] };
}

function takeUploadOutcome(state: RunsState, workspace: Workspace): UploadOutcome {
  return workspace.nextUploadOutcomes.shift() ?? state.settings.uploadOutcome;
}

function autoQueue(ctx: OperationContext<RunsState>, version: ConfigurationVersion, workspace: Workspace, message: string): Run {
  return queueRun(ctx, {
    workspace,
    configurationVersion: version,
    createdBy: version.createdBy,
    queuedByApplier: version.vcs || version.creatorMayApply,
    source: "svc-configuration-version",
    message,
    planOnly: version.speculative,
  });
}

/** A commit pushed to a workspace's VCS repository (scenario input). */
export interface CommitInput {
  readonly workspaceId: string;
  readonly branch?: string;
  readonly message?: string;
  /** 40 hex characters (default: random). */
  readonly sha?: string;
  readonly senderUsername?: string;
  readonly tag?: string | null;
  /** A pull request: its version is speculative and its run plan-only. */
  readonly pullRequest?: { readonly number: number; readonly title?: string; readonly body?: string } | null;
  /** The repository's files as a `.tar.gz` archive. */
  readonly archive: Uint8Array;
  /** Whether fetching the files works (default: the workspace's next upload outcome). */
  readonly fetch?: UploadOutcome;
}

/**
 * A commit reaches a VCS-connected workspace: a configuration version in `fetching` with ingress
 * attributes; the fetch completes after `durations.vcsFetch` (timed), at once (immediate) or on
 * `step` (manual), then a run is queued (`svc-configuration-version`).
 * @throws {UsageError} for an unknown workspace or one without a VCS repository.
 * @example
 * pushCommit(ctx, { workspaceId: "ws-abc", message: "Add bucket", archive: bytes }); // status "fetching"
 */
export function pushCommit(ctx: OperationContext<RunsState>, input: CommitInput): ConfigurationVersion {
  const workspace = ctx.state.workspaces[input.workspaceId];
  if (workspace === undefined) throw new UsageError(`runs: unknown workspace "${input.workspaceId}"`);
  const repo = workspace.vcsRepo;
  if (repo === null) throw new UsageError(`runs: workspace ${workspace.id} has no VCS repository; create it with vcsRepo`);
  const sha = input.sha ?? ctx.ids.hex(40);
  if (!/^[0-9a-f]{7,40}$/i.test(sha)) throw new UsageError(`runs: commit sha ${JSON.stringify(sha)} is not hexadecimal`);
  const branch = input.branch ?? repo.branch;
  const username = input.senderUsername ?? "octocat";
  const known = indexes(ctx.state).userByUsername[username];
  const sender = (known === undefined ? undefined : ctx.state.users[known]) ?? createVcsUser(ctx, username);
  const pr = input.pullRequest ?? null;
  const id = ctx.ids.prefixed("cv-");
  const iaId = ctx.ids.prefixed("ia-");
  const host = new URL(repo.htmlUrl).origin;
  const ingress: IngressAttributes = {
    id: iaId,
    configurationVersionId: id,
    branch,
    cloneUrl: `${repo.htmlUrl}.git`,
    commitMessage: input.message ?? "Update configuration",
    commitSha: sha,
    commitUrl: `${repo.htmlUrl}/commit/${sha}`,
    compareUrl: pr ? `${repo.htmlUrl}/pull/${pr.number}/files` : `${repo.htmlUrl}/compare/${sha}`,
    identifier: repo.identifier,
    isPullRequest: pr !== null,
    onDefaultBranch: branch === repo.branch && pr === null,
    pullRequestNumber: pr ? pr.number : null,
    pullRequestUrl: pr ? `${repo.htmlUrl}/pull/${pr.number}` : null,
    pullRequestTitle: pr ? (pr.title ?? input.message ?? "Update configuration") : null,
    pullRequestBody: pr ? (pr.body ?? "") : null,
    tag: input.tag ?? null,
    senderUsername: username,
    senderAvatarUrl: `https://avatars.githubusercontent.com/u/${1000 + ctx.ids.int(9_000_000)}?v=4`,
    senderHtmlUrl: `${host}/${username}`,
    createdBy: sender.id,
  };
  const version: ConfigurationVersion = {
    id,
    seq: nextSeq(ctx.state),
    workspaceId: workspace.id,
    source: repo.provider,
    vcs: true,
    status: enterState(ctx, configurationVersionMachine, "fetching"),
    statusTimestamps: { fetching: ctx.now },
    autoQueueRuns: true,
    speculative: pr !== null,
    provisional: false,
    error: null,
    errorMessage: null,
    uploadToken: null,
    blobKey: ctx.putBlob(input.archive),
    ingressAttributesId: iaId,
    createdBy: sender.id,
    creatorMayApply: true,
    createdAt: ctx.now,
    pendingMove: null,
    fetchOutcome: input.fetch ?? takeUploadOutcome(ctx.state, workspace),
  };
  ctx.state.ingressAttributes[iaId] = ingress;
  ctx.state.configurationVersions[id] = version;
  workspace.latestConfigurationVersionId = id;
  const outcome = mergeOutcome(ctx.state.settings.outcome, workspace.outcome);
  switch (outcome.progression) {
    case "timed":
      version.pendingMove = ctx.schedule(ctx.now + outcome.durations.vcsFetch, VCS_FETCH_MOVE, { configurationVersionId: id });
      break;
    case "immediate":
      completeFetch(ctx, id);
      break;
    default:
      break;
  }
  return version;
}

function createVcsUser(ctx: OperationContext<RunsState>, username: string): { id: string } {
  const id = ctx.ids.prefixed("user-");
  ctx.state.users[id] = {
    id,
    username,
    email: null,
    siteAdmin: false,
    serviceAccount: false,
    avatarUrl: `https://www.gravatar.com/avatar/${ctx.ids.hex(32)}?s=100&d=mm`,
    organizationAccess: dict(),
    createdAt: ctx.now,
  };
  indexes(ctx.state).userByUsername[username] = id;
  return { id };
}

/**
 * Completes the fetch of a VCS-created version: `uploaded` and a run queued (message = the commit
 * message), or `errored` (a failed fetch: `vcs_fetch_failed`; commit files that are not a
 * gzip-compressed tar: {@link UNPROCESSABLE_ARCHIVE} with go-slug's reason).
 * @throws {UsageError} when the version is not `fetching`.
 * @example
 * completeFetch(ctx, "cv-abc").status // "uploaded" (and a run is queued)
 */
export function completeFetch(ctx: OperationContext<RunsState>, configurationVersionId: string): ConfigurationVersion {
  const version = ctx.state.configurationVersions[configurationVersionId];
  if (version === undefined || version.status !== "fetching") {
    throw new UsageError(`runs: configuration version ${configurationVersionId} is not fetching`);
  }
  const workspace = ctx.state.workspaces[version.workspaceId];
  if (workspace === undefined) throw new UsageError(`runs: configuration version ${configurationVersionId} has no workspace`);
  if (version.pendingMove !== null) ctx.cancel(version.pendingMove);
  version.pendingMove = null;
  if (version.fetchOutcome === "errors") {
    version.status = takeTransition(ctx, configurationVersionMachine, version.status, "fetch-error", { resource: version.id });
    version.statusTimestamps.errored = ctx.now;
    version.error = "vcs_fetch_failed";
    version.errorMessage = "The configuration could not be fetched from the VCS repository.";
    return version;
  }
  const archive = version.blobKey === null ? undefined : ctx.blob(version.blobKey);
  const reading = archive === undefined ? undefined : checkConfigurationArchive(archive);
  if (reading !== undefined && !reading.ok) {
    version.status = takeTransition(ctx, configurationVersionMachine, version.status, "fetch-error", { resource: version.id });
    version.statusTimestamps.errored = ctx.now;
    version.error = UNPROCESSABLE_ARCHIVE;
    version.errorMessage = reading.message;
    if (version.blobKey !== null) ctx.dropBlob(version.blobKey);
    version.blobKey = null;
    return version;
  }
  version.status = takeTransition(ctx, configurationVersionMachine, version.status, "fetch-done", { resource: version.id });
  version.statusTimestamps.uploaded = ctx.now;
  const ingress = version.ingressAttributesId === null ? undefined : ctx.state.ingressAttributes[version.ingressAttributesId];
  autoQueue(ctx, version, workspace, ingress?.commitMessage ?? "Triggered via VCS");
  return version;
}

/**
 * The timed move handler of a VCS fetch.
 * @example
 * const definition = { ...runsDefinition, moves: { [VCS_FETCH_MOVE]: vcsFetchMove } };
 */
export function vcsFetchMove(ctx: OperationContext<RunsState>, payload: MovePayload): void {
  const { configurationVersionId } = payload as { configurationVersionId: string };
  const version = ctx.state.configurationVersions[configurationVersionId];
  if (version === undefined || version.status !== "fetching") return;
  version.pendingMove = null;
  completeFetch(ctx, configurationVersionId);
}

/**
 * Whether runs may use this version: `uploaded`, or `archived` when VCS-created.
 * @example
 * isUsable(version) // true when uploaded, or archived and VCS-created
 */
export function isUsable(version: ConfigurationVersion): boolean {
  return version.status === "uploaded" || (version.status === "archived" && version.vcs);
}

/**
 * Archives an API-created, `uploaded` version with no runs in progress; its archive is discarded.
 * @throws {DomainError} `not_found` (404) when missing or invisible (or the caller may not queue
 *   plans there); `conflict` (409) when not archivable or VCS-created.
 * @example
 * archiveConfigurationVersion(ctx, caller, "cv-abc").status // "archived"
 */
export function archiveConfigurationVersion(ctx: OperationContext<RunsState>, caller: Caller, id: string): ConfigurationVersion {
  const operation = "archive configuration version";
  const version = visibleConfigurationVersion(ctx.state, caller, id, operation);
  const workspace = ctx.state.workspaces[version.workspaceId];
  if (workspace === undefined) throw notFound(operation, id);
  requireCapability(ctx.state, caller, workspace, "queue-plans", operation, id, { organizationTokens: "allowed" });
  if (version.vcs) {
    throw conflict(operation, id, version.status, "Configuration version was created through VCS and cannot be archived through the API");
  }
  if (version.status !== "uploaded") {
    throw conflict(operation, id, version.status, `Configuration version is "${version.status}", not "uploaded"; archive not allowed`);
  }
  const busy = (indexes(ctx.state).runsByConfigurationVersion[id] ?? []).map((runId) => ctx.state.runs[runId]).find((r) => r !== undefined && !isFinalRunStatus(r.status));
  if (busy) throw conflict(operation, id, version.status, `Configuration version is in use by ${busy.id} ("${busy.status}"); archive not allowed`);
  version.status = takeTransition(ctx, configurationVersionMachine, version.status, "archive", { resource: id });
  version.statusTimestamps.archived = ctx.now;
  if (version.blobKey !== null) ctx.dropBlob(version.blobKey);
  version.blobKey = null;
  return version;
}

/**
 * Creates a temporary download link of an `uploaded` version's archive.
 * @throws {DomainError} `not_found` when missing, invisible or not `uploaded`.
 * @example
 * const { token, expiresAt } = createDownloadLink(ctx, caller, "cv-abc");
 */
export function createDownloadLink(ctx: OperationContext<RunsState>, caller: Caller, id: string): DownloadLink {
  return linkTo(ctx, visibleConfigurationVersion(ctx.state, caller, id, DOWNLOAD));
}

/**
 * Creates a temporary download link of a run's configuration version (`GET
 * /runs/:run_id/configuration-version/download`). Permission follows the run: whoever may read the
 * run may download its configuration, even when the version belongs to another workspace.
 * @throws {DomainError} `not_found` when the run is missing or invisible, or its version is not `uploaded`.
 * @example
 * const { token } = createRunDownloadLink(ctx, caller, "run-abc");
 */
export function createRunDownloadLink(ctx: OperationContext<RunsState>, caller: Caller, runId: string): DownloadLink {
  const run = visibleRun(ctx.state, caller, runId, DOWNLOAD);
  const version = ctx.state.configurationVersions[run.configurationVersionId];
  if (version === undefined) throw notFound(DOWNLOAD, runId);
  return linkTo(ctx, version);
}

const DOWNLOAD = "download configuration files";

function linkTo(ctx: OperationContext<RunsState>, version: ConfigurationVersion): DownloadLink {
  const id = version.id;
  if (version.status !== "uploaded" || version.blobKey === null) throw notFound(DOWNLOAD, id);
  for (const [token, link] of Object.entries(ctx.state.downloadLinks)) {
    if (link.expiresAt <= ctx.now) delete ctx.state.downloadLinks[token];
  }
  const link: DownloadLink = {
    token: ctx.ids.string(48),
    configurationVersionId: id,
    blobKey: version.blobKey,
    expiresAt: ctx.now + ctx.state.settings.downloadLinkTtlMs,
  };
  ctx.state.downloadLinks[link.token] = link;
  return link;
}

/**
 * The bytes behind a download link.
 * @throws {DomainError} `not_found` when the link is unknown or expired, or the archive is gone.
 * @example
 * const bytes = readDownload(ctx, token); // the uploaded archive, exactly
 */
export function readDownload(ctx: ReadContext<RunsState>, token: string): Uint8Array {
  const link = ctx.state.downloadLinks[token];
  const bytes = link === undefined || link.expiresAt <= ctx.now ? undefined : ctx.blob(link.blobKey);
  if (bytes === undefined) throw notFound("download configuration files");
  return bytes;
}

/**
 * The ingress attributes of a version.
 * @throws {DomainError} `not_found` when the version is missing or invisible or has none (API-created).
 * @example
 * ingressAttributesOf(ctx.state, caller, "cv-abc").commitSha
 */
export function ingressAttributesOf(state: RunsState, caller: Caller, id: string): IngressAttributes {
  const operation = "show ingress attributes";
  const version = visibleConfigurationVersion(state, caller, id, operation);
  const ingress = version.ingressAttributesId === null ? undefined : state.ingressAttributes[version.ingressAttributesId];
  if (ingress === undefined) throw notFound(operation, id);
  return ingress;
}

/**
 * Ingress attributes by their own id (link `self`). @throws {DomainError} `not_found`.
 * @example
 * visibleIngressAttributes(ctx.state, caller, "ia-abc").branch
 */
export function visibleIngressAttributes(state: RunsState, caller: Caller, id: string): IngressAttributes {
  const ingress = state.ingressAttributes[id];
  if (ingress === undefined) throw notFound("show ingress attributes", id);
  visibleConfigurationVersion(state, caller, ingress.configurationVersionId, "show ingress attributes");
  return ingress;
}

/**
 * The workspace's versions, newest first. @throws {DomainError} `not_found` for an unknown or invisible workspace.
 * @example
 * listConfigurationVersions(ctx.state, caller, "ws-abc")[0] // the newest
 */
export function listConfigurationVersions(state: RunsState, caller: Caller, workspaceId: string): ConfigurationVersion[] {
  visibleWorkspace(state, caller, workspaceId, "list configuration versions");
  return Object.values(state.configurationVersions)
    .filter((v) => v.workspaceId === workspaceId)
    .sort((a, b) => b.seq - a.seq);
}
