/**
 * `AccessControlScenario`: the remote control tests use for the access-control service. It builds
 * the fixtures the spec leaves to the service's operators (policies, roles, auth methods and the
 * identities they accept, namespaces, datacenters), creates tokens and binding rules without HTTP,
 * logs in, and reads the state back. Every call is one simulator transaction.
 */
import {
  configure,
  createAuthMethod,
  createNamespace,
  createPolicy,
  createRole,
  deleteRole,
  registerBearerToken,
  revokeBearerToken,
  updatePolicy,
  type AuthMethodInput,
  type PolicyInput,
  type RoleInput,
} from "../../simulator/access-control/fixtures.js";
import type { ClaimsInput, ServiceAccountIdentityInput } from "../../simulator/access-control/auth-methods.js";
import { hasAcl, isExpired, liveTokenBySecret, type RequestScope } from "../../simulator/access-control/authorization.js";
import { createBindingRule, type BindingRuleInput } from "../../simulator/access-control/binding-rules.js";
import { bootstrapStatus, resetBootstrap } from "../../simulator/access-control/bootstrap.js";
import type { LinkInput, NodeIdentityInput, ServiceIdentityInput } from "../../simulator/access-control/links.js";
import { evaluateBindings, login, logout, type Bindings } from "../../simulator/access-control/login.js";
import {
  ACCESS_CONTROL,
  ANONYMOUS_ACCESSOR_ID,
  ANONYMOUS_SECRET_ID,
  DEFAULT_NAMESPACE,
  authMethodKey,
  type AccessControlSettings,
  type AccessControlState,
  type AuthMethodRecord,
  type NamespaceRecord,
  type PolicyRecord,
  type RoleRecord,
} from "../../simulator/access-control/state.js";
import { createToken, deleteToken, updateToken, type TokenInput } from "../../simulator/access-control/tokens.js";
import { bindingRuleView, tokenView, type BindingRuleView, type TokenView } from "../../simulator/access-control/views.js";
import { toEpochMs, type Instant } from "../../simulator/kernel/clock.js";
import { parseDuration, type Duration } from "../../simulator/kernel/duration.js";
import { UsageError, isDomainError } from "../../simulator/kernel/errors.js";
import type { OperationContext, Simulator } from "../../simulator/kernel/simulator.js";

/** A token's two ids. */
export interface TokenCredentials {
  readonly accessorId: string;
  readonly secretId: string;
}

/** A policy or role reference: a name, or a link `{ id }` / `{ name }`. */
export type LinkRef = string | LinkInput;

/** A token to create from a scenario (acting as the bootstrap token). */
export interface ScenarioTokenInput {
  readonly description?: string;
  /** Policy names or links, e.g. `["acl-read"]`. */
  readonly policies?: readonly LinkRef[];
  /** Role names or links. */
  readonly roles?: readonly LinkRef[];
  /** Service names or full identities, e.g. `["web"]` or `[{ serviceName: "web", datacenters: ["dc1"] }]`. */
  readonly serviceIdentities?: readonly (string | ServiceIdentityInput)[];
  readonly nodeIdentities?: readonly NodeIdentityInput[];
  readonly local?: boolean;
  /** Lifetime: ms or a duration string (`"5m"`, `"1h30m"`); between 1 minute and 24 hours. */
  readonly expirationTtl?: Duration;
  /** Absolute expiry (a Date, ms since the epoch or an ISO string); between 1 minute and 24 hours ahead. */
  readonly expirationTime?: Instant;
  /** A fixed AccessorID (a UUID outside the reserved prefix). */
  readonly accessorId?: string;
  /** A fixed SecretID (a UUID outside the reserved prefix). */
  readonly secretId?: string;
  /** Enterprise namespace. */
  readonly namespace?: string;
}

/** An auth method to create from a scenario; `maxTokenTtl` takes ms or a duration string. */
export interface ScenarioAuthMethodInput extends Omit<AuthMethodInput, "maxTokenTtlMs"> {
  /** Lifetime of login tokens: ms or a duration string (`"10m"`). Absent: tokens never expire. */
  readonly maxTokenTtl?: Duration;
}

/** A login from a scenario. */
export interface ScenarioLoginInput {
  readonly authMethod: string;
  readonly bearerToken: string;
  readonly meta?: Readonly<Record<string, string>>;
  readonly namespace?: string;
}

function link(ref: LinkRef): LinkInput {
  return typeof ref === "string" ? { name: ref } : ref;
}

/**
 * The access-control scenario controls (`doubles.accessControl`).
 *
 * @example
 * const acl = doubles.accessControl;
 * acl.createPolicy({ name: "acl-read", rules: 'acl = "read"' });
 * const reader = acl.createToken({ policies: ["acl-read"], expirationTtl: "10m" });
 * acl.createAuthMethod({ name: "k8s", type: "kubernetes", maxTokenTtl: "1h" });
 * acl.registerBearerToken("k8s", "jwt-web", { name: "web", namespace: "default" });
 * acl.createBindingRule({ authMethod: "k8s", bindType: "service", bindName: "${serviceaccount.name}" });
 */
export class AccessControlScenario {
  constructor(private readonly sim: Simulator) {}

  /** Runs a scenario change; a rule of the service that refuses it becomes a {@link UsageError}. */
  private update<R>(operation: (ctx: OperationContext<AccessControlState>) => R): R {
    try {
      return this.sim.update<AccessControlState, R>(ACCESS_CONTROL, operation);
    } catch (error) {
      if (isDomainError(error)) throw new UsageError(error.message);
      throw error;
    }
  }

  private state(): Readonly<AccessControlState> {
    return this.sim.read<AccessControlState, Readonly<AccessControlState>>(ACCESS_CONTROL, (ctx) => ctx.state);
  }

  private get operatorScope(): RequestScope {
    return { secret: this.bootstrapToken.secretId };
  }

  /**
   * The bootstrap token (policy `global-management`): use its SecretID as `X-Acl-Token` for full access.
   * @example const { secretId } = acl.bootstrapToken; // send as X-Acl-Token
   */
  get bootstrapToken(): TokenCredentials {
    const { bootstrap } = this.state();
    return { accessorId: bootstrap.accessorId, secretId: bootstrap.secretId };
  }

  /**
   * Allows one more `PUT /acl/bootstrap`, as an operator does on the real service by writing the
   * reset index into its `acl-bootstrap-reset` file. A world starts bootstrapped (its
   * {@link bootstrapToken} counts as the bootstrap), so a second bootstrap is refused with
   * `403 Permission denied: ACL bootstrap no longer allowed (reset index: N)` until this is called.
   * The next bootstrap makes a new management token; tokens made before (the bootstrap token
   * included) stay valid, and {@link bootstrapToken} stays the one the world started with.
   * @returns the reset index (the index of the last bootstrap).
   * @example
   * acl.resetBootstrap(); // 3 in a fresh world
   * const token = await consul.acl.bootstrap(); // token.SecretID: a new management token
   */
  resetBootstrap(): number {
    return this.update((ctx) => resetBootstrap(ctx));
  }

  /**
   * Whether `PUT /acl/bootstrap` would succeed now, and the reset index a refusal reports.
   * @example acl.bootstrapStatus // { allowed: false, resetIndex: 3 }
   */
  get bootstrapStatus(): { readonly allowed: boolean; readonly resetIndex: number } {
    return bootstrapStatus(this.state());
  }

  /**
   * The built-in anonymous token (used when a request presents no token).
   * @example acl.anonymousToken.secretId // "anonymous"
   */
  get anonymousToken(): TokenCredentials {
    return { accessorId: ANONYMOUS_ACCESSOR_ID, secretId: ANONYMOUS_SECRET_ID };
  }

  /**
   * The current settings.
   * @example acl.settings.localDatacenter // "dc1"
   */
  get settings(): AccessControlSettings {
    return structuredClone(this.state().settings);
  }

  /**
   * Changes settings: `namespaces` (enterprise edition), `localDatacenter`, `datacenters`,
   * `defaultPolicy` (`allow`/`deny`), `downPolicy`, `agentName`, token TTL bounds (ms).
   * @throws {DomainError} `invalid` for inconsistent settings.
   * @example acl.configure({ namespaces: true, localDatacenter: "eu-west" });
   */
  configure(changes: Partial<AccessControlSettings>): AccessControlSettings {
    return this.update((ctx) => configure(ctx, changes));
  }

  /**
   * Creates an enterprise namespace, optionally with default policies/roles (names or links in the
   * `default` namespace) that every token of the namespace gets.
   * @throws {DomainError} `invalid` for a duplicate or badly formed name or unknown defaults.
   * @example acl.createNamespace("team-a", { defaultPolicies: ["acl-read"] })
   */
  createNamespace(name: string, options: { description?: string; defaultPolicies?: readonly LinkRef[]; defaultRoles?: readonly LinkRef[] } = {}): NamespaceRecord {
    return this.update((ctx) =>
      createNamespace(ctx, {
        name,
        ...(options.description !== undefined ? { description: options.description } : {}),
        defaultPolicies: (options.defaultPolicies ?? []).map(link),
        defaultRoles: (options.defaultRoles ?? []).map(link),
      }),
    );
  }

  /**
   * Creates a policy. `rules` decide what it grants on the ACL system: `acl = "read"`,
   * `acl = "write"` or `acl = "deny"`.
   * @throws {DomainError} `invalid` for a duplicate name.
   * @example acl.createPolicy({ name: "acl-write", rules: 'acl = "write"' })
   */
  createPolicy(input: PolicyInput): PolicyRecord {
    return this.update((ctx) => createPolicy(ctx, input));
  }

  /**
   * Renames a policy or changes its rules; tokens keep linking it by ID.
   * @example acl.updatePolicy(acl.policy("acl-read")!.id, { name: "acl-readers" })
   */
  updatePolicy(id: string, changes: Partial<Pick<PolicyInput, "name" | "rules" | "description" | "datacenters">>): PolicyRecord {
    return this.update((ctx) => updatePolicy(ctx, id, changes));
  }

  /**
   * Creates a role (policies by name or link, service and node identities).
   * @example acl.createRole({ name: "readers", policies: [{ name: "acl-read" }] })
   */
  createRole(input: Omit<RoleInput, "policies"> & { policies?: readonly LinkRef[] }): RoleRecord {
    return this.update((ctx) => createRole(ctx, { ...input, policies: (input.policies ?? []).map(link) }));
  }

  /**
   * Deletes a role. Returns whether it existed.
   * @example acl.deleteRole(acl.role("readers")!.id) // true
   */
  deleteRole(id: string): boolean {
    return this.update((ctx) => deleteRole(ctx, id));
  }

  /**
   * Creates an auth method: `kubernetes` (identities are service accounts) or claims-based `jwt` /
   * `oidc` (identities are token claims, exposed through `claimMappings` / `listClaimMappings`).
   * @throws {DomainError} `invalid` for a duplicate name or a `maxTokenTtl` outside 1m-24h.
   * @example acl.createAuthMethod({ name: "oidc", type: "oidc", claimMappings: { sub: "user" }, listClaimMappings: { groups: "groups" } })
   */
  createAuthMethod(input: ScenarioAuthMethodInput): AuthMethodRecord {
    const { maxTokenTtl, ...rest } = input;
    return this.update((ctx) => createAuthMethod(ctx, { ...rest, maxTokenTtlMs: maxTokenTtl === undefined ? 0 : parseDuration(maxTokenTtl) }));
  }

  /**
   * Makes an auth method accept `bearerToken` (what a client sends as `BearerToken` to
   * `POST /acl/login`) as an identity: a service account `{ name, namespace, uid? }` for
   * `kubernetes`, raw claims (`{ sub: "alice", groups: ["dev"] }`) for `jwt` / `oidc`.
   * @returns `bearerToken`.
   * @throws {DomainError} `invalid` for an unknown auth method or an incomplete service account.
   * @example acl.registerBearerToken("k8s", "jwt-web", { name: "web", namespace: "default" })
   */
  registerBearerToken(
    authMethod: string,
    bearerToken: string,
    identity: ServiceAccountIdentityInput | ClaimsInput,
    options: { namespace?: string } = {},
  ): string {
    this.update((ctx) => registerBearerToken(ctx, { name: authMethod, ...(options.namespace ? { namespace: options.namespace } : {}) }, bearerToken, identity));
    return bearerToken;
  }

  /**
   * Makes an auth method stop accepting `bearerToken`. Returns whether it did.
   * @example acl.revokeBearerToken("k8s", "jwt-web") // true
   */
  revokeBearerToken(authMethod: string, bearerToken: string, options: { namespace?: string } = {}): boolean {
    return this.update((ctx) => revokeBearerToken(ctx, { name: authMethod, ...(options.namespace ? { namespace: options.namespace } : {}) }, bearerToken));
  }

  /**
   * Creates a token as the bootstrap token would through `PUT /acl/token`, with the same rules.
   * @returns the token, SecretID shown.
   * @throws {DomainError} `invalid` for any create rule (unknown policies, expiry bounds...).
   * @example acl.createToken({ description: "ci", policies: ["acl-read"], expirationTtl: "1h" })
   */
  createToken(input: ScenarioTokenInput = {}): TokenView {
    const tokenInput: TokenInput = {
      accessorId: input.accessorId,
      secretId: input.secretId,
      description: input.description,
      policies: (input.policies ?? []).map(link),
      roles: (input.roles ?? []).map(link),
      serviceIdentities: (input.serviceIdentities ?? []).map((s) => (typeof s === "string" ? { serviceName: s } : s)),
      nodeIdentities: input.nodeIdentities,
      local: input.local,
      expirationTtlMs: input.expirationTtl === undefined ? undefined : parseDuration(input.expirationTtl),
      expirationTime: input.expirationTime === undefined ? undefined : toEpochMs(input.expirationTime),
      namespace: input.namespace,
    };
    return this.update((ctx) => createToken(ctx, this.operatorScope, tokenInput));
  }

  /**
   * Updates a token as `PUT /acl/token/:AccessorID` would (same update rules).
   * @throws {DomainError} `invalid` when an update rule is broken.
   * @example acl.updateToken(token.accessorId, { description: "renamed" })
   */
  updateToken(accessorId: string, input: TokenInput): TokenView {
    return this.update((ctx) => updateToken(ctx, this.operatorScope, accessorId, input));
  }

  /**
   * Deletes a token (true also when it does not exist).
   * @example acl.deleteToken(token.accessorId) // true
   */
  deleteToken(accessorId: string, options: { namespace?: string } = {}): boolean {
    return this.update((ctx) => deleteToken(ctx, { ...this.operatorScope, namespaceParam: options.namespace }, accessorId));
  }

  /**
   * Creates a binding rule as `PUT /acl/binding-rule` would.
   * @throws {DomainError} `invalid` for an unknown auth method, an invalid selector or BindName.
   * @example acl.createBindingRule({ authMethod: "k8s", selector: "serviceaccount.namespace==default", bindType: "service", bindName: "${serviceaccount.name}" })
   */
  createBindingRule(input: BindingRuleInput): BindingRuleView {
    return this.update((ctx) => createBindingRule(ctx, this.operatorScope, input));
  }

  /**
   * Logs in through an auth method as `POST /acl/login` would.
   * @returns the new token, SecretID shown.
   * @throws {DomainError} `forbidden` (`Permission denied`) when no rule binds anything.
   * @example const token = acl.login({ authMethod: "k8s", bearerToken: "jwt-web" });
   */
  login(input: ScenarioLoginInput): TokenView {
    return this.update((ctx) => login(ctx, {}, input));
  }

  /**
   * Logs out a login-created token by its secret.
   * @example acl.logout(token.secretId) // true
   */
  logout(secretId: string): boolean {
    return this.update((ctx) => logout(ctx, { secret: secretId }));
  }

  /**
   * What the rules of `authMethod` would bind for `identity` (already in selector form), without logging in.
   * @example acl.bindingsFor("k8s", { serviceaccount: { name: "web", namespace: "default", uid: "" } }).serviceIdentities
   */
  bindingsFor(authMethod: string, identity: Readonly<Record<string, unknown>>, options: { namespace?: string } = {}): Bindings {
    return this.sim.read<AccessControlState, Bindings>(ACCESS_CONTROL, (ctx) =>
      evaluateBindings(ctx.state, authMethod, options.namespace ?? DEFAULT_NAMESPACE, identity),
    );
  }

  /**
   * A live token by AccessorID (SecretID shown), or undefined when unknown or expired.
   * @example acl.token(accessorId)?.expirationTime // ms since the epoch, or null
   */
  token(accessorId: string): TokenView | undefined {
    return this.sim.read<AccessControlState, TokenView | undefined>(ACCESS_CONTROL, (ctx) => {
      const token = ctx.state.tokens[accessorId];
      return token && !isExpired(token, ctx.now) ? tokenView(ctx.state, token, true) : undefined;
    });
  }

  /**
   * Every live token, sorted by AccessorID (SecretIDs shown).
   * @example acl.tokens().map((t) => t.description)
   */
  tokens(): TokenView[] {
    return this.sim.read<AccessControlState, TokenView[]>(ACCESS_CONTROL, (ctx) =>
      Object.keys(ctx.state.tokens)
        .sort()
        .map((id) => ctx.state.tokens[id])
        .filter((t) => t !== undefined && !isExpired(t, ctx.now))
        .map((t) => tokenView(ctx.state, t as NonNullable<typeof t>, true)),
    );
  }

  /**
   * What a secret may do on the ACL system right now: `none` for an unknown or expired secret.
   * @example expect(acl.access(token.secretId)).toBe("read")
   */
  access(secretId: string, namespace = DEFAULT_NAMESPACE): "none" | "read" | "write" {
    return this.sim.read<AccessControlState, "none" | "read" | "write">(ACCESS_CONTROL, (ctx) => {
      const token = liveTokenBySecret(ctx.state, secretId, ctx.now);
      if (!token) return "none";
      if (hasAcl(ctx.state, token, namespace, "write")) return "write";
      return hasAcl(ctx.state, token, namespace, "read") ? "read" : "none";
    });
  }

  /**
   * Every binding rule, sorted by ID.
   * @example acl.bindingRules().map((r) => r.selector)
   */
  bindingRules(): BindingRuleView[] {
    return this.sim.read<AccessControlState, BindingRuleView[]>(ACCESS_CONTROL, (ctx) =>
      Object.keys(ctx.state.bindingRules)
        .sort()
        .map((id) => bindingRuleView(ctx.state, ctx.state.bindingRules[id] as NonNullable<AccessControlState["bindingRules"][string]>)),
    );
  }

  /**
   * A policy by name (in `namespace`, default `default`).
   * @example acl.policy("acl-read")?.id
   */
  policy(name: string, namespace = DEFAULT_NAMESPACE): PolicyRecord | undefined {
    return structuredClone(Object.values(this.state().policies).find((p) => p.name === name && p.namespace === namespace));
  }

  /**
   * A role by name (in `namespace`, default `default`).
   * @example acl.role("readers")?.policies
   */
  role(name: string, namespace = DEFAULT_NAMESPACE): RoleRecord | undefined {
    return structuredClone(Object.values(this.state().roles).find((r) => r.name === name && r.namespace === namespace));
  }

  /**
   * An auth method by name.
   * @throws {UsageError} when there is none.
   * @example acl.authMethod("k8s").maxTokenTtlMs // 3_600_000
   */
  authMethod(name: string, namespace = DEFAULT_NAMESPACE): AuthMethodRecord {
    const method = this.state().authMethods[authMethodKey(namespace, name)];
    if (!method) throw new UsageError(`access-control: no auth method "${name}" in namespace "${namespace}"`);
    return structuredClone(method);
  }
}
