/**
 * The access-control service's wire JSON: views from the simulator turned into the real field
 * names and order, with empty optional fields left out (Go's `omitempty`) and times in RFC 3339.
 *
 * Spec: access-control.md "Token", "Binding rule"; FIDELITY.md (list item fields).
 */
import { rfc3339 } from "../../simulator/kernel/time.js";
import type {
  BindingRuleView,
  ExpandedTokenView,
  LinkView,
  PolicyView,
  RoleView,
  TokenView,
} from "../../simulator/access-control/views.js";
import type { NodeIdentity, ServiceIdentity } from "../../simulator/access-control/state.js";
import type { PolicyListView } from "../../simulator/access-control/policies.js";

type Wire = Record<string, unknown>;

/**
 * `rfc3339`, remembered: formatting costs microseconds and a list repeats the same few instants
 * (tokens made together), so a list of 1 000 tokens serialises ~5x faster. Bounded; pure.
 */
const TIME_CACHE_LIMIT = 4096;
const timeCache = new Map<number, string>();
function time(ms: number): string {
  let text = timeCache.get(ms);
  if (text === undefined) {
    if (timeCache.size >= TIME_CACHE_LIMIT) timeCache.clear();
    text = rfc3339(ms);
    timeCache.set(ms, text);
  }
  return text;
}

function links(items: readonly LinkView[]): Wire[] {
  return items.map((l) => ({ ID: l.id, Name: l.name }));
}

function serviceIdentities(items: readonly ServiceIdentity[]): Wire[] {
  return items.map((s) => (s.datacenters.length > 0 ? { ServiceName: s.serviceName, Datacenters: [...s.datacenters] } : { ServiceName: s.serviceName }));
}

function nodeIdentities(items: readonly NodeIdentity[]): Wire[] {
  return items.map((n) => ({ NodeName: n.nodeName, Datacenter: n.datacenter }));
}

/** A token as the service answers it (create, read, update, clone, self, login, list items). */
export function tokenWire(token: TokenView): Wire {
  const out: Wire = { AccessorID: token.accessorId, SecretID: token.secretId, Description: token.description };
  if (token.policies.length > 0) out.Policies = links(token.policies);
  if (token.roles.length > 0) out.Roles = links(token.roles);
  if (token.serviceIdentities.length > 0) out.ServiceIdentities = serviceIdentities(token.serviceIdentities);
  if (token.nodeIdentities.length > 0) out.NodeIdentities = nodeIdentities(token.nodeIdentities);
  out.Local = token.local;
  if (token.authMethod !== "") out.AuthMethod = token.authMethod;
  if (token.expirationTime !== null) out.ExpirationTime = time(token.expirationTime);
  if (token.namespace !== "") out.Namespace = token.namespace;
  if (token.authMethodNamespace !== "") out.AuthMethodNamespace = token.authMethodNamespace;
  out.CreateTime = time(token.createTime);
  out.Hash = token.hash;
  out.CreateIndex = token.createIndex;
  out.ModifyIndex = token.modifyIndex;
  return out;
}

/** A policy as the service answers it (policy endpoints, `ExpandedPolicies`). */
export function policyWire(policy: PolicyView): Wire {
  const out: Wire = {
    ID: policy.id,
    Name: policy.name,
    Description: policy.description,
    Rules: policy.rules,
    Datacenters: [...policy.datacenters],
  };
  return withRecordFields(out, policy);
}

/** A role as the service answers it (role endpoints, role lists, `ExpandedRoles`). */
export function roleWire(role: RoleView): Wire {
  const out: Wire = {
    ID: role.id,
    Name: role.name,
    Description: role.description,
    Policies: links(role.policies),
    ServiceIdentities: serviceIdentities(role.serviceIdentities),
  };
  if (role.nodeIdentities.length > 0) out.NodeIdentities = nodeIdentities(role.nodeIdentities);
  return withRecordFields(out, role);
}

/** A policy list item (`GET /acl/policies`): the policy's fields without `Rules`. */
export function policyListWire(policy: PolicyListView): Wire {
  const out: Wire = { ID: policy.id, Name: policy.name, Description: policy.description, Datacenters: [...policy.datacenters] };
  return withRecordFields(out, policy);
}

/** The fields every ACL record ends with: `Namespace` (outside the default one), `Hash`, the indexes. */
function withRecordFields(out: Wire, record: { readonly namespace: string; readonly hash: string; readonly createIndex: number; readonly modifyIndex: number }): Wire {
  if (record.namespace !== "") out.Namespace = record.namespace;
  out.Hash = record.hash;
  out.CreateIndex = record.createIndex;
  out.ModifyIndex = record.modifyIndex;
  return out;
}

/** The bootstrap answer: the token's fields after `ID`, the SecretID again (the real service's legacy field). */
export function bootstrapWire(token: TokenView): Wire {
  return { ID: token.secretId, ...tokenWire(token) };
}

/** A token read with `expanded`: the token's fields, then the contents of what affects it. */
export function expandedTokenWire(token: ExpandedTokenView): Wire {
  return {
    ...tokenWire(token),
    ExpandedPolicies: token.expandedPolicies.map(policyWire),
    ExpandedRoles: token.expandedRoles.map(roleWire),
    NamespaceDefaultPolicies: links(token.namespaceDefaultPolicies),
    NamespaceDefaultRoles: links(token.namespaceDefaultRoles),
    AgentACLDefaultPolicy: token.agentAclDefaultPolicy,
    AgentACLDownPolicy: token.agentAclDownPolicy,
    ResolvedByAgent: token.resolvedByAgent,
  };
}

/**
 * A binding rule as the service answers it.
 * @param inList - list output leaves `Selector` out when it is empty (spec "Binding rule").
 */
export function bindingRuleWire(rule: BindingRuleView, inList = false): Wire {
  const out: Wire = { ID: rule.id, Description: rule.description, AuthMethod: rule.authMethod };
  if (!inList || rule.selector !== "") out.Selector = rule.selector;
  out.BindType = rule.bindType;
  out.BindName = rule.bindName;
  if (rule.namespace !== "") out.Namespace = rule.namespace;
  out.CreateIndex = rule.createIndex;
  out.ModifyIndex = rule.modifyIndex;
  return out;
}
