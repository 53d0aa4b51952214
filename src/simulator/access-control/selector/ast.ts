/**
 * The selector AST and the identity types selectors are checked and evaluated against
 * (spec: access-control.md "Binding rule" Selector; FIDELITY.md "Access control").
 */

/** The type of an identity field a selector may test. */
export type FieldType = "string" | "list" | "map";

/**
 * The identity fields an auth method exposes to selectors and BindName templates.
 *
 * @example
 * const kubernetes: IdentitySchema = { fields: { "serviceaccount.name": "string", "serviceaccount.namespace": "string" } };
 * const jwt: IdentitySchema = { fields: {}, claims: true }; // value.<claim> strings, list.<claim> lists
 */
export interface IdentitySchema {
  /** dotted path -> type, e.g. {"serviceaccount.name": "string", "serviceaccount.namespace": "string"} */
  readonly fields: Readonly<Record<string, FieldType>>;
  /** claims-based method (JWT/OIDC-like): `value` and `list` are maps; any `value.<claim>` is a string, any `list.<claim>` a list of strings */
  readonly claims?: boolean;
}

/**
 * A validated identity, nested: `{value: {sub: "x"}, list: {groups: ["a"]}}` or
 * `{serviceaccount: {name: "web"}}`. Leaves are strings or arrays of strings; objects nest.
 */
export type Identity = Readonly<Record<string, unknown>>;

/**
 * The match operators, spelled as in the selector text. `contains` is `in` with its operands the
 * other way round (the real evaluator treats them as one operator; the AST keeps the spelling so
 * printing gives back what was written).
 */
export type MatchOperator =
  | "=="
  | "!="
  | "contains"
  | "not contains"
  | "matches"
  | "not matches"
  | "is empty"
  | "is not empty"
  | "in"
  | "not in";

/** Every {@link MatchOperator}, in grammar order. */
export const MATCH_OPERATORS: readonly MatchOperator[] = Object.freeze([
  "==",
  "!=",
  "contains",
  "not contains",
  "matches",
  "not matches",
  "is empty",
  "is not empty",
  "in",
  "not in",
] as const);

/** `left or right` (the parser nests chains to the right: `a or b or c` is `a or (b or c)`). */
export interface OrExpression {
  readonly kind: "or";
  readonly left: SelectorAst;
  readonly right: SelectorAst;
}

/** `left and right` (nested to the right like {@link OrExpression}). */
export interface AndExpression {
  readonly kind: "and";
  readonly left: SelectorAst;
  readonly right: SelectorAst;
}

/** `not operand`. The parser folds `not not x` to `x`, so an operand is never itself a `not`. */
export interface NotExpression {
  readonly kind: "not";
  readonly operand: SelectorAst;
}

/**
 * One comparison. `selector` is the field path as segments (`value["a.b"]` is `["value", "a.b"]`);
 * `value` is the literal's string value (bare words, numbers and quoted strings all become strings),
 * absent for `is empty` / `is not empty`.
 */
export interface MatchExpression {
  readonly kind: "match";
  readonly operator: MatchOperator;
  readonly selector: readonly string[];
  readonly value?: string;
}

/** A parsed selector. */
export type SelectorAst = OrExpression | AndExpression | NotExpression | MatchExpression;

/**
 * True for the operators written without a value (`is empty`, `is not empty`).
 * @example
 * isUnaryOperator("is empty"); // true
 * isUnaryOperator("==");       // false
 */
export function isUnaryOperator(operator: MatchOperator): boolean {
  return operator === "is empty" || operator === "is not empty";
}
