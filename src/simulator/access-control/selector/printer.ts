/**
 * Prints a selector AST as canonical selector text: single spaces, values always quoted, the
 * fewest parentheses that keep the tree's shape. `parseSelector(printSelector(ast))` deep-equals
 * `ast` for every AST the parser can produce.
 */
import { UsageError } from "../../kernel/errors.js";
import type { MatchExpression, SelectorAst } from "./ast.js";
import { codePoints } from "./go-string.js";

const IDENTIFIER = /^[a-zA-Z][a-zA-Z0-9_]*$/;

/**
 * A value as a selector string literal: backquoted when it holds `"` and no `` ` `` or CR, else
 * double-quoted with Go escapes (`"` as `\x22`, since the grammar ends a literal at any `"`).
 * @example
 * quoteSelectorValue("web-1");    // '"web-1"'
 * quoteSelectorValue('say "hi"'); // '`say "hi"`'
 */
export function quoteSelectorValue(value: string): string {
  if (value.includes('"') && !value.includes("`") && !value.includes("\r")) return `\`${value}\``;
  let out = '"';
  for (const cp of codePoints(value)) {
    if (cp === 0x5c) out += "\\\\";
    else if (cp === 0x22) out += "\\x22";
    else if (cp === 0x0a) out += "\\n";
    else if (cp === 0x0d) out += "\\r";
    else if (cp === 0x09) out += "\\t";
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, "0")}`;
    else out += String.fromCodePoint(cp);
  }
  return `${out}"`;
}

function printPath(path: readonly string[]): string {
  const [first, ...rest] = path;
  if (first === undefined || !IDENTIFIER.test(first)) {
    throw new UsageError(`a selector path must start with an identifier ([a-zA-Z][a-zA-Z0-9_]*), got ${JSON.stringify(path)}`);
  }
  return first + rest.map((segment) => (IDENTIFIER.test(segment) ? `.${segment}` : `[${quoteSelectorValue(segment)}]`)).join("");
}

function printMatch(node: MatchExpression): string {
  const path = printPath(node.selector);
  if (node.operator === "is empty" || node.operator === "is not empty") return `${path} ${node.operator}`;
  if (node.value === undefined) throw new UsageError(`the "${node.operator}" match needs a value`);
  const value = quoteSelectorValue(node.value);
  if (node.operator === "in" || node.operator === "not in") return `${value} ${node.operator} ${path}`;
  return `${path} ${node.operator} ${value}`;
}

const PRECEDENCE = { or: 1, and: 2, not: 3, match: 4 } as const;

function print(node: SelectorAst, minimum: number): string {
  let text: string;
  switch (node.kind) {
    case "match":
      text = printMatch(node);
      break;
    case "not":
      text = `not ${print(node.operand, PRECEDENCE.not)}`;
      break;
    case "and":
    case "or": {
      // Chains nest to the right, so a left operand of the same kind needs parentheses.
      const own = PRECEDENCE[node.kind];
      const parts: string[] = [];
      let current: SelectorAst = node;
      while (current.kind === node.kind) {
        parts.push(print(current.left, own + 1));
        current = current.right;
      }
      parts.push(print(current, own));
      text = parts.join(` ${node.kind} `);
      break;
    }
  }
  return PRECEDENCE[node.kind] < minimum ? `(${text})` : text;
}

/**
 * Prints `ast` as canonical selector text.
 *
 * @throws UsageError for a hand-built AST the grammar cannot express (a path not starting with an
 *   identifier, a value-taking operator without a value).
 * @example
 * printSelector(parseSelector("value.sub==web  and not (list.groups is empty)"));
 * // 'value.sub == "web" and not list.groups is empty'
 */
export function printSelector(ast: SelectorAst): string {
  return print(ast, 0);
}
