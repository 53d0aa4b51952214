/**
 * The access-control service's durations and limits as data (its definition's `limits` table):
 * what service mutants scale. The service reads each through `limitValue` when it builds its
 * default settings (docs/decisions/mutants.md).
 */
import { limitValue, type ServiceLimit } from "../kernel/limits.js";
import { defaultSettings, type AccessControlSettings } from "./state.js";

/**
 * The access-control limits (spec access-control.md, "Limits": ExpirationTTL at least 1 minute and
 * at most 24 hours).
 * @example ACCESS_CONTROL_LIMITS.maxExpirationTtl.value // 86_400_000 (ms)
 */
export const ACCESS_CONTROL_LIMITS = Object.freeze({
  minExpirationTtl: Object.freeze({
    name: "min-expiration-ttl",
    unit: "ms",
    value: defaultSettings().minExpirationTtlMs,
    description: "the shortest token ExpirationTTL accepted",
    readAt: "PUT /acl/token",
    source: "access-control.md, Limits",
  } satisfies ServiceLimit),
  maxExpirationTtl: Object.freeze({
    name: "max-expiration-ttl",
    unit: "ms",
    value: defaultSettings().maxExpirationTtlMs,
    description: "the longest token ExpirationTTL accepted",
    readAt: "PUT /acl/token",
    source: "access-control.md, Limits",
  } satisfies ServiceLimit),
});

/**
 * Every row of {@link ACCESS_CONTROL_LIMITS}, in table order (the definition's `limits`).
 * @example ACCESS_CONTROL_LIMIT_TABLE.length // 2
 */
export const ACCESS_CONTROL_LIMIT_TABLE: readonly ServiceLimit[] = Object.freeze([ACCESS_CONTROL_LIMITS.minExpirationTtl, ACCESS_CONTROL_LIMITS.maxExpirationTtl]);

/**
 * The default settings with their limits read through {@link limitValue} (`ctx`: the context the
 * initial state is built with).
 * @example limitedDefaultSettings({}).minExpirationTtlMs // 60_000
 */
export function limitedDefaultSettings(ctx: object): AccessControlSettings {
  return {
    ...defaultSettings(),
    minExpirationTtlMs: limitValue(ctx, ACCESS_CONTROL_LIMITS.minExpirationTtl),
    maxExpirationTtlMs: limitValue(ctx, ACCESS_CONTROL_LIMITS.maxExpirationTtl),
  };
}
