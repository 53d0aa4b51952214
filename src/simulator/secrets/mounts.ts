/**
 * Mounts: secrets engines at paths (`ssh`, `cloud` by default; anywhere a scenario puts them), each
 * with its engine state and its `allowed_managed_keys`.
 *
 * Spec: secrets.md introduction ("engines can be mounted elsewhere"), "Managed keys" (delete is
 * refused while a mount lists the key).
 */
import type { OperationContext } from "../kernel/simulator.js";
import type { EngineRegistry } from "./engines.js";
import { endLease } from "./engine-runtime.js";
import { badRequest } from "./errors.js";
import { SYSTEM_MAX_LEASE_TTL_MS } from "./leases.js";
import type { MountRecord, SecretsState } from "./state.js";

/** Top-level paths the service keeps for itself. */
export const RESERVED_MOUNT_PREFIXES: readonly string[] = Object.freeze(["sys", "identity", "auth", "cubbyhole"]);

/** What a new mount needs. */
export interface MountInput {
  /** e.g. `ssh`, `ssh-prod`, `team-a/ssh`; leading and trailing slashes are ignored. */
  readonly path: string;
  /** A registered engine type (`ssh`, `cloud`). */
  readonly type: string;
  readonly description?: string;
  readonly allowedManagedKeys?: readonly string[];
  /** `config.default_lease_ttl`, ms; 0 or absent = the system default. */
  readonly defaultLeaseTtlMs?: number;
  /** `config.max_lease_ttl`, ms; 0 or absent = the system maximum. */
  readonly maxLeaseTtlMs?: number;
}

/** A mount path without leading or trailing slashes. */
export function normalizeMountPath(path: string): string {
  return path.replace(/^\/+|\/+$/g, "");
}

/**
 * Mounts an engine.
 * @throws {DomainError} 400 for an unknown type, a reserved path or a path in use (the real
 * service's `path is already in use at <path>/`).
 */
export function mountEngine(ctx: OperationContext<SecretsState>, engines: EngineRegistry, input: MountInput): MountRecord {
  const operation = "mount engine";
  const path = normalizeMountPath(input.path);
  if (path === "" || path.split("/").some((segment) => segment === "" || segment === "." || segment === "..")) {
    throw badRequest(operation, `invalid mount path "${input.path}"`);
  }
  const first = path.split("/")[0] ?? "";
  if (RESERVED_MOUNT_PREFIXES.includes(first)) throw badRequest(operation, `cannot mount under ${first}/`);
  const engine = engines[input.type];
  if (engine === undefined) throw badRequest(operation, `plugin not found in the catalog: ${input.type}`);
  const defaultMs = input.defaultLeaseTtlMs ?? 0;
  const maxMs = input.maxLeaseTtlMs ?? 0;
  // The real service's checks and wording when enabling with `config` TTLs.
  if (maxMs !== 0 && defaultMs > maxMs) throw badRequest(operation, "given default lease TTL greater than given max lease TTL");
  if (maxMs === 0 && defaultMs > SYSTEM_MAX_LEASE_TTL_MS) {
    throw badRequest(operation, `given default lease TTL greater than system max lease TTL of ${SYSTEM_MAX_LEASE_TTL_MS / 1000}`);
  }
  for (const existing of Object.keys(ctx.state.mounts)) {
    if (existing === path || existing.startsWith(`${path}/`) || path.startsWith(`${existing}/`)) {
      throw badRequest(operation, `path is already in use at ${existing}/`);
    }
  }
  const record: MountRecord = {
    path,
    type: input.type,
    uuid: ctx.ids.uuid(),
    accessor: `${input.type}_${ctx.ids.hex(8)}`,
    description: input.description ?? "",
    allowedManagedKeys: [...(input.allowedManagedKeys ?? [])],
    ...(defaultMs !== 0 ? { defaultLeaseTtlMs: defaultMs } : {}),
    ...(maxMs !== 0 ? { maxLeaseTtlMs: maxMs } : {}),
    engineState: engine.initialMountState(),
  };
  ctx.state.mounts[path] = record;
  return record;
}

/**
 * Unmounts: revokes every lease of the mount (the engine drops what dies with them), then forgets
 * the mount and its state.
 * @throws {DomainError} 400 when nothing is mounted there (`no matching mount at '<path>/'`).
 */
export function unmountEngine(ctx: OperationContext<SecretsState>, engines: EngineRegistry, path: string): void {
  const normalized = normalizeMountPath(path);
  const mount = ctx.state.mounts[normalized];
  if (mount === undefined) throw badRequest("unmount engine", `no matching mount at '${normalized}/'`);
  for (const lease of Object.values(ctx.state.leases)) {
    if (lease.mount === normalized && lease.mountUuid === mount.uuid) endLease(ctx, engines, lease.id);
  }
  delete ctx.state.mounts[normalized];
}

/** Sets the managed keys a mount may use. */
export function setAllowedManagedKeys(ctx: OperationContext<SecretsState>, path: string, keys: readonly string[]): void {
  const normalized = normalizeMountPath(path);
  const mount = ctx.state.mounts[normalized];
  if (mount === undefined) throw badRequest("tune mount", `no matching mount at '${normalized}/'`);
  mount.allowedManagedKeys = [...new Set(keys.map((k) => k.trim()).filter((k) => k !== ""))];
}

/** What a tune of a mount's TTLs sets: ms, 0 = back to the system value, absent = unchanged. */
export interface MountTtlTune {
  readonly defaultLeaseTtlMs?: number;
  readonly maxLeaseTtlMs?: number;
}

/**
 * Tunes a mount's `default_lease_ttl` and `max_lease_ttl` (leases issued later use them; leases
 * already issued keep theirs, as in the real service).
 * @throws {DomainError} 400 with the real service's wording when the default would pass the max
 * (`backend max lease TTL of <s> would be less than backend default lease TTL of <s>`), or, with no
 * max of its own, the system max (`new backend default lease TTL of <s> greater than system max
 * lease TTL of 2764800`); 400 `no matching mount` when nothing is mounted at `path`.
 * @example tuneMountTtls(ctx, "ssh", { defaultLeaseTtlMs: 3_600_000 })
 */
export function tuneMountTtls(ctx: OperationContext<SecretsState>, path: string, tune: MountTtlTune): void {
  const operation = "tune mount";
  const normalized = normalizeMountPath(path);
  const mount = ctx.state.mounts[normalized];
  if (mount === undefined) throw badRequest(operation, `no matching mount at '${normalized}/'`);
  const newDefault = tune.defaultLeaseTtlMs ?? mount.defaultLeaseTtlMs ?? 0;
  const newMax = tune.maxLeaseTtlMs ?? mount.maxLeaseTtlMs ?? 0;
  if (newDefault !== 0 && newMax === 0 && newDefault > SYSTEM_MAX_LEASE_TTL_MS) {
    throw badRequest(operation, `new backend default lease TTL of ${Math.floor(newDefault / 1000)} greater than system max lease TTL of ${SYSTEM_MAX_LEASE_TTL_MS / 1000}`);
  }
  if (newDefault !== 0 && newMax !== 0 && newMax < newDefault) {
    throw badRequest(operation, `backend max lease TTL of ${Math.floor(newMax / 1000)} would be less than backend default lease TTL of ${Math.floor(newDefault / 1000)}`);
  }
  if (newDefault === 0) delete mount.defaultLeaseTtlMs;
  else mount.defaultLeaseTtlMs = newDefault;
  if (newMax === 0) delete mount.maxLeaseTtlMs;
  else mount.maxLeaseTtlMs = newMax;
}

/**
 * The mount owning `path` (relative to the API base): the longest mount path that is the whole
 * path or a prefix of it at a segment boundary. Returns the mount and the rest (`/roles/x`, or `/`).
 */
export function findMount(state: SecretsState, path: string): { mount: MountRecord; rest: string } | undefined {
  const relative = path.replace(/^\/+/, "");
  let best: MountRecord | undefined;
  for (const mount of Object.values(state.mounts)) {
    if (relative === mount.path || relative.startsWith(`${mount.path}/`)) {
      if (best === undefined || mount.path.length > best.path.length) best = mount;
    }
  }
  if (best === undefined) return undefined;
  const rest = relative.slice(best.path.length);
  return { mount: best, rest: rest === "" ? "/" : rest };
}
