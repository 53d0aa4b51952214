/**
 * Property tests of the binding-rule selector language (FIDELITY.md "Access control"):
 * - printing then parsing any AST gives the same AST;
 * - evaluation agrees with an independent reference evaluator over random identities;
 * - random garbage never throws anything but DomainError, and what parses re-prints exactly;
 * - the RE2 engine agrees with JavaScript's RegExp where the two languages coincide.
 * fast-check prints the seed and path of any failure.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  compileSelector,
  evaluateSelector,
  MATCH_OPERATORS,
  parseSelector,
  printSelector,
  type Identity,
  type MatchOperator,
  type SelectorAst,
} from "../../src/simulator/access-control/selector/index.js";
import { compileBindName } from "../../src/simulator/access-control/selector/index.js";
import { compileRe2, Re2SyntaxError } from "../../src/simulator/access-control/selector/re2-adapter.js";
import { DomainError } from "../../src/simulator/kernel/errors.js";

const wellFormed = (s: string): boolean => !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);
const text = (maxLength: number): fc.Arbitrary<string> => fc.string({ unit: "binary", maxLength }).filter(wellFormed);
const identifier = fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9_]{0,5}$/);

function astArbitrary(
  paths: fc.Arbitrary<readonly string[]>,
  values: fc.Arbitrary<string>,
  patterns: fc.Arbitrary<string>,
): fc.Arbitrary<SelectorAst> {
  const match: fc.Arbitrary<SelectorAst> = fc
    .tuple(fc.constantFrom(...MATCH_OPERATORS), paths, values, patterns)
    .map(([operator, selector, value, pattern]): SelectorAst => {
      if (operator === "is empty" || operator === "is not empty") return { kind: "match", operator, selector };
      const literal = operator === "matches" || operator === "not matches" ? pattern : value;
      return { kind: "match", operator, selector, value: literal };
    });
  const { node } = fc.letrec<{ node: SelectorAst; not: SelectorAst; and: SelectorAst; or: SelectorAst }>((tie) => ({
    node: fc.oneof({ depthSize: "small", maxDepth: 5 }, match, tie("not"), tie("and"), tie("or")),
    // The parser folds `not not x` to x: the canonical AST never has a not directly inside a not.
    not: tie("node").map((operand): SelectorAst => (operand.kind === "not" ? operand.operand : { kind: "not", operand })),
    and: fc.tuple(tie("node"), tie("node")).map(([left, right]): SelectorAst => ({ kind: "and", left, right })),
    or: fc.tuple(tie("node"), tie("node")).map(([left, right]): SelectorAst => ({ kind: "or", left, right })),
  }));
  return node;
}

describe("printing and parsing", () => {
  it("parse(print(ast)) deep-equals ast, for any paths and values", () => {
    const paths = fc.tuple(identifier, fc.array(fc.oneof(identifier, text(6)), { maxLength: 3 })).map(([first, rest]) => [first, ...rest]);
    fc.assert(
      fc.property(astArbitrary(paths, text(8), text(8)), (ast) => {
        const printed = printSelector(ast);
        expect(parseSelector(printed)).toEqual(ast);
        expect(printSelector(parseSelector(printed))).toBe(printed);
      }),
      { numRuns: 300 },
    );
  });
});

// ---- a reference evaluator, written independently of src/ -------------------------------------

const STRINGS = ["", "web", "Web-1", "admins", "db", "a", "ab", "b a"];
const PATTERNS: Record<string, RegExp | undefined> = {
  "^w": /^w/,
  "b$": /b$/,
  "a|d": /a|d/,
  "(?i)web": /web/i,
  "[ab]+": /[ab]+/,
  "^$": /^$/,
  ".*": /.*/,
  "(": undefined, // invalid: the selector fails
};

type Outcome = boolean | "error";

function refLookup(identity: unknown, path: readonly string[]): { missing: true } | { missing: false; value: unknown } | "error" {
  let here: unknown = identity;
  for (const key of path) {
    if (here === null || here === undefined) return { missing: true };
    if (typeof here !== "object" || Array.isArray(here)) return "error";
    if (!Object.prototype.hasOwnProperty.call(here, key)) return { missing: true };
    here = (here as Record<string, unknown>)[key];
  }
  if (here === null || here === undefined) return { missing: true };
  return { missing: false, value: here };
}

function refMissing(operator: MatchOperator): boolean {
  // go-bexpr 0.1.2: on a missing key only ==, in/contains and is not empty are false; every
  // other operator, matches included, is true (test/fixtures/bexpr-reference.json).
  return !["==", "in", "contains", "is not empty"].includes(operator);
}

function refPositive(operator: MatchOperator, value: unknown, literal: string): Outcome {
  const isObject = typeof value === "object" && value !== null && !Array.isArray(value);
  switch (operator) {
    case "==":
    case "!=":
      return typeof value === "string" ? value === literal : "error";
    case "in":
    case "not in":
    case "contains":
    case "not contains":
      if (typeof value === "string") return value.indexOf(literal) >= 0;
      if (Array.isArray(value)) return value.indexOf(literal) >= 0;
      if (isObject) return Object.keys(value).includes(literal);
      return "error";
    case "is empty":
    case "is not empty":
      if (typeof value === "string" || Array.isArray(value)) return value.length === 0;
      if (isObject) return Object.keys(value).length === 0;
      return "error";
    case "matches":
    case "not matches": {
      const re = PATTERNS[literal];
      if (typeof value !== "string" || re === undefined) return "error";
      return re.test(value);
    }
  }
}

function refMatch(node: Extract<SelectorAst, { kind: "match" }>, identity: Identity): Outcome {
  const found = refLookup(identity, node.selector);
  if (found === "error") return "error";
  if (found.missing) return refMissing(node.operator);
  const positive = refPositive(node.operator, found.value, node.value ?? "");
  if (positive === "error") return positive;
  const negated = node.operator === "!=" || node.operator.startsWith("not ") || node.operator === "is not empty";
  return negated ? !positive : positive;
}

function reference(node: SelectorAst, identity: Identity): Outcome {
  if (node.kind === "match") return refMatch(node, identity);
  if (node.kind === "not") {
    const inner = reference(node.operand, identity);
    return inner === "error" ? inner : !inner;
  }
  const left = reference(node.left, identity);
  if (left === "error") return left;
  if (node.kind === "and" && !left) return false;
  if (node.kind === "or" && left) return true;
  return reference(node.right, identity);
}

const stringValue = fc.constantFrom(...STRINGS);
const odd = fc.constantFrom<unknown>("str", ["a"], null, 7, true, {});
const identityArbitrary: fc.Arbitrary<Identity> = fc.record(
  {
    value: fc.oneof(
      { weight: 5, arbitrary: fc.dictionary(fc.constantFrom("sub", "name", "role", "a.b", "x"), fc.oneof({ weight: 6, arbitrary: stringValue }, odd)) },
      { weight: 1, arbitrary: odd },
    ),
    list: fc.oneof(
      { weight: 5, arbitrary: fc.dictionary(fc.constantFrom("groups", "teams", "x"), fc.oneof({ weight: 6, arbitrary: fc.array(fc.oneof(stringValue, odd), { maxLength: 4 }) }, odd)) },
      { weight: 1, arbitrary: odd },
    ),
  },
  { requiredKeys: [] },
);
const knownPaths = fc.constantFrom<readonly string[]>(
  ["value"], ["list"], ["value", "sub"], ["value", "name"], ["value", "role"], ["value", "a.b"], ["value", "x"],
  ["list", "groups"], ["list", "teams"], ["list", "x"], ["value", "sub", "deep"], ["other"], ["value", "nope"],
);

describe("evaluation", () => {
  it("agrees with the reference evaluator (a failing selector is no match)", () => {
    const asts = astArbitrary(knownPaths, stringValue, fc.constantFrom(...Object.keys(PATTERNS)));
    fc.assert(
      fc.property(asts, identityArbitrary, (ast, identity) => {
        const expected = reference(ast, identity);
        expect(evaluateSelector(ast, identity)).toBe(expected === true);
      }),
      { numRuns: 1500 },
    );
  });

  it("compiled selectors agree with evaluateSelector and never throw", () => {
    const asts = astArbitrary(knownPaths, stringValue, fc.constantFrom(...Object.keys(PATTERNS)));
    fc.assert(
      fc.property(asts, identityArbitrary, (ast, identity) => {
        let compiled;
        try {
          compiled = compileSelector(printSelector(ast), { fields: {}, claims: true });
        } catch (error) {
          expect(error).toBeInstanceOf(DomainError);
          return;
        }
        expect(compiled.matches(identity)).toBe(evaluateSelector(ast, identity));
      }),
      { numRuns: 500 },
    );
  });
});

describe("garbage input", () => {
  const tokens = [
    " ", " ", "\t", "\n", "(", ")", "and", "or", "not", "==", "!=", "in", "is", "empty", "contains", "matches",
    "value", "list", ".", "sub", "groups", "[", "]", '"a"', "`b`", '"', "`", "\\", "3", "-1.5", "0", "x_1", "é",
  ];
  const garbage = fc.oneof(
    text(40),
    fc.array(fc.constantFrom(...tokens), { maxLength: 16 }).map((parts) => parts.join("")),
    fc.array(fc.constantFrom(...tokens), { maxLength: 16 }).map((parts) => parts.join(" ")),
  );

  it("never throws anything but DomainError, and what parses prints back to the same AST", () => {
    fc.assert(
      fc.property(garbage, identityArbitrary, (input, identity) => {
        let ast: SelectorAst;
        try {
          ast = parseSelector(input);
        } catch (error) {
          expect(error).toBeInstanceOf(DomainError);
          expect((error as DomainError).code).toBe("invalid");
          return;
        }
        expect(parseSelector(printSelector(ast))).toEqual(ast);
        try {
          const compiled = compileSelector(input, { fields: {}, claims: true });
          expect(typeof compiled.matches(identity)).toBe("boolean");
        } catch (error) {
          expect(error).toBeInstanceOf(DomainError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe("RE2 engine", () => {
  const { re } = fc.letrec<{ re: string; atom: string; concat: string; alt: string; repeat: string; group: string }>((tie) => ({
    re: fc.oneof({ depthSize: "small", maxDepth: 4 }, tie("atom"), tie("concat"), tie("alt"), tie("repeat"), tie("group")),
    atom: fc.constantFrom("a", "b", "A", "1", " ", ".", "[ab]", "[^a]", "[a-c]", "\\d", "\\w", "\\s", "\\W", "^", "$", "\\b", "\\B", "[[:alpha:]]", "\\x41", "\\n"),
    concat: fc.tuple(tie("re"), tie("re")).map(([x, y]) => `(?:${x})(?:${y})`),
    alt: fc.tuple(tie("re"), tie("re")).map(([x, y]) => `(?:${x}|${y})`),
    repeat: fc
      .tuple(tie("re"), fc.constantFrom("*", "+", "?", "*?", "{2}", "{0,2}", "{1,}", "{2,3}?"))
      .map(([x, op]) => `(?:${x})${op}`),
    group: tie("re").map((x) => `(${x})`),
  }));
  const input = fc.string({ unit: fc.constantFrom("a", "b", "c", "A", "B", "1", " ", "\n"), maxLength: 10 });

  it("agrees with JavaScript's RegExp where the two coincide", () => {
    fc.assert(
      fc.property(re, input, (pattern, subject) => {
        const js = new RegExp(pattern.replaceAll("[[:alpha:]]", "[A-Za-z]"), "u");
        expect(compileRe2(pattern).test(subject)).toBe(js.test(subject));
      }),
      { numRuns: 1500 },
    );
  });

  it("agrees with JavaScript's case-insensitive RegExp under (?i)", () => {
    fc.assert(
      fc.property(re, input, (pattern, subject) => {
        const js = new RegExp(pattern.replaceAll("[[:alpha:]]", "[A-Za-z]"), "iu");
        expect(compileRe2(`(?i)${pattern}`).test(subject)).toBe(js.test(subject));
      }),
      { numRuns: 800 },
    );
  });
});

describe("garbage templates and patterns", () => {
  it("BindName templates never throw anything but DomainError, when compiled or rendered", () => {
    const pieces = ["$", "{", "}", "$${", "${", " ", "value", ".", "sub", "x", "-", "é", "1", "+", "\n"];
    const template = fc.oneof(text(20), fc.array(fc.constantFrom(...pieces), { maxLength: 12 }).map((parts) => parts.join("")));
    fc.assert(
      fc.property(template, identityArbitrary, (input, identity) => {
        try {
          const name = compileBindName(input, { fields: { "value.x": "string" }, claims: true });
          const rendered = name.render(identity, { lowercase: true });
          expect(typeof rendered).toBe("string");
        } catch (error) {
          expect(error).toBeInstanceOf(DomainError);
        }
      }),
      { numRuns: 1500 },
    );
  });

  it("regex patterns never throw anything but Go's syntax error, and compiled ones always answer", () => {
    const pieces = [
      "(", ")", "(?", "(?i)", "(?P<", "(?<", ">", ":", "-", "|", "*", "+", "?", "{", "}", "{2", ",", "3}", "[", "]", "^",
      "[:", ":]", "alpha", "\\", "\\p", "\\x", "\\Q", "\\E", "\\1", "a", "é", ".", "$", "0", "9", "=", "!", "P",
    ];
    const pattern = fc.oneof(text(20), fc.array(fc.constantFrom(...pieces), { maxLength: 14 }).map((parts) => parts.join("")));
    fc.assert(
      fc.property(pattern, text(12), (source, subject) => {
        let re;
        try {
          re = compileRe2(source);
        } catch (error) {
          expect(error).toBeInstanceOf(Re2SyntaxError);
          expect((error as Error).message).toMatch(/^error parsing regexp: [a-z][^:]*: `/);
          return;
        }
        expect(typeof re.test(subject)).toBe("boolean");
      }),
      { numRuns: 2000 },
    );
  });
});
