/**
 * The access-control service simulator: tokens, binding rules, login, and the fixtures around
 * them. Pure state rules; no HTTP. Spec: access-control.md.
 */
export * from "./state.js";
export * from "./definition.js";
export {
  aclAccess,
  hasAcl,
  isExpired,
  policyAclRule,
  type AclAccess,
  type RequestScope,
} from "./authorization.js";
export {
  createToken,
  readToken,
  readSelf,
  updateToken,
  cloneToken,
  deleteToken,
  listTokens,
  TOKEN_EXPIRE_MOVE,
  type TokenInput,
  type TokenListFilters,
} from "./tokens.js";
export {
  createBindingRule,
  readBindingRule,
  updateBindingRule,
  deleteBindingRule,
  listBindingRules,
  type BindingRuleInput,
} from "./binding-rules.js";
export { login, logout, evaluateBindings, type LoginInput, type Bindings } from "./login.js";
export {
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
} from "./fixtures.js";
export type { ClaimsInput, ServiceAccountIdentityInput } from "./auth-methods.js";
export type { LinkInput, NodeIdentityInput, ServiceIdentityInput } from "./links.js";
export type {
  BindingRuleView,
  ExpandedTokenView,
  LinkView,
  PolicyView,
  RoleView,
  TokenView,
} from "./views.js";
/** The selector language and BindName templates (binding rules). */
export * as selector from "./selector/index.js";
export {
  createPolicyOperation,
  updatePolicyOperation,
  deletePolicyOperation,
  readPolicyOperation,
  listPoliciesOperation,
  createRoleOperation,
  updateRoleOperation,
  deleteRoleOperation,
  readRoleOperation,
  listRolesOperation,
  type PolicyBody,
  type PolicyListView,
  type RoleBody,
} from "./policies.js";
export { bootstrapAcl, bootstrapStatus, resetBootstrap, BOOTSTRAP_TOKEN_DESCRIPTION } from "./bootstrap.js";
export { checkPolicyRules, aclLevelOf, type PolicyRules, type ResourceRule, type RuleLevel } from "./rules.js";
