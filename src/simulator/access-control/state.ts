/**
 * The access-control service's state: tokens, binding rules, and the fixtures a scenario builds
 * (policies, roles, auth methods with the identities they would validate, namespaces, datacenters).
 * Plain data only (the kernel journals writes for transactions and copies it for snapshots).
 *
 * Spec: access-control.md "Resources and their fields"; FIDELITY.md "Access control" (built-ins).
 */
import type { Dict } from "../kernel/dict.js";

/** Spec (Token, `ServiceIdentities`): `{ServiceName, Datacenters}`; empty `datacenters` = every datacenter. */
export interface ServiceIdentity {
  readonly serviceName: string;
  readonly datacenters: readonly string[];
}

/** Spec (Token, `NodeIdentities`): `{NodeName, Datacenter}`. */
export interface NodeIdentity {
  readonly nodeName: string;
  readonly datacenter: string;
}

/** A stored token. Policy and role links are kept as IDs only (names resolve at read time). */
export interface TokenRecord {
  accessorId: string;
  secretId: string;
  description: string;
  /** Linked policy IDs, deduplicated, in link order. */
  policies: string[];
  /** Linked role IDs, deduplicated, in link order. */
  roles: string[];
  serviceIdentities: ServiceIdentity[];
  nodeIdentities: NodeIdentity[];
  local: boolean;
  /** Name of the auth method that created the token (login); empty otherwise. */
  authMethod: string;
  /** Namespace of that auth method (enterprise); empty when `authMethod` is. */
  authMethodNamespace: string;
  /** ms since the epoch, or null for no expiry. The token is usable while `now <= expirationTime`. */
  expirationTime: number | null;
  namespace: string;
  /** ms since the epoch. */
  createTime: number;
  hash: string;
  createIndex: number;
  modifyIndex: number;
}

/** A policy (a scenario fixture; the spec's standalone policy endpoints are "not shown"). */
export interface PolicyRecord {
  id: string;
  name: string;
  description: string;
  /** Rules text, e.g. `acl = "read"`. */
  rules: string;
  datacenters: string[];
  namespace: string;
  hash: string;
  createIndex: number;
  modifyIndex: number;
}

/** A role (a scenario fixture). */
export interface RoleRecord {
  id: string;
  name: string;
  description: string;
  /** Linked policy IDs. */
  policies: string[];
  serviceIdentities: ServiceIdentity[];
  nodeIdentities: NodeIdentity[];
  namespace: string;
  hash: string;
  createIndex: number;
  modifyIndex: number;
}

/**
 * Kinds of auth method:
 * - `kubernetes`: fields-based; identities expose `serviceaccount.name`, `serviceaccount.namespace`
 *   and `serviceaccount.uid` (strings);
 * - `jwt` and `oidc`: claims-based; identities expose `value.<name>` (strings) and `list.<name>`
 *   (lists of strings) for the claims the method maps.
 */
export type AuthMethodType = "kubernetes" | "jwt" | "oidc";

/** The identity an auth method would validate for one bearer token, as plain data. */
export type IdentityRecord = Record<string, unknown>;

/** An auth method (a scenario fixture) and the bearer tokens it accepts. */
export interface AuthMethodRecord {
  name: string;
  type: AuthMethodType;
  displayName: string;
  description: string;
  /** Lifetime of tokens created by login, ms; 0 = no expiry. */
  maxTokenTtlMs: number;
  /** `global` tokens are not local to the datacenter. */
  tokenLocality: "local" | "global";
  /** Claims-based only: claim name -> variable name exposed as `value.<variable>`. */
  claimMappings: Record<string, string>;
  /** Claims-based only: claim name -> variable name exposed as `list.<variable>`. */
  listClaimMappings: Record<string, string>;
  namespace: string;
  /** Bearer token -> the validated identity (already in selector form). */
  bearerTokens: Dict<IdentityRecord>;
  createIndex: number;
  modifyIndex: number;
}

/** Spec (Binding rule, `BindType`). */
export type BindType = "service" | "node" | "role";

/** A stored binding rule. */
export interface BindingRuleRecord {
  id: string;
  description: string;
  authMethod: string;
  selector: string;
  bindType: BindType;
  bindName: string;
  namespace: string;
  createIndex: number;
  modifyIndex: number;
}

/** An enterprise namespace (a scenario fixture). */
export interface NamespaceRecord {
  name: string;
  description: string;
  /** Policy IDs every token of the namespace gets (`NamespaceDefaultPolicies`). */
  defaultPolicies: string[];
  /** Role IDs every token of the namespace gets (`NamespaceDefaultRoles`). */
  defaultRoles: string[];
}

/** Settings of the simulated service (change them through the scenario's `configure`). */
export interface AccessControlSettings {
  /** Enterprise namespaces (spec "(enterprise)" fields, `ns`, namespace selection). Default false. */
  namespaces: boolean;
  /** The datacenter this service runs in (node identities bound at login use it). Default `dc1`. */
  localDatacenter: string;
  /** Every known datacenter. Default `["dc1"]`. */
  datacenters: string[];
  /** What a token may do where no policy rule says (`AgentACLDefaultPolicy`). Default `deny`. */
  defaultPolicy: "allow" | "deny";
  /** `AgentACLDownPolicy` in expanded reads. Default `extend-cache`. */
  downPolicy: string;
  /** `ResolvedByAgent` in expanded reads. Default `server-1`. */
  agentName: string;
  /** Shortest allowed token lifetime, ms. Default 1 minute (spec Limits). */
  minExpirationTtlMs: number;
  /** Longest allowed token lifetime, ms. Default 24 hours (spec Limits). */
  maxExpirationTtlMs: number;
}

/** The whole access-control state. */
export interface AccessControlState {
  settings: AccessControlSettings;
  /** The one monotonically increasing index behind every CreateIndex and ModifyIndex. */
  index: number;
  tokens: Dict<TokenRecord>;
  /** SecretID -> AccessorID. */
  secrets: Dict<string>;
  policies: Dict<PolicyRecord>;
  roles: Dict<RoleRecord>;
  /** Keyed by `<namespace>/<name>`. */
  authMethods: Dict<AuthMethodRecord>;
  bindingRules: Dict<BindingRuleRecord>;
  namespaces: Dict<NamespaceRecord>;
  /** Scheduled expiry move per AccessorID. */
  expiryMoves: Dict<number>;
  /** The bootstrap token's ids (global-management). */
  bootstrap: { accessorId: string; secretId: string };
  /**
   * ACL bootstrap: the index of the last bootstrap (the real service's "reset index"), and whether
   * `PUT /acl/bootstrap` is allowed once more (a reset, as the real service's reset file allows).
   */
  bootstrapState: { resetIndex: number; allowed: boolean };
}

/** Service name in the simulator and in errors. */
export const ACCESS_CONTROL = "access-control";

/** FIDELITY.md: the anonymous token's AccessorID. */
export const ANONYMOUS_ACCESSOR_ID = "00000000-0000-0000-0000-000000000002";
/** FIDELITY.md: the anonymous token's SecretID. */
export const ANONYMOUS_SECRET_ID = "anonymous";
/** FIDELITY.md: the `global-management` policy's ID. */
export const GLOBAL_MANAGEMENT_POLICY_ID = "00000000-0000-0000-0000-000000000001";
/** UUIDs starting with this are reserved for built-ins. */
export const RESERVED_ID_PREFIX = "00000000-0000-0000-0000-0000000000";
/** What a caller with only `acl:read` sees instead of a SecretID. */
export const HIDDEN_SECRET = "<hidden>";
/** The address `GET /status/leader` answers: the one simulated server, always the leader (the real default RPC port). */
export const LEADER_ADDRESS = "127.0.0.1:8300";
/** The namespace everything lives in without the enterprise option. */
export const DEFAULT_NAMESPACE = "default";

/** Rules of the built-in `global-management` policy. */
export const GLOBAL_MANAGEMENT_RULES = `acl = "write"
agent_prefix "" {
  policy = "write"
}
event_prefix "" {
  policy = "write"
}
key_prefix "" {
  policy = "write"
}
keyring = "write"
node_prefix "" {
  policy = "write"
}
operator = "write"
query_prefix "" {
  policy = "write"
}
service_prefix "" {
  policy = "write"
  intentions = "write"
}
session_prefix "" {
  policy = "write"
}`;

/**
 * The default settings.
 * @example defaultSettings().maxExpirationTtlMs // 86_400_000
 */
export function defaultSettings(): AccessControlSettings {
  return {
    namespaces: false,
    localDatacenter: "dc1",
    datacenters: ["dc1"],
    defaultPolicy: "deny",
    downPolicy: "extend-cache",
    agentName: "server-1",
    minExpirationTtlMs: 60_000,
    maxExpirationTtlMs: 24 * 3_600_000,
  };
}

/**
 * Key of an auth method in {@link AccessControlState.authMethods}.
 * @example authMethodKey("default", "k8s") // "default/k8s"
 */
export function authMethodKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/**
 * Takes the next index (one per write, like one log entry per change).
 * @example const index = nextIndex(ctx.state) // CreateIndex/ModifyIndex of this write
 */
export function nextIndex(state: AccessControlState): number {
  state.index += 1;
  return state.index;
}
