/**
 * The contract between the secrets service core (tokens, policies, mounts, leases) and its secrets
 * engines (SSH at `/ssh`, cloud credentials at `/cloud`, or wherever a scenario mounts them).
 *
 * The core owns: mounts (path -> engine type + the engine's mount state + `allowed_managed_keys`),
 * tokens and path policies, the lease table and lease expiry on the simulator clock. An engine owns
 * the state inside its mount and the rules of its endpoints.
 */
import type { ServiceLimit } from "../kernel/limits.js";
import type { IdSource } from "../kernel/ids.js";
import type { MovePayload } from "../kernel/scheduler.js";

/** Policy capabilities (spec: Authentication; FIDELITY.md "Secrets"). */
export type Capability = "create" | "read" | "update" | "delete" | "list" | "sudo" | "deny";

/** A lease: something issued for a time, revoked when the simulator clock passes `expiresAt`. */
export interface Lease {
  /** e.g. `ssh/creds/otp-role/<random>`. */
  readonly id: string;
  /** The mount path without slashes, e.g. `ssh`. */
  readonly mount: string;
  /** What the engine issued, e.g. `otp`, `iam_user`; engines read it in {@link SecretsEngine.onLeaseEnd}. */
  readonly kind: string;
  /** The engine's own reference to the issued thing (an OTP key, an access key id...). */
  readonly ref: string;
  /** ms since the epoch. */
  readonly issuedAt: number;
  /** ms since the epoch. */
  readonly expiresAt: number;
  readonly renewable: boolean;
}

/** Who is calling, as the core resolved it from `X-Secrets-Token` (absent on unauthenticated endpoints). */
export interface Caller {
  readonly tokenId: string;
  /** The token's display name (the SSH engine's default certificate key id). */
  readonly displayName: string;
  readonly policies: readonly string[];
  readonly isRoot: boolean;
  /** Capabilities this caller holds on a path relative to the API base, e.g. `ssh/sign/ca-role`. */
  capabilities(path: string): ReadonlySet<Capability>;
}

/** What an engine operation sees. Mutations of `mount` are transactional with the request. */
export interface EngineContext<MountState> {
  /** Simulator time, ms since the epoch. */
  readonly now: number;
  readonly ids: IdSource;
  /** Mount path without slashes, e.g. `ssh`. */
  readonly mountPath: string;
  /** This mount's engine state. */
  readonly mount: MountState;
  readonly caller: Caller | undefined;
  /**
   * Issues a lease ending `ttlMs` from now (0: the mount's default lease TTL; capped by the
   * mount's maximum); its id is `<mountPath>/<idPath>/<random>`. When it
   * ends the core calls the engine's {@link SecretsEngine.onLeaseEnd} and forgets it. `maxTtlMs`
   * caps renewals, counted from issue (default: the system maximum lease TTL).
   */
  issueLease(input: { idPath: string; kind: string; ref: string; ttlMs: number; renewable?: boolean; maxTtlMs?: number }): Lease;
  /** Ends a lease now (calls onLeaseEnd). Returns whether it existed. */
  revokeLease(leaseId: string): boolean;
  /** Schedules a move of this engine on this mount at `at` (ms since the epoch). */
  schedule(at: number, kind: string, payload?: MovePayload): number;
  cancel(moveId: number): boolean;
  /** Names of managed keys this mount may use (its `allowed_managed_keys`). */
  readonly allowedManagedKeys: readonly string[];
  /**
   * This mount's lease TTLs in ms (the real service's per-mount system view): its tuned
   * `default_lease_ttl` and `max_lease_ttl`, else the system's 768h. Leases issued with `ttlMs: 0`
   * get `defaultMs`; no lease passes `maxMs`.
   */
  readonly leaseTtls: { readonly defaultMs: number; readonly maxMs: number };
  /**
   * The value of one of the secrets service's named limits (its definition's `limits` table): the
   * table's value, or the scaled one of a service mutant's simulator. Absent on contexts built by
   * hand: read `limit.value` then.
   * @example const ttl = ctx.limit?.(SECRETS_LIMITS.defaultStsTtl) ?? SECRETS_LIMITS.defaultStsTtl.value;
   */
  readonly limit?: (limit: ServiceLimit) => number;
}

/** A secrets engine type. */
export interface SecretsEngine<MountState> {
  /** The mount type, e.g. `ssh`, `cloud`. */
  readonly type: string;
  initialMountState(): MountState;
  /** Called when one of this mount's leases ends (expiry or revocation): drop what dies with it. */
  onLeaseEnd?(ctx: EngineContext<MountState>, lease: Lease): void;
  /** Timed moves of this engine (e.g. static credential rotation), run with this mount's context. */
  readonly moves?: Readonly<Record<string, (ctx: EngineContext<MountState>, payload: MovePayload) => void>>;
}
