/**
 * The token auth method's state rules (the real service's token store), over the same token
 * records the fixtures make (`state.tokens`): child tokens and orphans, the policy subset rule,
 * TTLs (default and maximum 768h, `explicit_max_ttl`, `period`), renewal, limited uses, and
 * revocation of a token with its children.
 *
 * Spec: secrets.md "Authentication" ("How tokens are issued: not shown"): the real service's
 * token auth method, FIDELITY.md "Secrets"; docs/decisions/secrets.md "Token auth method".
 */
import { formatGoDuration } from "../kernel/go-duration.js";
import type { OperationContext } from "../kernel/simulator.js";
import { badRequest } from "./errors.js";
import { SYSTEM_DEFAULT_LEASE_TTL_MS, SYSTEM_MAX_LEASE_TTL_MS } from "./leases.js";
import { limitValue } from "../kernel/limits.js";
import { SECRETS_LIMITS } from "./limits.js";
import type { SecretsState, TokenRecord } from "./state.js";
import { liveToken, newTokenSecret } from "./tokens.js";

/** Policies no token may be given (the real service's internal ones). */
const NON_ASSIGNABLE_POLICIES: readonly string[] = Object.freeze(["response-wrapping", "control-group"]);

/** The path a fixture token reports (how fixtures are issued is not shown; they read as made by `create`). */
export const FIXTURE_TOKEN_PATH = "auth/token/create";

/**
 * Policy names as the real service keeps them (`SanitizePolicies`): trimmed, lower case, empty
 * names dropped, `root` alone when present, `default` added when `addDefault` (unless `root`),
 * duplicates removed, sorted.
 * @example sanitizePolicies(["Web", " db", "web"], true) // ["db", "default", "web"]
 */
export function sanitizePolicies(policies: readonly string[], addDefault: boolean): string[] {
  const names = policies.map((p) => p.trim().toLowerCase()).filter((p) => p !== "");
  if (names.includes("root")) return ["root"];
  if (addDefault && !names.includes("default")) names.push("default");
  return [...new Set(names)].sort();
}

/** The TTL a token was created with, in ms (0: it never expires). */
export function creationTtlMs(token: TokenRecord): number {
  if (token.creationTtlMs !== undefined) return token.creationTtlMs;
  return token.expiresAt === null ? 0 : token.expiresAt - token.createdAt;
}

/** Whether `renew` may extend the token: it expires and was made renewable (default). */
export function isRenewable(token: TokenRecord): boolean {
  return token.expiresAt !== null && token.renewable !== false;
}

/** Whether the token is an orphan (no parent). */
export function isOrphan(token: TokenRecord): boolean {
  return token.parent === undefined || token.parent === null;
}

/** The `Go` duration as the real service prints it in warnings (`768h`, `1h30m`, `45s`). */
function humanDuration(ms: number): string {
  if (ms === 0) return "0s";
  let s = formatGoDuration(ms);
  if (s.endsWith("m0s")) s = s.slice(0, -2);
  const idx = s.indexOf("h0m");
  if (idx > 0) s = s.slice(0, idx + 1) + s.slice(idx + 3);
  return s;
}

/** What {@link calculateTtl} works from (ms). */
interface TtlInput {
  readonly incrementMs: number;
  readonly backendTtlMs: number;
  readonly periodMs: number;
  readonly explicitMaxTtlMs: number;
  /** When the token was issued (ms since the epoch). */
  readonly startMs: number;
  readonly now: number;
  /** The TTL of a token asked for without one (default the system default, 768h; the limits table's `default-token-ttl`). */
  readonly defaultTtlMs?: number;
}

/**
 * The real service's TTL rule (`framework.CalculateTTL`) with the token mount's default and
 * maximum TTL (768h), in whole seconds: a period sets the TTL (capped at the maximum, and at the
 * explicit maximum counted from issue); otherwise the increment, else the requested TTL, else the
 * default, capped so the token never outlives issue + maximum.
 * @returns the TTL in ms and the real warnings when a value was capped.
 * @throws {DomainError} 400 `past the max TTL, cannot renew` when nothing is left.
 */
export function calculateTtl(input: TtlInput): { ttlMs: number; warnings: string[] } {
  const warnings: string[] = [];
  const now = Math.floor(input.now / 1000) * 1000;
  const start = Math.floor(input.startMs / 1000) * 1000;
  let maxTtl = SYSTEM_MAX_LEASE_TTL_MS;
  if (input.explicitMaxTtlMs > 0 && input.explicitMaxTtlMs < maxTtl) maxTtl = input.explicitMaxTtlMs;
  let ttl: number;
  let maxValidTime: number | undefined;
  if (input.periodMs > 0) {
    let period = input.periodMs;
    if (period > maxTtl) {
      warnings.push(`period of "${humanDuration(period)}" exceeded the effective max_ttl of "${humanDuration(maxTtl)}"; period value is capped accordingly`);
      period = maxTtl;
    }
    ttl = period;
    if (input.explicitMaxTtlMs > 0) maxValidTime = start + input.explicitMaxTtlMs;
  } else {
    ttl = input.incrementMs > 0 ? input.incrementMs : input.backendTtlMs > 0 ? input.backendTtlMs : (input.defaultTtlMs ?? SYSTEM_DEFAULT_LEASE_TTL_MS);
    maxValidTime = start + maxTtl;
  }
  if (maxValidTime !== undefined) {
    const maxValidTtl = maxValidTime - now;
    if (maxValidTtl <= 0) throw badRequest("renew token", "past the max TTL, cannot renew");
    if (maxValidTtl < ttl) {
      warnings.push(`TTL of "${humanDuration(ttl)}" exceeded the effective max_ttl of "${humanDuration(maxValidTtl)}"; TTL value is capped accordingly`);
      ttl = maxValidTtl;
    }
  }
  return { ttlMs: Math.floor(ttl / 1000) * 1000, warnings };
}

/** A create request, fields read and typed (durations in ms, `undefined` when not given). */
export interface CreateTokenRequest {
  /** `auth/token/create-orphan`: the new token has no parent, no sudo needed. */
  readonly orphanPath: boolean;
  /** The request path (`auth/token/create`), shown as the token's `path`. */
  readonly path: string;
  /** The request's namespace (`""` root, else `ns1/`). */
  readonly namespace: string;
  /** Whether the caller holds `sudo` on the request path (root does). */
  readonly sudo: boolean;
  readonly id?: string;
  readonly policies?: readonly string[];
  readonly meta?: Readonly<Record<string, string>>;
  readonly noParent?: boolean;
  readonly noDefaultPolicy?: boolean;
  readonly renewable?: boolean;
  readonly ttlMs?: number;
  readonly explicitMaxTtlMs?: number;
  readonly periodMs?: number;
  readonly displayName?: string;
  readonly numUses?: number;
  readonly type?: string;
  readonly entityAlias?: string;
}

/** A created (or renewed) token and what the response reports of it. */
export interface IssuedToken {
  readonly token: TokenRecord;
  /** The TTL granted (ms; 0 never expires). */
  readonly ttlMs: number;
  readonly renewable: boolean;
  readonly warnings: readonly string[];
}

const invalid = (message: string) => badRequest("create token", message);

/**
 * Creates a child token of `parentId` (the caller's token) as `auth/token/create` and
 * `create-orphan` do, with the real service's checks in its order and its 400 messages.
 * @throws {DomainError} 400: `restricted use token cannot generate child tokens`,
 *   `child policies must be subset of parent`, `root tokens may not be created without parent token
 *   being root`, `root or sudo privileges required to create orphan token` (and to specify token
 *   id, to create periodic token), `number of uses cannot be negative`, `ttl must be positive`, ...
 * @example createChildToken(ctx, rootToken, { orphanPath: false, path: "auth/token/create", namespace: "", sudo: true, policies: ["web"], ttlMs: 3_600_000 })
 */
export function createChildToken(ctx: OperationContext<SecretsState>, parentId: string, request: CreateTokenRequest): IssuedToken {
  const parent = liveToken(ctx.state, parentId, ctx.now);
  if (parent === undefined) throw invalid("parent token lookup failed: no parent found");
  if ((parent.numUses ?? 0) > 0) throw invalid("restricted use token cannot generate child tokens");
  const sudo = request.sudo;
  const otherNamespace = request.namespace !== parent.namespace;
  if (otherNamespace) {
    if (!sudo) throw invalid("root or sudo privileges required to directly generate a token in a child namespace");
    if ((request.policies ?? []).includes("root")) throw invalid("root tokens may not be created from a parent namespace");
  }
  let renewable = request.renewable ?? true;
  switch (request.type ?? "") {
    case "":
    case "service":
      break;
    case "batch":
      // Batch tokens (encrypted, not stored) are not simulated: docs/decisions/secrets.md.
      throw invalid("batch tokens are not simulated by this fake; create a service token");
    default:
      throw invalid("invalid 'token_type' value");
  }
  const numUses = request.numUses ?? 0;
  if (numUses < 0) throw invalid("number of uses cannot be negative");
  if (request.entityAlias !== undefined && request.entityAlias !== "") throw invalid("'entity_alias' is only allowed in combination with token role");

  let displayName = "token";
  if (request.displayName !== undefined && request.displayName !== "") {
    displayName = `token-${request.displayName}`.replace(/[^a-zA-Z0-9-]/g, "-");
    if (displayName.endsWith("-")) displayName = displayName.slice(0, -1);
  }
  if (request.id !== undefined && request.id !== "") {
    if (!sudo) throw invalid("root or sudo privileges required to specify token id");
    if (request.namespace !== "") throw invalid("token IDs can only be manually specified in the root namespace");
  }

  let wanted = [...(request.policies ?? [])];
  let addDefault = false;
  if (otherNamespace) {
    addDefault = request.noDefaultPolicy !== true;
  } else if (wanted.length === 0) {
    wanted = sanitizePolicies(parent.policies, false);
  } else if (!sudo) {
    const have = new Set(sanitizePolicies(parent.policies, false));
    if (!sanitizePolicies(wanted, false).every((p) => have.has(p))) throw invalid("child policies must be subset of parent");
    addDefault = request.noDefaultPolicy !== true && parent.policies.includes("default");
  } else {
    addDefault = request.noDefaultPolicy !== true;
  }
  let policies = sanitizePolicies(wanted, addDefault);
  if (request.noDefaultPolicy === true) policies = policies.filter((p) => p !== "default");
  for (const policy of policies) if (NON_ASSIGNABLE_POLICIES.includes(policy)) throw badRequest("create token", `cannot assign policy "${policy}"`);
  if (policies.includes("root") && !parent.policies.includes("root")) throw invalid("root tokens may not be created without parent token being root");

  let orphan = request.orphanPath;
  if (request.noParent === true) {
    if (!sudo) throw invalid("root or sudo privileges required to create orphan token");
    orphan = true;
  }

  const explicitMaxTtlMs = request.explicitMaxTtlMs ?? 0;
  if (explicitMaxTtlMs < 0) throw invalid("explicit_max_ttl must be positive");
  const periodMs = request.periodMs ?? 0;
  if (periodMs < 0) throw invalid("period must be positive");
  if (periodMs > 0 && !sudo) throw invalid("root or sudo privileges required to create periodic token");
  let ttlMs = request.ttlMs ?? 0;
  if (ttlMs < 0) throw invalid("ttl must be positive");

  const warnings: string[] = [];
  if (periodMs > 0 || ttlMs > 0 || !policies.includes("root")) {
    const calculated = calculateTtl({ incrementMs: 0, backendTtlMs: ttlMs, periodMs, explicitMaxTtlMs, startMs: ctx.now, now: ctx.now, defaultTtlMs: limitValue(ctx, SECRETS_LIMITS.defaultTokenTtl) });
    warnings.push(...calculated.warnings);
    ttlMs = calculated.ttlMs;
  }
  if (ttlMs === 0 && explicitMaxTtlMs > 0) ttlMs = explicitMaxTtlMs;
  if (ttlMs === 0) {
    if (creationTtlMs(parent) !== 0) throw invalid("expiring root tokens cannot create non-expiring root tokens");
    renewable = false;
  }

  let id: string;
  if (request.id !== undefined && request.id !== "") {
    id = request.id;
    if (id.startsWith("hvs.")) throw invalid("custom token ID cannot have the 'hvs.' prefix");
    if (id.startsWith("s.")) throw invalid("custom token ID cannot have the 's.' prefix");
    if (id.includes(".")) throw invalid("custom token ID cannot have a '.' in the value");
    if (ctx.state.tokens[id] !== undefined) throw invalid("cannot create a token with a duplicate ID");
    warnings.push("Supplying a custom ID for the token uses the weaker SHA1 hashing instead of the more secure SHA2-256 HMAC for token obfuscation. SHA1 hashed tokens on the wire leads to less secure lookups.");
  } else {
    id = newTokenSecret(ctx);
  }

  const token: TokenRecord = {
    id,
    accessor: ctx.ids.string(24),
    displayName,
    policies,
    namespace: request.namespace,
    createdAt: ctx.now,
    expiresAt: ttlMs === 0 ? null : ctx.now + ttlMs,
    parent: orphan ? null : parent.id,
    path: request.path,
    ...(request.meta !== undefined ? { meta: { ...request.meta } } : {}),
    ...(numUses > 0 ? { numUses } : {}),
    renewable,
    ...(periodMs > 0 ? { periodMs } : {}),
    ...(explicitMaxTtlMs > 0 ? { explicitMaxTtlMs } : {}),
    creationTtlMs: ttlMs,
    lastRenewal: null,
  };
  ctx.state.tokens[id] = token;
  for (const policy of policies) {
    if (policy !== "default" && policy !== "root" && ctx.state.policies[policy] === undefined) warnings.push(`Policy "${policy}" does not exist`);
  }
  return { token, ttlMs, renewable, warnings };
}

/**
 * Renews a live token (the real `RenewToken`): its new TTL is `incrementMs` (else its creation
 * TTL; a periodic token's period), never past issue + its explicit maximum or the 768h maximum.
 * @throws {DomainError} 400 `token not found` (unknown, expired or revoked), `lease is not renewable`.
 */
export function renewToken(ctx: OperationContext<SecretsState>, secret: string, incrementMs: number, allowUsedUp = false): IssuedToken {
  const token = liveToken(ctx.state, secret, ctx.now, allowUsedUp);
  if (token === undefined) throw badRequest("renew token", "token not found");
  if (!isRenewable(token)) throw badRequest("renew token", "lease is not renewable");
  const { ttlMs, warnings } = calculateTtl({
    incrementMs,
    backendTtlMs: creationTtlMs(token),
    periodMs: token.periodMs ?? 0,
    explicitMaxTtlMs: token.explicitMaxTtlMs ?? 0,
    startMs: token.createdAt,
    now: ctx.now,
    defaultTtlMs: limitValue(ctx, SECRETS_LIMITS.defaultTokenTtl),
  });
  token.expiresAt = ctx.now + ttlMs;
  token.lastRenewal = ctx.now;
  return { token, ttlMs, renewable: true, warnings };
}

/** The live token with this accessor, if any. */
export function tokenByAccessor(state: SecretsState, accessor: string, now: number): TokenRecord | undefined {
  for (const token of Object.values(state.tokens)) if (token.accessor === accessor) return liveToken(state, token.id, now);
  return undefined;
}

/**
 * Takes one use of a limited-use token (a request authenticated with it); after its last use it
 * is used up (`numUses` -1) and refused from then on. Unlimited tokens are left alone.
 */
export function useToken(ctx: OperationContext<SecretsState>, secret: string): void {
  const token = ctx.state.tokens[secret];
  if (token === undefined || token.numUses === undefined || token.numUses <= 0) return;
  token.numUses = token.numUses === 1 ? -1 : token.numUses - 1;
}

/** Every token below `secret` (children, their children, ...), nearest first. */
function descendants(state: SecretsState, secret: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>([secret]);
  const queue = [secret];
  const all = Object.values(state.tokens);
  while (queue.length > 0) {
    const current = queue.shift() as string;
    for (const token of all) {
      if (token.parent === current && !seen.has(token.id)) {
        seen.add(token.id);
        out.push(token.id);
        queue.push(token.id);
      }
    }
  }
  return out;
}

/**
 * Revokes a token and every token below it (`revoke`, `revoke-self`, `revoke-accessor`, a used-up
 * token). Returns how many tokens were revoked (0 for an unknown secret).
 */
export function revokeTokenTree(ctx: OperationContext<SecretsState>, secret: string): number {
  if (ctx.state.tokens[secret] === undefined) return 0;
  const gone = [secret, ...descendants(ctx.state, secret)];
  for (const id of gone) delete ctx.state.tokens[id];
  return gone.length;
}

/** Revokes a token alone; its children become orphans (`revoke-orphan`). */
export function revokeTokenOrphan(ctx: OperationContext<SecretsState>, secret: string): void {
  for (const token of Object.values(ctx.state.tokens)) if (token.parent === secret) token.parent = null;
  delete ctx.state.tokens[secret];
}
