/**
 * TTL rules of issued cloud credentials.
 *
 * - `assumed_role` and `federation_token`: the requested `ttl` when given, else the role's
 *   `default_sts_ttl`, else 3600 s; capped by the role's `max_sts_ttl`, else by the system maximum
 *   lease TTL. The provider then applies its own limits (see `cloud-account.ts`).
 * - `iam_user`: the mount's `config/lease` `lease` (else the mount's default lease TTL: its tuned
 *   `default_lease_ttl`, else the system's), capped by `lease_max` (else the mount's maximum).
 *   The request's `ttl` plays no part.
 * - "System maximum" is the mount's view of it: its tuned `max_lease_ttl`, else 768h.
 *
 * Spec: secrets.md "Cloud-account engine" (credential parameters, `default_sts_ttl`,
 * `max_sts_ttl`, `config/lease`) and Limits ("Default STS credential TTL 3600s").
 */
import type { CloudLeaseConfig, CloudRole } from "./state.js";

/** Default TTL of STS credentials, seconds. */
export const DEFAULT_STS_TTL_SECONDS = 3600;
/** The system default and maximum lease TTL (the real service's 768h), seconds. */
export const SYSTEM_MAX_LEASE_TTL_SECONDS = 768 * 3600;

/**
 * The TTL of STS credentials, seconds.
 * @param requested - the request's `ttl` in seconds, or undefined when not given.
 * @param defaultTtl - the service's default STS TTL, seconds (its limits table's, 3600).
 * @example stsTtlSeconds(undefined, { defaultStsTtl: 0, maxStsTtl: 0 }) // 3600
 * @example stsTtlSeconds(7200, { defaultStsTtl: 0, maxStsTtl: 1800 }) // 1800
 */
export function stsTtlSeconds(requested: number | undefined, role: Pick<CloudRole, "defaultStsTtl" | "maxStsTtl">, systemMax = SYSTEM_MAX_LEASE_TTL_SECONDS, defaultTtl = DEFAULT_STS_TTL_SECONDS): number {
  const ttl = requested !== undefined ? requested : role.defaultStsTtl > 0 ? role.defaultStsTtl : defaultTtl;
  const max = role.maxStsTtl > 0 ? role.maxStsTtl : systemMax;
  return ttl > max ? max : ttl;
}

/**
 * The lease of `iam_user` credentials, ms.
 * @param mountTtls - the mount's lease TTLs, ms (its tuned values, else the system's 768h).
 * @example iamUserLeaseMs({ leaseMs: 3_600_000, leaseMaxMs: 1_800_000 }) // 1_800_000
 */
export function iamUserLeaseMs(config: CloudLeaseConfig | null, mountTtls: { readonly defaultMs: number; readonly maxMs: number } = { defaultMs: SYSTEM_MAX_LEASE_TTL_SECONDS * 1000, maxMs: SYSTEM_MAX_LEASE_TTL_SECONDS * 1000 }): number {
  const ttl = config !== null && config.leaseMs > 0 ? config.leaseMs : mountTtls.defaultMs;
  const max = config !== null && config.leaseMaxMs > 0 ? config.leaseMaxMs : mountTtls.maxMs;
  return Math.min(ttl, max);
}
