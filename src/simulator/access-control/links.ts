/**
 * Links and identities carried by tokens (and roles): policy and role links given by ID and/or
 * Name are resolved to IDs (so renaming a policy never breaks a token), service and node
 * identities are checked against the spec's name rule and deduplicated.
 *
 * Spec: access-control.md "Token" (Policies, Roles, ServiceIdentities, NodeIdentities, name rule).
 */
import { invalid } from "./errors.js";
import { isValidIdentityName } from "./names.js";
import {
  DEFAULT_NAMESPACE,
  type AccessControlState,
  type NodeIdentity,
  type PolicyRecord,
  type RoleRecord,
  type ServiceIdentity,
} from "./state.js";

/** A `PolicyLink` or `RoleLink` as given: `{ID}` and/or `{Name}` (ID wins when both are given). */
export interface LinkInput {
  readonly id?: string | undefined;
  readonly name?: string | undefined;
}

/** A service identity as given (`ServiceName` is required). */
export interface ServiceIdentityInput {
  readonly serviceName?: string | undefined;
  readonly datacenters?: readonly string[] | undefined;
}

/** A node identity as given (`NodeName` and `Datacenter` are required). */
export interface NodeIdentityInput {
  readonly nodeName?: string | undefined;
  readonly datacenter?: string | undefined;
}

function visible(namespace: string, owner: string): boolean {
  return owner === namespace || owner === DEFAULT_NAMESPACE;
}

function findByName<T extends { name: string; namespace: string }>(
  records: Record<string, T>,
  name: string,
  namespace: string,
): T | undefined {
  const all = Object.values(records).filter((r) => r.name === name);
  return all.find((r) => r.namespace === namespace) ?? all.find((r) => r.namespace === DEFAULT_NAMESPACE);
}

/** The policy named `name` visible from `namespace` (its own, else the default namespace's). */
export function policyByName(state: AccessControlState, name: string, namespace: string): PolicyRecord | undefined {
  return findByName(state.policies, name, namespace);
}

/** The role named `name` visible from `namespace`. */
export function roleByName(state: AccessControlState, name: string, namespace: string): RoleRecord | undefined {
  return findByName(state.roles, name, namespace);
}

function resolveLinks<T extends { id: string; name: string; namespace: string }>(
  records: Record<string, T>,
  links: readonly LinkInput[],
  namespace: string,
  kind: "policy" | "role",
  operation: string,
): string[] {
  const out: string[] = [];
  for (const link of links) {
    let id: string;
    if (link.id) {
      const record = records[link.id];
      if (!record || !visible(namespace, record.namespace)) throw invalid(operation, `No such ACL ${kind} with ID "${link.id}"`);
      id = record.id;
    } else {
      const name = link.name ?? "";
      const record = findByName(records, name, namespace);
      if (!record) throw invalid(operation, `No such ACL ${kind} with name "${name}"`);
      id = record.id;
    }
    if (!out.includes(id)) out.push(id);
  }
  return out;
}

/**
 * Resolves policy links to policy IDs (deduplicated, in order).
 * @throws {DomainError} `invalid`: `No such ACL policy with name "x"` / `with ID "x"`.
 */
export function resolvePolicyLinks(
  state: AccessControlState,
  links: readonly LinkInput[],
  namespace: string,
  operation: string,
): string[] {
  return resolveLinks(state.policies, links, namespace, "policy", operation);
}

/**
 * Resolves role links to role IDs (deduplicated, in order).
 * @throws {DomainError} `invalid`: `No such ACL role with name "x"` / `with ID "x"`.
 */
export function resolveRoleLinks(state: AccessControlState, links: readonly LinkInput[], namespace: string, operation: string): string[] {
  return resolveLinks(state.roles, links, namespace, "role", operation);
}

/**
 * Checks service identities and merges duplicates (sorted by name when there are several; a
 * duplicate without datacenters widens the identity to every datacenter).
 * @throws {DomainError} `invalid` for a missing or badly formed `ServiceName`, or datacenters on a
 * local token.
 */
export function checkServiceIdentities(
  inputs: readonly ServiceIdentityInput[],
  local: boolean,
  operation: string,
  holder = "token",
): ServiceIdentity[] {
  const checked: ServiceIdentity[] = [];
  for (const input of inputs) {
    const serviceName = input.serviceName ?? "";
    const datacenters = [...(input.datacenters ?? [])];
    if (serviceName === "") throw invalid(operation, `Service identity is missing the service name field on this ${holder}`);
    if (local && datacenters.length > 0) {
      throw invalid(operation, `Service identity "${serviceName}" cannot specify a list of datacenters on a local token`);
    }
    if (!isValidIdentityName(serviceName)) {
      throw invalid(
        operation,
        `Service identity "${serviceName}" has an invalid name. Only lowercase alphanumeric characters, '-' and '_' are allowed`,
      );
    }
    checked.push({ serviceName, datacenters });
  }
  if (checked.length <= 1) return checked;
  checked.sort((a, b) => (a.serviceName < b.serviceName ? -1 : a.serviceName > b.serviceName ? 1 : 0));
  const out: ServiceIdentity[] = [];
  for (const identity of checked) {
    const last = out[out.length - 1];
    if (last && last.serviceName === identity.serviceName) {
      const widened = last.datacenters.length === 0 || identity.datacenters.length === 0;
      out[out.length - 1] = {
        serviceName: last.serviceName,
        datacenters: widened ? [] : [...new Set([...last.datacenters, ...identity.datacenters])],
      };
    } else {
      out.push(identity);
    }
  }
  return out;
}

/**
 * Checks node identities and drops exact duplicates (sorted by name, then datacenter, when there
 * are several).
 * @throws {DomainError} `invalid` for a missing `NodeName` or `Datacenter`, or a badly formed name.
 */
export function checkNodeIdentities(inputs: readonly NodeIdentityInput[], operation: string, holder = "token"): NodeIdentity[] {
  const checked: NodeIdentity[] = [];
  for (const input of inputs) {
    const nodeName = input.nodeName ?? "";
    const datacenter = input.datacenter ?? "";
    if (nodeName === "") throw invalid(operation, `Node identity is missing the node name field on this ${holder}`);
    if (datacenter === "") throw invalid(operation, `Node identity is missing the datacenter field on this ${holder}`);
    if (!isValidIdentityName(nodeName)) {
      throw invalid(operation, "Node identity has an invalid name. Only lowercase alphanumeric characters, '-' and '_' are allowed");
    }
    checked.push({ nodeName, datacenter });
  }
  if (checked.length <= 1) return checked;
  const key = (n: NodeIdentity): string => `${n.nodeName}\u0000${n.datacenter}`;
  checked.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  return checked.filter((n, i) => i === 0 || key(n) !== key(checked[i - 1] as NodeIdentity));
}
