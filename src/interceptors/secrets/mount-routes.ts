/**
 * `/sys/mounts` (list), `/sys/mounts/:path` (enable with `type`, `description`,
 * `config.allowed_managed_keys`; disable) and `/sys/mounts/:path/tune` (read and set
 * `allowed_managed_keys`). Not in the spec, but real clients mount and tune engines this way; it
 * also makes a mount's `allowed_managed_keys` visible over HTTP. Enabling and disabling need
 * `sudo`, as in the real service.
 */
import { DomainError } from "../../simulator/kernel/errors.js";
import { badRequest } from "../../simulator/secrets/errors.js";
import { SYSTEM_DEFAULT_LEASE_TTL_MS, SYSTEM_MAX_LEASE_TTL_MS } from "../../simulator/secrets/leases.js";
import { mountEngine, normalizeMountPath, setAllowedManagedKeys, unmountEngine } from "../../simulator/secrets/mounts.js";
import type { MountRecord } from "../../simulator/secrets/state.js";
import type { CoreRoute, CoreRouteContext } from "./core-route.js";
import type { EngineResult } from "./engine-routes.js";
import { stringField, stringListField } from "./request.js";

function mountView(mount: MountRecord): Record<string, unknown> {
  return {
    accessor: mount.accessor,
    config: {
      default_lease_ttl: 0,
      force_no_cache: false,
      max_lease_ttl: 0,
      ...(mount.allowedManagedKeys.length > 0 ? { allowed_managed_keys: [...mount.allowedManagedKeys] } : {}),
    },
    description: mount.description,
    external_entropy_access: false,
    local: false,
    options: null,
    seal_wrap: false,
    type: mount.type,
    uuid: mount.uuid,
  };
}

function tuneView(mount: MountRecord): Record<string, unknown> {
  return {
    default_lease_ttl: SYSTEM_DEFAULT_LEASE_TTL_MS / 1000,
    description: mount.description,
    force_no_cache: false,
    max_lease_ttl: SYSTEM_MAX_LEASE_TTL_MS / 1000,
    ...(mount.allowedManagedKeys.length > 0 ? { allowed_managed_keys: [...mount.allowedManagedKeys] } : {}),
  };
}

/** In a namespace, mounts live under the namespace's path. */
function fullPath(ctx: CoreRouteContext, path: string): string {
  return normalizeMountPath(`${ctx.namespace}${path}`);
}

function mountOf(ctx: CoreRouteContext, path: string): MountRecord {
  const full = fullPath(ctx, path);
  const mount = ctx.read((c) => c.state.mounts[full]);
  if (mount === undefined) throw badRequest("read mount", `cannot fetch sysview for path "${normalizeMountPath(path)}/"`);
  return structuredClone(mount);
}

function config(ctx: CoreRouteContext): Record<string, unknown> {
  const value = ctx.body.config;
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) throw badRequest("enable mount", `error converting input ${JSON.stringify(value)} for field "config"`);
  return value as Record<string, unknown>;
}

/** Whether a `sys/mounts/*path` request is a tune of the mount (`<mount>/tune`), not a mount at a path ending in "tune". */
function isTune(raw: string): boolean {
  return raw.endsWith("/tune") || raw === "tune";
}

function mountOrTune(ctx: CoreRouteContext): EngineResult {
  const raw = ctx.params.path ?? "";
  if (isTune(raw)) {
    const path = raw.slice(0, -"tune".length);
    if (ctx.operation === "read") return { kind: "data", data: tuneView(mountOf(ctx, path)) };
    if (ctx.operation !== "create-or-update") throw new DomainError({ code: "unsupported", service: "secrets", operation: "tune mount", message: "1 error occurred:\n\t* unsupported operation\n\n", status: 405 });
    const keys = stringListField(ctx.body, "allowed_managed_keys");
    const full = fullPath(ctx, path);
    mountOf(ctx, path);
    if (keys !== undefined) ctx.update((c) => setAllowedManagedKeys(c, full, keys));
    return { kind: "no-content" };
  }
  if (ctx.operation === "read") return { kind: "data", data: mountView(mountOf(ctx, raw)) };
  if (ctx.operation === "delete") {
    const full = fullPath(ctx, raw);
    const exists = ctx.read((c) => c.state.mounts[full] !== undefined);
    if (exists) ctx.update((c) => unmountEngine(c, ctx.engines, full));
    return { kind: "no-content" };
  }
  const type = stringField(ctx.body, "type") ?? "";
  if (type === "") throw badRequest("enable mount", "type must be specified");
  const allowed = stringListField(config(ctx), "allowed_managed_keys") ?? [];
  const description = stringField(ctx.body, "description") ?? "";
  ctx.update((c) => mountEngine(c, ctx.engines, { path: fullPath(ctx, raw), type, description, allowedManagedKeys: allowed }));
  return { kind: "no-content" };
}

/** The mount routes. */
export const MOUNT_ROUTES: readonly CoreRoute[] = Object.freeze([
  {
    operations: ["read"],
    path: "/sys/mounts",
    handler: (ctx) =>
      ctx.read((c) => {
        const data: Record<string, unknown> = {};
        for (const mount of Object.values(c.state.mounts).sort((a, b) => a.path.localeCompare(b.path))) {
          if (!mount.path.startsWith(ctx.namespace)) continue;
          data[`${mount.path.slice(ctx.namespace.length)}/`] = mountView(mount);
        }
        return { kind: "data", data };
      }),
  },
  {
    operations: ["read", "create-or-update", "delete"],
    path: "/sys/mounts/*path",
    capabilities: (ctx) => {
      const tune = isTune(ctx.params.path ?? "");
      if (ctx.operation === "read") return ["read"];
      if (tune) return ["update"];
      return ctx.operation === "delete" ? ["delete", "sudo"] : ["update", "sudo"];
    },
    handler: mountOrTune,
  },
]);
