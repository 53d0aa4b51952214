/**
 * Type checking of selectors against an auth method's identity fields, with the real evaluator's
 * rules and messages (FIDELITY.md "Access control"): strings accept `==`, `!=`, `matches`,
 * `contains`/`in` (substring); lists accept `contains`/`in` and `is empty`; maps (`value`, `list`
 * of claims-based methods) accept `is empty` and `in` (keys). Unknown fields:
 * `Selector "bogus" is not valid`; a wrong operator:
 * `Invalid match operator "Is Empty" for selector "value.sub"`; a bad regex:
 * `Failed to compile regular expression "(": error parsing regexp: missing closing ): `+"`(`".
 */
import type { IdentitySchema, MatchExpression, MatchOperator, SelectorAst } from "./ast.js";
import { goQuote } from "./go-string.js";
import { Re2SyntaxError } from "./re2-adapter.js";
import { cachedRegex } from "./regex-cache.js";
import { selectorError } from "./selector-error.js";

/** The evaluator's own operator names (what its messages print). */
export type EvaluatorOperator = "Equal" | "Not Equal" | "In" | "Not In" | "Is Empty" | "Is Not Empty" | "Matches" | "Not Matches";

/** `contains` is `in` to the evaluator. */
export const EVALUATOR_OPERATOR: Readonly<Record<MatchOperator, EvaluatorOperator>> = Object.freeze({
  "==": "Equal",
  "!=": "Not Equal",
  contains: "In",
  "not contains": "Not In",
  in: "In",
  "not in": "Not In",
  matches: "Matches",
  "not matches": "Not Matches",
  "is empty": "Is Empty",
  "is not empty": "Is Not Empty",
});

interface FieldConfig {
  readonly operators: ReadonlySet<EvaluatorOperator>;
  readonly fields: Map<string, FieldConfig>;
  /** Any other name (map keys). */
  any: FieldConfig | undefined;
}

const STRING_OPERATORS: readonly EvaluatorOperator[] = ["Equal", "Not Equal", "In", "Not In", "Matches", "Not Matches"];
const LIST_OPERATORS: readonly EvaluatorOperator[] = ["In", "Not In", "Is Empty", "Is Not Empty"];
const MAP_OPERATORS: readonly EvaluatorOperator[] = ["Is Empty", "Is Not Empty", "In", "Not In"];

function config(operators: readonly EvaluatorOperator[], any?: FieldConfig): FieldConfig {
  return { operators: new Set(operators), fields: new Map(), any };
}

const configs = new WeakMap<IdentitySchema, FieldConfig>();

/** The field tree of `schema`: dotted paths become nested structs (which accept no operator). */
function fieldConfig(schema: IdentitySchema): FieldConfig {
  const cached = configs.get(schema);
  if (cached !== undefined) return cached;
  const root = config([]);
  for (const [path, type] of Object.entries(schema.fields)) {
    const segments = path.split(".");
    let node = root;
    segments.forEach((segment, i) => {
      const last = i === segments.length - 1;
      let child = node.fields.get(segment);
      if (child === undefined || last) {
        const operators = !last ? [] : type === "string" ? STRING_OPERATORS : type === "list" ? LIST_OPERATORS : MAP_OPERATORS;
        const replacement = config(operators, last && type === "map" ? config(STRING_OPERATORS) : child?.any);
        for (const [name, sub] of child?.fields ?? []) replacement.fields.set(name, sub);
        child = replacement;
        node.fields.set(segment, child);
      }
      node = child;
    });
  }
  if (schema.claims === true) {
    root.fields.set("value", config(MAP_OPERATORS, config(STRING_OPERATORS)));
    root.fields.set("list", config(MAP_OPERATORS, config(LIST_OPERATORS)));
  }
  configs.set(schema, root);
  return root;
}

function checkMatch(node: MatchExpression, root: FieldConfig): void {
  let current: FieldConfig | undefined;
  let fields: FieldConfig | undefined = root;
  node.selector.forEach((segment, i) => {
    const next: FieldConfig | undefined = fields?.fields.get(segment) ?? fields?.any;
    if (next === undefined) {
      throw selectorError("compile selector", `Selector ${goQuote(node.selector.slice(0, i + 1).join("."))} is not valid`);
    }
    current = next;
    fields = next;
  });
  const path = goQuote(node.selector.join("."));
  if (current === undefined) throw selectorError("compile selector", `Invalid selector: ${path}`);
  const operator = EVALUATOR_OPERATOR[node.operator];
  if (!(current as FieldConfig).operators.has(operator)) {
    throw selectorError("compile selector", `Invalid match operator ${goQuote(operator)} for selector ${path}`);
  }
  if ((operator === "Matches" || operator === "Not Matches") && node.value !== undefined) {
    const compiled = cachedRegex(node.value);
    if (compiled instanceof Re2SyntaxError) {
      throw selectorError("compile selector", `Failed to compile regular expression ${goQuote(node.value)}: ${compiled.message}`);
    }
  }
}

/**
 * Checks every comparison of `ast` against `schema`, in source order; the first problem is thrown.
 * As in the real evaluator, a schema with no fields at all (and no claims) checks nothing.
 *
 * @throws DomainError code `invalid`, operation `compile selector`, with the evaluator's message.
 * @example
 * checkSelector(parseSelector("bogus.x == y"), { fields: {}, claims: true });
 * // throws: Selector "bogus" is not valid
 */
export function checkSelector(ast: SelectorAst, schema: IdentitySchema): void {
  const root = fieldConfig(schema);
  if (root.fields.size === 0) return;
  const pending: SelectorAst[] = [ast];
  while (pending.length > 0) {
    const node = pending.pop() as SelectorAst;
    if (node.kind === "match") checkMatch(node, root);
    else if (node.kind === "not") pending.push(node.operand);
    else pending.push(node.right, node.left);
  }
}
