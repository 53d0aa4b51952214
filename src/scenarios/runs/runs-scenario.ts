/**
 * The run orchestration service's scenario controls: fixtures (organizations, workspaces, users,
 * teams, permission grants, tokens of each kind, site administrators), outcome scripting (per
 * simulator, per workspace, for the next runs of a workspace, per run), progression modes and phase
 * durations, the force-cancel cool-off, VCS commits, manual steps, and readers for assertions.
 */
import { parseDuration, type Duration } from "../../simulator/kernel/duration.js";
import { UsageError, isDomainError } from "../../simulator/kernel/errors.js";
import type { OperationContext, Simulator } from "../../simulator/kernel/simulator.js";
import type { Caller } from "../../simulator/runs/access.js";
import { readConfigurationArchive } from "../../simulator/runs/configuration-archive.js";
import { completeFetch, createConfigurationVersion, pushCommit, uploadArchive } from "../../simulator/runs/configuration-versions.js";
import { usageOf } from "../../simulator/runs/engine-versions.js";
import { RUNS } from "../../simulator/runs/errors.js";
import {
  createOrganization,
  createTeam,
  createToken,
  createUser,
  createWorkspace,
  grant,
  type UserInput,
} from "../../simulator/runs/fixtures.js";
import { combineOverrides, mergeOutcome, type OutcomeOverride, type PhaseDurations, type PhaseName } from "../../simulator/runs/outcomes.js";
import { isPaused, needsWorkspace, nextAutomatic, reschedule, step } from "../../simulator/runs/progression.js";
import { createRun, operationOf, runActions, type CreateRunInput } from "../../simulator/runs/runs.js";
import type {
  ConfigurationVersion,
  IngressAttributes,
  PermissionLevel,
  Phase,
  ProgressionMode,
  Run,
  RunOperation,
  RunsState,
  UploadOutcome,
  Workspace,
} from "../../simulator/runs/state.js";
import type { RunStatus } from "../../simulator/runs/run-machine.js";
import { configurationArchive } from "./archive.js";

/**
 * Outcome scripting as users write it: like {@link OutcomeOverride}, with durations as ms or
 * duration strings (`"30s"`).
 */
export interface OutcomeScript {
  /** `changes` (default), `no-changes` or `errors`. */
  readonly plan?: "changes" | "no-changes" | "errors";
  /** Run cost estimation after the plan (default false). */
  readonly costEstimation?: boolean;
  /** `none` (default), `passes`, `soft-fails` or `hard-fails`. */
  readonly policyCheck?: "none" | "passes" | "soft-fails" | "hard-fails";
  /** `succeeds` (default) or `errors`. */
  readonly apply?: "succeeds" | "errors";
  /** Pre-plan run tasks (`pre_plan_running`, default false). */
  readonly prePlanTasks?: boolean;
  /** Post-plan run tasks (`post_plan_running`, default false). */
  readonly postPlanTasks?: boolean;
  /** On cancel the process `stops` (default) or `ignored`s it (only force-cancel ends it). */
  readonly interrupt?: "stops" | "ignored";
  /** Resource counts of a plan with changes, shown by the plan, its apply and their logs (default: one per resource block of the configuration, to add, or to destroy for a destroy run). */
  readonly resources?: { readonly add?: number; readonly change?: number; readonly destroy?: number; readonly import?: number } | null;
  /** `timed` (default), `manual` or `immediate`. */
  readonly progression?: ProgressionMode;
  /** Phase durations for `timed` progression (ms or duration strings). */
  readonly durations?: Partial<Record<PhaseName, Duration>>;
}

/** A workspace as scenario calls return it. */
export interface WorkspaceRef {
  readonly id: string;
  readonly name: string;
  readonly organization: string;
}

/** A user as scenario calls return it. */
export interface UserRef {
  readonly id: string;
  readonly username: string;
}

/** A team as scenario calls return it. */
export interface TeamRef {
  readonly id: string;
  readonly name: string;
  readonly organization: string;
}

/** Options of {@link RunsScenario.addWorkspace}. */
export interface WorkspaceOptions {
  readonly name?: string;
  /** The workspace's auto-apply setting (default false). */
  readonly autoApply?: boolean;
  /** Connects a VCS repository (needed by {@link RunsScenario.pushCommit}). */
  readonly vcsRepo?: { readonly identifier: string; readonly branch?: string; readonly provider?: string; readonly htmlUrl?: string };
  /** Default: the newest official engine version. */
  readonly engineVersion?: string;
  /** Outcome defaults of this workspace's runs. */
  readonly outcome?: OutcomeScript;
}

/** Options of {@link RunsScenario.addUser}. */
export interface UserOptions {
  readonly username?: string;
  readonly email?: string | null;
  readonly siteAdmin?: boolean;
  /** Workspace id -> `read` | `plan` | `write` | `admin`. */
  readonly permissions?: Readonly<Record<string, PermissionLevel>>;
  /** Organization name -> level on every workspace there (`admin`: an owner). */
  readonly organizationAccess?: Readonly<Record<string, PermissionLevel>>;
}

/** Options of {@link RunsScenario.addTeam}. */
export interface TeamOptions {
  readonly name?: string;
  /** User ids. */
  readonly members?: readonly string[];
  /** Workspace id -> level. */
  readonly permissions?: Readonly<Record<string, PermissionLevel>>;
  /** A level on every workspace of the organization. */
  readonly organizationAccess?: PermissionLevel | null;
}

/** A commit pushed to a workspace's repository (see {@link RunsScenario.pushCommit}). */
export interface CommitOptions {
  readonly branch?: string;
  readonly message?: string;
  /** Hexadecimal commit sha (default: random, seeded). */
  readonly sha?: string;
  /** The VCS user who pushed (default `octocat`); `search[user]` matches it. */
  readonly senderUsername?: string;
  readonly tag?: string | null;
  /** A pull request: the version is speculative and its run plan-only. */
  readonly pullRequest?: { readonly number: number; readonly title?: string; readonly body?: string } | null;
  /** The repository's files (path -> content) or a ready `.tar.gz` (default: one `main.tf`). */
  readonly files?: Readonly<Record<string, string>> | Uint8Array;
  /** Whether fetching the files works (default: the workspace's upload outcome). */
  readonly fetch?: UploadOutcome;
}

/** A run as readers return it: a copy of the simulator's record plus derived facts. */
export interface RunView extends Omit<Run, "outcome"> {
  readonly operation: RunOperation;
  /** Paused for confirmation: apply (overriding a soft-failed policy) and discard are accepted now. */
  readonly paused: boolean;
  readonly actions: ReturnType<typeof runActions>;
  readonly outcome: Run["outcome"];
  readonly plan: Phase | undefined;
  readonly apply: Phase | undefined;
}

/** A configuration version as readers return it. */
export interface ConfigurationVersionView extends ConfigurationVersion {
  readonly ingressAttributes: IngressAttributes | undefined;
  /** The archive bytes the service holds for it, if any. */
  readonly archive: Uint8Array | undefined;
}

/** A file of a configuration version (see {@link RunsScenario.configurationFiles}). */
export interface ConfigurationFile {
  /** Permission bits from the archive, e.g. `0o644` (420). */
  readonly mode: number;
  /** The file's bytes (a copy). */
  readonly bytes: Uint8Array;
  /** The bytes read as UTF-8 (invalid sequences become U+FFFD). */
  readonly text: string;
}

/** What {@link RunsScenario.pushCommit} returns. */
export interface CommitResult {
  readonly configurationVersionId: string;
  readonly ingressAttributesId: string;
}

/**
 * The run orchestration scenario controls (`doubles.runs`).
 *
 * @example
 * const org = doubles.runs.addOrganization("acme");
 * const ws = doubles.runs.addWorkspace(org, { name: "prod" });
 * const token = doubles.runs.issueUserToken(doubles.runs.addUser({ permissions: { [ws.id]: "admin" } }).id);
 * doubles.runs.nextRun(ws.id, { plan: "no-changes" });
 * // ... the code under test queues a run through the API ...
 * doubles.advance("10m");
 * expect(doubles.runs.runsOf(ws.id)[0]?.status).toBe("planned_and_finished");
 */
export class RunsScenario {
  constructor(private readonly sim: Simulator) {}

  private update<R>(fn: (ctx: OperationContext<RunsState>) => R): R {
    try {
      return this.sim.update<RunsState, R>(RUNS, fn);
    } catch (error) {
      if (isDomainError(error)) throw new UsageError(error.message);
      throw error;
    }
  }

  private read<R>(fn: (state: Readonly<RunsState>, now: number, blob: (key: string) => Uint8Array | undefined) => R): R {
    return this.sim.read<RunsState, R>(RUNS, (ctx) => fn(ctx.state, ctx.now, (key) => ctx.blob(key)));
  }

  // ---- fixtures -------------------------------------------------------------------------------

  /**
   * Creates an organization (the spec's paths name organizations by name).
   * @param options.costEstimationEnabled - the organization's `cost-estimation-enabled` setting
   *   (default false): runs created while it is on pass through `cost_estimating` after a plan with changes.
   * @returns its name.
   * @throws {UsageError} for a taken name or one with characters other than letters, digits, `-` and `_`.
   * @example
   * const org = runs.addOrganization("acme", { costEstimationEnabled: true }); // "acme"
   */
  addOrganization(name = "acme", options: { email?: string; costEstimationEnabled?: boolean } = {}): string {
    if (options.costEstimationEnabled !== undefined && typeof options.costEstimationEnabled !== "boolean") {
      throw new UsageError("runs: costEstimationEnabled must be a boolean");
    }
    return this.update((ctx) => createOrganization(ctx, { name, ...options }).name);
  }

  /**
   * Turns the organization's `cost-estimation-enabled` setting on or off (shown by `GET
   * /organizations/:name`). Runs created afterwards follow it; runs already created keep theirs.
   * @throws {UsageError} for an unknown organization or a value that is not a boolean.
   * @example
   * runs.setCostEstimation("acme", true); // the next runs go planned -> cost_estimating -> cost_estimated
   */
  setCostEstimation(organization: string, enabled: boolean): void {
    if (typeof enabled !== "boolean") throw new UsageError("runs: the cost estimation setting must be a boolean");
    this.update((ctx) => {
      const org = ctx.state.organizations[organization];
      if (org === undefined) throw new UsageError(`runs: unknown organization "${organization}"`);
      org.costEstimationEnabled = enabled;
    });
  }

  /**
   * Creates a workspace (`ws-...`) in `organization`: auto-apply off, the newest official engine
   * version, no VCS repository unless `vcsRepo` is given.
   * @throws {UsageError} for an unknown organization, a taken name, an unknown engine version or a
   *   repository web address that is not a URL.
   * @example
   * const ws = runs.addWorkspace("acme", { name: "prod", autoApply: true, vcsRepo: { identifier: "acme/infra" } });
   */
  addWorkspace(organization: string, options: WorkspaceOptions = {}): WorkspaceRef {
    const outcome = options.outcome === undefined ? undefined : toOverride(options.outcome);
    return this.update((ctx) => {
      const ws = createWorkspace(ctx, {
        organization,
        ...(options.name !== undefined ? { name: options.name } : {}),
        ...(options.autoApply !== undefined ? { autoApply: options.autoApply } : {}),
        ...(options.vcsRepo !== undefined ? { vcsRepo: options.vcsRepo } : {}),
        ...(options.engineVersion !== undefined ? { engineVersion: options.engineVersion } : {}),
        ...(outcome !== undefined ? { outcome } : {}),
      });
      return { id: ws.id, name: ws.name, organization: ws.organization };
    });
  }

  /**
   * Changes a workspace's auto-apply setting (the default `auto-apply` of its future runs; spec "Apply rules").
   * @throws {UsageError} for an unknown workspace.
   * @example
   * runs.setAutoApply(ws.id, true);
   */
  setAutoApply(workspaceId: string, autoApply: boolean): void {
    this.update((ctx) => {
      workspaceOf(ctx.state, workspaceId).autoApply = autoApply;
    });
  }

  /**
   * Creates a user (`user-...`) with per-workspace and organization-wide permission levels
   * (`read` < `plan` < `write` < `admin`; spec "Authentication").
   * @throws {UsageError} for a taken username, an unknown organization or workspace, or a bad level.
   * @example
   * const alice = runs.addUser({ username: "alice", permissions: { [ws.id]: "write" } });
   */
  addUser(options: UserOptions = {}): UserRef {
    return this.update((ctx) => {
      const input: UserInput = {
        ...(options.username !== undefined ? { username: options.username } : {}),
        ...(options.email !== undefined ? { email: options.email } : {}),
        ...(options.siteAdmin !== undefined ? { siteAdmin: options.siteAdmin } : {}),
        ...(options.permissions !== undefined ? { permissions: options.permissions } : {}),
        ...(options.organizationAccess !== undefined ? { organizationAccess: options.organizationAccess } : {}),
      };
      const user = createUser(ctx, input);
      return { id: user.id, username: user.username };
    });
  }

  /**
   * Creates a team (`team-...`) of `organization`; team tokens act with its levels, and its members get them too.
   * @throws {UsageError} for an unknown organization or member, or a bad level.
   * @example
   * const ops = runs.addTeam("acme", { members: [alice.id], permissions: { [ws.id]: "admin" } });
   */
  addTeam(organization: string, options: TeamOptions = {}): TeamRef {
    return this.update((ctx) => {
      const team = createTeam(ctx, {
        organization,
        ...(options.name !== undefined ? { name: options.name } : {}),
        ...(options.members !== undefined ? { members: options.members } : {}),
        ...(options.permissions !== undefined ? { permissions: options.permissions } : {}),
        ...(options.organizationAccess !== undefined ? { organizationAccess: options.organizationAccess } : {}),
      });
      return { id: team.id, name: team.name, organization: team.organization };
    });
  }

  /**
   * Grants a user or team a level on a workspace, replacing an earlier grant: `read` (read runs),
   * `plan` (queue plans), `write` (apply runs), `admin` (workspace admin: force-cancel).
   * @throws {UsageError} for an unknown user, team or workspace, or a team of another organization.
   * @example
   * runs.grant(alice.id, ws.id, "admin");
   */
  grant(principalId: string, workspaceId: string, level: PermissionLevel): void {
    this.update((ctx) => grant(ctx, principalId, workspaceId, level));
  }

  /**
   * Revokes a token (user, team or organization): requests bearing it get 401 from now on, as for
   * a token that never existed. Unknown tokens are ignored.
   * @param token - the bearer value an `issue...Token` call returned.
   * @returns whether the token existed.
   * @example
   * runs.revokeToken(token); // GET /api/v2/runs/run-... with it -> 401
   */
  revokeToken(token: string): boolean {
    return this.update((ctx) => {
      if (ctx.state.tokens[token] === undefined) return false;
      delete ctx.state.tokens[token];
      return true;
    });
  }

  /**
   * Takes a user's or team's grant on a workspace away (organization access and team memberships
   * still count). Nothing happens when there was none.
   * @throws {UsageError} for an unknown workspace.
   * @example
   * runs.removeGrant(alice.id, ws.id); // alice now gets 404 for the workspace's runs
   */
  removeGrant(principalId: string, workspaceId: string): void {
    this.update((ctx) => {
      const workspace = ctx.state.workspaces[workspaceId];
      if (workspace === undefined) throw new UsageError(`runs: unknown workspace "${workspaceId}"`);
      delete workspace.permissions[principalId];
    });
  }

  /**
   * Issues a user token.
   * @param options.token - a fixed bearer value (default: generated, `<14>.atlasv1.<67>`).
   * @returns the bearer value.
   * @throws {UsageError} for an unknown user or a bearer value already issued.
   * @example
   * const token = runs.issueUserToken(alice.id); // Authorization: Bearer <token>
   */
  issueUserToken(userId: string, options: { token?: string } = {}): string {
    return this.update((ctx) => createToken(ctx, { kind: "user", owner: userId, ...(options.token ? { secret: options.token } : {}) }).secret);
  }

  /**
   * Issues a team token; it acts with the team's permission levels (as the team's service account).
   * @returns the bearer value.
   * @throws {UsageError} for an unknown team or a bearer value already issued.
   * @example
   * const teamToken = runs.issueTeamToken(ops.id);
   */
  issueTeamToken(teamId: string, options: { token?: string } = {}): string {
    return this.update((ctx) => createToken(ctx, { kind: "team", owner: teamId, ...(options.token ? { secret: options.token } : {}) }).secret);
  }

  /**
   * Issues an organization token: it reads every workspace of the organization but may not create
   * configuration versions or runs, nor apply, discard, cancel, force-cancel or force-execute
   * (spec "Authentication"; the service answers 404).
   * @returns the bearer value.
   * @throws {UsageError} for an unknown organization or a bearer value already issued.
   * @example
   * const orgToken = runs.issueOrganizationToken("acme");
   */
  issueOrganizationToken(organization: string, options: { token?: string } = {}): string {
    return this.update(
      (ctx) => createToken(ctx, { kind: "organization", owner: organization, ...(options.token ? { secret: options.token } : {}) }).secret,
    );
  }

  /**
   * Creates a site administrator and issues their user token (the engine versions admin API answers
   * 404 to everyone else). A site administrator gets no workspace access.
   * @returns the bearer value.
   * @throws {UsageError} for a taken username or a bearer value already issued.
   * @example
   * const adminToken = runs.issueSiteAdminToken({ username: "root" });
   */
  issueSiteAdminToken(options: { username?: string; token?: string } = {}): string {
    return this.update((ctx) => {
      const user = createUser(ctx, { siteAdmin: true, ...(options.username !== undefined ? { username: options.username } : {}) });
      return createToken(ctx, { kind: "user", owner: user.id, ...(options.token ? { secret: options.token } : {}) }).secret;
    });
  }

  // ---- outcomes and progression --------------------------------------------------------------

  /**
   * Sets outcome defaults of every run created from now on (simulator-wide); fields left out keep their value.
   * @throws {UsageError} for an unknown value, a bad duration or resource count.
   * @example
   * runs.setOutcome({ apply: "errors", durations: { plan: "5s" } });
   */
  setOutcome(script: OutcomeScript): void {
    const override = toOverride(script);
    this.update((ctx) => {
      ctx.state.settings.outcome = mergeOutcome(ctx.state.settings.outcome, override);
    });
  }

  /**
   * Sets outcome defaults of the workspace's runs created from now on (over the simulator's).
   * @throws {UsageError} for an unknown workspace or a bad script.
   * @example
   * runs.setWorkspaceOutcome(ws.id, { costEstimation: true, policyCheck: "passes" });
   */
  setWorkspaceOutcome(workspaceId: string, script: OutcomeScript): void {
    const override = toOverride(script);
    this.update((ctx) => {
      const ws = workspaceOf(ctx.state, workspaceId);
      ws.outcome = combineOverrides(ws.outcome, override);
    });
  }

  /**
   * Scripts the next run created on the workspace (calls queue up: the first script goes to the
   * next run, the second to the one after, ...). Works before the run exists.
   * @throws {UsageError} for an unknown workspace or a bad script.
   * @example
   * runs.nextRun(ws.id, { plan: "no-changes" }); // the next run ends planned_and_finished
   */
  nextRun(workspaceId: string, script: OutcomeScript): void {
    const override = toOverride(script);
    this.update((ctx) => {
      workspaceOf(ctx.state, workspaceId).nextRunOutcomes.push(override);
    });
  }

  /**
   * Changes an existing run's outcome; phases already done keep their results. Changing the
   * progression or a duration re-plans the next move from now.
   * @throws {UsageError} for an unknown run or a bad script.
   * @example
   * runs.setRunOutcome(runId, { interrupt: "ignored" }); // a cancel will need force-cancel
   */
  setRunOutcome(runId: string, script: OutcomeScript): void {
    const override = toOverride(script);
    this.update((ctx) => {
      const run = runOf(ctx.state, runId);
      run.outcome = mergeOutcome(run.outcome, override);
      reschedule(ctx, run);
    });
  }

  /**
   * Sets the progression mode: simulator-wide (runs created from now on), or for a workspace's
   * future runs, or for one run.
   * - `timed`: phases take their durations on the simulator clock (`doubles.advance("10m")` finishes any run);
   * - `manual`: a run moves one step per {@link RunsScenario.step};
   * - `immediate`: a run goes as far as it can at once.
   * @throws {UsageError} for an unknown mode, workspace or run.
   * @example
   * runs.setProgression("manual", { workspaceId: ws.id });
   */
  setProgression(mode: ProgressionMode, target: { workspaceId?: string; runId?: string } = {}): void {
    if (!["timed", "manual", "immediate"].includes(mode)) throw new UsageError(`runs: unknown progression mode "${String(mode)}"`);
    if (target.runId !== undefined) this.setRunOutcome(target.runId, { progression: mode });
    else if (target.workspaceId !== undefined) this.setWorkspaceOutcome(target.workspaceId, { progression: mode });
    else this.setOutcome({ progression: mode });
  }

  /**
   * Sets phase durations (ms, or duration strings like `"30s"`), simulator-wide or for a workspace or run.
   * @throws {UsageError} for a bad or negative duration, or an unknown workspace or run.
   * @example
   * runs.setDurations({ plan: "2m", apply: 300_000 });
   */
  setDurations(durations: Partial<Record<PhaseName, Duration>>, target: { workspaceId?: string; runId?: string } = {}): void {
    if (target.runId !== undefined) this.setRunOutcome(target.runId, { durations });
    else if (target.workspaceId !== undefined) this.setWorkspaceOutcome(target.workspaceId, { durations });
    else this.setOutcome({ durations });
  }

  /**
   * Sets the force-cancel cool-off (default 10 s) for cancels from now on: `force_cancel_available_at`
   * is the cancel time plus this (spec "Force-cancel rules").
   * @param duration - ms, or a duration string.
   * @throws {UsageError} for a bad or negative duration.
   * @example
   * runs.setCoolOff("30s");
   */
  setCoolOff(duration: Duration): void {
    const ms = toMs(duration, "cool-off");
    this.update((ctx) => {
      ctx.state.settings.coolOffMs = ms;
    });
  }

  /**
   * Whether uploads (and VCS fetches) are processed (`succeeds`: `uploaded`) or not (`errors`:
   * `errored`): simulator-wide, or one-shot for the next upload on a workspace (calls queue up).
   * @throws {UsageError} for an unknown outcome or workspace.
   * @example
   * runs.setUploadOutcome("errors", { workspaceId: ws.id }); // the next upload ends errored
   */
  setUploadOutcome(outcome: UploadOutcome, target: { workspaceId?: string } = {}): void {
    if (outcome !== "succeeds" && outcome !== "errors") throw new UsageError(`runs: unknown upload outcome "${String(outcome)}"`);
    this.update((ctx) => {
      if (target.workspaceId !== undefined) workspaceOf(ctx.state, target.workspaceId).nextUploadOutcomes.push(outcome);
      else ctx.state.settings.uploadOutcome = outcome;
    });
  }

  // ---- events ---------------------------------------------------------------------------------

  /**
   * A commit reaches the workspace's VCS repository: a configuration version (`fetching`, with
   * ingress attributes) that becomes `uploaded` after the fetch (`durations.vcsFetch`, default 5 s)
   * and queues a run (`svc-configuration-version`; plan-only for a pull request).
   * @throws {UsageError} for an unknown workspace, one without a VCS repository, or options of the wrong shape.
   * @example
   * const { configurationVersionId } = runs.pushCommit(ws.id, { message: "Add bucket", senderUsername: "octocat" });
   */
  pushCommit(workspaceId: string, commit: CommitOptions = {}): CommitResult {
    checkCommit(commit);
    const archive = commit.files instanceof Uint8Array ? commit.files : configurationArchive(commit.files);
    return this.update((ctx) => {
      const version = pushCommit(ctx, {
        workspaceId,
        archive,
        ...(commit.branch !== undefined ? { branch: commit.branch } : {}),
        ...(commit.message !== undefined ? { message: commit.message } : {}),
        ...(commit.sha !== undefined ? { sha: commit.sha } : {}),
        ...(commit.senderUsername !== undefined ? { senderUsername: commit.senderUsername } : {}),
        ...(commit.tag !== undefined ? { tag: commit.tag } : {}),
        ...(commit.pullRequest !== undefined ? { pullRequest: commit.pullRequest } : {}),
        ...(commit.fetch !== undefined ? { fetch: commit.fetch } : {}),
      });
      return { configurationVersionId: version.id, ingressAttributesId: version.ingressAttributesId ?? "" };
    });
  }

  /**
   * Creates and uploads a configuration version as `as` (a user id) would through the API, e.g.
   * to give a workspace configuration before the code under test queues runs.
   * @returns the version id and the id of the run the upload queued (unless `autoQueueRuns` is false).
   * @throws {UsageError} for an unknown user or workspace, or a user who may not queue plans there.
   * @example
   * const { configurationVersionId } = runs.uploadConfiguration(ws.id, { as: alice.id, autoQueueRuns: false });
   */
  uploadConfiguration(
    workspaceId: string,
    options: { readonly as: string; readonly files?: Readonly<Record<string, string>> | Uint8Array; readonly autoQueueRuns?: boolean; readonly speculative?: boolean; readonly provisional?: boolean },
  ): { readonly configurationVersionId: string; readonly runId: string | undefined } {
    const bytes = options.files instanceof Uint8Array ? options.files : configurationArchive(options.files);
    return this.update((ctx) => {
      const caller = userCaller(ctx.state, options.as);
      const version = createConfigurationVersion(ctx, caller, workspaceId, {
        ...(options.autoQueueRuns !== undefined ? { autoQueueRuns: options.autoQueueRuns } : {}),
        ...(options.speculative !== undefined ? { speculative: options.speculative } : {}),
        ...(options.provisional !== undefined ? { provisional: options.provisional } : {}),
      });
      const result = uploadArchive(ctx, version.uploadToken ?? "", bytes);
      return { configurationVersionId: version.id, runId: result.run?.id };
    });
  }

  /**
   * Queues a run as `as` (a user id) would (for runs "from the UI" use `source: "svc-ui"`), with the
   * same rules as `POST /runs`.
   * @returns the run id.
   * @throws {UsageError} when the API would refuse the run (the message says why).
   * @example
   * const runId = runs.queueRun(ws.id, { as: alice.id, source: "svc-ui", isDestroy: true });
   */
  queueRun(workspaceId: string, input: Omit<CreateRunInput, "workspaceId"> & { readonly as: string }): string {
    const { as, ...rest } = input;
    return this.update((ctx) => createRun(ctx, userCaller(ctx.state, as), { ...rest, workspaceId }).id);
  }

  /**
   * Makes the next automatic move of a run (any progression mode), or completes the fetch of a
   * VCS-created configuration version (`cv-...`).
   * @returns the new status.
   * @throws {UsageError} when the run waits for a user action or the workspace, or is final.
   * @example
   * runs.step(runId); // "pending" -> "fetching"
   */
  step(id: string): RunStatus | ConfigurationVersion["status"] {
    if (id.startsWith("cv-")) return this.update((ctx) => completeFetch(ctx, id).status);
    return this.update((ctx) => step(ctx, id));
  }

  /**
   * Steps a run until it pauses, waits or completes (at most `limit` steps).
   * @returns the final status.
   * @throws {UsageError} for an unknown run.
   * @example
   * runs.stepUntilSettled(runId); // "planned" with the default outcome
   */
  stepUntilSettled(runId: string, limit = 50): RunStatus {
    let status = this.run(runId).status;
    for (let i = 0; i < limit; i++) {
      const canMove = this.read((state) => {
        const run = state.runs[runId];
        return run !== undefined && isMovable(state, run);
      });
      if (!canMove) return status;
      status = this.step(runId) as RunStatus;
    }
    return status;
  }

  // ---- readers --------------------------------------------------------------------------------

  /**
   * A run (a copy; times in ms since the epoch), with its operation, whether it is paused for
   * confirmation, its `actions`, plan and apply.
   * @throws {UsageError} for an unknown run.
   * @example
   * expect(runs.run(runId).status).toBe("applied");
   */
  run(runId: string): RunView {
    return this.read((state, now) => viewOf(state, runOf(state, runId), now));
  }

  /**
   * The workspace's runs, newest first (plan-only included, unlike the API's list).
   * @throws {UsageError} for an unknown workspace.
   * @example
   * const [latest] = runs.runsOf(ws.id);
   */
  runsOf(workspaceId: string): RunView[] {
    return this.read((state, now) => {
      workspaceOf(state, workspaceId);
      return Object.values(state.runs)
        .filter((r) => r.workspaceId === workspaceId)
        .sort((a, b) => b.seq - a.seq)
        .map((r) => viewOf(state, r, now));
    });
  }

  /**
   * The workspace queue: the run holding the workspace and the runs waiting for it, oldest first.
   * @throws {UsageError} for an unknown workspace.
   * @example
   * runs.workspaceQueue(ws.id) // { holder: "run-...", waiting: ["run-..."] }
   */
  workspaceQueue(workspaceId: string): { readonly holder: string | null; readonly waiting: readonly string[] } {
    return this.read((state) => {
      const ws = workspaceOf(state, workspaceId);
      const waiting = Object.values(state.runs)
        .filter((r) => r.workspaceId === workspaceId && r.id !== ws.lockedBy && ((r.status === "pending" && needsWorkspace(r)) || (r.status === "confirmed" && r.savePlan)))
        .sort((a, b) => a.seq - b.seq)
        .map((r) => r.id);
      return { holder: ws.lockedBy, waiting };
    });
  }

  /**
   * The id of a workspace named as the scenario documents and the guides name it: its id
   * (`ws-...`), `organization/name`, or `name` when one organization only has it.
   * @throws {UsageError} for no such workspace, or a bare name several organizations use.
   * @example runs.workspaceId("acme/prod") // "ws-..."
   */
  workspaceId(ref: string): string {
    return this.read((state) => {
      if (state.workspaces[ref] !== undefined) return ref;
      const slash = ref.indexOf("/");
      const matches = Object.values(state.workspaces).filter((w) =>
        slash < 0 ? w.name === ref : w.organization === ref.slice(0, slash) && w.name === ref.slice(slash + 1),
      );
      if (matches.length > 1) {
        throw new UsageError(`workspace "${ref}" is ambiguous: name it "organization/name" (${matches.map((w) => `${w.organization}/${w.name}`).join(", ")})`);
      }
      const match = matches[0];
      if (match === undefined) throw new UsageError(`unknown workspace "${ref}" (give its id, "organization/name" or its name)`);
      return match.id;
    });
  }

  /**
   * A workspace (a copy): settings, lock holder, most recently used configuration version.
   * @throws {UsageError} for an unknown workspace.
   * @example
   * runs.workspace(ws.id).latestConfigurationVersionId
   */
  workspace(workspaceId: string): Workspace {
    return this.read((state) => structuredClone(workspaceOf(state, workspaceId)));
  }

  /**
   * A configuration version (a copy) with its ingress attributes and archive bytes.
   * @throws {UsageError} for an unknown version.
   * @example
   * runs.configurationVersion(cvId).status // "uploaded"
   */
  configurationVersion(id: string): ConfigurationVersionView {
    return this.read((state, _now, blob) => {
      const version = state.configurationVersions[id];
      if (version === undefined) throw new UsageError(`runs: no configuration version "${id}"`);
      const ingress = version.ingressAttributesId === null ? undefined : state.ingressAttributes[version.ingressAttributesId];
      const bytes = version.blobKey === null ? undefined : blob(version.blobKey);
      return {
        ...structuredClone(version),
        ingressAttributes: ingress === undefined ? undefined : structuredClone(ingress),
        archive: bytes === undefined ? undefined : Uint8Array.from(bytes),
      };
    });
  }

  /**
   * The files a configuration version holds, read from its archive as the service extracts it:
   * path -> mode, bytes and text, in archive order (regular files only: directories and symlinks are
   * not listed; `./` dropped). Assert what the code under test packed and uploaded. An archive
   * go-slug refuses (a `..` path leaving the root, an absolute path, a hard link, a symlink pointing
   * outside) leaves the version `errored`, holding nothing.
   * @throws {UsageError} for an unknown version, or one that holds no archive (still `pending`,
   *   `errored`, or archived after an API upload); the message names its status and error.
   * @example
   * expect(Object.keys(runs.configurationFiles(cvId))).toEqual(["main.tf", "modules/vpc/main.tf"]);
   * expect(runs.configurationFiles(cvId)["main.tf"]?.text).toContain('resource "aws_s3_bucket"');
   */
  configurationFiles(id: string): Record<string, ConfigurationFile> {
    return this.read((state, _now, blob) => {
      const version = state.configurationVersions[id];
      if (version === undefined) throw new UsageError(`runs: no configuration version "${id}"`);
      const bytes = version.blobKey === null ? undefined : blob(version.blobKey);
      if (bytes === undefined) {
        const why = version.status === "errored" ? ` (${version.error ?? "error"}: ${version.errorMessage ?? ""})` : "";
        throw new UsageError(`runs: configuration version ${id} holds no files: it is "${version.status}"${why}`);
      }
      const reading = readConfigurationArchive(bytes);
      if (!reading.ok) throw new UsageError(`runs: configuration version ${id} holds an archive that cannot be read: ${reading.message}`);
      const decoder = new TextDecoder();
      const files: Record<string, ConfigurationFile> = {};
      for (const file of reading.files) {
        const copy = Uint8Array.from(file.bytes);
        files[file.path] = { mode: file.mode, bytes: copy, text: decoder.decode(copy) };
      }
      return files;
    });
  }

  /**
   * Every engine version with its usage (count of workspaces using it), newest first.
   * @example
   * runs.engineVersions()[0]?.version // "1.9.8"
   */
  engineVersions(): { readonly id: string; readonly version: string; readonly official: boolean; readonly enabled: boolean; readonly usage: number }[] {
    return this.read((state) =>
      Object.values(state.engineVersions)
        .sort((a, b) => b.seq - a.seq)
        .map((v) => ({ id: v.id, version: v.version, official: v.official, enabled: v.enabled, usage: usageOf(state as RunsState, v.version) })),
    );
  }
}

function userCaller(state: Readonly<RunsState>, userId: string): Caller {
  const user = state.users[userId];
  if (user === undefined) throw new UsageError(`runs: unknown user "${userId}"`);
  return { tokenId: "scenario", tokenKind: "user", userId, teamId: null, organization: null, siteAdmin: user.siteAdmin };
}

function isMovable(state: Readonly<RunsState>, run: Run): boolean {
  return nextAutomatic(state as RunsState, run) !== undefined;
}

function viewOf(state: Readonly<RunsState>, run: Run, now: number): RunView {
  const copy = structuredClone(run);
  const plan = state.plans[run.planId];
  const apply = state.applies[run.applyId];
  return {
    ...copy,
    operation: operationOf(run),
    paused: isPaused(state as RunsState, run),
    actions: runActions(state as RunsState, run, now),
    plan: plan === undefined ? undefined : structuredClone(plan),
    apply: apply === undefined ? undefined : structuredClone(apply),
  };
}

function workspaceOf(state: Readonly<RunsState>, id: string): Workspace {
  const ws = state.workspaces[id];
  if (ws === undefined) throw new UsageError(`runs: no workspace "${id}"`);
  return ws;
}

function runOf(state: Readonly<RunsState>, id: string): Run {
  const run = state.runs[id];
  if (run === undefined) throw new UsageError(`runs: no run "${id}"`);
  return run;
}

function toMs(duration: Duration, what: string): number {
  let ms: number;
  try {
    ms = parseDuration(duration);
  } catch {
    throw new UsageError(`runs: ${what} ${JSON.stringify(duration)} is not a duration (use ms or a string like "30s")`);
  }
  if (ms < 0) throw new UsageError(`runs: ${what} cannot be negative`);
  return ms;
}

/**
 * Turns a user's {@link OutcomeScript} into the simulator's {@link OutcomeOverride}.
 * @example
 * toOverride({ durations: { plan: "2m" } }) // { durations: { plan: 120_000 } }
 */
export function toOverride(script: OutcomeScript): OutcomeOverride {
  const { durations, resources, ...rest } = script;
  const checks: [unknown, readonly unknown[], string][] = [
    [rest.plan, ["changes", "no-changes", "errors"], "plan"],
    [rest.policyCheck, ["none", "passes", "soft-fails", "hard-fails"], "policyCheck"],
    [rest.apply, ["succeeds", "errors"], "apply"],
    [rest.interrupt, ["stops", "ignored"], "interrupt"],
    [rest.progression, ["timed", "manual", "immediate"], "progression"],
  ];
  for (const [value, allowed, name] of checks) {
    if (value !== undefined && !allowed.includes(value)) {
      throw new UsageError(`runs: outcome ${name} ${JSON.stringify(value)} is not one of ${allowed.join(", ")}`);
    }
  }
  for (const name of ["costEstimation", "prePlanTasks", "postPlanTasks"] as const) {
    if (rest[name] !== undefined && typeof rest[name] !== "boolean") throw new UsageError(`runs: outcome ${name} must be a boolean`);
  }
  if (resources !== undefined && resources !== null && (typeof resources !== "object" || Array.isArray(resources))) {
    throw new UsageError("runs: outcome resources must be an object or null, like { add: 1, change: 0, destroy: 0 }");
  }
  if (durations !== undefined && (durations === null || typeof durations !== "object" || Array.isArray(durations))) {
    throw new UsageError('runs: outcome durations must be an object of phase -> duration, like { plan: "30s" }');
  }
  const out: Record<string, unknown> = { ...rest };
  if (resources !== undefined) {
    out.resources =
      resources === null
        ? null
        : { add: count(resources.add), change: count(resources.change), destroy: count(resources.destroy), import: count(resources.import) };
  }
  if (durations !== undefined) {
    const parsed: Partial<Record<keyof PhaseDurations, number>> = {};
    for (const [name, value] of Object.entries(durations)) {
      if (value === undefined) continue;
      parsed[name as PhaseName] = toMs(value, `duration ${name}`);
    }
    out.durations = parsed;
  }
  return out as OutcomeOverride;
}

/** Checks the shape of commit options (JSON callers of the control API bypass the types). */
function checkCommit(commit: CommitOptions): void {
  if (commit === null || typeof commit !== "object") throw new UsageError("runs: commit options must be an object");
  for (const name of ["branch", "message", "sha", "senderUsername"] as const) {
    if (commit[name] !== undefined && typeof commit[name] !== "string") throw new UsageError(`runs: commit ${name} must be a string`);
  }
  if (commit.tag !== undefined && commit.tag !== null && typeof commit.tag !== "string") throw new UsageError("runs: commit tag must be a string or null");
  const pr: unknown = commit.pullRequest;
  if (pr !== undefined && pr !== null) {
    if (typeof pr !== "object" || Array.isArray(pr)) throw new UsageError("runs: commit pullRequest must be { number, title?, body? } or null");
    const { number, title, body } = pr as Record<string, unknown>;
    if (typeof number !== "number" || !Number.isSafeInteger(number) || number < 1) throw new UsageError("runs: commit pullRequest.number must be a positive integer");
    if (title !== undefined && typeof title !== "string") throw new UsageError("runs: commit pullRequest.title must be a string");
    if (body !== undefined && typeof body !== "string") throw new UsageError("runs: commit pullRequest.body must be a string");
  }
  if (commit.fetch !== undefined && commit.fetch !== "succeeds" && commit.fetch !== "errors") {
    throw new UsageError(`runs: commit fetch must be "succeeds" or "errors" (got ${JSON.stringify(commit.fetch)})`);
  }
}

function count(value: number | undefined): number {
  if (value === undefined) return 0;
  if (!Number.isInteger(value) || value < 0) throw new UsageError(`runs: resource counts must be non-negative integers (got ${value})`);
  return value;
}
