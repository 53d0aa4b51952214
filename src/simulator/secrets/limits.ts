/**
 * The secrets service's durations and limits as data (its definition's `limits` table): what
 * service mutants scale. Engines read each through their context's `limit` (engine.ts), which
 * answers the table's value, or a mutant's scaled one (docs/decisions/mutants.md).
 */
import type { ServiceLimit } from "../kernel/limits.js";
import { DEFAULT_STS_TTL_SECONDS } from "./cloud/ttl.js";

/**
 * The secrets limits (spec secrets.md, Limits: "Default STS credential TTL 3600s"; FIDELITY.md:
 * a static role's rotation period must be above 60 s).
 * @example SECRETS_LIMITS.defaultStsTtl.value // 3600 (s)
 */
export const SECRETS_LIMITS = Object.freeze({
  defaultTokenTtl: Object.freeze({
    name: "default-token-ttl",
    unit: "ms",
    // The token mount's default TTL: the system default lease TTL, 768h (leases.ts).
    value: 768 * 3_600_000,
    description: "the TTL of a token created without one",
    readAt: "POST /auth/token/create",
    source: "secrets.md (token TTLs default to the system default, 768h)",
  } satisfies ServiceLimit),
  defaultStsTtl: Object.freeze({
    name: "default-sts-ttl",
    unit: "s",
    value: DEFAULT_STS_TTL_SECONDS,
    description: "the TTL of STS credentials issued without one",
    readAt: "POST /cloud/sts/:name",
    source: "secrets.md, Limits",
  } satisfies ServiceLimit),
  minRotationPeriod: Object.freeze({
    name: "min-rotation-period",
    unit: "s",
    value: 60,
    description: "the shortest static-role rotation period accepted",
    readAt: "POST /cloud/static-roles/:name",
    source: "FIDELITY.md (static roles)",
  } satisfies ServiceLimit),
});

/**
 * Every row of {@link SECRETS_LIMITS}, in table order (the definition's `limits`).
 * @example SECRETS_LIMIT_TABLE.length // 3
 */
export const SECRETS_LIMIT_TABLE: readonly ServiceLimit[] = Object.freeze([SECRETS_LIMITS.defaultTokenTtl, SECRETS_LIMITS.defaultStsTtl, SECRETS_LIMITS.minRotationPeriod]);
