/** `compileSelector`: parse + type check once at rule creation, evaluate many times at login. */
import type { Identity, IdentitySchema, SelectorAst } from "./ast.js";
import { evaluateSelector } from "./evaluate.js";
import { parseSelector } from "./parser.js";
import { checkSelector } from "./type-check.js";

/** A parsed and type-checked selector. */
export interface CompiledSelector {
  /** The selector exactly as given. */
  readonly text: string;
  /** undefined for the empty selector, which matches every identity. */
  readonly ast: SelectorAst | undefined;
  /** True when `identity` satisfies the selector; never throws (a failing selector is no match). */
  matches(identity: Identity): boolean;
}

/**
 * Parses `text` and checks it against the auth method's identity `schema`
 * (spec: access-control.md "Binding rule" Selector; FIDELITY.md "Access control").
 * Only the empty string compiles to a selector matching everything (the real service's
 * `selector == ""` catch-all); blank text (spaces, tabs, newlines) is parsed like any other and
 * refused, as go-bexpr refuses it (its `Input` rule needs an expression).
 *
 * The thrown message is the evaluator's own; the service adds its prefix when answering a request
 * (the real service words it `Invalid Binding Rule: Selector is invalid: <message>`).
 *
 * @throws DomainError code `invalid` (operation `parse selector` or `compile selector`), e.g.
 *   `Selector "bogus" is not valid`, `Invalid match operator "Equal" for selector "list.groups"`,
 *   `1:10 (9): no match found, expected: "and", "or", [ \t\r\n] or EOF`.
 * @example
 * const selector = compileSelector('value.sub == "web" and "admins" in list.groups', { fields: {}, claims: true });
 * selector.matches({ value: { sub: "web" }, list: { groups: ["admins"] } }); // true
 * selector.matches({ value: { sub: "db" }, list: {} });                       // false
 */
export function compileSelector(text: string, schema: IdentitySchema): CompiledSelector {
  if (text === "") return Object.freeze({ text, ast: undefined, matches: () => true });
  const ast = parseSelector(text);
  checkSelector(ast, schema);
  return Object.freeze({ text, ast, matches: (identity: Identity) => evaluateSelector(ast, identity) });
}
