/**
 * JSON:API resource objects of the run orchestration service (spec: "Resources and their
 * fields"): runs, configuration versions, ingress attributes, engine versions, and the plans,
 * applies, cost estimates and users behind run relationships (their fields are "not shown" in the
 * spec; docs/decisions/runs.md lists what the fake gives them). Attribute names are kebab-case
 * except `force_cancel_available_at`. `created-at` is ISO 8601 with milliseconds; status
 * timestamps are ISO 8601 to the second with `+00:00` (FIDELITY.md).
 */
import { isoMillis, isoSeconds } from "../../simulator/kernel/time.js";
import type { Caller } from "../../simulator/runs/access.js";
import { usageOf } from "../../simulator/runs/engine-versions.js";
import { runActions, runPermissions } from "../../simulator/runs/runs.js";
import { DEFAULT_LOG_LINK_TTL_MS, logToken } from "../../simulator/runs/logs.js";
import type {
  ConfigurationVersion,
  CostEstimate,
  EngineVersion,
  IngressAttributes,
  Phase,
  Run,
  RunsState,
  User,
} from "../../simulator/runs/state.js";
import type { LinkBuilder, ResourceObject } from "./json-api.js";

/** What serializing needs: the state, the caller (for `permissions`), simulator time, links. */
export interface SerializeContext {
  readonly state: Readonly<RunsState>;
  readonly caller: Caller;
  /** Simulator time, ms since the epoch (for `is-force-cancelable`). */
  readonly now: number;
  readonly link: LinkBuilder;
  /** The archive host's base URL (`log-read-url` points there); absent: no `log-read-url`. */
  readonly archive?: string;
}

/**
 * Path of `log-read-url`s under the archive base.
 * @example
 * `${archiveBase}${LOG_PATH}/<token>` // a plan's or an apply's log-read-url
 */
export const LOG_PATH = "/v1/log";

/** A phase's status -> its `status-timestamps` key: `started-at` for `running` (go-tfe's StartedAt), `<status>-at` otherwise. */
const phaseTimestampKey = (state: string): string => (state === "running" ? "started-at" : `${state}-at`);

function timestamps(values: Readonly<Partial<Record<string, number>>>, key: (state: string) => string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [state, at] of Object.entries(values)) if (at !== undefined) out[key(state)] = isoSeconds(at);
  return out;
}

/** `<state-with-dashes>-at`, built once per state name. */
const dashedKeys = new Map<string, string>();
const dashed = (state: string): string => {
  let key = dashedKeys.get(state);
  if (key === undefined) {
    key = `${state.replace(/_/g, "-")}-at`;
    if (dashedKeys.size < 1024) dashedKeys.set(state, key);
  }
  return key;
};

/**
 * A run's `status-timestamps`: `plan-queueable-at` for `pending`, `<state-with-dashes>-at` otherwise.
 * @example
 * runStatusTimestamps(run) // { "plan-queueable-at": "2024-01-01T00:00:00+00:00", "planning-at": ... }
 */
export function runStatusTimestamps(run: Run): Record<string, string> {
  return timestamps(run.statusTimestamps, (state) => (state === "pending" ? "plan-queueable-at" : dashed(state)));
}

const ref = (type: string, id: string): { type: string; id: string } => ({ type, id });

/**
 * A `runs` resource. `single` adds the `task-stages` relationship (the single-run response).
 * @example
 * serializeRun(out, run, { single: true }).attributes.actions // { "is-cancelable": false, ... }
 */
export function serializeRun(ctx: SerializeContext, run: Run, options: { single: boolean }): ResourceObject {
  const actions = runActions(ctx.state as RunsState, run, ctx.now);
  const permissions = runPermissions(ctx.state as RunsState, ctx.caller, run);
  const attributes: Record<string, unknown> = {
    actions: {
      "is-cancelable": actions.isCancelable,
      "is-confirmable": actions.isConfirmable,
      "is-discardable": actions.isDiscardable,
      "is-force-cancelable": actions.isForceCancelable,
    },
    "allow-config-generation": run.allowConfigGeneration,
    "allow-empty-apply": run.allowEmptyApply,
    "auto-apply": run.autoApply,
    "canceled-at": run.canceledAt === null ? null : isoMillis(run.canceledAt),
    "created-at": isoMillis(run.createdAt),
    "engine-version": run.engineVersion,
    "has-changes": run.hasChanges,
    "is-destroy": run.isDestroy,
    message: run.message,
    "plan-only": run.planOnly,
    refresh: run.refresh,
    "refresh-only": run.refreshOnly,
    "replace-addrs": run.replaceAddrs,
    "save-plan": run.savePlan,
    source: run.source,
    "status-timestamps": runStatusTimestamps(run),
    status: run.status,
    "target-addrs": run.targetAddrs,
    "trigger-reason": run.triggerReason,
    variables: run.variables.map((v) => ({ key: v.key, value: v.value })),
    permissions: {
      "can-apply": permissions.canApply,
      "can-cancel": permissions.canCancel,
      "can-comment": permissions.canComment,
      "can-discard": permissions.canDiscard,
      "can-force-execute": permissions.canForceExecute,
      "can-force-cancel": permissions.canForceCancel,
      "can-override-policy-check": permissions.canOverridePolicyCheck,
    },
  };
  if (run.forceCancelAvailableAt !== null) attributes.force_cancel_available_at = isoMillis(run.forceCancelAvailableAt);
  const relationships: Record<string, unknown> = {
    apply: { data: ref("applies", run.applyId) },
    comments: { data: run.comments.map((c) => ref("comments", c.id)) },
    "configuration-version": { data: ref("configuration-versions", run.configurationVersionId) },
    "cost-estimate": { data: run.costEstimateId === null ? null : ref("cost-estimates", run.costEstimateId) },
    "created-by": { data: run.createdBy === "" ? null : ref("users", run.createdBy) },
    "input-state-version": { data: null },
    plan: { data: ref("plans", run.planId) },
    "run-events": { data: [] },
    "policy-checks": { data: run.policyCheckIds.map((id) => ref("policy-checks", id)) },
    workspace: { data: ref("workspaces", run.workspaceId) },
    "workspace-run-alerts": { data: [] },
  };
  if (options.single) relationships["task-stages"] = { data: [] };
  return { id: run.id, type: "runs", attributes, relationships, links: { self: ctx.link(`/runs/${run.id}`) } };
}

/** A JSON string literal (the same text `JSON.stringify` writes for the string). */
const str = JSON.stringify as (value: string) => string;
const bool = (value: boolean): string => (value ? "true" : "false");
/** `{"type":"<type>","id":` of each resource type a run refers to, written once. */
const refPrefixes = new Map<string, string>();
const refJson = (type: string, id: string): string => {
  let prefix = refPrefixes.get(type);
  if (prefix === undefined) refPrefixes.set(type, (prefix = `{"type":${str(type)},"id":`));
  return `${prefix}${str(id)}}`;
};
const refsJson = (type: string, ids: readonly string[]): string => {
  if (ids.length === 0) return "[]";
  let out = "[";
  for (let i = 0; i < ids.length; i++) out += `${i === 0 ? "" : ","}${refJson(type, ids[i] as string)}`;
  return `${out}]`;
};
const stringsJson = (values: readonly string[] | null): string => (values === null ? "null" : JSON.stringify(values));
/** `"<status-timestamps key>":"` of each state (`plan-queueable-at` for pending), written once. */
const timestampKeys = new Map<string, string>();
const timestampKey = (state: string): string => {
  let key = timestampKeys.get(state);
  if (key === undefined) {
    key = `${str(state === "pending" ? "plan-queueable-at" : dashed(state))}:"`;
    if (timestampKeys.size < 1024) timestampKeys.set(state, key);
  }
  return key;
};

/**
 * {@link serializeRun} written straight to JSON text: the exact bytes `JSON.stringify(serializeRun(ctx,
 * run, options))` gives (a property test compares them), without building the resource object
 * and walking it again. A run is the resource clients poll, so its GET is the hot path: the fixed
 * parts of the text (keys, reference prefixes) are written once per process, not per request.
 * @example
 * `{"data":${serializeRunJson(out, run, { single: true })}}` // the GET /runs/:id document
 */
export function serializeRunJson(ctx: SerializeContext, run: Run, options: { single: boolean }): string {
  const actions = runActions(ctx.state as RunsState, run, ctx.now);
  const permissions = runPermissions(ctx.state as RunsState, ctx.caller, run);
  let timestampsJson = "";
  const timestamps = run.statusTimestamps as Record<string, number | undefined>;
  for (const state in timestamps) {
    const at = timestamps[state];
    if (at === undefined) continue;
    timestampsJson += `${timestampsJson === "" ? "" : ","}${timestampKey(state)}${isoSeconds(at)}"`;
  }
  let variables = "[]";
  if (run.variables.length > 0) {
    variables = "[";
    for (let i = 0; i < run.variables.length; i++) {
      const v = run.variables[i] as Run["variables"][number];
      variables += `${i === 0 ? "" : ","}{"key":${str(v.key)},"value":${str(v.value)}}`;
    }
    variables += "]";
  }
  const comments = run.comments.length === 0 ? "[]" : refsJson("comments", run.comments.map((c) => c.id));
  return (
    `{"id":${str(run.id)},"type":"runs","attributes":{"actions":{"is-cancelable":${bool(actions.isCancelable)},"is-confirmable":${bool(actions.isConfirmable)},` +
    `"is-discardable":${bool(actions.isDiscardable)},"is-force-cancelable":${bool(actions.isForceCancelable)}},` +
    `"allow-config-generation":${bool(run.allowConfigGeneration)},"allow-empty-apply":${bool(run.allowEmptyApply)},"auto-apply":${bool(run.autoApply)},` +
    `"canceled-at":${run.canceledAt === null ? "null" : `"${isoMillis(run.canceledAt)}"`},"created-at":"${isoMillis(run.createdAt)}",` +
    `"engine-version":${str(run.engineVersion)},"has-changes":${bool(run.hasChanges)},"is-destroy":${bool(run.isDestroy)},"message":${str(run.message)},` +
    `"plan-only":${bool(run.planOnly)},"refresh":${bool(run.refresh)},"refresh-only":${bool(run.refreshOnly)},"replace-addrs":${stringsJson(run.replaceAddrs)},` +
    `"save-plan":${bool(run.savePlan)},"source":${str(run.source)},"status-timestamps":{${timestampsJson}},"status":${str(run.status)},` +
    `"target-addrs":${stringsJson(run.targetAddrs)},"trigger-reason":${str(run.triggerReason)},"variables":${variables},` +
    `"permissions":{"can-apply":${bool(permissions.canApply)},"can-cancel":${bool(permissions.canCancel)},"can-comment":${bool(permissions.canComment)},` +
    `"can-discard":${bool(permissions.canDiscard)},"can-force-execute":${bool(permissions.canForceExecute)},"can-force-cancel":${bool(permissions.canForceCancel)},` +
    `"can-override-policy-check":${bool(permissions.canOverridePolicyCheck)}}` +
    `${run.forceCancelAvailableAt === null ? "" : `,"force_cancel_available_at":"${isoMillis(run.forceCancelAvailableAt)}"`}},` +
    `"relationships":{"apply":{"data":{"type":"applies","id":${str(run.applyId)}}},"comments":{"data":${comments}},` +
    `"configuration-version":{"data":{"type":"configuration-versions","id":${str(run.configurationVersionId)}}},` +
    `"cost-estimate":{"data":${run.costEstimateId === null ? "null" : `{"type":"cost-estimates","id":${str(run.costEstimateId)}}`}},` +
    `"created-by":{"data":${run.createdBy === "" ? "null" : `{"type":"users","id":${str(run.createdBy)}}`}},"input-state-version":{"data":null},` +
    `"plan":{"data":{"type":"plans","id":${str(run.planId)}}},"run-events":{"data":[]},"policy-checks":{"data":${refsJson("policy-checks", run.policyCheckIds)}},` +
    `"workspace":{"data":{"type":"workspaces","id":${str(run.workspaceId)}}},"workspace-run-alerts":{"data":[]}${options.single ? ',"task-stages":{"data":[]}' : ""}},` +
    `"links":{"self":${str(ctx.link(`/runs/${run.id}`))}}}`
  );
}

/**
 * A `configuration-versions` resource; `uploadUrl` only in the create response.
 * @example
 * serializeConfigurationVersion(out, version, uploadUrl) // upload-url only in the create response
 */
export function serializeConfigurationVersion(ctx: SerializeContext, version: ConfigurationVersion, uploadUrl?: string): ResourceObject {
  const attributes: Record<string, unknown> = {
    "auto-queue-runs": version.autoQueueRuns,
    error: version.error,
    "error-message": version.errorMessage,
    source: version.source,
    speculative: version.speculative,
    status: version.status,
    "status-timestamps": timestamps(version.statusTimestamps, (state) => `${state}-at`),
    provisional: version.provisional,
  };
  if (uploadUrl !== undefined) attributes["upload-url"] = uploadUrl;
  return {
    id: version.id,
    type: "configuration-versions",
    attributes,
    relationships: {
      "ingress-attributes": {
        data: version.ingressAttributesId === null ? null : ref("ingress-attributes", version.ingressAttributesId),
        links: { related: ctx.link(`/configuration-versions/${version.id}/ingress-attributes`) },
      },
    },
    links: {
      self: ctx.link(`/configuration-versions/${version.id}`),
      download: ctx.link(`/configuration-versions/${version.id}/download`),
    },
  };
}

/**
 * An `ingress-attributes` resource.
 * @example
 * serializeIngressAttributes(out, ingress).attributes["commit-sha"]
 */
export function serializeIngressAttributes(ctx: SerializeContext, ingress: IngressAttributes): ResourceObject {
  return {
    id: ingress.id,
    type: "ingress-attributes",
    attributes: {
      branch: ingress.branch,
      "clone-url": ingress.cloneUrl,
      "commit-message": ingress.commitMessage,
      "commit-sha": ingress.commitSha,
      "commit-url": ingress.commitUrl,
      "compare-url": ingress.compareUrl,
      identifier: ingress.identifier,
      "is-pull-request": ingress.isPullRequest,
      "on-default-branch": ingress.onDefaultBranch,
      "pull-request-number": ingress.pullRequestNumber,
      "pull-request-url": ingress.pullRequestUrl,
      "pull-request-title": ingress.pullRequestTitle,
      "pull-request-body": ingress.pullRequestBody,
      tag: ingress.tag,
      "sender-username": ingress.senderUsername,
      "sender-avatar-url": ingress.senderAvatarUrl,
      "sender-html-url": ingress.senderHtmlUrl,
    },
    relationships: {
      "created-by": {
        data: ref("users", ingress.createdBy),
        links: { related: ctx.link(`/ingress-attributes/${ingress.id}/created-by`) },
      },
    },
    links: { self: ctx.link(`/ingress-attributes/${ingress.id}`) },
  };
}

/**
 * A `plans` or `applies` resource.
 * @example
 * serializePhase(out, plan, "plans").attributes["resource-additions"] // 2
 */
export function serializePhase(ctx: SerializeContext, phase: Phase, type: "plans" | "applies"): ResourceObject {
  const attributes: Record<string, unknown> = {
    "execution-details": { mode: "remote" },
    ...(ctx.archive === undefined ? {} : { "log-read-url": logReadUrl(ctx, phase, type) }),
    status: phase.status,
    "status-timestamps": timestamps(phase.statusTimestamps, phaseTimestampKey),
    "resource-additions": phase.resources.add,
    "resource-changes": phase.resources.change,
    "resource-destructions": phase.resources.destroy,
    "resource-imports": phase.resources.import,
  };
  if (type === "plans") attributes["has-changes"] = phase.hasChanges;
  return {
    id: phase.id,
    type,
    attributes,
    relationships: { run: { data: ref("runs", phase.runId) } },
    links: { self: ctx.link(`/${type}/${phase.id}`) },
  };
}

/**
 * A fresh signed `log-read-url` for a plan or an apply: valid {@link DEFAULT_LOG_LINK_TTL_MS} from
 * now on the simulator clock (docs/decisions/runs.md, "Plan and apply logs").
 * @example
 * logReadUrl(out, plan, "plans") // "https://archivist.run-orchestration.test/v1/log/cGxhbi5..."
 */
export function logReadUrl(ctx: SerializeContext, phase: Phase, type: "plans" | "applies"): string {
  const token = logToken(ctx.state, type === "plans" ? "plan" : "apply", phase.id, ctx.now + DEFAULT_LOG_LINK_TTL_MS);
  return `${(ctx.archive ?? "").replace(/\/+$/, "")}${LOG_PATH}/${token}`;
}

/**
 * A `cost-estimates` resource.
 * @example
 * serializeCostEstimate(out, estimate).attributes["delta-monthly-cost"] // "18.25"
 */
export function serializeCostEstimate(ctx: SerializeContext, estimate: CostEstimate): ResourceObject {
  return {
    id: estimate.id,
    type: "cost-estimates",
    attributes: {
      "delta-monthly-cost": estimate.deltaMonthlyCost,
      "error-message": null,
      "matched-resources-count": estimate.matchedResourcesCount,
      "prior-monthly-cost": estimate.priorMonthlyCost,
      "proposed-monthly-cost": estimate.proposedMonthlyCost,
      "resources-count": estimate.resourcesCount,
      status: estimate.status,
      "status-timestamps": timestamps(estimate.statusTimestamps, (state) => `${state}-at`),
      "unmatched-resources-count": estimate.unmatchedResourcesCount,
    },
    links: { self: ctx.link(`/cost-estimates/${estimate.id}`) },
  };
}

/**
 * A `users` resource (no e-mail: other users' addresses are private).
 * @example
 * serializeUser(out, user).attributes.username // "alice"
 */
export function serializeUser(ctx: SerializeContext, user: User): ResourceObject {
  return {
    id: user.id,
    type: "users",
    attributes: {
      username: user.username,
      "is-service-account": user.serviceAccount,
      "avatar-url": user.avatarUrl,
      "v2-only": user.serviceAccount,
      "is-site-admin": user.siteAdmin,
    },
    links: { self: ctx.link(`/users/${user.id}`) },
  };
}

/**
 * An `engine-versions` resource.
 * @example
 * serializeEngineVersion(out, version).attributes.usage // workspaces using it
 */
export function serializeEngineVersion(ctx: SerializeContext, version: EngineVersion): ResourceObject {
  return {
    id: version.id,
    type: "engine-versions",
    attributes: {
      version: version.version,
      url: version.url,
      sha: version.sha,
      deprecated: version.deprecated,
      "deprecated-reason": version.deprecatedReason,
      official: version.official,
      enabled: version.enabled,
      beta: version.beta,
      usage: usageOf(ctx.state as RunsState, version.version),
      "created-at": version.createdAt === null ? null : isoMillis(version.createdAt),
    },
    links: { self: ctx.link(`/admin/engine-versions/${version.id}`) },
  };
}

/**
 * The `include` values of run endpoints (spec).
 * @example
 * includes(ctx.query, RUN_INCLUDES)
 */
export const RUN_INCLUDES: readonly string[] = Object.freeze([
  "plan",
  "apply",
  "created_by",
  "cost_estimate",
  "configuration_version",
  "configuration_version.ingress_attributes",
]);

/**
 * The `include` values of configuration version endpoints (spec).
 * @example
 * includes(ctx.query, CONFIGURATION_VERSION_INCLUDES)
 */
export const CONFIGURATION_VERSION_INCLUDES: readonly string[] = Object.freeze(["ingress_attributes", "run"]);

/**
 * Resources a run includes for `include` (a nested path includes its parent too).
 * @example
 * runIncluded(out, run, new Set(["plan", "created_by"])) // [plan, user]
 */
export function runIncluded(ctx: SerializeContext, run: Run, include: ReadonlySet<string>): ResourceObject[] {
  const out: ResourceObject[] = [];
  const state = ctx.state;
  const plan = state.plans[run.planId];
  const apply = state.applies[run.applyId];
  const user = state.users[run.createdBy];
  const estimate = run.costEstimateId === null ? undefined : state.costEstimates[run.costEstimateId];
  const version = state.configurationVersions[run.configurationVersionId];
  if (include.has("plan") && plan) out.push(serializePhase(ctx, plan, "plans"));
  if (include.has("apply") && apply) out.push(serializePhase(ctx, apply, "applies"));
  if (include.has("created_by") && user) out.push(serializeUser(ctx, user));
  if (include.has("cost_estimate") && estimate) out.push(serializeCostEstimate(ctx, estimate));
  const withIngress = include.has("configuration_version.ingress_attributes");
  if ((include.has("configuration_version") || withIngress) && version) {
    out.push(serializeConfigurationVersion(ctx, version));
    const ingress = version.ingressAttributesId === null ? undefined : state.ingressAttributes[version.ingressAttributesId];
    if (withIngress && ingress) out.push(serializeIngressAttributes(ctx, ingress));
  }
  return out;
}

/**
 * Resources a configuration version includes: its ingress attributes, and its newest run.
 * @example
 * configurationVersionIncluded(out, version, new Set(["ingress_attributes"])) // [ingress attributes] for VCS versions
 */
export function configurationVersionIncluded(ctx: SerializeContext, version: ConfigurationVersion, include: ReadonlySet<string>): ResourceObject[] {
  const out: ResourceObject[] = [];
  const ingress = version.ingressAttributesId === null ? undefined : ctx.state.ingressAttributes[version.ingressAttributesId];
  if (include.has("ingress_attributes") && ingress) out.push(serializeIngressAttributes(ctx, ingress));
  if (include.has("run")) {
    const newest = Object.values(ctx.state.runs)
      .filter((r) => r.configurationVersionId === version.id)
      .sort((a, b) => b.seq - a.seq)[0];
    if (newest) out.push(serializeRun(ctx, newest, { single: false }));
  }
  return out;
}
