/**
 * The lease table: leases issued by engines, ending on the simulator clock (a `lease.expire` move
 * at `expiresAt`), by revocation, or renewed within the maximum TTL.
 *
 * Spec: secrets.md "Resources and their fields" (envelope `lease_id`, `renewable`,
 * `lease_duration`); brief: `/sys/leases/lookup`, `/sys/leases/revoke`, `/sys/leases/renew`.
 */
import type { OperationContext } from "../kernel/simulator.js";
import type { Lease } from "./engine.js";
import { badRequest } from "./errors.js";
import type { LeaseRecord, MountRecord, SecretsState } from "./state.js";
import { traceLease } from "./lifecycle-events.js";

/** The simulator move that ends a lease. */
export const LEASE_EXPIRE_MOVE = "lease.expire";

/**
 * The system maximum lease TTL (the real service's default `max_lease_ttl`, 768h), in ms.
 * Leases never outlive it; SSH CA roles without `max_ttl` use it.
 * @example SYSTEM_MAX_LEASE_TTL_MS / 3_600_000 // 768
 */
export const SYSTEM_MAX_LEASE_TTL_MS = 768 * 3_600_000;

/**
 * The system default lease TTL (768h), in ms: OTP leases and SSH certificates without a ttl use it.
 * @example SYSTEM_DEFAULT_LEASE_TTL_MS / 1000 // 2764800 (the lease_duration of an OTP)
 */
export const SYSTEM_DEFAULT_LEASE_TTL_MS = SYSTEM_MAX_LEASE_TTL_MS;

/** A mount's lease TTLs as its engine and its leases see them, ms. */
export interface MountLeaseTtls {
  /** The tuned default, else the system default. */
  readonly defaultMs: number;
  /** The tuned maximum, else the system maximum. */
  readonly maxMs: number;
}

/**
 * The lease TTLs in force on `mount` (the real service's per-mount system view): its tuned
 * `default_lease_ttl` and `max_lease_ttl`, each falling back to the system's (768h). What
 * `sys/mounts/:path/tune` reads back.
 * @example mountLeaseTtls({ ...mount, defaultLeaseTtlMs: 3_600_000 }) // { defaultMs: 3_600_000, maxMs: 2_764_800_000 }
 */
export function mountLeaseTtls(mount: Pick<MountRecord, "defaultLeaseTtlMs" | "maxLeaseTtlMs">): MountLeaseTtls {
  const tunedDefault = mount.defaultLeaseTtlMs ?? 0;
  const tunedMax = mount.maxLeaseTtlMs ?? 0;
  return { defaultMs: tunedDefault > 0 ? tunedDefault : SYSTEM_DEFAULT_LEASE_TTL_MS, maxMs: tunedMax > 0 ? tunedMax : SYSTEM_MAX_LEASE_TTL_MS };
}

/** What an engine asks for when it issues a lease. */
export interface LeaseRequest {
  readonly idPath: string;
  readonly kind: string;
  readonly ref: string;
  /**
   * ms; 0 = the mount's default lease TTL (its tuned `default_lease_ttl`, else the system's), as
   * the real service applies to a secret issued without a TTL. Clamped to the mount's maximum.
   */
  readonly ttlMs: number;
  readonly renewable?: boolean;
  /** ms from issue that renewals may not pass; clamped to the mount's maximum (the default). */
  readonly maxTtlMs?: number;
}

/**
 * Adds a lease for `mount` and schedules its end. Its TTL is the engine's (or, when 0, the mount's
 * default lease TTL), capped by the engine's maximum, the mount's tuned `max_lease_ttl` and the
 * system maximum (768h): a tuned mount's new leases carry the tuned TTLs.
 * @returns the lease (id `<mount>/<idPath>/<24 base62 characters>`).
 * @example addLease(ctx, mount, { idPath: "creds/otp-role", kind: "otp", ref: otp, ttlMs: 0 }) // the mount's default TTL
 */
export function addLease(ctx: OperationContext<SecretsState>, mount: MountRecord, input: LeaseRequest): LeaseRecord {
  const idPath = input.idPath.replace(/^\/+|\/+$/g, "");
  const id = `${mount.path}/${idPath ? `${idPath}/` : ""}${ctx.ids.named("lease", 24)}`;
  const mountTtls = mountLeaseTtls(mount);
  const mountMax = Math.min(mountTtls.maxMs, SYSTEM_MAX_LEASE_TTL_MS);
  const maxTtl = Math.max(0, Math.min(input.maxTtlMs ?? mountMax, mountMax));
  const ttl = Math.max(0, Math.min(input.ttlMs > 0 ? input.ttlMs : mountTtls.defaultMs, maxTtl));
  const expiresAt = ctx.now + ttl;
  const record: LeaseRecord = {
    id,
    mount: mount.path,
    mountUuid: mount.uuid,
    kind: input.kind,
    ref: input.ref,
    issuedAt: ctx.now,
    expiresAt,
    lastRenewal: null,
    renewable: input.renewable ?? false,
    maxExpiresAt: ctx.now + maxTtl,
    moveId: ctx.schedule(expiresAt, LEASE_EXPIRE_MOVE, id),
  };
  ctx.state.leases[id] = record;
  traceLease(ctx, "issued");
  return record;
}

/** Removes a lease from the table and cancels its expiry; returns it, or undefined when unknown. */
export function dropLease(ctx: OperationContext<SecretsState>, leaseId: string): LeaseRecord | undefined {
  const record = ctx.state.leases[leaseId];
  if (record === undefined) return undefined;
  ctx.cancel(record.moveId);
  delete ctx.state.leases[leaseId];
  return record;
}

/** The engine contract's view of a lease record. */
export function toLease(record: LeaseRecord): Lease {
  return {
    id: record.id,
    mount: record.mount,
    kind: record.kind,
    ref: record.ref,
    issuedAt: record.issuedAt,
    expiresAt: record.expiresAt,
    renewable: record.renewable,
  };
}

/** A live lease, or a 400 `invalid lease` (the real lookup's answer for an unknown id). */
export function findLease(state: SecretsState, leaseId: string, operation: string, message = "invalid lease"): LeaseRecord {
  const record = state.leases[leaseId];
  if (record === undefined) throw badRequest(operation, message);
  return record;
}

/** Remaining whole seconds of a lease at `now` (never negative). */
export function leaseTtlSeconds(record: LeaseRecord, now: number): number {
  return Math.max(0, Math.floor((record.expiresAt - now) / 1000));
}

/**
 * Renews a renewable lease: it now ends `incrementMs` from now (default: its original duration),
 * capped at its maximum TTL (the engine's, e.g. the cloud engine's `lease_max`, or the system
 * maximum) counted from issue.
 * @throws {DomainError} 400 `lease not found` / `lease is not renewable`.
 */
export function renewLease(ctx: OperationContext<SecretsState>, leaseId: string, incrementMs: number | undefined): LeaseRecord {
  const record = findLease(ctx.state, leaseId, "renew lease", "lease not found");
  if (!record.renewable) throw badRequest("renew lease", "lease is not renewable");
  const original = record.expiresAt - (record.lastRenewal ?? record.issuedAt);
  const wanted = incrementMs === undefined || incrementMs <= 0 ? original : incrementMs;
  const cap = record.maxExpiresAt ?? record.issuedAt + SYSTEM_MAX_LEASE_TTL_MS;
  record.expiresAt = Math.min(ctx.now + wanted, cap);
  record.lastRenewal = ctx.now;
  ctx.cancel(record.moveId);
  record.moveId = ctx.schedule(record.expiresAt, LEASE_EXPIRE_MOVE, record.id);
  traceLease(ctx, "renewed");
  return record;
}
