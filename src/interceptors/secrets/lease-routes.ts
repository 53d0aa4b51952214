/**
 * `/sys/leases/lookup`, `/sys/leases/renew`, `/sys/leases/revoke`: the lease endpoints real
 * clients call (body `lease_id`; renew and revoke also take it as a path suffix).
 *
 * Brief: "Leases: ... PUT /sys/leases/lookup, /sys/leases/revoke and /sys/leases/renew".
 */
import { parseDuration } from "../../simulator/kernel/duration.js";
import { rfc3339 } from "../../simulator/kernel/time.js";
import { endLease } from "../../simulator/secrets/engine-runtime.js";
import { badRequest } from "../../simulator/secrets/errors.js";
import { findLease, leaseTtlSeconds, renewLease } from "../../simulator/secrets/leases.js";
import type { LeaseRecord } from "../../simulator/secrets/state.js";
import type { CoreRoute, CoreRouteContext } from "./core-route.js";
import type { EngineResult } from "./engine-routes.js";
import { envelope } from "./envelope.js";
import { stringField } from "./request.js";

function leaseIdOf(ctx: CoreRouteContext, operation: string): string {
  const fromPath = ctx.params.lease_id;
  const leaseId = (fromPath !== undefined && fromPath !== "" ? fromPath : stringField(ctx.body, "lease_id") ?? "").trim();
  if (leaseId === "") throw badRequest(operation, "lease_id must be specified");
  return leaseId;
}

function incrementMs(ctx: CoreRouteContext): number | undefined {
  const value = ctx.body.increment;
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value === "number") return value * 1000;
  if (typeof value === "string") {
    try {
      return parseDuration(value, { largestUnit: "h" });
    } catch {
      throw badRequest("renew lease", `error converting input ${JSON.stringify(value)} for field "increment": invalid duration`);
    }
  }
  throw badRequest("renew lease", `error converting input ${JSON.stringify(value)} for field "increment"`);
}

const lookup: CoreRoute = {
  operations: ["create-or-update"],
  path: "/sys/leases/lookup",
  handler: (ctx): EngineResult => {
    const leaseId = leaseIdOf(ctx, "lookup lease");
    return ctx.read((c) => {
      const lease: LeaseRecord = findLease(c.state, leaseId, "lookup lease");
      return {
        kind: "data",
        data: {
          id: lease.id,
          issue_time: rfc3339(lease.issuedAt),
          expire_time: rfc3339(lease.expiresAt),
          last_renewal: lease.lastRenewal === null ? null : rfc3339(lease.lastRenewal),
          renewable: lease.renewable,
          ttl: leaseTtlSeconds(lease, c.now),
        },
      };
    });
  },
};

const renewHandler = (ctx: CoreRouteContext): EngineResult => {
  const leaseId = leaseIdOf(ctx, "renew lease");
  const increment = incrementMs(ctx);
  const { lease, requestId, now } = ctx.update((c) => ({ lease: { ...renewLease(c, leaseId, increment) }, requestId: c.ids.uuid(), now: c.now }));
  return {
    kind: "raw",
    response: envelope(requestId, {
      data: null,
      leaseId: lease.id,
      renewable: lease.renewable,
      leaseDurationSeconds: leaseTtlSeconds(lease, now),
    }),
  };
};

const revokeHandler = (ctx: CoreRouteContext): EngineResult => {
  const leaseId = leaseIdOf(ctx, "revoke lease");
  ctx.update((c) => endLease(c, ctx.engines, leaseId));
  return { kind: "no-content" };
};

/** The lease routes. */
export const LEASE_ROUTES: readonly CoreRoute[] = Object.freeze([
  lookup,
  { operations: ["create-or-update"], path: "/sys/leases/renew", handler: renewHandler },
  { operations: ["create-or-update"], path: "/sys/leases/renew/*lease_id", handler: renewHandler },
  { operations: ["create-or-update"], path: "/sys/leases/revoke", handler: revokeHandler },
  { operations: ["create-or-update"], path: "/sys/leases/revoke/*lease_id", handler: revokeHandler },
]);
