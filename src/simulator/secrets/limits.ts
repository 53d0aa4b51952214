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
 * @example SECRETS_LIMIT_TABLE.length // 2
 */
export const SECRETS_LIMIT_TABLE: readonly ServiceLimit[] = Object.freeze([SECRETS_LIMITS.defaultStsTtl, SECRETS_LIMITS.minRotationPeriod]);
