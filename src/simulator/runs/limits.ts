/**
 * The run orchestration service's durations and limits as data (its definition's `limits` table)
 * and its id kinds (its `idKinds` table): what service mutants scale and redraw. The service reads
 * each value through `limitValue` when it builds its settings (docs/decisions/mutants.md).
 */
import type { IdKind } from "../kernel/ids.js";
import { limitValue, type ServiceLimit } from "../kernel/limits.js";
import { DEFAULT_DURATIONS, DEFAULT_OUTCOME, mergeOutcome, type PhaseDurations, type RunOutcome } from "./outcomes.js";

/**
 * The phases whose default durations are limits, with the words a report uses and where they are
 * read (a route, or the timed progression: any request may see it, so a mutant reaches the service).
 */
const PHASES: readonly (readonly [keyof PhaseDurations, string, string, string])[] = [
  ["queue", "queue", "the time a run waits `pending` before it starts", "run progression"],
  ["fetch", "fetch", "the time a run spends `fetching`", "run progression"],
  ["planQueue", "plan-queue", "the time a run waits `plan_queued`", "run progression"],
  ["plan", "plan", "the plan duration (`planning`)", "run progression"],
  ["costEstimate", "cost-estimate", "the cost estimate duration (`cost_estimating`)", "run progression"],
  ["policyCheck", "policy-check", "the policy check duration (`policy_checking`)", "run progression"],
  ["applyQueue", "apply-queue", "the time a run waits `apply_queued`", "run progression"],
  ["apply", "apply", "the apply duration (`applying`)", "run progression"],
  ["cancel", "cancel", "the time a canceled process takes to stop", "POST /runs/:run_id/actions/cancel"],
  ["vcsFetch", "vcs-fetch", "the time a VCS-created configuration version spends `fetching`", "VCS fetch"],
];

/**
 * The runs service's named limits: the force-cancel cool-off, the download link lifetime, and the
 * default duration of each timed phase (DEFAULT_DURATIONS).
 * @example RUNS_LIMITS.coolOff.value // 10_000 (ms)
 */
export const RUNS_LIMITS = Object.freeze({
  coolOff: Object.freeze({
    name: "force-cancel-cool-off",
    unit: "ms",
    value: 10_000,
    description: "the force-cancel cool-off",
    readAt: "POST /runs/:run_id/actions/force-cancel",
    source: "FIDELITY.md (force-cancel is available 10 s after a cancel)",
  } satisfies ServiceLimit),
  downloadLinkTtl: Object.freeze({
    name: "download-link-ttl",
    unit: "ms",
    value: 300_000,
    description: "the lifetime of a configuration download URL",
    readAt: "GET /configuration-versions/:id/download",
    source: "docs/decisions/runs.md (download URLs)",
  } satisfies ServiceLimit),
  pageSize: Object.freeze({
    name: "page-size",
    unit: "count",
    value: 20,
    description: "the default page size of a paginated list",
    readAt: "every paginated list (runs, configuration versions, workspaces, engine versions)",
    source: "run-orchestration.md, Pagination (page[size] defaults to 20)",
  } satisfies ServiceLimit),
  maxPageSize: Object.freeze({
    name: "max-page-size",
    unit: "count",
    value: 100,
    description: "the largest page size a paginated list answers (larger page[size] values are clamped)",
    readAt: "every paginated list (runs, configuration versions, workspaces, engine versions)",
    source: "FIDELITY.md (page[size] is clamped to 100)",
  } satisfies ServiceLimit),
  phases: Object.freeze(
    Object.fromEntries(
      PHASES.map(([phase, name, description, readAt]) => [
        phase,
        Object.freeze({ name: `${name}-duration`, unit: "ms", value: DEFAULT_DURATIONS[phase], description, readAt, source: "src/simulator/runs/outcomes.ts DEFAULT_DURATIONS" } satisfies ServiceLimit),
      ]),
    ) as Readonly<Partial<Record<keyof PhaseDurations, ServiceLimit>>>,
  ),
});

/**
 * Every row of {@link RUNS_LIMITS}, in table order (the definition's `limits`).
 * @example RUNS_LIMIT_TABLE.map((limit) => limit.name)[0] // "force-cancel-cool-off"
 */
export const RUNS_LIMIT_TABLE: readonly ServiceLimit[] = Object.freeze([
  RUNS_LIMITS.coolOff,
  RUNS_LIMITS.downloadLinkTtl,
  ...(Object.values(RUNS_LIMITS.phases) as ServiceLimit[]),
  RUNS_LIMITS.pageSize,
  RUNS_LIMITS.maxPageSize,
]);

/** The page sizes of a paginated list: the default `page[size]` and the largest answered. */
export interface PageSizes {
  readonly size: number;
  readonly max: number;
}

/**
 * The page sizes of the runs service's lists for the simulator `ctx` belongs to (a read context
 * of a route): the limits table's, or a mutant's scaled ones.
 * @example pageSizes(readCtx) // { size: 20, max: 100 }
 */
export function pageSizes(ctx: object): PageSizes {
  return { size: limitValue(ctx, RUNS_LIMITS.pageSize), max: limitValue(ctx, RUNS_LIMITS.maxPageSize) };
}

/**
 * The default outcome with each phase duration read through {@link limitValue} (the frozen
 * DEFAULT_OUTCOME itself when none is scaled).
 * @example defaultOutcome({}) === DEFAULT_OUTCOME // true
 */
export function defaultOutcome(ctx: object): RunOutcome {
  const durations: Partial<Record<keyof PhaseDurations, number>> = {};
  let scaled = false;
  for (const [phase, limit] of Object.entries(RUNS_LIMITS.phases) as [keyof PhaseDurations, ServiceLimit][]) {
    const value = limitValue(ctx, limit);
    if (value !== limit.value) {
      durations[phase] = value;
      scaled = true;
    }
  }
  return scaled ? mergeOutcome(DEFAULT_OUTCOME, { durations }) : DEFAULT_OUTCOME;
}

/** The runs spec's id kinds: it fixes each prefix and leaves the rest open (the real service draws 16 base62 characters). */
const PREFIXES: readonly (readonly [string, string])[] = [
  ["configuration-version", "cv-"],
  ["ingress-attributes", "ia-"],
  ["run", "run-"],
  ["engine-version", "tool-"],
  ["user", "user-"],
];

/**
 * The runs service's id kinds (its definition's `idKinds`): the ids whose prefix the spec fixes
 * (run-orchestration.md: "id prefix `run-`", ...); each may be drawn with a 24-character suffix.
 * @example RUNS_ID_KINDS.find((k) => k.kind === "run")?.key // "run-"
 */
export const RUNS_ID_KINDS: readonly IdKind[] = Object.freeze(
  PREFIXES.map(([kind, prefix]) =>
    Object.freeze({
      kind,
      key: prefix,
      length: 16,
      spec: `the prefix \`${prefix}\` (run-orchestration.md)`,
      formats: Object.freeze([Object.freeze({ name: "suffix-24", length: 24 })]),
    }),
  ),
);
