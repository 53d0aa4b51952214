/**
 * The secrets service's whole state: plain data, journaled by the simulator for transactions and copied for
 * snapshots. Engines keep their own state inside their mount (`mounts[path].engineState`).
 *
 * Spec: secrets.md (all sections).
 */
import type { PolicyRule } from "./policies.js";
import type { ManagedKeyBackends, ManagedKeyRecord } from "./managed-key-types.js";
import type { NodeStatus } from "./node-state.js";
import type { Dict } from "../kernel/dict.js";

/** A token (fixtures only: how tokens are issued is not shown in the spec). */
export interface TokenRecord {
  /** The secret sent in `X-Secrets-Token`. */
  readonly id: string;
  readonly accessor: string;
  readonly displayName: string;
  readonly policies: readonly string[];
  /** Namespace path the token lives in (`""` for root). */
  readonly namespace: string;
  readonly createdAt: number;
  /** ms since the epoch; `null` never expires (the root token). Renewal moves it. */
  expiresAt: number | null;
  /**
   * The parent token's secret: revoking (or the expiry of) the parent ends this token too.
   * Absent or `null`: an orphan (fixtures, the root token, `create-orphan`, `no_parent`).
   */
  parent?: string | null;
  /** Where it was made: `auth/token/create`, `auth/token/create-orphan`, `auth/token/root`. Default `auth/token/create`. */
  readonly path?: string;
  /** Metadata given at creation (`meta`); absent = none (`null` on the wire). */
  readonly meta?: Readonly<Record<string, string>>;
  /** Uses left: absent or 0 unlimited; -1 used up (refused from the request after its last use on). */
  numUses?: number;
  /** Whether `renew` may extend it (default: it expires). A token that never expires is never renewable. */
  readonly renewable?: boolean;
  /** Periodic token: each renewal sets the TTL to this (ms). */
  readonly periodMs?: number;
  /** The token never lives past `createdAt + explicitMaxTtlMs` (ms; absent or 0 = the system maximum). */
  readonly explicitMaxTtlMs?: number;
  /** The TTL it was created with (ms; absent = `expiresAt - createdAt`, 0 when it never expires). */
  readonly creationTtlMs?: number;
  /** When it was last renewed (ms since the epoch). */
  lastRenewal?: number | null;
}

/** A named policy. */
export interface PolicyRecord {
  readonly name: string;
  readonly rules: readonly PolicyRule[];
}

/** A mounted secrets engine. */
export interface MountRecord {
  /** Without leading or trailing slash, e.g. `ssh` or `team-a/ssh`. */
  readonly path: string;
  /** Engine type, e.g. `ssh`, `cloud`. */
  readonly type: string;
  /** Identifies this mounting (a remount at the same path is another mount). */
  readonly uuid: string;
  readonly accessor: string;
  readonly description: string;
  allowedManagedKeys: string[];
  /**
   * The mount's tuned `default_lease_ttl`, ms; 0 or absent = the system default (what
   * `sys/mounts/:path/tune` and `config` at enable set).
   */
  defaultLeaseTtlMs?: number;
  /** The mount's tuned `max_lease_ttl`, ms; 0 or absent = the system maximum. */
  maxLeaseTtlMs?: number;
  /** The engine's own state (plain data). */
  engineState: unknown;
}

/** A lease in the lease table (the mutable form of the engine contract's `Lease`). */
export interface LeaseRecord {
  readonly id: string;
  readonly mount: string;
  /** The mount's uuid when the lease was issued. */
  readonly mountUuid: string;
  readonly kind: string;
  readonly ref: string;
  readonly issuedAt: number;
  expiresAt: number;
  lastRenewal: number | null;
  readonly renewable: boolean;
  /** Renewals never take the lease past this time (ms since the epoch). */
  readonly maxExpiresAt?: number;
  /** The expiry move's id. */
  moveId: number;
}

/**
 * A wrapped response (response wrapping): the answer a request would have given, kept until its
 * wrapping token is unwrapped once or its TTL passes on the simulator clock.
 */
export interface WrappingRecord {
  /** The wrapping token (`s.` and 24 base62 characters). */
  readonly token: string;
  readonly accessor: string;
  /** ms. */
  readonly ttlMs: number;
  /** ms since the epoch. */
  readonly createdAt: number;
  readonly expiresAt: number;
  /** The request path that was wrapped, relative to the namespace, e.g. `ssh/creds/otp-role`. */
  readonly creationPath: string;
  /** The accessor of a wrapped token (an `auth` answer), else `""`. */
  readonly wrappedAccessor: string;
  /** The namespace path the wrapping was made in (`""` for root). */
  readonly namespace: string;
  /** The wrapped answer's JSON body, as it would have been sent. */
  readonly body: string;
  /** The expiry move's id. */
  moveId: number;
}

/** A namespace (enterprise); the root namespace has path `""` and id `root`. */
export interface NamespaceRecord {
  /** e.g. `ns1/` or `ns1/ns2/` (trailing slash, as the real service writes it); `""` for root. */
  readonly path: string;
  readonly id: string;
}

/** An MFA method (fixture; its record is not shown in the spec). */
export interface MfaMethodRecord {
  readonly id: string;
  /** `totp`, `duo`, `okta`, `pingid`. */
  readonly type: string;
  readonly name: string;
  readonly namespace: string;
}

/** An auth method mount (fixture), known by its accessor. */
export interface AuthMountRecord {
  readonly accessor: string;
  readonly path: string;
  readonly type: string;
  readonly namespace: string;
}

/** An identity group or entity (fixture). */
export interface IdentityRecord {
  readonly id: string;
  readonly name: string;
  readonly namespace: string;
}

/** An MFA login enforcement. */
export interface LoginEnforcementRecord {
  readonly id: string;
  readonly name: string;
  readonly namespaceId: string;
  /** The namespace path it was written in. */
  readonly namespace: string;
  mfaMethodIds: string[];
  authMethodAccessors: string[];
  authMethodTypes: string[];
  identityGroupIds: string[];
  identityEntityIds: string[];
}

/** The secrets service state. */
export interface SecretsState {
  node: NodeStatus;
  /** By token secret. */
  tokens: Dict<TokenRecord>;
  /** The root token's secret. */
  rootToken: string;
  policies: Dict<PolicyRecord>;
  /** By mount path. */
  mounts: Dict<MountRecord>;
  leases: Dict<LeaseRecord>;
  /** By name (unique across backend types). */
  managedKeys: Dict<ManagedKeyRecord>;
  /** The simulated HSMs and cloud key services behind managed keys. */
  backends: ManagedKeyBackends;
  /** By namespace path. */
  namespaces: Dict<NamespaceRecord>;
  mfaMethods: Dict<MfaMethodRecord>;
  authMounts: Dict<AuthMountRecord>;
  identityGroups: Dict<IdentityRecord>;
  identityEntities: Dict<IdentityRecord>;
  /** By `<namespace path>|<name>`. */
  loginEnforcements: Dict<LoginEnforcementRecord>;
  /** Wrapped responses, by wrapping token. */
  wrappings: Dict<WrappingRecord>;
  /** Counts successful writes (the health endpoint's `last_wal`). */
  writeIndex: number;
}
