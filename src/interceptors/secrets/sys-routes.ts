/**
 * The system endpoints real clients call around the spec's edges: `sys/seal-status` and `sys/init`
 * (from the node state; both answer while sealed or not initialized), `sys/internal/ui/mounts`
 * (and `/:path`: how clients such as vault-api find a path's engine), and response wrapping
 * (`sys/wrapping/wrap`, `unwrap`, `lookup`, `rewrap`; the `X-Vault-Wrap-TTL` header itself is
 * handled in wrap-header.ts).
 *
 * Not in spec/secrets.md: they answer as the real service does (issue 23;
 * docs/decisions/secrets.md "Seal status and init", "UI mounts", "Response wrapping").
 */
import { json } from "../http.js";
import { rfc3339 } from "../../simulator/kernel/time.js";
import type { Capability, Caller } from "../../simulator/secrets/engine.js";
import { badRequest, permissionDenied } from "../../simulator/secrets/errors.js";
import { findMount } from "../../simulator/secrets/mounts.js";
import { capabilitiesOn } from "../../simulator/secrets/policies.js";
import { initNode, sealStatusBody } from "../../simulator/secrets/seal.js";
import type { AuthMountRecord, MountRecord, SecretsState } from "../../simulator/secrets/state.js";
import { policiesOf, requireCapabilities } from "../../simulator/secrets/tokens.js";
import { lookupWrapping, rewrap, unwrap } from "../../simulator/secrets/wrapping.js";
import type { CoreRoute, CoreRouteContext } from "./core-route.js";
import type { EngineResult } from "./engine-routes.js";
import { requestToken } from "./dispatch.js";
import { mountView } from "./mount-routes.js";
import { intField, stringField } from "./request.js";
import { requestWrapTtlMs, wrappedResponse } from "./wrap-header.js";

const NON_DENY: readonly Capability[] = ["create", "read", "update", "delete", "list", "sudo"];

/**
 * Whether `caller` may see the mount at `mountPath` (relative to the request's namespace), as the
 * real service decides for the UI listing: some capability other than `deny` on the mount path
 * itself, or a rule of the caller's policies granting something under it.
 */
function hasMountAccess(state: SecretsState, caller: Caller | undefined, mountPath: string): boolean {
  if (caller === undefined) return false;
  if (caller.isRoot) return true;
  const prefix = `${mountPath}/`;
  const direct = caller.capabilities(prefix);
  if (!direct.has("deny") && NON_DENY.some((c) => direct.has(c))) return true;
  const token = state.tokens[caller.tokenId];
  if (token === undefined) return false;
  for (const policy of policiesOf(state, token)) {
    for (const rule of policy.rules) {
      if (!rule.path.startsWith(prefix) || rule.capabilities.includes("deny")) continue;
      if (rule.capabilities.some((c) => NON_DENY.includes(c))) {
        // The rule's own path must not be denied by a more specific rule.
        const held = capabilitiesOn(policiesOf(state, token), rule.path.replace(/\*$/, ""));
        if (!held.has("deny")) return true;
      }
    }
  }
  return false;
}

function authMountView(mount: AuthMountRecord): Record<string, unknown> {
  return {
    accessor: mount.accessor,
    config: { default_lease_ttl: 0, force_no_cache: false, max_lease_ttl: 0, token_type: "default-service" },
    description: "",
    external_entropy_access: false,
    local: false,
    options: null,
    seal_wrap: false,
    type: mount.type,
  };
}

/** `GET sys/internal/ui/mounts`: the secret and auth mounts the caller may see (none without a token). */
function uiMounts(ctx: CoreRouteContext): EngineResult {
  return ctx.read((c) => {
    const secret: Record<string, unknown> = {};
    const auth: Record<string, unknown> = {};
    const engines = Object.values(c.state.mounts).sort((a: MountRecord, b: MountRecord) => a.path.localeCompare(b.path));
    for (const mount of engines) {
      if (!mount.path.startsWith(ctx.namespace)) continue;
      const relative = mount.path.slice(ctx.namespace.length);
      if (hasMountAccess(c.state, ctx.caller, relative)) secret[`${relative}/`] = mountView(mount);
    }
    const auths = Object.values(c.state.authMounts).sort((a, b) => a.path.localeCompare(b.path));
    for (const mount of auths) {
      if (mount.namespace !== ctx.namespace) continue;
      if (hasMountAccess(c.state, ctx.caller, `auth/${mount.path}`)) auth[`${mount.path}/`] = authMountView(mount);
    }
    return { kind: "data", data: { auth, secret } };
  });
}

/**
 * `GET sys/internal/ui/mounts/:path`: the mount owning `path` with its `path`; 403 `permission
 * denied` when no mount owns it or the caller may not see it (the real service answers both alike,
 * so the endpoint cannot be used to learn which mounts exist).
 */
function uiMount(ctx: CoreRouteContext): EngineResult {
  const path = (ctx.params.path ?? "").replace(/^\/+/, "");
  return ctx.read((c) => {
    const found = findMount(c.state, ctx.namespace + path);
    const relative = found === undefined ? undefined : found.mount.path.slice(ctx.namespace.length);
    if (found === undefined || !found.mount.path.startsWith(ctx.namespace) || relative === undefined || !hasMountAccess(c.state, ctx.caller, relative)) {
      throw permissionDenied("read ui mount", path);
    }
    return { kind: "data", data: { ...mountView(found.mount), path: `${relative}/` } };
  });
}

/** `PUT sys/init`: 400 `Vault is already initialized` on a running node; initializes one that is not. */
function init(ctx: CoreRouteContext): EngineResult {
  const secretShares = intField(ctx.body, "secret_shares") ?? 0;
  const secretThreshold = intField(ctx.body, "secret_threshold") ?? 0;
  const result = ctx.update((c) => initNode(c, { secretShares, secretThreshold }));
  return { kind: "raw", response: json(200, { keys: [...result.keys], keys_base64: [...result.keysBase64], root_token: result.rootToken }) };
}

/** The wrapping token of a request: the body's (or query's) `token`, else the request's own token. */
function wrappingTokenOf(ctx: CoreRouteContext, requestToken: string | undefined): { token: string | undefined; fromBody: boolean } {
  const fromBody = stringField(ctx.body, "token");
  if (fromBody !== undefined && fromBody !== "") return { token: fromBody, fromBody: true };
  return { token: requestToken, fromBody: false };
}

/**
 * `sys/wrapping/unwrap`: the wrapped answer, once. With `token` in the body the request's own
 * token must be a token allowed to `update` `sys/wrapping/unwrap` (the default policy is);
 * without, the request's token is the wrapping token.
 */
function unwrapRoute(ctx: CoreRouteContext): EngineResult {
  const { token, fromBody } = wrappingTokenOf(ctx, requestToken(ctx.request));
  if (fromBody) {
    if (ctx.caller === undefined) throw permissionDenied("unwrap", "sys/wrapping/unwrap");
    requireCapabilities(ctx.caller, "sys/wrapping/unwrap", ["update"], "unwrap");
  }
  const record = ctx.update((c) => ({ ...unwrap(c, token) }));
  return { kind: "raw", response: { status: 200, headers: { "content-type": "application/json" }, body: record.body } };
}

/** `sys/wrapping/lookup` (unauthenticated): the wrapping's creation path, time and TTL; the token stays valid. */
function lookupRoute(ctx: CoreRouteContext): EngineResult {
  const { token } = wrappingTokenOf(ctx, requestToken(ctx.request));
  return ctx.read((c) => {
    const record = lookupWrapping(c.state, token, c.now, "lookup wrapping token");
    return { kind: "data", data: { creation_path: record.creationPath, creation_time: rfc3339(record.createdAt), creation_ttl: Math.floor(record.ttlMs / 1000) } };
  });
}

/** `sys/wrapping/rewrap`: a new wrapping token for the same answer (original TTL and path); the old one is spent. */
function rewrapRoute(ctx: CoreRouteContext): EngineResult {
  const token = stringField(ctx.body, "token");
  const { record, requestId } = ctx.update((c) => ({ record: { ...rewrap(c, token) }, requestId: c.ids.uuid() }));
  return { kind: "raw", response: wrappedResponse(requestId, record) };
}

/** `sys/wrapping/wrap`: wraps the request body; only with a wrap TTL. */
function wrapRoute(ctx: CoreRouteContext): EngineResult {
  if (requestWrapTtlMs(ctx.request) === undefined) throw badRequest("wrap", "endpoint requires response wrapping to be used");
  return { kind: "data", data: { ...ctx.body } };
}

/**
 * The system routes of this file: seal status, init, UI mounts, wrapping.
 * @example SYS_ROUTES.map((r) => r.path) // ["/sys/seal-status", "/sys/init", ...]
 */
export const SYS_ROUTES: readonly CoreRoute[] = Object.freeze([
  {
    operations: ["read"],
    path: "/sys/seal-status",
    unauthenticated: true,
    servesSealed: true,
    handler: (ctx) => ctx.read((c) => ({ kind: "raw", response: json(200, sealStatusBody(c.state.node)) })),
  },
  {
    operations: ["read", "create-or-update"],
    path: "/sys/init",
    unauthenticated: true,
    servesSealed: true,
    handler: (ctx) => (ctx.operation === "read" ? ctx.read((c) => ({ kind: "raw", response: json(200, { initialized: sealStatusBody(c.state.node).initialized }) })) : init(ctx)),
  },
  { operations: ["read"], path: "/sys/internal/ui/mounts", unauthenticated: true, handler: uiMounts },
  { operations: ["read"], path: "/sys/internal/ui/mounts/*path", unauthenticated: true, handler: uiMount },
  { operations: ["create-or-update"], path: "/sys/wrapping/wrap", handler: wrapRoute },
  { operations: ["create-or-update"], path: "/sys/wrapping/unwrap", unauthenticated: true, handler: unwrapRoute },
  { operations: ["read", "create-or-update"], path: "/sys/wrapping/lookup", unauthenticated: true, handler: lookupRoute },
  { operations: ["create-or-update"], path: "/sys/wrapping/rewrap", handler: rewrapRoute },
] satisfies CoreRoute[]);
