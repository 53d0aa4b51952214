/**
 * The secrets service's scenario controls: tokens, policies, mounts, node state (health),
 * namespaces, the simulated key backends behind managed keys, MFA fixtures, leases, and direct
 * access to an engine's mount state for the engines' own scenario helpers.
 *
 * Spec: secrets.md (fixtures for what the spec leaves "not shown": how tokens are issued, MFA
 * method records, node state transitions).
 */
import { MAX_GO_DURATION_MS, MAX_GO_DURATION_TEXT, parseDuration, type Duration } from "../../simulator/kernel/duration.js";
import { UsageError, isDomainError } from "../../simulator/kernel/errors.js";
import type { OperationContext, ReadContext, Simulator } from "../../simulator/kernel/simulator.js";
import type { EngineContext, Lease } from "../../simulator/secrets/engine.js";
import { endLease, engineContext, engineReadContext } from "../../simulator/secrets/engine-runtime.js";
import { SECRETS_ENGINES, type EngineRegistry } from "../../simulator/secrets/engines.js";
import { SECRETS } from "../../simulator/secrets/errors.js";
import { addAuthMount, addIdentityEntity, addIdentityGroup, addMfaMethod } from "../../simulator/secrets/identity.js";
import { toLease } from "../../simulator/secrets/leases.js";
import { materialFromPem, generateKey, type KeySpec } from "../../simulator/secrets/managed-key-crypto.js";
import { MANAGED_KEY_TYPES, type ManagedKeyBackends, type ManagedKeyParam, type ManagedKeyRecord, type ManagedKeyType } from "../../simulator/secrets/managed-key-types.js";
import { managedKeyView, TYPE_FIELDS, writeManagedKey } from "../../simulator/secrets/managed-keys.js";
import { viewOf as loginEnforcementView, writeLoginEnforcement, type LoginEnforcementView } from "../../simulator/secrets/login-enforcement.js";
import { mountEngine, normalizeMountPath, setAllowedManagedKeys, tuneMountTtls, unmountEngine } from "../../simulator/secrets/mounts.js";
import { createNamespace } from "../../simulator/secrets/namespaces.js";
import { toNodeState, type NodeState, type NodeStateOptions } from "../../simulator/secrets/node-state.js";
import { parsePolicyRules, type PolicyRule } from "../../simulator/secrets/policies.js";
import type { SecretsState } from "../../simulator/secrets/state.js";
import { revokeTokenTree } from "../../simulator/secrets/token-store.js";
import { createToken, normalizeNamespace, type TokenInput } from "../../simulator/secrets/tokens.js";

/** A token fixture as a test uses it. */
export interface SecretsToken {
  /** The secret to send in `X-Secrets-Token`. */
  readonly token: string;
  readonly accessor: string;
  readonly policies: readonly string[];
}

/** Options of {@link SecretsScenario.createToken}. */
export interface CreateTokenOptions {
  /** Policy names (create them with {@link SecretsScenario.createPolicy}). */
  readonly policies?: readonly string[];
  readonly displayName?: string;
  /** Lifetime: ms or a duration string (`"1h"`); default: never expires. */
  readonly ttl?: Duration;
  /** Namespace path (`"ns1"`); default root. */
  readonly namespace?: string;
  /** Leave out the built-in `default` policy. */
  readonly noDefaultPolicy?: boolean;
  /** A fixed secret instead of a seeded one. */
  readonly id?: string;
  /** Uses before the token is used up (every authenticated request takes one); default unlimited. */
  readonly numUses?: number;
  /** Whether `auth/token/renew-self` may extend it; default: it has a `ttl`. */
  readonly renewable?: boolean;
  /** Metadata `auth/token/lookup-self` shows (`meta`). */
  readonly meta?: Readonly<Record<string, string>>;
  /** The parent token's secret: the token is revoked with it (and ends when it expires). Default: an orphan. */
  readonly parent?: string;
}

/** A mount as {@link SecretsScenario.mounts} lists it. */
export interface MountView {
  readonly path: string;
  readonly type: string;
  readonly description: string;
  readonly allowedManagedKeys: readonly string[];
}

/**
 * A managed key's settings (for {@link SecretsScenario.writeManagedKey}): the flags every type
 * takes, and the type's own parameters under their spec names (`library`, `key_label`,
 * `mechanism`, `pin`, `slot` for `pkcs11`; `kms_key`, `key_type`, `key_bits` for `kmsa`; ...).
 */
export interface ManagedKeyOptions {
  readonly allowGenerateKey?: boolean;
  readonly allowReplaceKey?: boolean;
  readonly allowStoreKey?: boolean;
  readonly anyMount?: boolean;
  /** Default `["sign", "verify"]`. */
  readonly usages?: readonly string[];
  /** The type's parameters by their spec names. */
  readonly parameters?: Readonly<Record<string, string | number | boolean>>;
}

/** An MFA login enforcement (for {@link SecretsScenario.writeLoginEnforcement}): ids and accessors as the API takes them. */
export interface LoginEnforcementOptions {
  readonly name: string;
  /** Namespace path (`"ns1"`); default root. */
  readonly namespace?: string;
  readonly mfaMethodIds: readonly string[];
  readonly authMethodAccessors?: readonly string[];
  readonly authMethodTypes?: readonly string[];
  readonly identityGroupIds?: readonly string[];
  readonly identityEntityIds?: readonly string[];
}

/** A key a simulated backend holds (for {@link SecretsScenario.addBackendKey}). */
export type BackendKeyInput =
  | { readonly type: "pkcs11"; readonly library: string; readonly slot?: string; readonly tokenLabel?: string; readonly keyId?: string; readonly keyLabel?: string }
  | { readonly type: "kmsa"; readonly kmsKey: string; readonly region?: string }
  | { readonly type: "kmsb"; readonly vaultName: string; readonly keyName: string }
  | { readonly type: "kmsc"; readonly project: string; readonly region: string; readonly keyRing: string; readonly cryptoKey: string; readonly cryptoKeyVersion?: string };

function backendRefOf(input: BackendKeyInput): string {
  switch (input.type) {
    case "pkcs11": {
      if (input.slot === undefined && input.tokenLabel === undefined) throw new UsageError("secrets: a pkcs11 key needs slot or tokenLabel");
      if (input.keyId === undefined && input.keyLabel === undefined) throw new UsageError("secrets: a pkcs11 key needs keyId or keyLabel");
      const token = input.slot !== undefined ? `slot=${input.slot}` : `token=${input.tokenLabel ?? ""}`;
      const key = input.keyId !== undefined ? `id=${input.keyId}` : `label=${input.keyLabel ?? ""}`;
      return `pkcs11:${input.library}:${token}:${key}`;
    }
    case "kmsa":
      return `kmsa:${input.region ?? "us-east-1"}:${input.kmsKey}`;
    case "kmsb":
      return `kmsb:${input.vaultName}:${input.keyName}`;
    case "kmsc":
      return `kmsc:${input.project}/${input.region}/${input.keyRing}:${input.cryptoKey}:${input.cryptoKeyVersion ?? "1"}`;
  }
}

/**
 * Scenario controls of the secrets service (`doubles.secrets`).
 *
 * @example
 * const doubles = createDoubles();
 * doubles.secrets.createPolicy("ssh-user", 'path "ssh/creds/*" { capabilities = ["update"] }');
 * const { token } = doubles.secrets.createToken({ policies: ["ssh-user"] });
 */
export class SecretsScenario {
  constructor(
    /** The simulator the service runs in. */
    readonly sim: Simulator,
    private readonly engines: EngineRegistry = SECRETS_ENGINES,
  ) {}

  private update<R>(fn: (ctx: OperationContext<SecretsState>) => R): R {
    try {
      return this.sim.update<SecretsState, R>(SECRETS, fn);
    } catch (error) {
      if (isDomainError(error)) throw new UsageError(`secrets: ${error.detail || error.message}`);
      throw error;
    }
  }

  private read<R>(fn: (ctx: ReadContext<SecretsState>) => R): R {
    return this.sim.read<SecretsState, R>(SECRETS, fn);
  }

  /**
   * The root token's secret (may do everything; seeded unless the plugin fixes it).
   * @example await fetch(`${base}/ssh/roles?list=true`, { headers: { "x-secrets-token": doubles.secrets.rootToken } })
   */
  get rootToken(): string {
    return this.read((ctx) => ctx.state.rootToken);
  }

  /**
   * Creates a token.
   * @example const { token } = doubles.secrets.createToken({ policies: ["reader"], ttl: "1h" });
   * @throws {UsageError} for a bad ttl, an `id` already in use, a negative `numUses`, or a `parent` that is no token.
   */
  createToken(options: CreateTokenOptions = {}): SecretsToken {
    const input: TokenInput = {
      ...(options.policies ? { policies: options.policies } : {}),
      ...(options.displayName !== undefined ? { displayName: options.displayName } : {}),
      ...(options.ttl !== undefined ? { ttlMs: toMs(options.ttl) } : {}),
      ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
      ...(options.noDefaultPolicy ? { noDefaultPolicy: true } : {}),
      ...(options.id !== undefined ? { id: options.id } : {}),
      ...(options.numUses !== undefined ? { numUses: options.numUses } : {}),
      ...(options.renewable !== undefined ? { renewable: options.renewable } : {}),
      ...(options.meta !== undefined ? { meta: options.meta } : {}),
      ...(options.parent !== undefined ? { parent: options.parent } : {}),
    };
    const record = this.update((ctx) => createToken(ctx, input));
    return { token: record.id, accessor: record.accessor, policies: record.policies };
  }

  /**
   * Revokes a token and the tokens made from it (`auth/token/create` children, and theirs), as
   * `auth/token/revoke` does: requests with them get 403 `permission denied`. Unknown tokens are ignored.
   * @example doubles.secrets.revokeToken(token);
   */
  revokeToken(token: string): void {
    this.update((ctx) => {
      revokeTokenTree(ctx, token);
    });
  }

  /**
   * Creates or replaces a policy: HCL text (`path "ssh/*" { capabilities = ["read"] }`), a map
   * of path to capabilities, or a rule list. Paths may end in `*` and use `+` for one segment.
   * @throws {UsageError} for an unknown capability, a `*` not at the end, unreadable text, or the name `root`.
   * @example doubles.secrets.createPolicy("signer", { "ssh/sign/*": ["create", "update"], "ssh/roles": ["list"] });
   */
  createPolicy(name: string, rules: string | Readonly<Record<string, readonly string[]>> | readonly PolicyRule[]): void {
    if (name === "root") throw new UsageError('secrets: the "root" policy is built in');
    const parsed = parsePolicyRules(rules);
    this.update((ctx) => {
      ctx.state.policies[name] = { name, rules: parsed };
    });
  }

  /**
   * Deletes a policy (tokens naming it lose what it granted).
   * @example doubles.secrets.deletePolicy("signer");
   */
  deletePolicy(name: string): void {
    this.update((ctx) => {
      delete ctx.state.policies[name];
    });
  }

  /**
   * Mounts an engine at `path` (`"ssh-prod"`, `"team-a/cloud"`).
   * @param options.allowedManagedKeys - managed key names the mount may use (its `allowed_managed_keys`).
   * @param options.defaultLeaseTtl - the mount's `default_lease_ttl` (a duration string or ms): its new
   *   leases last this long when their engine asks for no TTL (default: the system's 768h).
   * @param options.maxLeaseTtl - the mount's `max_lease_ttl`: no new lease lasts longer (bounded by 768h).
   * @throws {UsageError} for an unknown type, a reserved path, a path in use, or a default above the max.
   * @example doubles.secrets.mount("ssh-prod", "ssh", { allowedManagedKeys: ["hsm-key"] }) // { path: "ssh-prod", type: "ssh", ... }
   * @example doubles.secrets.mount("ssh-short", "ssh", { defaultLeaseTtl: "30m", maxLeaseTtl: "1h" })
   */
  mount(path: string, type: string, options: { description?: string; allowedManagedKeys?: readonly string[]; defaultLeaseTtl?: Duration; maxLeaseTtl?: Duration } = {}): MountView {
    const { defaultLeaseTtl, maxLeaseTtl, ...rest } = options;
    const ttls = { ...(defaultLeaseTtl !== undefined ? { defaultLeaseTtlMs: toMs(defaultLeaseTtl) } : {}), ...(maxLeaseTtl !== undefined ? { maxLeaseTtlMs: toMs(maxLeaseTtl) } : {}) };
    const record = this.update((ctx) => mountEngine(ctx, this.engines, { path, type, ...rest, ...ttls }));
    return viewOfMount(record);
  }

  /**
   * Tunes a mount's lease TTLs, as `POST /sys/mounts/<path>/tune` does: its new leases carry them
   * (bounded by the system max, 768h); leases already issued keep theirs. `"system"` goes back to
   * the system's; an omitted one is unchanged.
   * @throws {UsageError} when nothing is mounted there, or for a default above the max (the real
   *   service's message).
   * @example doubles.secrets.tuneMount("ssh", { defaultLeaseTtl: "1h", maxLeaseTtl: "2h" });
   */
  tuneMount(path: string, options: { defaultLeaseTtl?: Duration | "system"; maxLeaseTtl?: Duration | "system" }): void {
    const ms = (value: Duration | "system" | undefined): number | undefined => (value === undefined ? undefined : value === "system" ? 0 : toMs(value));
    const defaultLeaseTtlMs = ms(options.defaultLeaseTtl);
    const maxLeaseTtlMs = ms(options.maxLeaseTtl);
    this.update((ctx) => tuneMountTtls(ctx, path, { ...(defaultLeaseTtlMs !== undefined ? { defaultLeaseTtlMs } : {}), ...(maxLeaseTtlMs !== undefined ? { maxLeaseTtlMs } : {}) }));
  }

  /**
   * Unmounts (its leases are revoked, and what died with them is gone).
   * @throws {UsageError} when nothing is mounted there.
   * @example doubles.secrets.unmount("ssh-prod");
   */
  unmount(path: string): void {
    this.update((ctx) => unmountEngine(ctx, this.engines, path));
  }

  /**
   * Sets a mount's `allowed_managed_keys` (a managed key listed there cannot be deleted).
   * @throws {UsageError} when nothing is mounted there.
   * @example doubles.secrets.setAllowedManagedKeys("ssh", ["hsm-key"]);
   */
  setAllowedManagedKeys(path: string, keys: readonly string[]): void {
    this.update((ctx) => setAllowedManagedKeys(ctx, path, keys));
  }

  /**
   * Every mount, sorted by path.
   * @example doubles.secrets.mounts().map((m) => m.path) // ["cloud", "ssh"]
   */
  mounts(): MountView[] {
    return this.read((ctx) => Object.values(ctx.state.mounts).map(viewOfMount).sort((a, b) => a.path.localeCompare(b.path)));
  }

  /**
   * Sets the node's state (health codes; sealed and uninitialized nodes answer 503 elsewhere, DR
   * secondaries 400).
   * @param state - `active`, `standby`, `performance-standby`, `dr-secondary-active`,
   *   `dr-secondary-standby`, `not-initialized` or `sealed`.
   * @example doubles.secrets.setNodeState("sealed");
   */
  setNodeState(state: NodeState, options: NodeStateOptions = {}): void {
    const checked = toNodeState(state);
    this.update((ctx) => {
      const node = ctx.state.node;
      node.state = checked;
      if (options.unstable !== undefined) node.unstable = options.unstable;
      if (options.version !== undefined) node.version = options.version;
      if (options.clusterName !== undefined) node.clusterName = options.clusterName;
      if (options.replicationPerformanceMode !== undefined) node.replicationPerformanceMode = options.replicationPerformanceMode;
      if (options.license !== undefined) node.license = options.license === null ? null : { ...options.license };
    });
  }

  /**
   * The node's state.
   * @example doubles.secrets.nodeState // "active"
   */
  get nodeState(): NodeState {
    return this.read((ctx) => ctx.state.node.state);
  }

  /**
   * Creates a namespace (and its parents): `"ns1"` or `"ns1/ns2"`. Returns its id (5 base62 characters).
   * Requests pick it with `X-Secrets-Namespace` or a path prefix (`/v1/ns1/...`).
   * @throws {UsageError} for the root namespace.
   * @example const id = doubles.secrets.createNamespace("ns1");
   */
  createNamespace(path: string): string {
    return this.update((ctx) => createNamespace(ctx, path)).id;
  }

  /**
   * Puts a key into a simulated backend (an HSM slot, a cloud key): from a PEM private key, or
   * generated from the seed. Managed keys pointing there use it for test-sign.
   * @throws {UsageError} for a `pkcs11` place without slot/token label or key id/label.
   * @example doubles.secrets.addBackendKey({ type: "kmsa", kmsKey: "alias/signing" }, { algorithm: "ec", curve: "P256" });
   */
  addBackendKey(where: BackendKeyInput, key: KeySpec | { readonly pem: string }): void {
    const ref = backendRefOf(where);
    this.update((ctx) => {
      const material = "pem" in key ? materialFromPem(key.pem) : generateKey(ctx.ids.bytes(32), key);
      ctx.state.backends.keys[ref] = { ref, material, createdAt: ctx.now, origin: "fixture" };
    });
  }

  /**
   * Whether a backend holds a key there (e.g. after a test-sign generated it).
   * @example doubles.secrets.hasBackendKey({ type: "kmsa", kmsKey: "alias/signing" }) // true after a generating test-sign
   */
  hasBackendKey(where: BackendKeyInput): boolean {
    const ref = backendRefOf(where);
    return this.read((ctx) => ctx.state.backends.keys[ref] !== undefined);
  }

  /**
   * Creates a `kmsc` key ring (spec: it "must exist beforehand").
   * @example doubles.secrets.addKeyRing("my-project", "europe-west1", "ring");
   */
  addKeyRing(project: string, region: string, keyRing: string): void {
    this.update((ctx) => {
      const ref = `${project}/${region}/${keyRing}`;
      if (!ctx.state.backends.keyRings.includes(ref)) ctx.state.backends.keyRings.push(ref);
    });
  }

  /**
   * Adds a `pkcs11` library stanza to the server configuration (`hsm` exists by default).
   * @example doubles.secrets.addPkcs11Library("softhsm");
   */
  addPkcs11Library(name: string): void {
    this.update((ctx) => {
      if (!ctx.state.backends.pkcs11Libraries.includes(name)) ctx.state.backends.pkcs11Libraries.push(name);
    });
  }

  /**
   * Sets what the server environment provides when managed-key requests leave it out: `kmsa`
   * credentials and region, a `kmsb` managed identity, `kmsc` credentials. Replaces the previous set.
   * @example doubles.secrets.setServerEnvironment({ kmsaAccessKey: "AKIA...", kmsaSecretKey: "...", kmsaRegion: "eu-west-1" });
   */
  setServerEnvironment(environment: ManagedKeyBackends["environment"]): void {
    this.update((ctx) => {
      ctx.state.backends.environment = { ...environment };
    });
  }

  /**
   * Creates or updates a managed key (`sys/managed-keys/:type/:name`, root namespace) with the
   * service's own rules: required parameters per type, the backend's library stanza or key ring
   * must exist, a `key_id` must name a key the HSM holds (see {@link SecretsScenario.addBackendKey}).
   * @returns the key's read form (`pin` reads `redacted`; secret keys left out).
   * @throws {UsageError} for an unknown type or parameter, a value of the wrong kind, or what the
   *   service refuses (e.g. `one of key_label or key_id is required`).
   * @example
   * doubles.secrets.writeManagedKey("pkcs11", "hsm-key", { allowGenerateKey: true, parameters: { library: "hsm", slot: "0", pin: "1234", key_label: "k", mechanism: "0x0001", key_bits: 2048 } });
   */
  writeManagedKey(type: string, name: string, options: ManagedKeyOptions = {}): Record<string, unknown> {
    if (!(MANAGED_KEY_TYPES as readonly string[]).includes(type)) throw new UsageError(`secrets: unknown managed key type "${type}" (use ${MANAGED_KEY_TYPES.join(", ")})`);
    const fields = TYPE_FIELDS[type as ManagedKeyType];
    const values: Record<string, ManagedKeyParam | readonly string[]> = {};
    for (const [field, value] of Object.entries(options.parameters ?? {})) {
      const kind = fields[field];
      if (kind === undefined) throw new UsageError(`secrets: ${type} managed keys have no parameter "${field}" (use ${Object.keys(fields).join(", ")})`);
      const ok = kind === "int" ? Number.isInteger(value) : kind === "bool" ? typeof value === "boolean" : typeof value === "string";
      if (!ok) throw new UsageError(`secrets: managed key parameter "${field}" must be ${kind === "int" ? "an integer" : kind === "bool" ? "a boolean" : "a string"}`);
      values[field] = value;
    }
    const flags = { allow_generate_key: options.allowGenerateKey, allow_replace_key: options.allowReplaceKey, allow_store_key: options.allowStoreKey, any_mount: options.anyMount };
    for (const [field, value] of Object.entries(flags)) if (value !== undefined) values[field] = value;
    if (options.usages !== undefined) values.usages = [...options.usages];
    return this.update((ctx) => managedKeyView(writeManagedKey(ctx, type as ManagedKeyType, name, values)));
  }

  /**
   * Creates or updates an MFA login enforcement with the service's own rules (its methods must
   * exist in the namespace or a parent; at least one of the four target lists).
   * @returns its read form (wire names: `id`, `mfa_method_ids`, ...).
   * @throws {UsageError} for an unknown namespace, method, accessor, type, group or entity, with the
   *   service's message (e.g. `one of the provided method ids doesn't exist`).
   * @example
   * const totp = doubles.secrets.addMfaMethod("totp");
   * doubles.secrets.writeLoginEnforcement({ name: "everyone", mfaMethodIds: [totp], authMethodTypes: ["userpass"] });
   */
  writeLoginEnforcement(options: LoginEnforcementOptions): LoginEnforcementView {
    const { namespace, ...input } = options;
    return this.update((ctx) => {
      const path = normalizeNamespace(namespace ?? "");
      if (path !== "" && ctx.state.namespaces[path] === undefined) throw new UsageError(`secrets: no namespace "${namespace ?? ""}" (create it first)`);
      return loginEnforcementView(writeLoginEnforcement(ctx, path, input));
    });
  }

  /**
   * An MFA login enforcement's read form (wire names), or undefined.
   * @example doubles.secrets.loginEnforcement("everyone")?.mfa_method_ids // [totp]
   */
  loginEnforcement(name: string, namespace?: string): LoginEnforcementView | undefined {
    const path = normalizeNamespace(namespace ?? "");
    return this.read((ctx) => {
      const record = ctx.state.loginEnforcements[`${path}|${name}`];
      return record === undefined ? undefined : loginEnforcementView(record);
    });
  }

  /**
   * A managed key as stored (secrets included), for assertions; undefined when absent.
   * @example doubles.secrets.managedKey("hsm-key")?.params.pin // "1234" (the API reads "redacted")
   */
  managedKey(name: string): ManagedKeyRecord | undefined {
    return this.read((ctx) => structuredClone(ctx.state.managedKeys[name]));
  }

  /**
   * Adds an MFA method (`totp`, `duo`, `okta`, `pingid`); returns its id (a seeded UUID).
   * @throws {UsageError} for an unknown type or namespace.
   * @example const totp = doubles.secrets.addMfaMethod("totp");
   */
  addMfaMethod(type: string, options: { name?: string; namespace?: string; id?: string } = {}): string {
    return this.update((ctx) => addMfaMethod(ctx, { type, ...options })).id;
  }

  /**
   * Adds an auth method mount; returns its accessor (`auth_<type>_<8 hex>`).
   * @throws {UsageError} for an unknown namespace.
   * @example const accessor = doubles.secrets.addAuthMount("userpass");
   */
  addAuthMount(type: string, options: { path?: string; namespace?: string; accessor?: string } = {}): string {
    return this.update((ctx) => addAuthMount(ctx, { type, ...options })).accessor;
  }

  /**
   * Adds an identity group; returns its id (a seeded UUID).
   * @throws {UsageError} for an unknown namespace.
   * @example const group = doubles.secrets.addIdentityGroup("admins");
   */
  addIdentityGroup(name: string, options: { namespace?: string; id?: string } = {}): string {
    return this.update((ctx) => addIdentityGroup(ctx, { name, ...options })).id;
  }

  /**
   * Adds an identity entity; returns its id (a seeded UUID).
   * @throws {UsageError} for an unknown namespace.
   * @example const entity = doubles.secrets.addIdentityEntity("alice");
   */
  addIdentityEntity(name: string, options: { namespace?: string; id?: string } = {}): string {
    return this.update((ctx) => addIdentityEntity(ctx, { name, ...options })).id;
  }

  /**
   * Live leases (optionally of one mount), oldest first; `issuedAt`/`expiresAt` in ms since the epoch.
   * @example doubles.secrets.leases("ssh").map((l) => l.id) // ["ssh/creds/otp-role/..."]
   */
  leases(mountPath?: string): Lease[] {
    const mount = mountPath === undefined ? undefined : normalizeMountPath(mountPath);
    return this.read((ctx) =>
      Object.values(ctx.state.leases)
        .filter((lease) => mount === undefined || lease.mount === mount)
        .sort((a, b) => a.issuedAt - b.issuedAt || a.id.localeCompare(b.id))
        .map(toLease),
    );
  }

  /**
   * Ends a lease now (what dies with it is gone). Returns whether it existed.
   * @example doubles.secrets.revokeLease(body.lease_id) // true; the OTP no longer verifies
   */
  revokeLease(leaseId: string): boolean {
    return this.update((ctx) => endLease(ctx, this.engines, leaseId));
  }

  /**
   * Runs a change on an engine's mount state, transactional like a request (for the engines'
   * scenario helpers, e.g. creating SSH roles).
   * @throws {UsageError} when nothing is mounted at `mountPath`, or the change fails.
   * @example doubles.secrets.updateMount<SshMountState, void>("ssh", (ctx) => { ctx.mount.otpTtlMs = 60_000; });
   */
  updateMount<M, R>(mountPath: string, fn: (ctx: EngineContext<M>) => R): R {
    const path = normalizeMountPath(mountPath);
    return this.update((ctx) => fn(engineContext<M>(ctx, this.engines, path, undefined)));
  }

  /**
   * Reads an engine's mount state (read-only: drawing ids or issuing leases throws).
   * @throws {UsageError} when nothing is mounted at `mountPath`.
   * @example doubles.secrets.readMount<SshMountState, string[]>("ssh", (ctx) => Object.keys(ctx.mount.roles))
   */
  readMount<M, R>(mountPath: string, fn: (ctx: EngineContext<M>) => R): R {
    const path = normalizeMountPath(mountPath);
    try {
      return this.read((ctx) => fn(engineReadContext<M>(ctx, path, undefined)));
    } catch (error) {
      if (isDomainError(error)) throw new UsageError(`secrets: nothing is mounted at "${path}"`);
      throw error;
    }
  }
}

function viewOfMount(record: { path: string; type: string; description: string; allowedManagedKeys: readonly string[] }): MountView {
  return { path: record.path, type: record.type, description: record.description, allowedManagedKeys: [...record.allowedManagedKeys] };
}

/** A duration in ms; a number beyond Go's longest duration is refused as its string would be. */
function toMs(duration: Duration): number {
  let ms: number;
  try {
    ms = parseDuration(duration);
  } catch {
    throw new UsageError(`secrets: not a duration: ${JSON.stringify(duration)}`);
  }
  if (Math.abs(ms) > MAX_GO_DURATION_MS) throw new UsageError(`secrets: not a duration: ${JSON.stringify(duration)} (longer than Go's longest, ${MAX_GO_DURATION_TEXT})`);
  return ms;
}
