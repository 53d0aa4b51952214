/**
 * Token operations: create, read (plain or expanded), self, update, clone, delete, list, and the
 * expiry move that revokes a token when the simulator clock reaches its ExpirationTime.
 *
 * Spec: access-control.md "Token endpoints", "Update rules", "Create rules", "Limits",
 * "Authentication"; FIDELITY.md "Access control" (wording of each refusal).
 */
import { traceTokenEvent } from "./token-events.js";
import { formatGoDuration } from "../kernel/duration.js";
import type { OperationContext, ReadContext } from "../kernel/simulator.js";
import {
  aclAccess,
  checkNamespaceParameter,
  hasAcl,
  isExpired,
  liveTokenByAccessor,
  liveTokenBySecret,
  requireAcl,
  requireNamespace,
  resolveCaller,
  selectNamespace,
  type AclAccess,
  type RequestScope,
} from "./authorization.js";
import { aclError, aclNotFound, invalid, malformed } from "./errors.js";
import { contentHash } from "./hash.js";
import {
  checkNodeIdentities,
  checkServiceIdentities,
  resolvePolicyLinks,
  resolveRoleLinks,
  type LinkInput,
  type NodeIdentityInput,
  type ServiceIdentityInput,
} from "./links.js";
import { isReservedId, isUuid } from "./names.js";
import {
  ANONYMOUS_ACCESSOR_ID,
  DEFAULT_NAMESPACE,
  RESERVED_ID_PREFIX,
  nextIndex,
  type AccessControlState,
  type TokenRecord,
} from "./state.js";
import { expandedTokenView, tokenView, type ExpandedTokenView, type TokenView } from "./views.js";

/** SecretIDs naming the real service's root authorizers, which an update may not present. */
const ROOT_SECRETS: ReadonlySet<string> = new Set(["allow", "deny", "manage"]);

/** Name of the timed move that revokes an expired token. */
export const TOKEN_EXPIRE_MOVE = "token.expire";

/**
 * The fields of a token create or update body (spec "Token endpoints"). Absent fields take their
 * defaults on create and are filled in (immutable fields) or cleared (links, identities) on update.
 */
export interface TokenInput {
  readonly accessorId?: string | undefined;
  readonly secretId?: string | undefined;
  readonly description?: string | undefined;
  readonly policies?: readonly LinkInput[] | undefined;
  readonly roles?: readonly LinkInput[] | undefined;
  readonly serviceIdentities?: readonly ServiceIdentityInput[] | undefined;
  readonly nodeIdentities?: readonly NodeIdentityInput[] | undefined;
  readonly local?: boolean | undefined;
  /** Update only (create refuses it: only login sets it). */
  readonly authMethod?: string | undefined;
  /** ms since the epoch; `undefined`/`null` = not given. */
  readonly expirationTime?: number | null | undefined;
  /** Create only: lifetime in ms (0 or undefined = not given). Not persisted. */
  readonly expirationTtlMs?: number | undefined;
  /** Enterprise: the body's `Namespace` (step 1 of namespace selection). */
  readonly namespace?: string | undefined;
}

/** Filters of the token list (spec "List tokens query parameters"). */
export interface TokenListFilters {
  /** Policy ID. */
  readonly policy?: string | undefined;
  /** Role ID. */
  readonly role?: string | undefined;
  readonly serviceName?: string | undefined;
  readonly authMethod?: string | undefined;
  /** Enterprise: the auth method's namespace (defaults to the request's namespace). */
  readonly authMethodNamespace?: string | undefined;
}


interface SetOptions {
  readonly create: boolean;
  readonly fromLogin: boolean;
  readonly operation: string;
  /** Login only: the auth method's namespace. */
  readonly authMethodNamespace?: string;
}

function uuidRefusal(operation: string, field: "AccessorID" | "SecretID", value: string, state: AccessControlState): void {
  if (!isUuid(value)) throw invalid(operation, `Invalid Token: ${field} is not a valid UUID`);
  if (isReservedId(value)) throw invalid(operation, `Invalid Token: UUIDs with the prefix "${RESERVED_ID_PREFIX}" are reserved`);
  const taken = field === "AccessorID" ? state.tokens[value] !== undefined : state.secrets[value] !== undefined;
  if (taken) throw invalid(operation, `Invalid Token: ${field} is already in use`);
}

/** A seeded UUID outside the reserved prefix, used by no token as AccessorID or SecretID. */
export function freshUuid(ctx: OperationContext<AccessControlState>): string {
  for (;;) {
    const id = ctx.ids.uuid();
    if (!isReservedId(id) && ctx.state.tokens[id] === undefined && ctx.state.secrets[id] === undefined) return id;
  }
}

/**
 * The hash of what a token grants.
 * @example tokenHash(recordWithoutHash) // base64 SHA-256, e.g. "GwXXlx4u..."
 */
/**
 * A token the ACL system makes itself (no login, no expiry, no roles or identities, in the default
 * namespace): the anonymous and built-in management tokens of a new world, and the one
 * `PUT /acl/bootstrap` hands out.
 * @param now - creation time, epoch milliseconds. @param index - its create and modify index.
 * @example builtinToken({ accessorId, secretId, description: "", policies: [] }, 0, 2).local // false
 */
export function builtinToken(fields: Pick<TokenRecord, "accessorId" | "secretId" | "description" | "policies">, now: number, index: number): TokenRecord {
  const base: Omit<TokenRecord, "hash"> = {
    ...fields,
    roles: [],
    serviceIdentities: [],
    nodeIdentities: [],
    local: false,
    authMethod: "",
    authMethodNamespace: "",
    expirationTime: null,
    namespace: DEFAULT_NAMESPACE,
    createTime: now,
    createIndex: index,
    modifyIndex: index,
  };
  return { ...base, hash: tokenHash(base) };
}

export function tokenHash(token: Omit<TokenRecord, "hash">): string {
  return contentHash({
    description: token.description,
    policies: token.policies,
    roles: token.roles,
    serviceIdentities: token.serviceIdentities,
    nodeIdentities: token.nodeIdentities,
    local: token.local,
    authMethod: token.authMethod,
  });
}

function checkExpiry(ctx: OperationContext<AccessControlState>, createTime: number, input: TokenInput, operation: string): number | null {
  const { minExpirationTtlMs: min, maxExpirationTtlMs: max } = ctx.state.settings;
  let expirationTime = input.expirationTime ?? null;
  const ttl = input.expirationTtlMs ?? 0;
  if (ttl !== 0) {
    if (ttl < 0) throw invalid(operation, `Token Expiration TTL '${formatGoDuration(ttl)}' should be > 0`);
    if (expirationTime !== null) throw invalid(operation, "Token Expiration TTL and Expiration Time cannot both be set");
    if (ttl < min) throw invalid(operation, `Token Expiration TTL '${formatGoDuration(ttl)}' should be > ${formatGoDuration(min)}`);
    if (ttl > max) throw invalid(operation, `Token Expiration TTL '${formatGoDuration(ttl)}' should be < ${formatGoDuration(max)}`);
    expirationTime = createTime + ttl;
  }
  if (expirationTime !== null) {
    if (expirationTime < createTime) throw invalid(operation, "ExpirationTime cannot be before CreateTime");
    const expiresIn = expirationTime - createTime;
    if (expiresIn > max) {
      throw invalid(operation, `ExpirationTime cannot be more than ${formatGoDuration(max)} in the future (was ${formatGoDuration(expiresIn)})`);
    }
    if (expiresIn < min) {
      throw invalid(operation, `ExpirationTime cannot be less than ${formatGoDuration(min)} in the future (was ${formatGoDuration(expiresIn)})`);
    }
  }
  return expirationTime;
}

/**
 * The one write path of tokens (create, update, clone, login), in the real service's order of
 * checks. Returns the stored record.
 * @example setToken(ctx, { description: "x" }, "default", { create: true, fromLogin: false, operation: "create token" })
 */
export function setToken(ctx: OperationContext<AccessControlState>, input: TokenInput, namespace: string, options: SetOptions): TokenRecord {
  const { state } = ctx;
  const { operation } = options;
  let accessorId: string;
  let secretId: string;
  let authMethod = input.authMethod ?? "";
  let authMethodNamespace = "";
  let expirationTime: number | null;
  let createTime: number;
  let createIndex: number | undefined;
  const local = input.local ?? false;

  if (!options.create) {
    accessorId = input.accessorId ?? "";
    if (!isUuid(accessorId)) throw invalid(operation, "AccessorID is not a valid UUID");
    // The real service refuses the names of its root authorizers as a SecretID before anything else.
    if (input.secretId !== undefined && ROOT_SECRETS.has(input.secretId)) {
      throw aclError("forbidden", operation, "Permission denied: Cannot modify root ACL", { resource: accessorId });
    }
    const existing = liveTokenByAccessor(state, accessorId, ctx.now);
    if (!existing || existing.namespace !== namespace) throw invalid(operation, `Cannot find token "${accessorId}"`);
    if (input.secretId === undefined || input.secretId === "") secretId = existing.secretId;
    else if (input.secretId !== existing.secretId) throw invalid(operation, "Changing a token's SecretID is not permitted", accessorId);
    else secretId = existing.secretId;
    if (local !== existing.local) throw invalid(operation, `Cannot toggle local mode of ${accessorId}`, accessorId);
    if (authMethod === "") authMethod = existing.authMethod;
    else if (authMethod !== existing.authMethod) throw invalid(operation, `Cannot change AuthMethod of ${accessorId}`, accessorId);
    authMethodNamespace = existing.authMethodNamespace;
    if ((input.expirationTtlMs ?? 0) !== 0) throw invalid(operation, `Cannot change expiration time of ${accessorId}`, accessorId);
    const given = input.expirationTime ?? null;
    if (given === null) expirationTime = existing.expirationTime;
    else if (existing.expirationTime === null || given !== existing.expirationTime) {
      throw invalid(operation, `Cannot change expiration time of ${accessorId}`, accessorId);
    } else expirationTime = existing.expirationTime;
    createTime = existing.createTime;
    createIndex = existing.createIndex;
  } else {
    if (input.accessorId === undefined || input.accessorId === "") accessorId = freshUuid(ctx);
    else {
      uuidRefusal(operation, "AccessorID", input.accessorId, state);
      accessorId = input.accessorId;
    }
    if (input.secretId === undefined || input.secretId === "") secretId = freshUuid(ctx);
    else {
      uuidRefusal(operation, "SecretID", input.secretId, state);
      secretId = input.secretId;
    }
    createTime = ctx.now;
    expirationTime = checkExpiry(ctx, createTime, input, operation);
    if (options.fromLogin) {
      authMethodNamespace = options.authMethodNamespace ?? namespace;
    } else if (authMethod !== "") {
      throw invalid(operation, "AuthMethod field is disallowed outside of Login");
    }
  }

  const policies = resolvePolicyLinks(state, input.policies ?? [], namespace, operation);
  const roles = resolveRoleLinks(state, input.roles ?? [], namespace, operation);
  const serviceIdentities = checkServiceIdentities(input.serviceIdentities ?? [], local, operation);
  const nodeIdentities = checkNodeIdentities(input.nodeIdentities ?? [], operation);
  if (options.create) requireNamespace(state, namespace, operation);

  const index = nextIndex(state);
  const withoutHash: Omit<TokenRecord, "hash"> = {
    accessorId,
    secretId,
    description: input.description ?? "",
    policies,
    roles,
    serviceIdentities,
    nodeIdentities,
    local,
    authMethod,
    authMethodNamespace,
    expirationTime,
    namespace,
    createTime,
    createIndex: createIndex ?? index,
    modifyIndex: index,
  };
  const record: TokenRecord = { ...withoutHash, hash: tokenHash(withoutHash) };
  state.tokens[accessorId] = record;
  state.secrets[secretId] = accessorId;
  if (options.create && expirationTime !== null) {
    // Revoked at ExpirationTime: usable exactly while now < ExpirationTime.
    state.expiryMoves[accessorId] = ctx.schedule(expirationTime, TOKEN_EXPIRE_MOVE, accessorId);
  }
  return record;
}

/**
 * Removes a token and its pending expiry move.
 * @example removeToken(ctx, ctx.state.tokens[accessorId])
 */
export function removeToken(ctx: OperationContext<AccessControlState>, token: TokenRecord): void {
  const { state } = ctx;
  delete state.tokens[token.accessorId];
  if (state.secrets[token.secretId] === token.accessorId) delete state.secrets[token.secretId];
  const move = state.expiryMoves[token.accessorId];
  if (move !== undefined) {
    ctx.cancel(move);
    delete state.expiryMoves[token.accessorId];
  }
  nextIndex(state);
}

/**
 * Creates a token (`PUT /acl/token`). Needs `acl:write`.
 * @returns the new token, SecretID shown.
 * @throws {DomainError} `unauthenticated` (`ACL not found`), `forbidden` (`Permission denied...`),
 * `malformed` (`ns` without namespaces), `invalid` for every create rule (UUID form, reserved
 * prefix, ids in use, unknown links, identity names, expiry bounds, `AuthMethod` given).
 * @example createToken(ctx, { secret: bootstrapSecret }, { description: "ci", policies: [{ name: "acl-read" }], expirationTtlMs: 3_600_000 })
 */
export function createToken(ctx: OperationContext<AccessControlState>, scope: RequestScope, input: TokenInput): TokenView {
  const operation = "create token";
  checkNamespaceParameter(ctx.state, scope, operation);
  const caller = resolveCaller(ctx.state, ctx.now, scope, operation, ctx);
  const namespace = selectNamespace(ctx.state, scope, caller, input.namespace);
  requireAcl(ctx.state, caller, namespace, "write", operation);
  const record = setToken(ctx, input, namespace, { create: true, fromLogin: false, operation });
  traceTokenEvent(ctx, "created");
  return tokenView(ctx.state, record, true);
}

/**
 * Updates a token (`PUT /acl/token/:AccessorID`) under the spec's update rules: AccessorID,
 * SecretID, AuthMethod and ExpirationTime immutable (filled in when absent), Local unchangeable;
 * everything else replaced by the body. Needs `acl:write`.
 * @param accessorId - the AccessorID from the URL (the HTTP layer has checked the body's against it).
 * @throws {DomainError} `invalid`: `Cannot find token "<id>"`, `Changing a token's SecretID is not
 * permitted`, `Cannot toggle local mode of <id>`, `Cannot change AuthMethod of <id>`,
 * `Cannot change expiration time of <id>`, and the create rules for links and identities.
 * @example updateToken(ctx, { secret: bootstrapSecret }, accessorId, { description: "renamed", local: false })
 */
export function updateToken(ctx: OperationContext<AccessControlState>, scope: RequestScope, accessorId: string, input: TokenInput): TokenView {
  const operation = "update token";
  checkNamespaceParameter(ctx.state, scope, operation);
  const caller = resolveCaller(ctx.state, ctx.now, scope, operation, ctx);
  const namespace = selectNamespace(ctx.state, scope, caller, input.namespace);
  requireAcl(ctx.state, caller, namespace, "write", operation);
  const record = setToken(ctx, { ...input, accessorId }, namespace, { create: false, fromLogin: false, operation });
  traceTokenEvent(ctx, "updated");
  return tokenView(ctx.state, record, true);
}

/**
 * Clones a token (`PUT /acl/token/:AccessorID/clone`): a new AccessorID and SecretID with the
 * source's links, identities, locality and expiry; `description` replaces the description when
 * non-empty. Needs `acl:write`.
 * @throws {DomainError} `acl_not_found` (403 `ACL not found`) for an unknown or expired
 * source, `invalid` for a token created by login or an expiry now too close.
 * @example cloneToken(ctx, { secret: bootstrapSecret }, accessorId, { description: "copy" })
 */
export function cloneToken(
  ctx: OperationContext<AccessControlState>,
  scope: RequestScope,
  accessorId: string,
  input: { readonly description?: string | undefined; readonly namespace?: string | undefined },
): TokenView {
  const operation = "clone token";
  checkNamespaceParameter(ctx.state, scope, operation);
  const caller = resolveCaller(ctx.state, ctx.now, scope, operation, ctx);
  const namespace = selectNamespace(ctx.state, scope, caller, input.namespace);
  requireAcl(ctx.state, caller, namespace, "write", operation);
  const source = liveTokenByAccessor(ctx.state, accessorId, ctx.now);
  if (!source || source.namespace !== namespace) {
    throw aclError("acl_not_found", operation, "ACL not found", { resource: accessorId });
  }
  if (source.authMethod !== "") throw invalid(operation, "Cannot clone a token created from an auth method", accessorId);
  const record = setToken(
    ctx,
    {
      description: input.description ? input.description : source.description,
      policies: source.policies.map((id) => ({ id })),
      roles: source.roles.map((id) => ({ id })),
      serviceIdentities: source.serviceIdentities,
      nodeIdentities: source.nodeIdentities,
      local: source.local,
      expirationTime: source.expirationTime,
    },
    namespace,
    { create: true, fromLogin: false, operation },
  );
  traceTokenEvent(ctx, "cloned");
  return tokenView(ctx.state, record, true);
}

/**
 * Deletes a token (`DELETE /acl/token/:AccessorID`). Needs `acl:write`. Deleting a token that does
 * not exist succeeds.
 * @returns `true`.
 * @throws {DomainError} `invalid` for a malformed AccessorID, the anonymous token, or the caller's
 * own token.
 * @example deleteToken(ctx, { secret: bootstrapSecret }, accessorId) // true
 */
export function deleteToken(ctx: OperationContext<AccessControlState>, scope: RequestScope, accessorId: string): true {
  const operation = "delete token";
  checkNamespaceParameter(ctx.state, scope, operation);
  const caller = resolveCaller(ctx.state, ctx.now, scope, operation, ctx);
  const namespace = selectNamespace(ctx.state, scope, caller);
  requireAcl(ctx.state, caller, namespace, "write", operation);
  if (!isUuid(accessorId)) throw invalid(operation, "Accessor ID is missing or an invalid UUID");
  if (accessorId === ANONYMOUS_ACCESSOR_ID) throw invalid(operation, "Delete operation not permitted on the anonymous token");
  const token = ctx.state.tokens[accessorId];
  if (!token || token.namespace !== namespace) return true;
  if (token.secretId === caller.secretId) {
    throw invalid(operation, "Deletion of the request's authorization token is not permitted", accessorId);
  }
  removeToken(ctx, token);
  traceTokenEvent(ctx, "deleted");
  return true;
}

/**
 * Reads a token by AccessorID (`GET /acl/token/:AccessorID`). Needs `acl:read`; the SecretID is
 * shown only to callers with `acl:write`.
 * @param expanded - also answer the contents of every policy and role affecting the token.
 * @throws {DomainError} `not_found` (`Requested token does not exist: ACL not found`) for an
 * unknown or expired token.
 * @example readToken(ctx, { secret: readerSecret }, accessorId, true).secretId // "<hidden>"
 */
export function readToken(
  ctx: ReadContext<AccessControlState>,
  scope: RequestScope,
  accessorId: string,
  expanded = false,
): TokenView | ExpandedTokenView {
  const operation = "read token";
  checkNamespaceParameter(ctx.state, scope, operation);
  const caller = resolveCaller(ctx.state, ctx.now, scope, operation, ctx);
  const namespace = selectNamespace(ctx.state, scope, caller);
  requireAcl(ctx.state, caller, namespace, "read", operation);
  const token = liveTokenByAccessor(ctx.state, accessorId, ctx.now);
  if (!token || token.namespace !== namespace) {
    throw aclError("not_found", operation, "Requested token does not exist: ACL not found", { resource: accessorId });
  }
  const reveal = hasAcl(ctx.state, caller, namespace, "write");
  return expanded ? expandedTokenView(ctx.state, token, reveal) : tokenView(ctx.state, token, reveal);
}

/**
 * Reads the token whose secret the caller presents (`GET /acl/token/self`). Needs no permission.
 * @throws {DomainError} `unauthenticated` (`ACL not found`) when no secret, an unknown or an
 * expired one is presented.
 * @example readSelf(ctx, { secret }).accessorId
 */
export function readSelf(ctx: ReadContext<AccessControlState>, scope: RequestScope): TokenView {
  const operation = "read own token";
  // The real service reads no namespace hints here (no `ns` or header check): the secret decides.
  const token = scope.secret ? liveTokenBySecret(ctx.state, scope.secret, ctx.now) : undefined;
  if (!token) throw aclNotFound(operation);
  traceTokenEvent(ctx, "used");
  return tokenView(ctx.state, token, true);
}

/**
 * Lists live tokens (`GET /acl/tokens`), sorted by AccessorID. Needs `acl:read` (with `ns=*`, the
 * namespaces where the caller has it). At most one of `policy`, `role`, `serviceName` and
 * `authMethod` may be given.
 * @throws {DomainError} `malformed` for namespace hints (`ns`, the header, `authmethod-ns`) without
 * namespaces; `invalid` when several filters are combined.
 * @example listTokens(ctx, { secret: bootstrapSecret }, { serviceName: "web" })
 */
export function listTokens(ctx: ReadContext<AccessControlState>, scope: RequestScope, filters: TokenListFilters = {}): TokenView[] {
  const operation = "list tokens";
  const { state } = ctx;
  checkNamespaceParameter(state, scope, operation);
  if (!state.settings.namespaces && filters.authMethodNamespace !== undefined && filters.authMethodNamespace !== "") {
    throw malformed(operation, 'Invalid query parameter: "authmethod-ns" - Namespaces are an enterprise feature');
  }
  const caller = resolveCaller(state, ctx.now, scope, operation, ctx);
  const namespace = selectNamespace(state, scope, caller);
  const wildcard = namespace === "*";
  if (!wildcard) requireAcl(state, caller, namespace, "read", operation);
  const given = [filters.policy, filters.role, filters.serviceName, filters.authMethod].filter((f) => f !== undefined && f !== "");
  if (given.length > 1) throw invalid(operation, "can only filter by one of policy, role, serviceName, or authMethod at once");
  // The auth method's namespace: `authmethod-ns`, else the request's (any, for `ns=*`).
  const methodNamespace = state.settings.namespaces ? filters.authMethodNamespace || (wildcard ? undefined : namespace) : namespace;
  // The caller's rights per namespace, worked out once per request rather than once per token.
  const access = new Map<string, AclAccess>();
  const accessIn = (ns: string): AclAccess => {
    let level = access.get(ns);
    if (level === undefined) {
      level = aclAccess(state, caller, ns);
      access.set(ns, level);
    }
    return level;
  };
  const out: TokenView[] = [];
  const ids = Object.keys(state.tokens).sort();
  for (const id of ids) {
    const token = state.tokens[id] as TokenRecord;
    if (isExpired(token, ctx.now)) continue;
    if (wildcard ? accessIn(token.namespace) === "none" : token.namespace !== namespace) continue;
    if (filters.policy && !token.policies.includes(filters.policy)) continue;
    if (filters.role && !token.roles.includes(filters.role)) continue;
    if (filters.serviceName && !token.serviceIdentities.some((s) => s.serviceName === filters.serviceName)) continue;
    if (filters.authMethod && token.authMethod !== filters.authMethod) continue;
    if (filters.authMethod && methodNamespace !== undefined && token.authMethodNamespace !== methodNamespace) continue;
    out.push(tokenView(state, token, accessIn(token.namespace) === "write"));
  }
  return out;
}

/**
 * The expiry move: revokes the token when the clock reaches its ExpirationTime (scheduled at it).
 * @example expireToken(ctx, accessorId) // no-op unless its ExpirationTime has been reached
 */
export function expireToken(ctx: OperationContext<AccessControlState>, accessorId: string): void {
  delete ctx.state.expiryMoves[accessorId];
  const token = ctx.state.tokens[accessorId];
  if (!token || !isExpired(token, ctx.now)) return;
  delete ctx.state.tokens[accessorId];
  if (ctx.state.secrets[token.secretId] === accessorId) delete ctx.state.secrets[token.secretId];
  nextIndex(ctx.state);
  traceTokenEvent(ctx, "expired");
}
