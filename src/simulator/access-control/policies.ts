/**
 * Policy and role operations as the real service's ACL endpoints perform them (create, read by ID
 * or name, update, delete, list), over the same policy and role records the scenario's fixtures
 * make (one store): the caller's token is resolved and needs `acl:read` (reads, lists) or
 * `acl:write` (writes); names, rules, links and identities are checked by the same rules as the
 * fixtures. Deleting a policy or role that tokens (or roles) link is allowed, as in the real
 * service: the links stay in the records, drop out of every answer, and grant nothing.
 *
 * The spec says "Policy and role records as standalone resources: not shown"; the behaviour is the
 * real service's (docs/decisions/access-control.md, "Policies and roles").
 */
import type { OperationContext, ReadContext } from "../kernel/simulator.js";
import { checkNamespaceParameter, hasAcl, requireAcl, requireNamespace, resolveCaller, selectNamespace, type RequestScope } from "./authorization.js";
import { aclError, invalid } from "./errors.js";
import { contentHash } from "./hash.js";
import { createPolicy, createRole, POLICY_NAME_REFUSAL, uniqueName } from "./fixtures.js";
import { checkNodeIdentities, checkServiceIdentities, resolvePolicyLinks, type LinkInput, type NodeIdentityInput, type ServiceIdentityInput } from "./links.js";
import { isUuid, isValidPolicyName, isValidRoleName } from "./names.js";
import { checkPolicyRules } from "./rules.js";
import { GLOBAL_MANAGEMENT_POLICY_ID, nextIndex, type AccessControlState, type PolicyRecord, type RoleRecord, type TokenRecord } from "./state.js";
import { policyView, roleView, type PolicyView, type RoleView } from "./views.js";

/** A policy body (`PUT /acl/policy`, `PUT /acl/policy/:id`). */
export interface PolicyBody {
  readonly name?: string | undefined;
  readonly description?: string | undefined;
  readonly rules?: string | undefined;
  readonly datacenters?: readonly string[] | undefined;
  /** Enterprise: the body's `Namespace`. */
  readonly namespace?: string | undefined;
}

/** A role body (`PUT /acl/role`, `PUT /acl/role/:id`). */
export interface RoleBody {
  readonly name?: string | undefined;
  readonly description?: string | undefined;
  readonly policies?: readonly LinkInput[] | undefined;
  readonly serviceIdentities?: readonly ServiceIdentityInput[] | undefined;
  readonly nodeIdentities?: readonly NodeIdentityInput[] | undefined;
  readonly namespace?: string | undefined;
}

/** A policy as listed (`GET /acl/policies`): the policy without its rules. */
export type PolicyListView = Omit<PolicyView, "rules">;

type Context = ReadContext<AccessControlState> | OperationContext<AccessControlState>;

/** Resolves the caller and the request's namespace, and checks `acl:<need>` there. */
function authorize(ctx: Context, scope: RequestScope, need: "read" | "write", operation: string, bodyNamespace?: string): { caller: TokenRecord; namespace: string } {
  checkNamespaceParameter(ctx.state, scope, operation);
  const caller = resolveCaller(ctx.state, ctx.now, scope, operation, ctx);
  const namespace = selectNamespace(ctx.state, scope, caller, bodyNamespace);
  requireAcl(ctx.state, caller, namespace, need, operation);
  return { caller, namespace };
}

/**
 * The records a list answers, by ID: those of the request's namespace, or with `ns=*` those of
 * every namespace where the caller may read (as the token and binding-rule lists do).
 * @throws {DomainError} `forbidden` without `acl:read` in the request's namespace (not for `ns=*`).
 */
function listed<T extends { id: string; namespace: string }>(ctx: Context, scope: RequestScope, records: Record<string, T>, operation: string): T[] {
  checkNamespaceParameter(ctx.state, scope, operation);
  const caller = resolveCaller(ctx.state, ctx.now, scope, operation, ctx);
  const namespace = selectNamespace(ctx.state, scope, caller);
  const wildcard = namespace === "*";
  if (!wildcard) requireAcl(ctx.state, caller, namespace, "read", operation);
  return Object.values(records)
    .filter((r) => (wildcard ? hasAcl(ctx.state, caller, r.namespace, "read") : r.namespace === namespace))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

function policyHash(policy: Pick<PolicyRecord, "name" | "description" | "rules" | "datacenters">): string {
  return contentHash({ name: policy.name, description: policy.description, rules: policy.rules, datacenters: policy.datacenters });
}

/**
 * A missing policy: the real service answers `403 ACL not found` (its read handler returns the
 * ACL "not found" error), so blocking reads still wait for it; the HTTP layer sets the 403.
 */
function policyNotFound(operation: string, resource: string) {
  return aclError("not_found", operation, "ACL not found", { resource });
}

/** A missing role: the real service answers 404 with an empty body. */
function roleNotFound(operation: string, resource: string) {
  return aclError("not_found", operation, "", { resource });
}

/**
 * Creates a policy (`PUT /acl/policy`). Needs `acl:write`.
 * @throws {DomainError} `forbidden`/`unauthenticated` for the caller; `invalid` (500) for a
 * missing, badly formed or taken name, or rules the service does not accept
 * (`Failed to parse ACL rules: ...`, `Invalid acl policy: "list"`).
 * @example createPolicyOperation(ctx, { secret }, { name: "acl-read", rules: 'acl = "read"' }).id
 */
export function createPolicyOperation(ctx: OperationContext<AccessControlState>, scope: RequestScope, body: PolicyBody): PolicyView {
  const operation = "create policy";
  const { namespace } = authorize(ctx, scope, "write", operation, body.namespace);
  if (ctx.state.settings.namespaces) requireNamespace(ctx.state, namespace, operation);
  const policy = createPolicy(ctx, {
    name: body.name ?? "",
    rules: body.rules ?? "",
    description: body.description ?? "",
    datacenters: body.datacenters ?? [],
    namespace,
  });
  return policyView(ctx.state, policy);
}

/**
 * Replaces a policy (`PUT /acl/policy/:id`): every field comes from the body, as in the real
 * service. Needs `acl:write`. The built-in `global-management` policy may be renamed or described,
 * but its rules and datacenters may not change.
 * @throws {DomainError} `invalid` (500): `Policy ID invalid UUID`, `cannot find policy <id>`,
 * `Invalid Policy: no Name is set`, `Invalid Policy: A policy with name "x" already exists`,
 * `Changing the Rules for the builtin global-management policy is not permitted`, invalid rules.
 * @example updatePolicyOperation(ctx, { secret }, id, { name: "acl-read", rules: 'acl = "write"' })
 */
export function updatePolicyOperation(ctx: OperationContext<AccessControlState>, scope: RequestScope, id: string, body: PolicyBody): PolicyView {
  const operation = "update policy";
  const { namespace } = authorize(ctx, scope, "write", operation, body.namespace);
  const name = body.name ?? "";
  if (name === "") throw invalid(operation, "Invalid Policy: no Name is set");
  if (!isValidPolicyName(name)) throw invalid(operation, POLICY_NAME_REFUSAL);
  if (!isUuid(id)) throw invalid(operation, "Policy ID invalid UUID");
  const existing = ctx.state.policies[id];
  if (!existing || existing.namespace !== namespace) throw invalid(operation, `cannot find policy ${id}`, id);
  if (name !== existing.name && !uniqueName(ctx.state.policies, name, existing.namespace)) {
    throw invalid(operation, `Invalid Policy: A policy with name "${name}" already exists`);
  }
  const rules = body.rules ?? "";
  const datacenters = [...(body.datacenters ?? [])];
  if (id === GLOBAL_MANAGEMENT_POLICY_ID) {
    if (datacenters.length > 0) throw invalid(operation, "Changing the Datacenters of the builtin global-management policy is not permitted");
    if (rules !== existing.rules) throw invalid(operation, "Changing the Rules for the builtin global-management policy is not permitted");
  }
  checkPolicyRules(rules, operation);
  const fields = { name, description: body.description ?? "", rules, datacenters };
  const policy: PolicyRecord = { ...existing, ...fields, hash: policyHash(fields), modifyIndex: nextIndex(ctx.state) };
  ctx.state.policies[id] = policy;
  return policyView(ctx.state, policy);
}

/**
 * Deletes a policy (`DELETE /acl/policy/:id`); `true` also when it does not exist. Needs
 * `acl:write`. Tokens and roles linking it keep the link, which then answers nothing and grants
 * nothing (the real service's behaviour).
 * @throws {DomainError} `invalid` (500): `Delete operation not permitted on the builtin global-management policy`.
 * @example deletePolicyOperation(ctx, { secret }, id) // true
 */
export function deletePolicyOperation(ctx: OperationContext<AccessControlState>, scope: RequestScope, id: string): true {
  const operation = "delete policy";
  const { namespace } = authorize(ctx, scope, "write", operation);
  const policy = ctx.state.policies[id];
  if (!policy || policy.namespace !== namespace) return true;
  if (id === GLOBAL_MANAGEMENT_POLICY_ID) throw invalid(operation, "Delete operation not permitted on the builtin global-management policy", id);
  delete ctx.state.policies[id];
  nextIndex(ctx.state);
  return true;
}

/**
 * Reads a policy by ID (`GET /acl/policy/:id`) or, with `by: "name"`, by name
 * (`GET /acl/policy/name/:name`). Needs `acl:read`.
 * @throws {DomainError} `not_found` (`ACL not found`; the real service answers it with 403).
 * @example readPolicyOperation(ctx, { secret }, "acl-read", "name").rules // 'acl = "read"'
 */
export function readPolicyOperation(ctx: ReadContext<AccessControlState>, scope: RequestScope, key: string, by: "id" | "name" = "id"): PolicyView {
  const operation = by === "id" ? "read policy" : "read policy by name";
  const { namespace } = authorize(ctx, scope, "read", operation);
  const policy = by === "id" ? ctx.state.policies[key] : Object.values(ctx.state.policies).find((p) => p.name === key && p.namespace === namespace);
  if (!policy || policy.namespace !== namespace) throw policyNotFound(operation, key);
  return policyView(ctx.state, policy);
}

/**
 * Lists the policies of the request's namespace by ID, without their rules (`GET /acl/policies`).
 * Needs `acl:read`. `ns=*` lists every namespace where the caller may read.
 * @example listPoliciesOperation(ctx, { secret }).map((p) => p.name) // ["global-management", ...]
 */
export function listPoliciesOperation(ctx: ReadContext<AccessControlState>, scope: RequestScope): PolicyListView[] {
  return listed(ctx, scope, ctx.state.policies, "list policies").map((policy) => {
    const { rules: _rules, ...rest } = policyView(ctx.state, policy);
    return rest;
  });
}

function roleHash(role: Pick<RoleRecord, "name" | "policies" | "serviceIdentities" | "nodeIdentities">): string {
  return contentHash({ name: role.name, policies: role.policies, serviceIdentities: role.serviceIdentities, nodeIdentities: role.nodeIdentities });
}

/**
 * Creates a role (`PUT /acl/role`). Needs `acl:write`.
 * @throws {DomainError} `invalid` (500) for a bad or taken name, a policy link that names no
 * policy (`No such ACL policy with name "x"`), or bad service or node identities.
 * @example createRoleOperation(ctx, { secret }, { name: "readers", policies: [{ name: "acl-read" }] })
 */
export function createRoleOperation(ctx: OperationContext<AccessControlState>, scope: RequestScope, body: RoleBody): RoleView {
  const operation = "create role";
  const { namespace } = authorize(ctx, scope, "write", operation, body.namespace);
  if (ctx.state.settings.namespaces) requireNamespace(ctx.state, namespace, operation);
  const role = createRole(ctx, {
    name: body.name ?? "",
    description: body.description ?? "",
    policies: body.policies ?? [],
    serviceIdentities: body.serviceIdentities ?? [],
    nodeIdentities: body.nodeIdentities ?? [],
    namespace,
  });
  return roleView(ctx.state, role);
}

/**
 * Replaces a role (`PUT /acl/role/:id`): every field comes from the body. Needs `acl:write`.
 * @throws {DomainError} `invalid` (500): `Role ID invalid UUID`, `cannot find role <id>`,
 * `Invalid Role: A role with name "x" already exists`, and the create rules.
 * @example updateRoleOperation(ctx, { secret }, id, { name: "readers", policies: [{ name: "acl-write" }] })
 */
export function updateRoleOperation(ctx: OperationContext<AccessControlState>, scope: RequestScope, id: string, body: RoleBody): RoleView {
  const operation = "update role";
  const { namespace } = authorize(ctx, scope, "write", operation, body.namespace);
  const name = body.name ?? "";
  if (!isValidRoleName(name)) throw invalid(operation, "Invalid Role: the name contains invalid characters or is too long");
  if (!isUuid(id)) throw invalid(operation, "Role ID invalid UUID");
  const existing = ctx.state.roles[id];
  if (!existing || existing.namespace !== namespace) throw invalid(operation, `cannot find role ${id}`, id);
  if (name !== existing.name && !uniqueName(ctx.state.roles, name, existing.namespace)) {
    throw invalid(operation, `Invalid Role: A role with name "${name}" already exists`);
  }
  const policies = resolvePolicyLinks(ctx.state, body.policies ?? [], namespace, operation);
  const serviceIdentities = checkServiceIdentities(body.serviceIdentities ?? [], false, operation, "role");
  const nodeIdentities = checkNodeIdentities(body.nodeIdentities ?? [], operation, "role");
  const fields = { name, description: body.description ?? "", policies, serviceIdentities, nodeIdentities };
  const role: RoleRecord = { ...existing, ...fields, hash: roleHash(fields), modifyIndex: nextIndex(ctx.state) };
  ctx.state.roles[id] = role;
  return roleView(ctx.state, role);
}

/**
 * Deletes a role (`DELETE /acl/role/:id`); `true` also when it does not exist. Needs `acl:write`.
 * Tokens linking it keep the link, which then answers nothing and grants nothing.
 * @example deleteRoleOperation(ctx, { secret }, id) // true
 */
export function deleteRoleOperation(ctx: OperationContext<AccessControlState>, scope: RequestScope, id: string): true {
  const { namespace } = authorize(ctx, scope, "write", "delete role");
  const role = ctx.state.roles[id];
  if (!role || role.namespace !== namespace) return true;
  delete ctx.state.roles[id];
  nextIndex(ctx.state);
  return true;
}

/**
 * Reads a role by ID (`GET /acl/role/:id`) or by name (`GET /acl/role/name/:name`). Needs `acl:read`.
 * @throws {DomainError} `not_found` with an empty message (the real service answers 404 with no body).
 * @example readRoleOperation(ctx, { secret }, "readers", "name").policies
 */
export function readRoleOperation(ctx: ReadContext<AccessControlState>, scope: RequestScope, key: string, by: "id" | "name" = "id"): RoleView {
  const operation = by === "id" ? "read role" : "read role by name";
  const { namespace } = authorize(ctx, scope, "read", operation);
  const role = by === "id" ? ctx.state.roles[key] : Object.values(ctx.state.roles).find((r) => r.name === key && r.namespace === namespace);
  if (!role || role.namespace !== namespace) throw roleNotFound(operation, key);
  return roleView(ctx.state, role);
}

/**
 * Lists the roles of the request's namespace by ID (`GET /acl/roles`), optionally only those
 * linking the policy with ID `policy` (`?policy=`). Needs `acl:read`. `ns=*` lists every
 * namespace where the caller may read.
 * @example listRolesOperation(ctx, { secret }, { policy: policyId }).map((r) => r.name)
 */
export function listRolesOperation(ctx: ReadContext<AccessControlState>, scope: RequestScope, filters: { readonly policy?: string | undefined } = {}): RoleView[] {
  const policy = filters.policy;
  return listed(ctx, scope, ctx.state.roles, "list roles")
    .filter((role) => policy === undefined || policy === "" || role.policies.includes(policy))
    .map((role) => roleView(ctx.state, role));
}
