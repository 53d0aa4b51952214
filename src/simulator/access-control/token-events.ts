/**
 * The token lifecycle as traced events (spec: access-control.md "Token endpoints", "Login"; a
 * token whose ExpirationTime passed "is considered revoked"): the universe coverage counts token
 * events against.
 */
import type { Tracer } from "../kernel/trace.js";

/**
 * Every lifecycle event of an access-control token, in lifecycle order:
 * - `created` (`PUT /acl/token`), `cloned` (`.../clone`), `logged-in` (created by `POST /acl/login`);
 * - `used`: a presented SecretID resolved to a live token (any endpoint);
 * - `updated` (`PUT /acl/token/:AccessorID`);
 * - `expired` (revoked at its ExpirationTime), `deleted` (`DELETE /acl/token/:AccessorID`),
 *   `logged-out` (`POST /acl/logout`).
 * Scenario fixtures create tokens without tracing `created`.
 * @example ACL_TOKEN_EVENTS.includes("cloned") // true
 */
export const ACL_TOKEN_EVENTS = Object.freeze(["created", "cloned", "logged-in", "used", "updated", "expired", "deleted", "logged-out"] as const);

/** One {@link ACL_TOKEN_EVENTS} entry. */
export type AclTokenEvent = (typeof ACL_TOKEN_EVENTS)[number];

/** The trace subject of token events. */
export const ACL_TOKEN_SUBJECT = "token";

/**
 * Traces a token lifecycle event.
 * @example traceTokenEvent(ctx, "cloned")
 */
export function traceTokenEvent(ctx: Tracer, name: AclTokenEvent): void {
  ctx.trace({ kind: "event", subject: ACL_TOKEN_SUBJECT, name });
}
