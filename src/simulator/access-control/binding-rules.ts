/**
 * Binding-rule operations: create, read, update, delete, list, and the rule checks (auth method
 * exists, selector valid and typed against the method's identity fields, bind type known,
 * BindName template using only the method's variables and giving a valid name).
 *
 * Spec: access-control.md "Binding rule", "Binding-rule endpoints"; FIDELITY.md "Access control".
 */
import { isDomainError } from "../kernel/errors.js";
import type { OperationContext, ReadContext } from "../kernel/simulator.js";
import { bindNameSchema, placeholderIdentity, selectorSchema } from "./auth-methods.js";
import {
  checkNamespaceParameter,
  hasAcl,
  requireAcl,
  requireNamespace,
  resolveCaller,
  selectNamespace,
  type RequestScope,
} from "./authorization.js";
import { aclError, invalid } from "./errors.js";
import { isUuid, isValidIdentityName, isValidRoleName } from "./names.js";
import { compileBindName, compileSelector } from "./selector/index.js";
import {
  authMethodKey,
  nextIndex,
  type AccessControlState,
  type AuthMethodRecord,
  type BindType,
  type BindingRuleRecord,
} from "./state.js";
import { bindingRuleView, type BindingRuleView } from "./views.js";

/** The fields of a binding-rule body (spec "Binding-rule endpoints"). */
export interface BindingRuleInput {
  readonly description?: string | undefined;
  /** Required on create; immutable on update (filled in when absent). */
  readonly authMethod?: string | undefined;
  readonly selector?: string | undefined;
  /** `service`, `node` or `role`; required. */
  readonly bindType?: string | undefined;
  /** A plain name or a `${field}` template; required. */
  readonly bindName?: string | undefined;
  /** Enterprise: the body's `Namespace`. */
  readonly namespace?: string | undefined;
}

/**
 * The bind types a rule may name (any other is `Invalid Binding Rule: unknown BindType "x"`).
 * @example BIND_TYPES.includes("role") // true
 */
export const BIND_TYPES: readonly BindType[] = Object.freeze(["service", "node", "role"]);

/**
 * Whether `name` is a valid result of a BindName for `bindType`.
 * @example isValidBindName("service", "web-1") // true; isValidBindName("role", "Admins") // true
 */
export function isValidBindName(bindType: BindType, name: string): boolean {
  return bindType === "role" ? isValidRoleName(name) : isValidIdentityName(name);
}

function detail(error: unknown): string {
  return isDomainError(error) ? error.detail : String(error);
}

function checkRule(state: AccessControlState, rule: BindingRuleRecord, operation: string): void {
  if (rule.authMethod === "") throw invalid(operation, "Invalid Binding Rule: no AuthMethod is set");
  const method = state.authMethods[authMethodKey(rule.namespace, rule.authMethod)];
  if (!method) throw invalid(operation, `cannot find auth method with name "${rule.authMethod}"`);
  if (rule.selector !== "") {
    try {
      compileSelector(rule.selector, selectorSchema(method));
    } catch (error) {
      if (!isDomainError(error)) throw error;
      throw invalid(operation, `invalid Binding Rule: Selector is invalid: ${detail(error)}`);
    }
  }
  if ((rule.bindType as string) === "") throw invalid(operation, "Invalid Binding Rule: no BindType is set");
  if (rule.bindName === "") throw invalid(operation, "Invalid Binding Rule: no BindName is set");
  if (!BIND_TYPES.includes(rule.bindType)) throw invalid(operation, `Invalid Binding Rule: unknown BindType "${rule.bindType}"`);
  let rendered: string;
  try {
    rendered = compileBindName(rule.bindName, bindNameSchema(method)).render(placeholderIdentity(method), { lowercase: true });
  } catch (error) {
    if (!isDomainError(error)) throw error;
    throw invalid(operation, `Invalid Binding Rule: invalid BindName: ${detail(error)}`);
  }
  if (!isValidBindName(rule.bindType, rendered)) throw invalid(operation, "Invalid Binding Rule: invalid BindName");
}

function prepare(ctx: OperationContext<AccessControlState>, scope: RequestScope, bodyNamespace: string | undefined, operation: string): string {
  checkNamespaceParameter(ctx.state, scope, operation);
  const caller = resolveCaller(ctx.state, ctx.now, scope, operation, ctx);
  const namespace = selectNamespace(ctx.state, scope, caller, bodyNamespace);
  requireAcl(ctx.state, caller, namespace, "write", operation);
  return namespace;
}

/**
 * Creates a binding rule (`PUT /acl/binding-rule`). Needs `acl:write`.
 * @throws {DomainError} `invalid` with the real wording: `Invalid Binding Rule: no AuthMethod is
 * set`, `cannot find auth method with name "x"`, `invalid Binding Rule: Selector is invalid: ...`,
 * `Invalid Binding Rule: no BindType is set` / `no BindName is set` / `unknown BindType "x"` /
 * `invalid BindName: ...`.
 * @example createBindingRule(ctx, scope, { authMethod: "k8s", bindType: "service", bindName: "${serviceaccount.name}" })
 */
export function createBindingRule(ctx: OperationContext<AccessControlState>, scope: RequestScope, input: BindingRuleInput): BindingRuleView {
  const operation = "create binding rule";
  const namespace = prepare(ctx, scope, input.namespace, operation);
  requireNamespace(ctx.state, namespace, operation);
  let id = ctx.ids.uuid();
  while (ctx.state.bindingRules[id]) id = ctx.ids.uuid();
  const rule: BindingRuleRecord = {
    id,
    description: input.description ?? "",
    authMethod: input.authMethod ?? "",
    selector: input.selector ?? "",
    bindType: (input.bindType ?? "") as BindType,
    bindName: input.bindName ?? "",
    namespace,
    createIndex: 0,
    modifyIndex: 0,
  };
  checkRule(ctx.state, rule, operation);
  const index = nextIndex(ctx.state);
  const stored = { ...rule, createIndex: index, modifyIndex: index };
  ctx.state.bindingRules[id] = stored;
  return bindingRuleView(ctx.state, stored);
}

/**
 * Updates a binding rule (`PUT /acl/binding-rule/:id`): AuthMethod immutable (filled in when
 * absent), everything else replaced by the body. Needs `acl:write`.
 * @throws {DomainError} `invalid`: `Binding Rule ID invalid UUID`, `cannot find binding rule <id>`,
 * `the AuthMethod field of an Binding Rule is immutable`, and the create checks.
 * @example updateBindingRule(ctx, scope, ruleId, { bindType: "node", bindName: "${serviceaccount.name}" })
 */
export function updateBindingRule(
  ctx: OperationContext<AccessControlState>,
  scope: RequestScope,
  id: string,
  input: BindingRuleInput,
): BindingRuleView {
  const operation = "update binding rule";
  const namespace = prepare(ctx, scope, input.namespace, operation);
  if (!isUuid(id)) throw invalid(operation, "Binding Rule ID invalid UUID");
  const existing = ctx.state.bindingRules[id];
  if (!existing || existing.namespace !== namespace) throw invalid(operation, `cannot find binding rule ${id}`);
  let authMethod = input.authMethod ?? "";
  if (authMethod === "") authMethod = existing.authMethod;
  else if (authMethod !== existing.authMethod) throw invalid(operation, "the AuthMethod field of an Binding Rule is immutable", id);
  const rule: BindingRuleRecord = {
    id,
    description: input.description ?? "",
    authMethod,
    selector: input.selector ?? "",
    bindType: (input.bindType ?? "") as BindType,
    bindName: input.bindName ?? "",
    namespace,
    createIndex: existing.createIndex,
    modifyIndex: existing.modifyIndex,
  };
  checkRule(ctx.state, rule, operation);
  const stored = { ...rule, modifyIndex: nextIndex(ctx.state) };
  ctx.state.bindingRules[id] = stored;
  return bindingRuleView(ctx.state, stored);
}

/**
 * Deletes a binding rule (`DELETE /acl/binding-rule/:id`). Needs `acl:write`. Deleting a rule that
 * does not exist succeeds.
 * @returns `true`.
 * @throws {DomainError} `invalid` (`invalid binding rule id provided`) for a malformed id.
 * @example deleteBindingRule(ctx, scope, ruleId) // true
 */
export function deleteBindingRule(ctx: OperationContext<AccessControlState>, scope: RequestScope, id: string): true {
  const operation = "delete binding rule";
  const namespace = prepare(ctx, scope, undefined, operation);
  if (!isUuid(id)) throw invalid(operation, "invalid binding rule id provided");
  const existing = ctx.state.bindingRules[id];
  if (!existing || existing.namespace !== namespace) return true;
  delete ctx.state.bindingRules[id];
  nextIndex(ctx.state);
  return true;
}

/**
 * Reads a binding rule (`GET /acl/binding-rule/:id`). Needs `acl:read`.
 * @throws {DomainError} `not_found` (404) when it does not exist.
 * @example readBindingRule(ctx, scope, ruleId).selector
 */
export function readBindingRule(ctx: ReadContext<AccessControlState>, scope: RequestScope, id: string): BindingRuleView {
  const operation = "read binding rule";
  checkNamespaceParameter(ctx.state, scope, operation);
  const caller = resolveCaller(ctx.state, ctx.now, scope, operation, ctx);
  const namespace = selectNamespace(ctx.state, scope, caller);
  requireAcl(ctx.state, caller, namespace, "read", operation);
  const rule = ctx.state.bindingRules[id];
  if (!rule || rule.namespace !== namespace) {
    throw aclError("not_found", operation, "Requested binding rule does not exist: ACL not found", { resource: id });
  }
  return bindingRuleView(ctx.state, rule);
}

/**
 * Lists binding rules (`GET /acl/binding-rules`), sorted by ID, optionally only those of one auth
 * method. Needs `acl:read`. `ns=*` lists every namespace where the caller may read.
 * @example listBindingRules(ctx, scope, { authMethod: "k8s" })
 */
export function listBindingRules(
  ctx: ReadContext<AccessControlState>,
  scope: RequestScope,
  filters: { readonly authMethod?: string | undefined } = {},
): BindingRuleView[] {
  const operation = "list binding rules";
  const { state } = ctx;
  checkNamespaceParameter(state, scope, operation);
  const caller = resolveCaller(state, ctx.now, scope, operation, ctx);
  const namespace = selectNamespace(state, scope, caller);
  const wildcard = namespace === "*";
  if (!wildcard) requireAcl(state, caller, namespace, "read", operation);
  return Object.keys(state.bindingRules)
    .sort()
    .map((id) => state.bindingRules[id] as BindingRuleRecord)
    .filter((rule) => (wildcard ? hasAcl(state, caller, rule.namespace, "read") : rule.namespace === namespace))
    .filter((rule) => !filters.authMethod || rule.authMethod === filters.authMethod)
    .map((rule) => bindingRuleView(state, rule));
}

/**
 * The rules of an auth method, sorted by ID (the order login applies them).
 * @example rulesOf(state, method).map((r) => r.id)
 */
export function rulesOf(state: AccessControlState, method: AuthMethodRecord): BindingRuleRecord[] {
  return Object.keys(state.bindingRules)
    .sort()
    .map((id) => state.bindingRules[id] as BindingRuleRecord)
    .filter((rule) => rule.authMethod === method.name && rule.namespace === method.namespace);
}
