/**
 * Arbitraries of timelines: what happens around the code under test, as data fast-check prints
 * and shrinks: clock advances, the next run's outcome, and faults (the service's own error
 * answers and connection failures, `doubles.faults`). {@link playStep} applies one step to the
 * doubles; {@link describeTimeline} prints a timeline as a story.
 */
import fc from "fast-check";
import type { Doubles } from "../scenarios/doubles.js";
import type { FaultDefinition } from "../scenarios/faults/fault-definition.js";
import type { OutcomeScript } from "../scenarios/runs/runs-scenario.js";
import { storyDuration } from "./models/common.js";
import { runOutcome } from "./models/runs-model.js";

/** One step of a timeline. */
export type TimelineStep =
  /** Move the clock by `ms`. */
  | { readonly kind: "advance"; readonly ms: number }
  /** Script the next run created on the workspace (see `doubles.runs.nextRun`). */
  | { readonly kind: "outcome"; readonly script: OutcomeScript }
  /** Add a fault (see `doubles.faults.add`). */
  | { readonly kind: "fault"; readonly fault: FaultDefinition };

/** The service's own fault answers, per service (from `FaultDefinition.answer`; health-only answers left out). */
const FAULT_ANSWERS: Readonly<Record<string, readonly string[]>> = {
  runs: ["rate-limited", "internal-error", "bad-gateway", "unavailable"],
  secrets: ["sealed", "internal-error", "rate-limited"],
  accessControl: ["no-cluster-leader", "rate-limited"],
};

/** Options of {@link timeline}. */
export interface TimelineOptions {
  /** Services whose faults may appear (default all three; `[]`: no fault steps). */
  readonly faultServices?: readonly ("runs" | "secrets" | "accessControl")[];
  /** Whether outcome steps appear (default true). */
  readonly outcomes?: boolean;
  /** Longest timeline (default 6 steps). */
  readonly maxSteps?: number;
}

/**
 * Fault definitions: one of a service's own error answers or a connection `reset`/`hang-up`,
 * applied to the next 1 to 3 matching requests (`times`), optionally only after the first one
 * (`after: 1`).
 * @example fc.sample(faultStep("secrets"), 1) // [{ service: "secrets", answer: "sealed", times: 1 }]
 */
export function faultStep(service: "runs" | "secrets" | "accessControl"): fc.Arbitrary<FaultDefinition> {
  const effect = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...(FAULT_ANSWERS[service] ?? [])).map((answer) => ({ answer })) },
    { weight: 1, arbitrary: fc.constantFrom("reset" as const, "hang-up" as const).map((connection) => ({ connection })) },
  );
  return fc.tuple(effect, fc.integer({ min: 1, max: 3 }), fc.boolean()).map(([e, times, late]) => ({ service, ...e, times, ...(late ? { after: 1 } : {}) }));
}

/**
 * Timelines: clock advances (30 s to 2 h), next-run outcomes, and faults.
 * @example
 * fc.assert(fc.asyncProperty(timeline({ faultServices: ["runs"] }), async (steps) => {
 *   for (const step of steps) playStep(doubles, step, { workspaceId });
 *   const outcome = await deploy(target); // your client, facing the timeline
 *   expect(["applied", "failed-clearly"]).toContain(outcome.kind);
 * }));
 */
export function timeline(options: TimelineOptions = {}): fc.Arbitrary<TimelineStep[]> {
  const steps: fc.Arbitrary<TimelineStep>[] = [fc.constantFrom(30_000, 60_000, 5 * 60_000, 10 * 60_000, 3_600_000, 2 * 3_600_000).map((ms) => ({ kind: "advance" as const, ms }))];
  if (options.outcomes !== false) steps.push(runOutcome().map((script) => ({ kind: "outcome" as const, script })));
  const services = options.faultServices ?? ["runs", "secrets", "accessControl"];
  if (services.length > 0) steps.push(fc.constantFrom(...services).chain(faultStep).map((fault) => ({ kind: "fault" as const, fault })));
  return fc.array(fc.oneof(...steps), { maxLength: options.maxSteps ?? 6 });
}

/**
 * Applies one timeline step to the doubles.
 * @param context.workspaceId - the workspace outcome steps script (required when the timeline has outcome steps).
 * @throws {UsageError} from the scenario controls (an unknown workspace, a fault the fault set refuses).
 * @example for (const step of steps) playStep(doubles, step, { workspaceId: ws.id });
 */
export function playStep(doubles: Doubles, step: TimelineStep, context: { readonly workspaceId?: string } = {}): void {
  if (step.kind === "advance") doubles.advance(step.ms);
  else if (step.kind === "outcome") doubles.runs.nextRun(context.workspaceId ?? "", step.script);
  else doubles.faults.add(step.fault);
}

/**
 * A timeline as a story: `advance 10m -> next run: plan errors -> fault runs rate-limited x1`.
 * @example describeTimeline([{ kind: "advance", ms: 600_000 }]) // "advance 10m"
 */
export function describeTimeline(steps: readonly TimelineStep[]): string {
  if (steps.length === 0) return "(nothing happens)";
  return steps
    .map((step) => {
      if (step.kind === "advance") return `advance ${storyDuration(step.ms)}`;
      if (step.kind === "outcome") return `next run: ${Object.entries(step.script).map(([k, v]) => `${k} ${String(v)}`).join(", ")}`;
      const f = step.fault;
      return `fault ${f.service} ${f.answer ?? f.connection ?? "latency"} x${f.times ?? "∞"}${f.after !== undefined ? ` after ${f.after}` : ""}`;
    })
    .join(" -> ");
}
