/**
 * Durations and limits as data: each service definition names the values its rules run on (a
 * cool-off, a TTL, a phase duration, a maximum) in a limits table, and reads each one through
 * {@link limitValue}, which answers the table's value, or the scaled one a service mutant's
 * simulator carries (see mutation.ts). Service code never knows a mutant exists.
 */

/** The unit of a {@link ServiceLimit}'s value. */
export type LimitUnit = "ms" | "s" | "count";

/**
 * One named duration or limit of a service (a row of its definition's `limits` table).
 * @example
 * const coolOff: ServiceLimit = { name: "force-cancel-cool-off", unit: "ms", value: 10_000, description: "the force-cancel cool-off", readAt: "POST /runs/:run_id/actions/force-cancel" };
 */
export interface ServiceLimit {
  /** Stable name (kebab-case), used in mutant ids, e.g. `force-cancel-cool-off`. */
  readonly name: string;
  /** `ms` or `s`: a duration; `count`: a limit (a size, a maximum). */
  readonly unit: LimitUnit;
  /** The faithful value, in `unit`. */
  readonly value: number;
  /** What the value is, in words that read after "the ...", e.g. `the force-cancel cool-off`. */
  readonly description: string;
  /** Where the service reads it (a route as the spec writes it, or a rule's name), for reports. */
  readonly readAt: string;
  /** The spec section or FIDELITY.md line that gives the value. */
  readonly source?: string;
}

/**
 * Kernel-private: the key under which a simulator context (and the context `initialState` gets)
 * carries the scaled values of a mutant's limits, by limit name. Service code never reads it:
 * {@link limitValue} does.
 */
export const LIMIT_VALUES: unique symbol = Symbol("infra-doubles.limit-values");

/** A context that may carry scaled limits (see {@link LIMIT_VALUES}). */
type LimitCarrier = { readonly [LIMIT_VALUES]?: Readonly<Record<string, number>> };

/**
 * The value of `limit` for the simulator `ctx` belongs to: the table's value, or the scaled one
 * of a mutant's simulator. `ctx` is any simulator context (an operation's, a move's, or the one
 * `initialState` gets).
 * @example run.forceCancelAvailableAt = ctx.now + limitValue(ctx, RUNS_LIMITS.coolOff)
 */
export function limitValue(ctx: object, limit: ServiceLimit): number {
  const values = (ctx as LimitCarrier)[LIMIT_VALUES];
  if (values === undefined) return limit.value;
  return values[limit.name] ?? limit.value;
}

/**
 * `value` scaled by `factor`, kept a whole number (a count stays at least 1, a duration at least
 * 1 of its unit).
 * @example scaleLimit({ unit: "ms", value: 10_000 } as ServiceLimit, 0.5) // 5_000
 */
export function scaleLimit(limit: ServiceLimit, factor: number): number {
  return Math.max(1, Math.round(limit.value * factor));
}

/**
 * The limit named `name` in `limits`, or undefined.
 * @example findLimit(runsDefinition.limits, "force-cancel-cool-off")?.value // 10_000
 */
export function findLimit(limits: readonly ServiceLimit[] | undefined, name: string): ServiceLimit | undefined {
  return limits?.find((limit) => limit.name === name);
}
