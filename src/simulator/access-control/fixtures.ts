/**
 * Fixtures a scenario builds around the spec's endpoints: policies (with `acl = "read"` /
 * `acl = "write"` rules), roles, auth methods with the bearer tokens they accept, enterprise
 * namespaces, and the service's settings. The spec shows no endpoints for these ("Policy and role
 * records as standalone resources: not shown"), so they are created through the scenario.
 */
import { formatGoDuration } from "../kernel/duration.js";
import type { OperationContext } from "../kernel/simulator.js";
import { identityFromInput, type ClaimsInput, type ServiceAccountIdentityInput } from "./auth-methods.js";
import { aclError, invalid } from "./errors.js";
import { contentHash } from "./hash.js";
import {
  checkNodeIdentities,
  checkServiceIdentities,
  resolvePolicyLinks,
  type LinkInput,
  type NodeIdentityInput,
  type ServiceIdentityInput,
} from "./links.js";
import { isReservedId, isUuid, isValidPolicyName, isValidRoleName } from "./names.js";
import { checkPolicyRules } from "./rules.js";
import {
  DEFAULT_NAMESPACE,
  authMethodKey,
  nextIndex,
  type AccessControlSettings,
  type AccessControlState,
  type AuthMethodRecord,
  type AuthMethodType,
  type NamespaceRecord,
  type PolicyRecord,
  type RoleRecord,
} from "./state.js";
import { dict } from "../kernel/dict.js";


/** A policy to create. */
export interface PolicyInput {
  readonly name: string;
  /** Rules text, e.g. `acl = "write"`. */
  readonly rules?: string;
  readonly description?: string;
  readonly datacenters?: readonly string[];
  /** Enterprise namespace (default `default`). */
  readonly namespace?: string;
  /** A fixed ID (default: a seeded UUID). */
  readonly id?: string;
}

/** A role to create. */
export interface RoleInput {
  readonly name: string;
  readonly description?: string;
  readonly policies?: readonly LinkInput[];
  readonly serviceIdentities?: readonly ServiceIdentityInput[];
  readonly nodeIdentities?: readonly NodeIdentityInput[];
  readonly namespace?: string;
  readonly id?: string;
}

/** An auth method to create. */
export interface AuthMethodInput {
  readonly name: string;
  /** `kubernetes` (service accounts), or claims-based `jwt` / `oidc`. */
  readonly type: AuthMethodType;
  readonly displayName?: string;
  readonly description?: string;
  /** Lifetime of login tokens, ms (0 or absent: no expiry; else between 1 minute and 24 hours). */
  readonly maxTokenTtlMs?: number;
  /** `global` login tokens are not local (default `local`). */
  readonly tokenLocality?: "local" | "global";
  /** Claims-based: claim -> variable exposed as `value.<variable>`. */
  readonly claimMappings?: Readonly<Record<string, string>>;
  /** Claims-based: claim -> variable exposed as `list.<variable>`. */
  readonly listClaimMappings?: Readonly<Record<string, string>>;
  readonly namespace?: string;
}

/** The real service's refusal of a policy name outside `[A-Za-z0-9-_]{1,128}`. */
export const POLICY_NAME_REFUSAL = "Invalid Policy: invalid Name. Only alphanumeric characters, '-' and '_' are allowed";

/** Whether no record of `records` in `namespace` is named `name`. */
export function uniqueName<T extends { name: string; namespace: string }>(records: Record<string, T>, name: string, namespace: string): boolean {
  return !Object.values(records).some((r) => r.name === name && r.namespace === namespace);
}

function fixtureId(ctx: OperationContext<AccessControlState>, given: string | undefined, taken: (id: string) => boolean, operation: string): string {
  if (given !== undefined) {
    if (!isUuid(given)) throw invalid(operation, `ID "${given}" is not a valid UUID`);
    if (taken(given)) throw invalid(operation, `ID "${given}" is already in use`);
    return given;
  }
  for (;;) {
    const id = ctx.ids.uuid();
    if (!isReservedId(id) && !taken(id)) return id;
  }
}

function checkNamespaceExists(state: AccessControlState, namespace: string, operation: string): void {
  if (!state.namespaces[namespace]) throw invalid(operation, `Namespace "${namespace}" does not exist`);
}

function policyHash(policy: Omit<PolicyRecord, "hash">): string {
  return contentHash({ name: policy.name, description: policy.description, rules: policy.rules, datacenters: policy.datacenters });
}

/**
 * Creates a policy. Its rules are parsed and validated as the real service does (`rules.ts`).
 * @throws {DomainError} `invalid` for a missing, badly formed or duplicate name in the namespace,
 * a bad ID, an unknown namespace, or rules that do not parse (`Failed to parse ACL rules: ...`) or
 * name an invalid level (`Invalid acl policy: "list"`).
 * @example createPolicy(ctx, { name: "acl-read", rules: 'acl = "read"' })
 */
export function createPolicy(ctx: OperationContext<AccessControlState>, input: PolicyInput): PolicyRecord {
  const operation = "create policy";
  const namespace = input.namespace ?? DEFAULT_NAMESPACE;
  checkNamespaceExists(ctx.state, namespace, operation);
  if (!input.name) throw invalid(operation, "Invalid Policy: no Name is set");
  if (!isValidPolicyName(input.name)) throw invalid(operation, POLICY_NAME_REFUSAL);
  if (!uniqueName(ctx.state.policies, input.name, namespace)) throw invalid(operation, `Invalid Policy: A Policy with Name "${input.name}" already exists`);
  checkPolicyRules(input.rules ?? "", operation);
  const id = fixtureId(ctx, input.id, (id) => ctx.state.policies[id] !== undefined, operation);
  const index = nextIndex(ctx.state);
  const base = {
    id,
    name: input.name,
    description: input.description ?? "",
    rules: input.rules ?? "",
    datacenters: [...(input.datacenters ?? [])],
    namespace,
    createIndex: index,
    modifyIndex: index,
  };
  const policy: PolicyRecord = { ...base, hash: policyHash(base) };
  ctx.state.policies[id] = policy;
  return policy;
}

/**
 * Changes a policy (rename it, change its rules). Tokens keep linking it by ID.
 * @throws {DomainError} `invalid` for an unknown policy, a bad name or one already taken, or
 * invalid rules.
 * @example updatePolicy(ctx, policyId, { name: "acl-readers" })
 */
export function updatePolicy(ctx: OperationContext<AccessControlState>, id: string, changes: Partial<Pick<PolicyInput, "name" | "rules" | "description" | "datacenters">>): PolicyRecord {
  const operation = "update policy";
  const existing = ctx.state.policies[id];
  if (!existing) throw invalid(operation, `Cannot find policy ${id}`);
  if (changes.name !== undefined && !isValidPolicyName(changes.name)) throw invalid(operation, POLICY_NAME_REFUSAL);
  if (changes.name !== undefined && changes.name !== existing.name && !uniqueName(ctx.state.policies, changes.name, existing.namespace)) {
    throw invalid(operation, `Invalid Policy: A Policy with Name "${changes.name}" already exists`);
  }
  if (changes.rules !== undefined) checkPolicyRules(changes.rules, operation);
  const base = {
    ...existing,
    name: changes.name ?? existing.name,
    rules: changes.rules ?? existing.rules,
    description: changes.description ?? existing.description,
    datacenters: [...(changes.datacenters ?? existing.datacenters)],
    modifyIndex: nextIndex(ctx.state),
  };
  const policy: PolicyRecord = { ...base, hash: policyHash(base) };
  ctx.state.policies[id] = policy;
  return policy;
}

/**
 * Creates a role.
 * @throws {DomainError} `invalid` for a bad or duplicate name, unknown policies or bad identities.
 * @example createRole(ctx, { name: "readers", policies: [{ name: "acl-read" }] })
 */
export function createRole(ctx: OperationContext<AccessControlState>, input: RoleInput): RoleRecord {
  const operation = "create role";
  const namespace = input.namespace ?? DEFAULT_NAMESPACE;
  checkNamespaceExists(ctx.state, namespace, operation);
  if (!isValidRoleName(input.name)) throw invalid(operation, "Invalid Role: the name contains invalid characters or is too long");
  if (!uniqueName(ctx.state.roles, input.name, namespace)) throw invalid(operation, `Invalid Role: A Role with Name "${input.name}" already exists`);
  const policies = resolvePolicyLinks(ctx.state, input.policies ?? [], namespace, operation);
  const serviceIdentities = checkServiceIdentities(input.serviceIdentities ?? [], false, operation, "role");
  const nodeIdentities = checkNodeIdentities(input.nodeIdentities ?? [], operation, "role");
  const id = fixtureId(ctx, input.id, (id) => ctx.state.roles[id] !== undefined, operation);
  const index = nextIndex(ctx.state);
  const role: RoleRecord = {
    id,
    name: input.name,
    description: input.description ?? "",
    policies,
    serviceIdentities,
    nodeIdentities,
    namespace,
    hash: contentHash({ name: input.name, policies, serviceIdentities, nodeIdentities }),
    createIndex: index,
    modifyIndex: index,
  };
  ctx.state.roles[id] = role;
  return role;
}

/**
 * Deletes a role (login then ignores role rules naming it).
 * @returns whether it existed.
 * @example deleteRole(ctx, roleId) // true
 */
export function deleteRole(ctx: OperationContext<AccessControlState>, id: string): boolean {
  if (!ctx.state.roles[id]) return false;
  delete ctx.state.roles[id];
  nextIndex(ctx.state);
  return true;
}

/**
 * Creates an auth method.
 * @throws {DomainError} `invalid` for a duplicate name, an unknown type, mappings on a
 * fields-based method, or a max token TTL outside 1 minute to 24 hours.
 * @example createAuthMethod(ctx, { name: "k8s", type: "kubernetes", maxTokenTtlMs: 3_600_000 })
 */
export function createAuthMethod(ctx: OperationContext<AccessControlState>, input: AuthMethodInput): AuthMethodRecord {
  const operation = "create auth method";
  const namespace = input.namespace ?? DEFAULT_NAMESPACE;
  checkNamespaceExists(ctx.state, namespace, operation);
  if (!input.name) throw invalid(operation, "Invalid Auth Method: no Name is set");
  if (!["kubernetes", "jwt", "oidc"].includes(input.type)) throw invalid(operation, `Invalid Auth Method: Type should be one of: kubernetes, jwt, oidc`);
  const key = authMethodKey(namespace, input.name);
  if (ctx.state.authMethods[key]) throw invalid(operation, `Invalid Auth Method: A Auth Method with Name "${input.name}" already exists`);
  const ttl = input.maxTokenTtlMs ?? 0;
  const { minExpirationTtlMs: min, maxExpirationTtlMs: max } = ctx.state.settings;
  if (ttl !== 0 && (ttl < min || ttl > max)) {
    throw invalid(operation, `MaxTokenTTL ${formatGoDuration(ttl)} cannot be less than ${formatGoDuration(min)} or more than ${formatGoDuration(max)}`);
  }
  const claimsBased = input.type !== "kubernetes";
  if (!claimsBased && (Object.keys(input.claimMappings ?? {}).length > 0 || Object.keys(input.listClaimMappings ?? {}).length > 0)) {
    throw invalid(operation, "claim mappings only apply to claims-based (jwt, oidc) auth methods");
  }
  const index = nextIndex(ctx.state);
  const method: AuthMethodRecord = {
    name: input.name,
    type: input.type,
    displayName: input.displayName ?? "",
    description: input.description ?? "",
    maxTokenTtlMs: ttl,
    tokenLocality: input.tokenLocality ?? "local",
    claimMappings: { ...(input.claimMappings ?? {}) },
    listClaimMappings: { ...(input.listClaimMappings ?? {}) },
    namespace,
    bearerTokens: dict(),
    createIndex: index,
    modifyIndex: index,
  };
  ctx.state.authMethods[key] = method;
  return method;
}

/**
 * Tells an auth method to accept `bearerToken` as the identity `input` stands for.
 * @throws {DomainError} `invalid` for an unknown auth method or an incomplete identity.
 * @example registerBearerToken(ctx, { name: "k8s" }, "jwt-web", { name: "web", namespace: "default" })
 */
export function registerBearerToken(
  ctx: OperationContext<AccessControlState>,
  method: { readonly name: string; readonly namespace?: string },
  bearerToken: string,
  input: ServiceAccountIdentityInput | ClaimsInput,
): void {
  const operation = "register bearer token";
  const record = ctx.state.authMethods[authMethodKey(method.namespace ?? DEFAULT_NAMESPACE, method.name)];
  if (!record) throw invalid(operation, `cannot find auth method with name "${method.name}"`);
  if (bearerToken === "") throw invalid(operation, "a bearer token cannot be empty");
  record.bearerTokens[bearerToken] = identityFromInput(record, input);
}

/**
 * Makes an auth method stop accepting `bearerToken`. Returns whether it did.
 * @example revokeBearerToken(ctx, { name: "k8s" }, "jwt-web") // true
 */
export function revokeBearerToken(ctx: OperationContext<AccessControlState>, method: { readonly name: string; readonly namespace?: string }, bearerToken: string): boolean {
  const record = ctx.state.authMethods[authMethodKey(method.namespace ?? DEFAULT_NAMESPACE, method.name)];
  if (!record || !(bearerToken in record.bearerTokens)) return false;
  delete record.bearerTokens[bearerToken];
  return true;
}

/**
 * Creates an enterprise namespace.
 * @throws {DomainError} `invalid` for a duplicate or badly formed name, or unknown default links.
 * @example createNamespace(ctx, { name: "team-a", defaultPolicies: [{ name: "acl-read" }] })
 */
export function createNamespace(
  ctx: OperationContext<AccessControlState>,
  input: { readonly name: string; readonly description?: string; readonly defaultPolicies?: readonly LinkInput[]; readonly defaultRoles?: readonly LinkInput[] },
): NamespaceRecord {
  const operation = "create namespace";
  if (!/^[A-Za-z0-9]([A-Za-z0-9-_]{0,62}[A-Za-z0-9])?$/.test(input.name) || input.name === "*") {
    throw invalid(operation, `Namespace name "${input.name}" is invalid`);
  }
  if (ctx.state.namespaces[input.name]) throw aclError("invalid", operation, `Namespace "${input.name}" already exists`);
  const record: NamespaceRecord = {
    name: input.name,
    description: input.description ?? "",
    defaultPolicies: resolvePolicyLinks(ctx.state, input.defaultPolicies ?? [], DEFAULT_NAMESPACE, operation),
    defaultRoles: [],
  };
  for (const link of input.defaultRoles ?? []) {
    const role = Object.values(ctx.state.roles).find((r) => (link.id ? r.id === link.id : r.name === link.name) && r.namespace === DEFAULT_NAMESPACE);
    if (!role) throw invalid(operation, `No such ACL role with ${link.id ? `ID "${link.id}"` : `name "${link.name ?? ""}"`}`);
    if (!record.defaultRoles.includes(role.id)) record.defaultRoles.push(role.id);
  }
  ctx.state.namespaces[input.name] = record;
  nextIndex(ctx.state);
  return record;
}

/**
 * Changes the service's settings (namespaces on/off, datacenters, default policy, ...).
 * @throws {DomainError} `invalid` for a local datacenter not among the datacenters, or TTL bounds
 * that are not positive and ordered.
 * @example configure(ctx, { namespaces: true, localDatacenter: "eu-1" })
 */
export function configure(ctx: OperationContext<AccessControlState>, changes: Partial<AccessControlSettings>): AccessControlSettings {
  const next: AccessControlSettings = { ...ctx.state.settings, ...changes };
  if (changes.datacenters === undefined && changes.localDatacenter !== undefined && !next.datacenters.includes(next.localDatacenter)) {
    next.datacenters = [...next.datacenters, next.localDatacenter];
  }
  if (!next.datacenters.includes(next.localDatacenter)) {
    throw invalid("configure", `local datacenter "${next.localDatacenter}" is not among the datacenters ${next.datacenters.join(", ")}`);
  }
  if (!(next.minExpirationTtlMs > 0 && next.minExpirationTtlMs <= next.maxExpirationTtlMs)) {
    throw invalid("configure", "token TTL bounds must be positive and ordered (min <= max)");
  }
  if (next.defaultPolicy !== "allow" && next.defaultPolicy !== "deny") throw invalid("configure", `default policy must be "allow" or "deny"`);
  ctx.state.settings = next;
  return { ...next, datacenters: [...next.datacenters] };
}
