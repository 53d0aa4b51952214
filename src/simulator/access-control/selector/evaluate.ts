/**
 * Evaluation of a selector against one identity, with the real evaluator's semantics: a missing
 * field (`value.nope`) equals nothing (`==` false even against `""`, `!=` true, `in` false,
 * `is empty` true, `is not empty` false, and `matches` true like every other operator: go-bexpr
 * 0.1.2 answers false only for `==`, `in` and `is not empty` on a missing key); `in`/`contains` is a substring test on strings, membership on
 * lists and key presence on maps; `matches` is an unanchored RE2 search. An operation the value
 * cannot take (`==` on a list, a bad regex in an unchecked AST) makes the whole selector fail,
 * which at login means no match.
 */
import type { Identity, MatchExpression, SelectorAst } from "./ast.js";
import { Re2SyntaxError } from "./re2-adapter.js";
import { cachedRegex } from "./regex-cache.js";
import { EVALUATOR_OPERATOR, type EvaluatorOperator } from "./type-check.js";

/** Thrown inside evaluation where the real evaluator returns an error. */
class EvaluationFailure {}
const FAILURE = new EvaluationFailure();

const NOT_PRESENT: Readonly<Record<EvaluatorOperator, boolean>> = {
  Equal: false,
  "Not Equal": true,
  In: false,
  "Not In": true,
  "Is Empty": true,
  "Is Not Empty": false,
  // go-bexpr 0.1.2 (the version the real service pins) answers true for every operator but these
  // three on a missing map key, `matches` included (test/properties/selector-reference.test.ts).
  Matches: true,
  "Not Matches": true,
};

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

type Lookup = { readonly found: true; readonly value: unknown } | { readonly found: false };

function lookup(identity: Identity, path: readonly string[]): Lookup {
  let current: unknown = identity;
  for (const segment of path) {
    if (current === undefined || current === null) return { found: false };
    if (!isMap(current)) throw FAILURE;
    if (!Object.hasOwn(current, segment)) return { found: false };
    current = current[segment];
  }
  return current === undefined || current === null ? { found: false } : { found: true, value: current };
}

function contains(container: unknown, item: string): boolean {
  if (typeof container === "string") return container.includes(item);
  if (Array.isArray(container)) return container.some((element) => element === item);
  if (isMap(container)) return Object.hasOwn(container, item);
  throw FAILURE;
}

function isEmpty(value: unknown): boolean {
  if (typeof value === "string" || Array.isArray(value)) return value.length === 0;
  if (isMap(value)) return Object.keys(value).length === 0;
  throw FAILURE;
}

function equals(value: unknown, expected: string): boolean {
  if (typeof value !== "string") throw FAILURE;
  return value === expected;
}

function matchesRegex(value: unknown, pattern: string): boolean {
  if (typeof value !== "string") throw FAILURE;
  const regex = cachedRegex(pattern);
  if (regex instanceof Re2SyntaxError) throw FAILURE;
  return regex.test(value);
}

function evaluateMatch(node: MatchExpression, identity: Identity): boolean {
  const operator = EVALUATOR_OPERATOR[node.operator];
  const found = lookup(identity, node.selector);
  if (!found.found) return NOT_PRESENT[operator];
  const value = node.value ?? "";
  switch (operator) {
    case "Equal":
      return equals(found.value, value);
    case "Not Equal":
      return !equals(found.value, value);
    case "In":
      return contains(found.value, value);
    case "Not In":
      return !contains(found.value, value);
    case "Is Empty":
      return isEmpty(found.value);
    case "Is Not Empty":
      return !isEmpty(found.value);
    case "Matches":
      return matchesRegex(found.value, value);
    case "Not Matches":
      return !matchesRegex(found.value, value);
  }
}

function evaluate(root: SelectorAst, identity: Identity): boolean {
  let node = root;
  // and/or chains nest to the right: walk them in a loop, short-circuiting like the evaluator.
  for (;;) {
    switch (node.kind) {
      case "match":
        return evaluateMatch(node, identity);
      case "not":
        return !evaluate(node.operand, identity);
      case "and":
        if (!evaluate(node.left, identity)) return false;
        node = node.right;
        break;
      case "or":
        if (evaluate(node.left, identity)) return true;
        node = node.right;
        break;
    }
  }
}

/**
 * True when `identity` satisfies `ast`. Never throws: where the real evaluator errors (an operator
 * the value's type does not take, an invalid regex, a path through a non-object) the answer is
 * `false`, as a failing selector binds nothing at login.
 *
 * @example
 * evaluateSelector(parseSelector('"admins" in list.groups'), { value: {}, list: { groups: ["admins"] } }); // true
 * evaluateSelector(parseSelector('value.missing == ""'), { value: {} }); // false
 */
export function evaluateSelector(ast: SelectorAst, identity: Identity): boolean {
  try {
    return evaluate(ast, identity);
  } catch (error) {
    if (error instanceof EvaluationFailure) return false;
    throw error;
  }
}
