/**
 * The binding-rule selector language and BindName templates of the access-control service
 * (spec: access-control.md "Binding rule"; FIDELITY.md "Access control"). Pure: no HTTP, no time,
 * no randomness. Everything invalid is reported as a DomainError with code `invalid` carrying the
 * real evaluator's message in `detail`.
 *
 * @example
 * const schema: IdentitySchema = { fields: {}, claims: true };
 * const selector = compileSelector('value.sub == "web" and "admins" in list.groups', schema);
 * const bindName = compileBindName("svc-${value.sub}", schema);
 * const identity = { value: { sub: "Web" }, list: { groups: ["admins"] } };
 * if (selector.matches(identity)) bindName.render(identity, { lowercase: true }); // "svc-web"
 */
export {
  MATCH_OPERATORS,
  isUnaryOperator,
  type AndExpression,
  type FieldType,
  type Identity,
  type IdentitySchema,
  type MatchExpression,
  type MatchOperator,
  type NotExpression,
  type OrExpression,
  type SelectorAst,
} from "./ast.js";
export { MAX_SELECTOR_NESTING, parseSelector } from "./parser.js";
export { printSelector, quoteSelectorValue } from "./printer.js";
export { checkSelector, EVALUATOR_OPERATOR, type EvaluatorOperator } from "./type-check.js";
export { evaluateSelector } from "./evaluate.js";
export { compileSelector, type CompiledSelector } from "./compile-selector.js";
export { compileBindName, identityVariables, type CompiledBindName, type RenderOptions } from "./bind-name.js";
