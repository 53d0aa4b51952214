/**
 * The core side of the engine contract: builds an {@link EngineContext} over a mount inside a
 * secrets-service operation, ends leases (calling the engine's `onLeaseEnd`), and runs engine moves.
 *
 * Spec: secrets.md "Endpoints" (engines at their mount paths); brief: leases end on the simulator clock.
 */
import { limitValue } from "../kernel/limits.js";
import { UsageError } from "../kernel/errors.js";
import type { MovePayload } from "../kernel/scheduler.js";
import type { OperationContext, ReadContext } from "../kernel/simulator.js";
import type { Caller, EngineContext } from "./engine.js";
import type { EngineRegistry } from "./engines.js";
import { missing } from "./errors.js";
import { SYSTEM_MAX_LEASE_TTL_MS, addLease, dropLease, mountLeaseTtls, toLease } from "./leases.js";
import type { MountRecord, SecretsState } from "./state.js";
import { traceLease } from "./lifecycle-events.js";

/** The simulator move that runs an engine's own timed move. */
export const ENGINE_MOVE = "engine.move";

/** The mount at `path`, or a 404. */
export function mountAt(state: SecretsState, path: string): MountRecord {
  const mount = state.mounts[path];
  if (mount === undefined) throw missing("find mount", path);
  return mount;
}

/**
 * An engine context over the mount at `mountPath`, valid inside the current operation.
 * @throws {DomainError} 404 when nothing is mounted there.
 */
export function engineContext<M>(
  ctx: OperationContext<SecretsState>,
  engines: EngineRegistry,
  mountPath: string,
  caller: Caller | undefined,
): EngineContext<M> {
  const mount = mountAt(ctx.state, mountPath);
  return {
    now: ctx.now,
    ids: ctx.ids,
    mountPath: mount.path,
    mount: mount.engineState as M,
    caller,
    allowedManagedKeys: [...mount.allowedManagedKeys],
    leaseTtls: leaseTtlsOf(mount),
    limit: (limit) => limitValue(ctx, limit),
    issueLease: (input) => toLease(addLease(ctx, mount, input)),
    revokeLease: (leaseId) => endLease(ctx, engines, leaseId),
    schedule: (at, kind, payload = null) =>
      ctx.schedule(at, ENGINE_MOVE, { mount: mount.path, mountUuid: mount.uuid, kind, payload }),
    cancel: (moveId) => ctx.cancel(moveId),
  };
}

/**
 * A read-only engine context (for GET handlers): reading state works; issuing, scheduling and
 * drawing ids throw a {@link UsageError} (use `update` for those).
 */
export function engineReadContext<M>(ctx: ReadContext<SecretsState>, mountPath: string, caller: Caller | undefined): EngineContext<M> {
  const mount = mountAt(ctx.state as SecretsState, mountPath);
  const readOnly = (what: string): never => {
    throw new UsageError(`secrets engine at "${mount.path}": ${what} is not allowed in read(); use update()`);
  };
  return {
    now: ctx.now,
    get ids() {
      return readOnly("drawing ids");
    },
    mountPath: mount.path,
    mount: mount.engineState as M,
    caller,
    allowedManagedKeys: [...mount.allowedManagedKeys],
    leaseTtls: leaseTtlsOf(mount),
    limit: (limit) => limitValue(ctx, limit),
    issueLease: () => readOnly("issuing a lease"),
    revokeLease: () => readOnly("revoking a lease"),
    schedule: () => readOnly("scheduling a move"),
    cancel: () => readOnly("cancelling a move"),
  };
}

/** The mount's lease TTLs as its engine sees them: the maximum bounded by the system's. */
function leaseTtlsOf(mount: MountRecord): { defaultMs: number; maxMs: number } {
  const ttls = mountLeaseTtls(mount);
  const maxMs = Math.min(ttls.maxMs, SYSTEM_MAX_LEASE_TTL_MS);
  return { defaultMs: Math.min(ttls.defaultMs, maxMs), maxMs };
}

/**
 * Ends a lease now: removes it, cancels its expiry and lets the owning engine drop what dies with
 * it (when the mount still exists). Returns whether the lease existed.
 * @param end - how it ends, for the trace: `revoked` (default) or `expired` (the expiry move).
 */
export function endLease(ctx: OperationContext<SecretsState>, engines: EngineRegistry, leaseId: string, end: "revoked" | "expired" = "revoked"): boolean {
  const record = dropLease(ctx, leaseId);
  if (record === undefined) return false;
  traceLease(ctx, end);
  const mount = ctx.state.mounts[record.mount];
  if (mount === undefined || mount.uuid !== record.mountUuid) return true;
  const engine = engines[mount.type];
  engine?.onLeaseEnd?.(engineContext(ctx, engines, mount.path, undefined), toLease(record));
  return true;
}

/** Runs a scheduled engine move; a move of a mount that is gone (or was remounted) does nothing. */
export function runEngineMove(ctx: OperationContext<SecretsState>, engines: EngineRegistry, payload: MovePayload): void {
  if (payload === null || typeof payload !== "object" || Array.isArray(payload)) return;
  const { mount: path, mountUuid, kind, payload: inner } = payload as Record<string, MovePayload>;
  const mount = typeof path === "string" ? ctx.state.mounts[path] : undefined;
  if (mount === undefined || mount.uuid !== mountUuid || typeof kind !== "string") return;
  const handler = engines[mount.type]?.moves?.[kind];
  if (handler === undefined) throw new UsageError(`secrets engine "${mount.type}" has no move "${kind}"`);
  handler(engineContext(ctx, engines, mount.path, undefined), inner ?? null);
}
