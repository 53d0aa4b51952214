/**
 * Tokens (fixtures: how tokens are issued is not shown in the spec), and resolving the caller of a
 * request from its `X-Secrets-Token` with its policies' capabilities.
 *
 * Spec: secrets.md "Authentication"; FIDELITY.md "Secrets" (403 `permission denied` for a missing
 * or unknown token; a root token may do everything).
 */
import type { IdKind } from "../kernel/ids.js";
import { UsageError } from "../kernel/errors.js";
import type { OperationContext } from "../kernel/simulator.js";
import type { Capability, Caller } from "./engine.js";
import { permissionDenied } from "./errors.js";
import { DEFAULT_POLICY, capabilitiesOn, type Policy } from "./policies.js";
import type { SecretsState, TokenRecord } from "./state.js";
import type { Tracer } from "../kernel/trace.js";
import { traceSecretsToken } from "./lifecycle-events.js";

/** What a token fixture may set. */
export interface TokenInput {
  /** Policy names (they need not exist yet; unknown names grant nothing). */
  readonly policies?: readonly string[];
  /** Shown as the token's display name (the SSH engine's default certificate key id). Default `token`. */
  readonly displayName?: string;
  /** Time to live in ms; omitted = never expires. */
  readonly ttlMs?: number;
  /** Namespace path the token belongs to (default root). */
  readonly namespace?: string;
  /** Without the built-in `default` policy. */
  readonly noDefaultPolicy?: boolean;
  /** Use this secret instead of a generated one (e.g. `"dev-token"`). */
  readonly id?: string;
  /** Uses before the token is used up (0 or absent: unlimited). */
  readonly numUses?: number;
  /** Whether `auth/token/renew-self` may extend it (default: it expires, i.e. `ttlMs` is set). */
  readonly renewable?: boolean;
  /** Metadata shown by `auth/token/lookup-self` (`meta`). */
  readonly meta?: Readonly<Record<string, string>>;
  /** The parent token's secret (the token is revoked with it); default an orphan. */
  readonly parent?: string;
}

/**
 * A new token secret: `s.` and 24 base62 characters (the service's classic token form; the id kind
 * `token` of {@link SECRETS_ID_KINDS}).
 * @example newTokenSecret(ctx) // "s.k2Qb..." (26 characters)
 */
export function newTokenSecret(ctx: { ids: { prefixed(prefix: string, length?: number): string } }): string {
  return ctx.ids.prefixed("s.", 24);
}

/**
 * The secrets service's id kinds (its definition's `idKinds`): the spec leaves the token secret's
 * and the lease id's random part open (secrets.md: `lease_id` and `client_token` are strings).
 * @example SECRETS_ID_KINDS.map((kind) => kind.kind) // ["token", "lease"]
 */
export const SECRETS_ID_KINDS: readonly IdKind[] = Object.freeze([
  Object.freeze({ kind: "token", key: "s.", length: 24, spec: "a string (secrets.md, auth `client_token`); the fake draws `s.` and 24 base62 characters", formats: Object.freeze([Object.freeze({ name: "suffix-32", length: 32 })]) }),
  Object.freeze({ kind: "lease", key: "lease", length: 24, spec: "a string (secrets.md, `lease_id`); the fake draws `<mount>/<path>/` and 24 base62 characters", formats: Object.freeze([Object.freeze({ name: "suffix-32", length: 32 })]) }),
]);

/**
 * Creates a token.
 * @throws {UsageError} when `id` is already a token.
 */
export function createToken(ctx: OperationContext<SecretsState>, input: TokenInput = {}): TokenRecord {
  const id = input.id ?? newTokenSecret(ctx);
  if (ctx.state.tokens[id] !== undefined) throw new UsageError(`secrets: token "${id}" already exists`);
  if (input.numUses !== undefined && (!Number.isInteger(input.numUses) || input.numUses < 0)) throw new UsageError(`secrets: numUses must be a whole number >= 0 (got ${input.numUses})`);
  if (input.parent !== undefined && ctx.state.tokens[input.parent] === undefined) throw new UsageError(`secrets: parent token "${input.parent}" does not exist`);
  const policies = [...new Set([...(input.noDefaultPolicy ? [] : ["default"]), ...(input.policies ?? [])])];
  const record: TokenRecord = {
    id,
    accessor: ctx.ids.string(24),
    displayName: input.displayName ?? "token",
    policies,
    namespace: normalizeNamespace(input.namespace ?? ""),
    createdAt: ctx.now,
    expiresAt: input.ttlMs === undefined ? null : ctx.now + input.ttlMs,
    creationTtlMs: input.ttlMs ?? 0,
    ...(input.numUses !== undefined && input.numUses > 0 ? { numUses: input.numUses } : {}),
    ...(input.renewable !== undefined ? { renewable: input.renewable } : {}),
    ...(input.meta !== undefined ? { meta: { ...input.meta } } : {}),
    ...(input.parent !== undefined ? { parent: input.parent } : {}),
  };
  ctx.state.tokens[id] = record;
  return record;
}

/** A namespace path in the service's form: `ns1/ns2/` (trailing slash), `""` for root. */
export function normalizeNamespace(path: string): string {
  const trimmed = path.replace(/^\/+|\/+$/g, "");
  return trimmed === "" || trimmed === "root" ? "" : `${trimmed}/`;
}

/**
 * The token with this secret if it is live at `now`: known, not past its expiry, not used up
 * (`numUses` -1), and its parent live in turn (a token ends with its parent, as the real service
 * revokes a tree). `allowUsedUp` lets through a token whose last use is the current request (the
 * real lookup of a token pending revocation).
 */
export function liveToken(state: SecretsState, secret: string | undefined, now: number, allowUsedUp = false): TokenRecord | undefined {
  if (secret === undefined || secret === "") return undefined;
  const token = state.tokens[secret];
  if (token === undefined) return undefined;
  if (token.expiresAt !== null && now >= token.expiresAt) return undefined;
  if (!allowUsedUp && (token.numUses ?? 0) < 0) return undefined;
  // Ancestors: a chain is short, but a fixture may name a parent that names it back; stop on a repeat.
  const seen = new Set<string>([token.id]);
  let parent = token.parent;
  while (parent !== undefined && parent !== null) {
    if (seen.has(parent)) return undefined;
    seen.add(parent);
    const record = state.tokens[parent];
    if (record === undefined || (record.expiresAt !== null && now >= record.expiresAt) || (record.numUses ?? 0) < 0) return undefined;
    parent = record.parent;
  }
  return token;
}

/** The policies of a token (unknown names are skipped; `default` is built in). */
export function policiesOf(state: SecretsState, token: TokenRecord): Policy[] {
  const out: Policy[] = [];
  for (const name of token.policies) {
    if (name === "root") out.push({ name: "root", rules: [] });
    else if (state.policies[name] !== undefined) out.push(state.policies[name] as Policy);
    else if (name === "default") out.push(DEFAULT_POLICY);
  }
  return out;
}

/**
 * Resolves the caller of a request in namespace `namespace` (path form `ns1/`), or throws 403
 * `permission denied` for a missing, unknown or expired token, or one from another namespace
 * branch. The caller's `capabilities(path)` takes paths relative to the request's namespace.
 * @param tracer - traces `token` `used`, or `expired` for a known token past its TTL.
 */
export function resolveCaller(state: SecretsState, secret: string | undefined, now: number, namespace: string, operation: string, tracer?: Tracer): Caller {
  const token = liveToken(state, secret, now);
  if (token === undefined) {
    const known = secret !== undefined && secret !== "" && Object.hasOwn(state.tokens, secret) ? state.tokens[secret] : undefined;
    if (tracer && known?.expiresAt !== undefined && known.expiresAt !== null && now >= known.expiresAt) traceSecretsToken(tracer, "expired");
    throw permissionDenied(operation);
  }
  if (tracer) traceSecretsToken(tracer, "used");
  if (!namespace.startsWith(token.namespace)) throw permissionDenied(operation);
  const policies = policiesOf(state, token);
  const isRoot = token.policies.includes("root");
  const prefix = namespace.slice(token.namespace.length);
  const cache = new Map<string, ReadonlySet<Capability>>();
  return {
    tokenId: token.id,
    displayName: token.displayName,
    policies: [...token.policies],
    isRoot,
    capabilities(path: string): ReadonlySet<Capability> {
      const full = prefix + path.replace(/^\/+/, "");
      let caps = cache.get(full);
      if (caps === undefined) {
        caps = capabilitiesOn(policies, full, isRoot);
        cache.set(full, caps);
      }
      return caps;
    },
  };
}

/**
 * Throws 403 `permission denied` unless `caller` holds every capability in `needed` on `path`.
 */
export function requireCapabilities(caller: Caller, path: string, needed: readonly Capability[], operation: string): void {
  const held = caller.capabilities(path);
  for (const capability of needed) if (!held.has(capability)) throw permissionDenied(operation, path);
}
