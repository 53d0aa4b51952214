/**
 * Who is calling and what they may do: the presented secret resolves to a token (or the anonymous
 * token when none is presented), the request's namespace is selected in the spec's five steps, and
 * `acl:read` / `acl:write` come from the `acl = "..."` rules of the token's policies (directly, via
 * its roles, and via its namespace's defaults).
 *
 * Spec: access-control.md "Authentication", "Namespace selection (enterprise)".
 */
import type { Tracer } from "../kernel/trace.js";
import { aclError, aclNotFound, malformed } from "./errors.js";
import { aclLevelOf } from "./rules.js";
import { traceTokenEvent } from "./token-events.js";
import {
  ANONYMOUS_ACCESSOR_ID,
  DEFAULT_NAMESPACE,
  type AccessControlState,
  type PolicyRecord,
  type TokenRecord,
} from "./state.js";

/**
 * What a request brings besides its body: the presented secret and the namespace hints.
 * Built by the HTTP layer from `X-Acl-Token` / `token` / `Authorization: Bearer`, `ns` and
 * `X-Acl-Namespace`; scenarios build it directly.
 */
export interface RequestScope {
  /** The secret presented, if any (`undefined` or empty: the anonymous token is used). */
  readonly secret?: string | undefined;
  /** The `ns` query parameter, if present (enterprise; `*` lists every namespace). */
  readonly namespaceParam?: string | undefined;
  /** The `X-Acl-Namespace` header (or its real name `X-Consul-Namespace`), if present (enterprise). */
  readonly namespaceHeader?: string | undefined;
  /** The name the namespace header came under, for error messages (default `X-Acl-Namespace`). */
  readonly namespaceHeaderName?: string | undefined;
}

/** An ACL permission level on the `acl` resource. */
export type AclAccess = "none" | "read" | "write";

/**
 * Whether `token` is expired at `now` (ms since the epoch). A token is usable exactly while
 * `now < ExpirationTime` (spec "States and transitions"; issue acceptance property): the instant
 * ExpirationTime is reached, it is revoked, so advancing the clock by exactly the TTL revokes it.
 * See docs/decisions/access-control.md ("When a token expires") for the real service's boundary.
 * @example isExpired(token, token.expirationTime - 1) // false; isExpired(token, token.expirationTime) // true
 */
export function isExpired(token: TokenRecord, now: number): boolean {
  return token.expirationTime !== null && now >= token.expirationTime;
}

/**
 * The live (not expired) token with this AccessorID, if any.
 * @example liveTokenByAccessor(state, accessorId, ctx.now) // undefined once expired
 */
export function liveTokenByAccessor(state: AccessControlState, accessorId: string, now: number): TokenRecord | undefined {
  const token = state.tokens[accessorId];
  return token && !isExpired(token, now) ? token : undefined;
}

/**
 * The live token with this SecretID, if any.
 * @example liveTokenBySecret(state, "anonymous", ctx.now)?.accessorId // "00000000-0000-0000-0000-000000000002"
 */
export function liveTokenBySecret(state: AccessControlState, secretId: string, now: number): TokenRecord | undefined {
  const accessorId = state.secrets[secretId];
  return accessorId === undefined ? undefined : liveTokenByAccessor(state, accessorId, now);
}

/**
 * The token a request acts as: the token whose SecretID was presented, or the anonymous token
 * when none was.
 * @throws {DomainError} `unauthenticated` (`ACL not found`) for an unknown or expired secret.
 * @param tracer - traces `token` `used` when a presented secret resolves (the simulator context).
 * @example resolveCaller(state, ctx.now, { secret: undefined }, "list tokens") // the anonymous token
 */
export function resolveCaller(state: AccessControlState, now: number, scope: RequestScope, operation: string, tracer?: Tracer): TokenRecord {
  if (scope.secret === undefined || scope.secret === "") {
    const anonymous = state.tokens[ANONYMOUS_ACCESSOR_ID];
    if (anonymous) return anonymous;
    throw aclNotFound(operation);
  }
  const token = liveTokenBySecret(state, scope.secret, now);
  if (!token) throw aclNotFound(operation);
  if (tracer) traceTokenEvent(tracer, "used");
  return token;
}

/**
 * Refuses the namespace hints when namespaces are off, as the non-enterprise service does (400):
 * the `X-Acl-Namespace` header first, then the `ns` query parameter. Runs before anything else,
 * like the real service's request parsing. (`GET /acl/token/self` and logout do not check them.)
 * @throws {DomainError} `malformed`: `Invalid header: "X-Acl-Namespace" - Namespaces are an
 * enterprise feature`, `Invalid query parameter: "ns" - Namespaces are an enterprise feature`.
 * @example checkNamespaceParameter(state, { namespaceParam: "team-a" }, "list tokens") // throws without namespaces
 */
export function checkNamespaceParameter(state: AccessControlState, scope: RequestScope, operation: string): void {
  if (state.settings.namespaces) return;
  if (scope.namespaceHeader !== undefined && scope.namespaceHeader !== "") {
    const name = scope.namespaceHeaderName ?? "X-Acl-Namespace";
    throw malformed(operation, `Invalid header: "${name}" - Namespaces are an enterprise feature`);
  }
  if (scope.namespaceParam !== undefined && scope.namespaceParam !== "") {
    throw malformed(operation, 'Invalid query parameter: "ns" - Namespaces are an enterprise feature');
  }
}

/**
 * The spec's namespace selection, first match wins: the body's `Namespace` (create and update),
 * the `ns` query parameter, the `X-Acl-Namespace` header, the namespace of the request's own
 * token, then `default`. Without the enterprise option every request is in `default`.
 * @returns a namespace name; `*` (from `ns=*`) means every namespace to list endpoints and names
 * no existing namespace elsewhere.
 * @example selectNamespace(state, { namespaceParam: "team-a" }, caller, undefined) // "team-a" (namespaces on)
 */
export function selectNamespace(
  state: AccessControlState,
  scope: RequestScope,
  caller: TokenRecord | undefined,
  bodyNamespace?: string,
): string {
  if (!state.settings.namespaces) return DEFAULT_NAMESPACE;
  const candidates = [bodyNamespace, scope.namespaceParam, scope.namespaceHeader, caller?.namespace];
  return candidates.find((c): c is string => c !== undefined && c !== "") ?? DEFAULT_NAMESPACE;
}

/**
 * Refuses a write into a namespace that does not exist.
 * @throws {DomainError} `invalid`.
 * @example requireNamespace(state, "team-a", "create token") // throws unless team-a exists
 */
export function requireNamespace(state: AccessControlState, namespace: string, operation: string): void {
  if (!state.namespaces[namespace]) {
    throw aclError("invalid", operation, `Namespace "${namespace}" does not exist`);
  }
}

/**
 * The `acl = "..."` level a policy's rules grant, if they say: the top-level `acl` of the rules
 * as the rules parser reads them (`rules.ts`, the same parser that validates policies), so a
 * line inside a block does not count. `list` (refused when a policy is written, but possible in a
 * record built by hand) reads as `read`.
 * @example policyAclRule({ ...policy, rules: 'acl = "read"' }) // "read"
 */
export function policyAclRule(policy: PolicyRecord): "read" | "write" | "deny" | undefined {
  const level = aclLevelOf(policy.rules);
  if (level === "list") return "read";
  return level === "read" || level === "write" || level === "deny" ? level : undefined;
}

/**
 * Every policy that applies to `token` in `namespace`: linked, via roles, via namespace defaults.
 * @example effectivePolicies(state, token, "default").map((p) => p.name) // ["acl-read", ...]
 */
export function effectivePolicies(state: AccessControlState, token: TokenRecord, namespace: string): PolicyRecord[] {
  const roleIds = [...token.roles];
  const policyIds = [...token.policies];
  const defaults = state.settings.namespaces ? state.namespaces[token.namespace] : undefined;
  if (defaults) {
    for (const id of defaults.defaultRoles) roleIds.push(id);
    for (const id of defaults.defaultPolicies) policyIds.push(id);
  }
  for (const roleId of roleIds) for (const id of state.roles[roleId]?.policies ?? []) policyIds.push(id);
  const seen = new Set<string>();
  const out: PolicyRecord[] = [];
  for (const id of policyIds) {
    const policy = state.policies[id];
    if (!policy || seen.has(id)) continue;
    seen.add(id);
    if (policy.namespace === DEFAULT_NAMESPACE || policy.namespace === namespace) out.push(policy);
  }
  return out;
}

/**
 * What `token` may do on the `acl` resource in `namespace`: `deny` anywhere wins, then the highest
 * of `write` and `read`; with no rule at all, the service's default policy decides. With
 * namespaces, a token outside the `default` namespace has no rights in other namespaces.
 * @example aclAccess(state, readerToken, "default") // "read"
 */
export function aclAccess(state: AccessControlState, token: TokenRecord, namespace: string): AclAccess {
  if (state.settings.namespaces && token.namespace !== DEFAULT_NAMESPACE && token.namespace !== namespace) return "none";
  let best: AclAccess | undefined;
  for (const policy of effectivePolicies(state, token, namespace)) {
    const rule = policyAclRule(policy);
    if (rule === "deny") return "none";
    if (rule === "write") best = "write";
    else if (rule === "read" && best !== "write") best = "read";
  }
  if (best !== undefined) return best;
  return state.settings.defaultPolicy === "allow" ? "write" : "none";
}

/**
 * Whether `token` holds at least `need` on the `acl` resource in `namespace`.
 * @example hasAcl(state, callerToken, "default", "write") // false for a reader
 */
export function hasAcl(state: AccessControlState, token: TokenRecord, namespace: string, need: "read" | "write"): boolean {
  const access = aclAccess(state, token, namespace);
  return need === "read" ? access !== "none" : access === "write";
}

/**
 * Refuses a caller without `acl:<need>` in `namespace`.
 * @throws {DomainError} `forbidden` with the real service's wording (`Permission denied: token with
 * AccessorID '<id>' lacks permission 'acl:write'`).
 * @example requireAcl(state, caller, "default", "write", "create token") // throws 403 for a reader
 */
export function requireAcl(
  state: AccessControlState,
  token: TokenRecord,
  namespace: string,
  need: "read" | "write",
  operation: string,
): void {
  if (hasAcl(state, token, namespace, need)) return;
  const message =
    token.accessorId === ANONYMOUS_ACCESSOR_ID
      ? `Permission denied: anonymous token lacks permission 'acl:${need}'. The anonymous token is used implicitly when a request does not specify a token.`
      : `Permission denied: token with AccessorID '${token.accessorId}' lacks permission 'acl:${need}'`;
  throw aclError("forbidden", operation, message);
}
