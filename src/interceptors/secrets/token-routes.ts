/**
 * The token auth method (`/auth/token/...`) and `/sys/capabilities-self`, over the same tokens the
 * fixtures make: look a token up (`lookup-self`, `lookup`, `lookup-accessor`), renew it
 * (`renew-self`, `renew`, `renew-accessor`), revoke it with its children (`revoke-self`, `revoke`,
 * `revoke-accessor`) or alone (`revoke-orphan`), create child tokens and orphans (`create`,
 * `create-orphan`), and ask what the caller may do on paths.
 *
 * Wire shapes are the real service's: lookups answer `data` (keys sorted, as Go writes a map:
 * `accessor`, `creation_time`, `creation_ttl`, `display_name`, `entity_id`, `expire_time`,
 * `explicit_max_ttl`, `id`, `issue_time`, `meta`, `num_uses`, `orphan`, `path`, `policies`,
 * `renewable`, `ttl`, `type`; a token that never expires has no `issue_time` and `renewable`);
 * create and renew answer an `auth` block with `data: null`; revocations answer 204.
 *
 * Spec: secrets.md "Authentication" ("How tokens are issued: not shown"); FIDELITY.md "Secrets";
 * docs/decisions/secrets.md "Token auth method".
 */
import { parseDuration } from "../../simulator/kernel/duration.js";
import { rfc3339, unixSeconds } from "../../simulator/kernel/time.js";
import type { Capability, Caller } from "../../simulator/secrets/engine.js";
import { badRequest, permissionDenied, secretsError } from "../../simulator/secrets/errors.js";
import type { TokenRecord } from "../../simulator/secrets/state.js";
import {
  FIXTURE_TOKEN_PATH,
  createChildToken,
  creationTtlMs,
  isOrphan,
  isRenewable,
  renewToken,
  revokeTokenOrphan,
  revokeTokenTree,
  tokenByAccessor,
  type CreateTokenRequest,
  type IssuedToken,
} from "../../simulator/secrets/token-store.js";
import { liveToken } from "../../simulator/secrets/tokens.js";
import type { CoreRoute, CoreRouteContext } from "./core-route.js";
import type { EngineResult } from "./engine-routes.js";
import { envelopeBody } from "./envelope.js";
import { json } from "../http.js";
import { boolField, fieldConversionError, intField, scalarText, stringField, stringListField } from "./request.js";

/** 403 `bad token`: a lookup of a token that is unknown, expired or revoked (the real answer). */
function badToken(operation: string): ReturnType<typeof secretsError> {
  return secretsError("invalid", operation, "bad token", { status: 403 });
}

function callerOf(ctx: CoreRouteContext, operation: string): Caller {
  if (ctx.caller === undefined) throw permissionDenied(operation);
  return ctx.caller;
}

/** Keys sorted, as Go's encoder writes a map. */
function sorted(data: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.keys(data).sort().map((key) => [key, data[key]]));
}

/**
 * A token as `lookup` shows it at `now` (the real `handleLookup`): no parent reference; `ttl`,
 * `expire_time`, `issue_time` and `renewable` from its expiry (left out, `ttl` 0 and
 * `expire_time` null, for a token that never expires).
 */
export function tokenLookupData(token: TokenRecord, now: number, options: { hideId?: boolean } = {}): Record<string, unknown> {
  const data: Record<string, unknown> = {
    accessor: token.accessor,
    creation_time: unixSeconds(token.createdAt),
    creation_ttl: Math.floor(creationTtlMs(token) / 1000),
    display_name: token.displayName,
    entity_id: "",
    expire_time: null,
    explicit_max_ttl: Math.floor((token.explicitMaxTtlMs ?? 0) / 1000),
    id: options.hideId === true ? "" : token.id,
    meta: token.meta === undefined ? null : { ...token.meta },
    num_uses: token.numUses ?? 0,
    orphan: isOrphan(token),
    path: token.path ?? FIXTURE_TOKEN_PATH,
    policies: [...token.policies],
    ttl: 0,
    type: "service",
  };
  if (token.periodMs !== undefined && token.periodMs > 0) data.period = Math.floor(token.periodMs / 1000);
  if (token.namespace !== "") data.namespace_path = token.namespace;
  if (token.expiresAt !== null) {
    if (token.lastRenewal !== undefined && token.lastRenewal !== null) {
      data.last_renewal_time = unixSeconds(token.lastRenewal);
      data.last_renewal = rfc3339(token.lastRenewal);
    }
    data.expire_time = rfc3339(token.expiresAt);
    data.ttl = Math.max(0, Math.floor((token.expiresAt - now) / 1000));
    data.renewable = isRenewable(token);
    data.issue_time = rfc3339(token.createdAt);
  }
  return sorted(data);
}

/**
 * The `auth` block of a create or renew answer (the real `HTTPAuth`, in its field order).
 * @param hideClientToken - `renew-accessor` leaves `client_token` empty.
 */
export function tokenAuthBlock(issued: IssuedToken, hideClientToken = false): Record<string, unknown> {
  const { token } = issued;
  return {
    client_token: hideClientToken ? "" : token.id,
    accessor: token.accessor,
    policies: [...token.policies],
    token_policies: [...token.policies],
    metadata: token.meta === undefined ? null : { ...token.meta },
    lease_duration: Math.floor(issued.ttlMs / 1000),
    renewable: issued.renewable,
    entity_id: "",
    token_type: "service",
    orphan: isOrphan(token),
    mfa_requirement: null,
    num_uses: token.numUses ?? 0,
  };
}

/** An envelope with `data: null` and the `auth` block (200). */
function authResponse(ctx: CoreRouteContext, issued: IssuedToken, hideClientToken = false): EngineResult {
  const requestId = ctx.update((c) => c.ids.uuid());
  const body = { ...envelopeBody(requestId, { data: null, warnings: issued.warnings }), auth: tokenAuthBlock(issued, hideClientToken) };
  return { kind: "raw", response: json(200, body) };
}

/** A copy of a stored token that outlives its transaction (state objects are the simulator's). */
function plainToken(token: TokenRecord): TokenRecord {
  return { ...token, policies: [...token.policies], ...(token.meta === undefined ? {} : { meta: { ...token.meta } }) };
}

/** A token field (`token`), trimmed; empty when absent. */
function tokenField(ctx: CoreRouteContext): string {
  return (stringField(ctx.body, "token") ?? "").trim();
}

/** A `TypeDurationSecond` field in ms (integer seconds or a Go duration string); 0 when absent. */
function durationSecondField(ctx: CoreRouteContext, field: string): number {
  const value = ctx.body[field];
  if (value === undefined || value === null || value === "") return 0;
  if (typeof value === "number" && Number.isFinite(value)) return Math.trunc(value) * 1000;
  if (typeof value === "string") {
    try {
      return parseDuration(value);
    } catch {
      throw fieldConversionError(field, value, `time: invalid duration ${JSON.stringify(value)}`);
    }
  }
  throw fieldConversionError(field, value, "not a duration");
}

/** A create field holding a duration as a string (`ttl`, `explicit_max_ttl`, `period`): ms, or undefined. */
function createDuration(ctx: CoreRouteContext, field: string): number | undefined {
  const text = stringField(ctx.body, field);
  if (text === undefined || text === "") return undefined;
  return parseDuration(text);
}

/** `policies`: a list of names, or one name (a string is one policy, as `TypeStringSlice` reads it). */
function policiesField(ctx: CoreRouteContext): string[] | undefined {
  const value = ctx.body.policies;
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) {
    return value.map((item) => {
      const text = scalarText(item);
      if (text === undefined) throw fieldConversionError("policies", value, "cannot parse as []string");
      return text;
    });
  }
  const text = scalarText(value);
  if (text === undefined) throw fieldConversionError("policies", value, "cannot parse as []string");
  return text === "" ? [] : [text];
}

/** `meta`: an object of scalars (strings kept, numbers and booleans printed), as `WeakDecode` reads it. */
function metaField(ctx: CoreRouteContext): Record<string, string> | undefined {
  const value = ctx.body.meta;
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) {
    throw badRequest("create token", `Error decoding request: 1 error(s) decoding:\n\n* 'meta' expected a map, got '${Array.isArray(value) ? "slice" : typeof value}'`);
  }
  const out: Record<string, string> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    const text = item === null ? "" : scalarText(item);
    if (text === undefined) throw badRequest("create token", `Error decoding request: 1 error(s) decoding:\n\n* 'meta[${key}]' expected type 'string', got unconvertible type '${Array.isArray(item) ? "[]interface {}" : "map[string]interface {}"}'`);
    out[key] = text;
  }
  return out;
}

function createHandler(orphanPath: boolean) {
  return (ctx: CoreRouteContext): EngineResult => {
    const path = orphanPath ? "auth/token/create-orphan" : "auth/token/create";
    const caller = callerOf(ctx, `POST ${path}`);
    // Fields are read (and refused for a wrong type) before anything is checked, as the real
    // framework validates a request's fields first.
    const policies = policiesField(ctx);
    const meta = metaField(ctx);
    const noParent = boolField(ctx.body, "no_parent");
    const noDefaultPolicy = boolField(ctx.body, "no_default_policy");
    const renewable = boolField(ctx.body, "renewable");
    const numUses = intField(ctx.body, "num_uses");
    const displayName = stringField(ctx.body, "display_name");
    const type = stringField(ctx.body, "type");
    const entityAlias = stringField(ctx.body, "entity_alias");
    const id = stringField(ctx.body, "id");
    const explicitMaxTtlMs = createDuration(ctx, "explicit_max_ttl");
    const periodMs = createDuration(ctx, "period");
    const ttlMs = createDuration(ctx, "ttl");
    const request: CreateTokenRequest = {
      orphanPath,
      path,
      namespace: ctx.namespace,
      sudo: caller.capabilities(path).has("sudo"),
      ...(id !== undefined ? { id } : {}),
      ...(policies !== undefined ? { policies } : {}),
      ...(meta !== undefined ? { meta } : {}),
      ...(noParent !== undefined ? { noParent } : {}),
      ...(noDefaultPolicy !== undefined ? { noDefaultPolicy } : {}),
      ...(renewable !== undefined ? { renewable } : {}),
      ...(ttlMs !== undefined ? { ttlMs } : {}),
      ...(explicitMaxTtlMs !== undefined ? { explicitMaxTtlMs } : {}),
      ...(periodMs !== undefined ? { periodMs } : {}),
      ...(displayName !== undefined ? { displayName } : {}),
      ...(numUses !== undefined ? { numUses } : {}),
      ...(type !== undefined ? { type } : {}),
      ...(entityAlias !== undefined ? { entityAlias } : {}),
    };
    const issued = ctx.update((c) => {
      const made = createChildToken(c, caller.tokenId, request);
      return { ...made, token: plainToken(made.token) };
    });
    return authResponse(ctx, issued);
  };
}

/** Looks up `secret` (the caller's own token may be on its last use). */
function lookup(ctx: CoreRouteContext, secret: string, operation: string, hideId = false): EngineResult {
  const own = secret === ctx.caller?.tokenId;
  const data = ctx.read((c) => {
    const token = liveToken(c.state, secret, c.now, own);
    if (token === undefined) throw badToken(operation);
    return tokenLookupData(token, c.now, { hideId });
  });
  return { kind: "data", data };
}

function lookupSelf(ctx: CoreRouteContext): EngineResult {
  return lookup(ctx, callerOf(ctx, "lookup token").tokenId, "lookup token");
}

function lookupOther(ctx: CoreRouteContext): EngineResult {
  const caller = callerOf(ctx, "lookup token");
  const secret = tokenField(ctx);
  return lookup(ctx, secret === "" ? caller.tokenId : secret, "lookup token");
}

function accessorField(ctx: CoreRouteContext): string {
  const accessor = (stringField(ctx.body, "accessor") ?? "").trim();
  if (accessor === "") throw badRequest("token accessor", "missing accessor");
  return accessor;
}

function lookupAccessor(ctx: CoreRouteContext): EngineResult {
  const accessor = accessorField(ctx);
  const secret = ctx.read((c) => tokenByAccessor(c.state, accessor, c.now)?.id);
  if (secret === undefined) throw badRequest("lookup accessor", "invalid accessor");
  return lookup(ctx, secret, "lookup accessor", true);
}

function renew(ctx: CoreRouteContext, secret: string, hideClientToken = false): EngineResult {
  const incrementMs = durationSecondField(ctx, "increment");
  const issued = ctx.update((c) => {
    const renewed = renewToken(c, secret, incrementMs);
    return { ...renewed, token: plainToken(renewed.token) };
  });
  return authResponse(ctx, issued, hideClientToken);
}

function requiredToken(ctx: CoreRouteContext): string {
  const secret = tokenField(ctx);
  if (secret === "") throw badRequest("token", "missing token ID");
  return secret;
}

/** Revokes a live token and its children; an unknown one is no error (the real answer: 204). */
function revokeTree(ctx: CoreRouteContext, secret: string): EngineResult {
  ctx.update((c) => {
    if (liveToken(c.state, secret, c.now, secret === ctx.caller?.tokenId) !== undefined) revokeTokenTree(c, secret);
  });
  return { kind: "no-content" };
}

function revokeAccessor(ctx: CoreRouteContext): EngineResult {
  const accessor = accessorField(ctx);
  const secret = ctx.read((c) => tokenByAccessor(c.state, accessor, c.now)?.id);
  if (secret === undefined) {
    // The real answer: 200, no data, one warning.
    const requestId = ctx.update((c) => c.ids.uuid());
    return { kind: "raw", response: json(200, envelopeBody(requestId, { data: null, warnings: ["No token found with this accessor"] })) };
  }
  return revokeTree(ctx, secret);
}

function revokeOrphan(ctx: CoreRouteContext): EngineResult {
  const secret = requiredToken(ctx);
  const caller = callerOf(ctx, "revoke token");
  if (!caller.capabilities("auth/token/revoke-orphan").has("sudo")) throw badRequest("revoke token", "root or sudo privileges required to revoke and orphan");
  ctx.update((c) => {
    if (liveToken(c.state, secret, c.now, secret === caller.tokenId) === undefined) throw badRequest("revoke token", "token to revoke not found");
    revokeTokenOrphan(c, secret);
  });
  return { kind: "no-content" };
}

/** What a caller may do on `path` as the real `sys/capabilities-self` lists it: sorted; `root`; `deny` for nothing. */
export function capabilityNames(caller: Caller, path: string): string[] {
  if (caller.isRoot) return ["root"];
  const held = [...caller.capabilities(path.replace(/^\/+/, ""))].filter((c: Capability) => c !== "deny").sort();
  return held.length === 0 ? ["deny"] : held;
}

function capabilitiesSelf(ctx: CoreRouteContext): EngineResult {
  const caller = callerOf(ctx, "capabilities");
  let paths = stringListField(ctx.body, "paths") ?? [];
  if (paths.length === 0) paths = stringListField(ctx.body, "path") ?? [];
  if (paths.length === 0) throw badRequest("capabilities", "paths must be supplied");
  const data: Record<string, unknown> = {};
  for (const path of paths) data[path] = capabilityNames(caller, path);
  if (paths.length === 1) data.capabilities = data[paths[0] as string];
  return { kind: "data", data: sorted(data) };
}

const update = ["create-or-update"] as const;

/**
 * The token auth method's routes and `sys/capabilities-self`. Each needs the default capability
 * for its operation on its own path (`read` for GET, `update` for POST/PUT): the built-in
 * `default` policy grants a token its own `lookup-self` (read), `renew-self`, `revoke-self` and
 * `sys/capabilities-self` (update), as the real default policy does.
 * @example TOKEN_ROUTES.map((r) => r.path).includes("/auth/token/lookup-self") // true
 */
export const TOKEN_ROUTES: readonly CoreRoute[] = Object.freeze([
  { operations: ["read", "create-or-update"], path: "/auth/token/lookup-self", handler: lookupSelf },
  { operations: ["read", "create-or-update"], path: "/auth/token/lookup", handler: lookupOther },
  { operations: update, path: "/auth/token/lookup-accessor", handler: lookupAccessor },
  { operations: update, path: "/auth/token/create", handler: createHandler(false) },
  { operations: update, path: "/auth/token/create-orphan", handler: createHandler(true) },
  { operations: update, path: "/auth/token/renew-self", handler: (ctx) => renew(ctx, callerOf(ctx, "renew token").tokenId) },
  { operations: update, path: "/auth/token/renew", handler: (ctx) => renew(ctx, requiredToken(ctx)) },
  {
    operations: update,
    path: "/auth/token/renew-accessor",
    handler: (ctx) => {
      const accessor = accessorField(ctx);
      const secret = ctx.read((c) => tokenByAccessor(c.state, accessor, c.now)?.id);
      if (secret === undefined) throw badRequest("renew token", "invalid accessor");
      return renew(ctx, secret, true);
    },
  },
  { operations: update, path: "/auth/token/revoke-self", handler: (ctx) => revokeTree(ctx, callerOf(ctx, "revoke token").tokenId) },
  { operations: update, path: "/auth/token/revoke", handler: (ctx) => revokeTree(ctx, requiredToken(ctx)) },
  { operations: update, path: "/auth/token/revoke-accessor", handler: revokeAccessor },
  { operations: update, path: "/auth/token/revoke-orphan", handler: revokeOrphan },
  { operations: update, path: "/sys/capabilities-self", handler: capabilitiesSelf },
] satisfies CoreRoute[]);
