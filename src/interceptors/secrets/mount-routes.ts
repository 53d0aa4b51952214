/**
 * `/sys/mounts` (list), `/sys/mounts/:path` (enable with `type`, `description`,
 * `config.allowed_managed_keys`, `config.default_lease_ttl`, `config.max_lease_ttl`; disable) and
 * `/sys/mounts/:path/tune` (read and set `allowed_managed_keys`, `default_lease_ttl`,
 * `max_lease_ttl`). Not in the spec, but real clients mount and tune engines this way; it also
 * makes a mount's `allowed_managed_keys` visible over HTTP. Enabling and disabling need `sudo`, as
 * in the real service. Tuned TTLs apply to the mount's new leases (spec: SSH role `ttl` / `max_ttl`
 * "system default / maximum lease TTL"; docs/decisions/secrets.md "Mount TTLs").
 */
import { DomainError } from "../../simulator/kernel/errors.js";
import { badRequest } from "../../simulator/secrets/errors.js";
import { parseDuration } from "../../simulator/kernel/duration.js";
import { mountLeaseTtls } from "../../simulator/secrets/leases.js";
import { mountEngine, normalizeMountPath, setAllowedManagedKeys, tuneMountTtls, unmountEngine } from "../../simulator/secrets/mounts.js";
import type { MountRecord } from "../../simulator/secrets/state.js";
import type { CoreRoute, CoreRouteContext } from "./core-route.js";
import type { EngineResult } from "./engine-routes.js";
import { stringField, stringListField } from "./request.js";

/**
 * A mount as `GET /sys/mounts` (and `sys/internal/ui/mounts`) show it: `config` TTLs are the
 * mount's own, in seconds, 0 when it uses the system's.
 * @example mountView(mount).config // { default_lease_ttl: 3600, force_no_cache: false, max_lease_ttl: 0 }
 */
export function mountView(mount: MountRecord): Record<string, unknown> {
  return {
    accessor: mount.accessor,
    config: {
      default_lease_ttl: Math.floor((mount.defaultLeaseTtlMs ?? 0) / 1000),
      force_no_cache: false,
      max_lease_ttl: Math.floor((mount.maxLeaseTtlMs ?? 0) / 1000),
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

/** The tune read: the TTLs in force (tuned, else the system's), in seconds. */
function tuneView(mount: MountRecord): Record<string, unknown> {
  const ttls = mountLeaseTtls(mount);
  return {
    default_lease_ttl: Math.floor(ttls.defaultMs / 1000),
    description: mount.description,
    force_no_cache: false,
    max_lease_ttl: Math.floor(ttls.maxMs / 1000),
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

/**
 * A TTL field of a tune or a mount `config`, as the real service reads it: absent or `""` leaves
 * it unchanged (undefined), `"system"` is 0 (back to the system's), a number or a decimal string is
 * seconds, else a Go duration string (hour the largest unit). Returns ms.
 * @throws {DomainError} 400 `<prefix>time: invalid duration "<value>"` for anything else.
 */
function ttlField(data: Readonly<Record<string, unknown>>, field: string, operation: string, prefix: (text: string) => string): number | undefined {
  const value = data[field];
  if (value === undefined || value === null || value === "") return undefined;
  if (value === "system") return 0;
  const text = typeof value === "number" ? String(value) : typeof value === "string" ? value.trim() : undefined;
  const invalid = (): never => {
    throw badRequest(operation, `${prefix(String(text ?? JSON.stringify(value)))}time: invalid duration ${JSON.stringify(text ?? JSON.stringify(value))}`);
  };
  if (text === undefined) return invalid();
  let ms: number;
  try {
    ms = /^[+-]?\d+$/.test(text) ? Number(text) * 1000 : parseDuration(text, { largestUnit: "h" });
  } catch {
    return invalid();
  }
  if (!Number.isFinite(ms) || ms < 0) return invalid();
  return Math.floor(ms / 1000) * 1000;
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
    const defaultLeaseTtlMs = ttlField(ctx.body, "default_lease_ttl", "tune mount", () => "");
    const maxLeaseTtlMs = ttlField(ctx.body, "max_lease_ttl", "tune mount", () => "");
    const full = fullPath(ctx, path);
    mountOf(ctx, path);
    // One transaction: a refused TTL pair leaves the allowed keys unchanged too.
    ctx.update((c) => {
      if (defaultLeaseTtlMs !== undefined || maxLeaseTtlMs !== undefined) {
        tuneMountTtls(c, full, { ...(defaultLeaseTtlMs !== undefined ? { defaultLeaseTtlMs } : {}), ...(maxLeaseTtlMs !== undefined ? { maxLeaseTtlMs } : {}) });
      }
      if (keys !== undefined) setAllowedManagedKeys(c, full, keys);
    });
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
  const mountConfig = config(ctx);
  const allowed = stringListField(mountConfig, "allowed_managed_keys") ?? [];
  const defaultLeaseTtlMs = ttlField(mountConfig, "default_lease_ttl", "enable mount", (text) => `unable to parse default TTL of ${text}: `) ?? 0;
  const maxLeaseTtlMs = ttlField(mountConfig, "max_lease_ttl", "enable mount", (text) => `unable to parse max TTL of ${text}: `) ?? 0;
  const description = stringField(ctx.body, "description") ?? "";
  ctx.update((c) => mountEngine(c, ctx.engines, { path: fullPath(ctx, raw), type, description, allowedManagedKeys: allowed, defaultLeaseTtlMs, maxLeaseTtlMs }));
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
