/**
 * Token and lease lifecycles as traced events: the universe coverage counts them against.
 *
 * Spec: secrets.md "Authentication" (how tokens are issued: not shown, so tokens come from
 * fixtures and their events are what requests do with them); the lease envelope fields
 * (`lease_id`, `renewable`, `lease_duration`) and `/sys/leases/renew|revoke`.
 */
import type { Tracer } from "../kernel/trace.js";

/**
 * Every traced event of a secrets token: `used` (a request's token resolved to a live token) and
 * `expired` (a request presented it after its TTL ran out, and was refused).
 * @example SECRETS_TOKEN_EVENTS // ["used", "expired"]
 */
export const SECRETS_TOKEN_EVENTS = Object.freeze(["used", "expired"] as const);

/** One {@link SECRETS_TOKEN_EVENTS} entry. */
export type SecretsTokenEvent = (typeof SECRETS_TOKEN_EVENTS)[number];

/**
 * Every traced event of a lease: `issued` (an engine issued it), `renewed`, `revoked` (by
 * `/sys/leases/revoke`, an engine, a scenario or unmounting), `expired` (its TTL ran out).
 * @example LEASE_EVENTS.includes("renewed") // true
 */
export const LEASE_EVENTS = Object.freeze(["issued", "renewed", "revoked", "expired"] as const);

/** One {@link LEASE_EVENTS} entry. */
export type LeaseEvent = (typeof LEASE_EVENTS)[number];

/**
 * Traces a token event.
 * @example traceSecretsToken(ctx, "used")
 */
export function traceSecretsToken(ctx: Tracer, name: SecretsTokenEvent): void {
  ctx.trace({ kind: "event", subject: "token", name });
}

/**
 * Traces a lease event.
 * @example traceLease(ctx, "renewed")
 */
export function traceLease(ctx: Tracer, name: LeaseEvent): void {
  ctx.trace({ kind: "event", subject: "lease", name });
}
