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
