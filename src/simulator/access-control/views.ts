/**
 * What the access-control operations answer: read-only views of tokens, policies, roles and
 * binding rules, with policy and role links resolved to both ID and Name, and the SecretID shown
 * or hidden for the caller. Transport-free: the HTTP layer turns these into the wire JSON.
 *
 * Spec: access-control.md "Token", "Binding rule", and the `expanded` fields of token read.
 */
import { contentHash, hexDigest } from "./hash.js";
import {
  HIDDEN_SECRET,
  type AccessControlState,
  type BindType,
  type BindingRuleRecord,
  type NodeIdentity,
  type PolicyRecord,
  type RoleRecord,
  type ServiceIdentity,
  type TokenRecord,
} from "./state.js";

/** A resolved link to a policy or role: `{ID, Name}`. */
export interface LinkView {
  readonly id: string;
  readonly name: string;
}

/** A token as answered (spec "Token"). Times are ms since the epoch. */
export interface TokenView {
  readonly accessorId: string;
  /** The real SecretID, or `<hidden>` for callers holding only `acl:read`. */
  readonly secretId: string;
  readonly description: string;
  readonly policies: readonly LinkView[];
  readonly roles: readonly LinkView[];
  readonly serviceIdentities: readonly ServiceIdentity[];
  readonly nodeIdentities: readonly NodeIdentity[];
  readonly local: boolean;
  readonly authMethod: string;
  /** Namespace of the auth method (enterprise), empty when there is none. */
  readonly authMethodNamespace: string;
  /** ms since the epoch, or null for no expiry. */
  readonly expirationTime: number | null;
  readonly namespace: string;
  /** ms since the epoch. */
  readonly createTime: number;
  readonly hash: string;
  readonly createIndex: number;
  readonly modifyIndex: number;
}

/** A policy as answered in `ExpandedPolicies`. */
export interface PolicyView {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly rules: string;
  readonly datacenters: readonly string[];
  readonly namespace: string;
  readonly hash: string;
  readonly createIndex: number;
  readonly modifyIndex: number;
}

/** A role as answered in `ExpandedRoles`. */
export interface RoleView {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly policies: readonly LinkView[];
  readonly serviceIdentities: readonly ServiceIdentity[];
  readonly nodeIdentities: readonly NodeIdentity[];
  readonly namespace: string;
  readonly hash: string;
  readonly createIndex: number;
  readonly modifyIndex: number;
}

/** The extra fields of a token read with `expanded` (spec "Token"). */
export interface ExpandedTokenView extends TokenView {
  /**
   * Linked policies, the namespace's default policies, the policies of linked and default roles,
   * then synthetic policies of identities (the token's and its roles').
   */
  readonly expandedPolicies: readonly PolicyView[];
  /** Linked roles, then the namespace's default roles. */
  readonly expandedRoles: readonly RoleView[];
  readonly namespaceDefaultPolicies: readonly LinkView[];
  readonly namespaceDefaultRoles: readonly LinkView[];
  readonly agentAclDefaultPolicy: string;
  readonly agentAclDownPolicy: string;
  readonly resolvedByAgent: string;
}

/** A binding rule as answered (spec "Binding rule"). */
export interface BindingRuleView {
  readonly id: string;
  readonly description: string;
  readonly authMethod: string;
  readonly selector: string;
  readonly bindType: BindType;
  readonly bindName: string;
  readonly namespace: string;
  readonly createIndex: number;
  readonly modifyIndex: number;
}

/** Links to the policies that still exist, with their current names. */
export function policyLinks(state: AccessControlState, ids: readonly string[]): LinkView[] {
  return ids.flatMap((id) => {
    const policy = state.policies[id];
    return policy ? [{ id, name: policy.name }] : [];
  });
}

/** Links to the roles that still exist, with their current names. */
export function roleLinks(state: AccessControlState, ids: readonly string[]): LinkView[] {
  return ids.flatMap((id) => {
    const role = state.roles[id];
    return role ? [{ id, name: role.name }] : [];
  });
}

/** The view of `token`; `revealSecret` false replaces the SecretID with `<hidden>`. */
export function tokenView(state: AccessControlState, token: TokenRecord, revealSecret: boolean): TokenView {
  return {
    accessorId: token.accessorId,
    secretId: revealSecret ? token.secretId : HIDDEN_SECRET,
    description: token.description,
    policies: policyLinks(state, token.policies),
    roles: roleLinks(state, token.roles),
    serviceIdentities: token.serviceIdentities.map((s) => ({ serviceName: s.serviceName, datacenters: [...s.datacenters] })),
    nodeIdentities: token.nodeIdentities.map((n) => ({ ...n })),
    local: token.local,
    authMethod: token.authMethod,
    authMethodNamespace: shownNamespace(state, token.authMethodNamespace),
    expirationTime: token.expirationTime,
    namespace: shownNamespace(state, token.namespace),
    createTime: token.createTime,
    hash: token.hash,
    createIndex: token.createIndex,
    modifyIndex: token.modifyIndex,
  };
}

/** The view of a policy. */
export function policyView(state: AccessControlState, policy: PolicyRecord): PolicyView {
  return {
    id: policy.id,
    name: policy.name,
    description: policy.description,
    rules: policy.rules,
    datacenters: [...policy.datacenters],
    namespace: shownNamespace(state, policy.namespace),
    hash: policy.hash,
    createIndex: policy.createIndex,
    modifyIndex: policy.modifyIndex,
  };
}

/** The view of a role. */
export function roleView(state: AccessControlState, role: RoleRecord): RoleView {
  return {
    id: role.id,
    name: role.name,
    description: role.description,
    policies: policyLinks(state, role.policies),
    serviceIdentities: role.serviceIdentities.map((s) => ({ serviceName: s.serviceName, datacenters: [...s.datacenters] })),
    nodeIdentities: role.nodeIdentities.map((n) => ({ ...n })),
    namespace: shownNamespace(state, role.namespace),
    hash: role.hash,
    createIndex: role.createIndex,
    modifyIndex: role.modifyIndex,
  };
}

/** The view of a binding rule. */
export function bindingRuleView(state: AccessControlState, rule: BindingRuleRecord): BindingRuleView {
  return { ...rule, namespace: shownNamespace(state, rule.namespace) };
}

/** Rules of the synthetic policy a service identity grants. */
export function serviceIdentityRules(serviceName: string): string {
  return `
service "${serviceName}" {
	policy = "write"
}
service "${serviceName}-sidecar-proxy" {
	policy = "write"
}
service_prefix "" {
	policy = "read"
}
node_prefix "" {
	policy = "read"
}`;
}

/** Rules of the synthetic policy a node identity grants. */
export function nodeIdentityRules(nodeName: string): string {
  return `
node "${nodeName}" {
	policy = "write"
}
service_prefix "" {
	policy = "read"
}`;
}

function syntheticPolicy(kind: string, name: string, rules: string, datacenters: readonly string[], namespace: string): PolicyView {
  const id = hexDigest(rules);
  return {
    id,
    name: `synthetic-policy-${id}`,
    description: `synthetic policy for ${kind} identity "${name}"`,
    rules,
    datacenters: [...datacenters],
    namespace,
    hash: contentHash({ rules, datacenters }),
    createIndex: 0,
    modifyIndex: 0,
  };
}

/** The expanded view of `token`: the contents of every policy and role affecting it. */
export function expandedTokenView(state: AccessControlState, token: TokenRecord, revealSecret: boolean): ExpandedTokenView {
  const policyIds: string[] = [...token.policies];
  const roles: RoleRecord[] = [];
  const identityPolicies = new Map<string, PolicyView>();
  const addIdentities = (services: readonly ServiceIdentity[], nodes: readonly NodeIdentity[]): void => {
    for (const s of services) {
      const p = syntheticPolicy("service", s.serviceName, serviceIdentityRules(s.serviceName), s.datacenters, shownNamespace(state, token.namespace));
      identityPolicies.set(p.id, p);
    }
    for (const n of nodes) {
      const p = syntheticPolicy("node", n.nodeName, nodeIdentityRules(n.nodeName), [n.datacenter], shownNamespace(state, token.namespace));
      identityPolicies.set(p.id, p);
    }
  };
  addIdentities(token.serviceIdentities, token.nodeIdentities);
  const defaults = state.settings.namespaces ? state.namespaces[token.namespace] : undefined;
  // Like the real service, the namespace's default policies and roles are expanded too.
  for (const id of defaults?.defaultPolicies ?? []) policyIds.push(id);
  const roleIds = [...token.roles, ...(defaults?.defaultRoles ?? [])];
  for (const roleId of roleIds) {
    const role = state.roles[roleId];
    if (!role || roles.includes(role)) continue;
    roles.push(role);
    for (const id of role.policies) policyIds.push(id);
    addIdentities(role.serviceIdentities, role.nodeIdentities);
  }
  const seen = new Set<string>();
  const policies: PolicyView[] = [];
  for (const id of policyIds) {
    const policy = state.policies[id];
    if (!policy || seen.has(id)) continue;
    seen.add(id);
    policies.push(policyView(state, policy));
  }
  return {
    ...tokenView(state, token, revealSecret),
    expandedPolicies: [...policies, ...identityPolicies.values()],
    expandedRoles: roles.map((role) => roleView(state, role)),
    namespaceDefaultPolicies: defaults ? policyLinks(state, defaults.defaultPolicies) : [],
    namespaceDefaultRoles: defaults ? roleLinks(state, defaults.defaultRoles) : [],
    agentAclDefaultPolicy: state.settings.defaultPolicy,
    agentAclDownPolicy: state.settings.downPolicy,
    resolvedByAgent: state.settings.agentName,
  };
}

/** A namespace as answered: empty (and so left out) without the enterprise option. */
export function shownNamespace(state: AccessControlState, namespace: string): string {
  return state.settings.namespaces ? namespace : "";
}
