/**
 * Evaluation semantics, as measured on the real evaluator (FIDELITY.md "Access control"): every
 * operator on every value type, missing claims, failures (no match), short-circuiting, and
 * compileSelector's empty-selector rule.
 */
import { describe, expect, it } from "vitest";
import { compileSelector, evaluateSelector, parseSelector, type Identity } from "../../../../src/simulator/access-control/selector/index.js";
import { messageOf } from "./helpers.js";

const claims = { fields: {}, claims: true } as const;
const identity: Identity = {
  value: { sub: "web-1", email: "Dev@Example.com", empty: "" },
  list: { groups: ["admins", "dev"], none: [] },
};
const evaluate = (text: string, who: Identity = identity): boolean => evaluateSelector(parseSelector(text), who);

describe("strings", () => {
  it.each([
    ['value.sub == "web-1"', true],
    ['value.sub == "web"', false],
    ['value.sub != "web"', true],
    ['value.sub != "web-1"', false],
    ['value.sub contains "eb-"', true],
    ['value.sub contains "db"', false],
    ['value.sub not contains "db"', true],
    ['"eb" in value.sub', true],
    ['"x" in value.sub', false],
    ['"x" not in value.sub', true],
    ['"" in value.sub', true],
    ['value.sub matches "^web-[0-9]+$"', true],
    ['value.sub matches "eb"', true],
    ['value.sub matches "^eb"', false],
    ['value.sub not matches "^db"', true],
    ['value.email matches "(?i)@example\\\\.com$"', true],
    ['value.empty == ""', true],
    ["value.empty is empty", true],
    ["value.sub is not empty", true],
  ])("%s -> %s", (text, expected) => {
    expect(evaluate(text)).toBe(expected);
  });
});

describe("lists", () => {
  it.each([
    ['list.groups contains "admins"', true],
    ['list.groups contains "admin"', false],
    ['"dev" in list.groups', true],
    ['"ops" not in list.groups', true],
    ['list.groups not contains "dev"', false],
    ["list.groups is empty", false],
    ["list.none is empty", true],
    ["list.none is not empty", false],
  ])("%s -> %s", (text, expected) => {
    expect(evaluate(text)).toBe(expected);
  });

  it("fails (no match) for == and matches on a list", () => {
    expect(evaluate('list.groups == "admins"')).toBe(false);
    expect(evaluate('list.groups != "admins"')).toBe(false);
    expect(evaluate('list.groups matches "a"')).toBe(false);
    expect(evaluate('list.groups not matches "a"')).toBe(false);
  });

  it("compares list elements as strings only", () => {
    expect(evaluate('"1" in list.n', { list: { n: [1, "2"] } })).toBe(false);
    expect(evaluate('"2" in list.n', { list: { n: [1, "2"] } })).toBe(true);
  });
});

describe("maps", () => {
  it.each([
    ['"sub" in value', true],
    ['value contains "email"', true],
    ['"nope" in value', false],
    ['"nope" not in value', true],
    ["value is empty", false],
    ["value is not empty", true],
    ['"groups" in list', true],
  ])("%s -> %s", (text, expected) => {
    expect(evaluate(text)).toBe(expected);
  });

  it("treats an empty map as empty and fails == on a map", () => {
    expect(evaluate("value is empty", { value: {} })).toBe(true);
    expect(evaluate('value == "x"', { value: {} })).toBe(false);
    expect(evaluate('value != "x"', { value: {} })).toBe(false);
  });
});

describe("missing claims equal nothing", () => {
  it.each([
    ['value.nope == ""', false],
    ['value.nope == "x"', false],
    ['value.nope != ""', true],
    ['value.nope != "x"', true],
    ['"x" in value.nope', false],
    ['"x" not in value.nope', true],
    ['value.nope contains "x"', false],
    ['value.nope not contains "x"', true],
    ["list.nope is empty", true],
    ["list.nope is not empty", false],
    ['value.nope matches ".*"', true], // go-bexpr 0.1.2: true, like every operator but ==, in and is not empty
    ['value.nope matches "^x$"', true],
    ['value.nope not matches ".*"', true],
    ['value.deep.deeper == "x"', false],
    ['value.deep.deeper != "x"', true],
  ])("%s -> %s", (text, expected) => {
    expect(evaluate(text)).toBe(expected);
  });

  it("treats a whole missing map, null or undefined as missing", () => {
    expect(evaluate('value.sub != "x"', {})).toBe(true);
    expect(evaluate('value.sub != "x"', { value: null })).toBe(true);
    expect(evaluate('value.sub == "x"', { value: { sub: undefined } })).toBe(false);
  });
});

describe("failures", () => {
  it("fails the whole selector where the evaluator errors, even under not", () => {
    expect(evaluate('value.sub.x == "a"')).toBe(false); // a path through a string
    expect(evaluate('value.sub.x != "a"')).toBe(false);
    expect(evaluate('not value.sub.x == "a"')).toBe(false);
    expect(evaluate('value.sub == "web-1" and list.groups == "x"')).toBe(false);
    expect(evaluate('value.sub matches "("')).toBe(false); // unchecked AST with a bad pattern
    expect(evaluate('value.sub not matches "("')).toBe(false);
    expect(evaluate('value.n == "1"', { value: { n: 1 } })).toBe(false);
    expect(evaluate("value.n is empty", { value: { n: true } })).toBe(false);
  });

  it("short-circuits and/or before reaching a failing operand", () => {
    expect(evaluate('value.sub == "web-1" or list.groups == "x"')).toBe(true);
    expect(evaluate('value.sub == "db" and list.groups == "x"')).toBe(false);
    expect(evaluate('list.groups == "x" or value.sub == "web-1"')).toBe(false);
  });
});

describe("logic", () => {
  it("combines with and, or, not and parentheses", () => {
    expect(evaluate('value.sub == "web-1" and "admins" in list.groups')).toBe(true);
    expect(evaluate('value.sub == "db" or "dev" in list.groups')).toBe(true);
    expect(evaluate('not value.sub == "db"')).toBe(true);
    expect(evaluate('not (value.sub == "web-1" or "x" in list.groups)')).toBe(false);
    expect(evaluate('value.sub == "db" and "x" in list.groups or value.sub == "web-1"')).toBe(true);
    expect(evaluate('value.sub == "db" and ("x" in list.groups or value.sub == "web-1")')).toBe(false);
  });

  it("evaluates long chains without deep recursion", () => {
    const text = Array.from({ length: 3000 }, (_, i) => `value.sub != "n${i}"`).join(" and ");
    expect(evaluate(text)).toBe(true);
  });
});

describe("compileSelector", () => {
  it("matches every identity with an empty selector", () => {
    const selector = compileSelector("", claims);
    expect(selector.ast).toBeUndefined();
    expect(selector.text).toBe("");
    expect(selector.matches({})).toBe(true);
    expect(selector.matches(identity)).toBe(true);
  });

  it("refuses a blank selector like the real parser (only the empty string is the catch-all)", () => {
    // Regression: blank text used to compile to a match-everything selector. The real service only
    // short-circuits `selector == ""`; go-bexpr refuses "  " (its Input rule needs an expression).
    for (const text of ["   ", "\t\r\n", " "]) {
      expect(messageOf(() => compileSelector(text, claims))).toBe(messageOf(() => parseSelector(text)));
      expect(messageOf(() => compileSelector(text, claims))).toMatch(/^\d+:\d+ \(\d+\): no match found, expected: /);
    }
  });

  it("keeps the text and AST and matches identities", () => {
    const selector = compileSelector('value.sub == "web-1" and "admins" in list.groups', claims);
    expect(selector.text).toBe('value.sub == "web-1" and "admins" in list.groups');
    expect(selector.ast).toEqual(parseSelector('value.sub == "web-1" and "admins" in list.groups'));
    expect(selector.matches(identity)).toBe(true);
    expect(selector.matches({ value: { sub: "web-1" }, list: { groups: [] } })).toBe(false);
    expect(Object.isFrozen(selector)).toBe(true);
  });

  it("works with struct-like identities (kubernetes-style)", () => {
    const schema = { fields: { "serviceaccount.name": "string", "serviceaccount.namespace": "string" } } as const;
    const selector = compileSelector('serviceaccount.namespace == default and serviceaccount.name matches "^web"', schema);
    expect(selector.matches({ serviceaccount: { name: "web-a", namespace: "default" } })).toBe(true);
    expect(selector.matches({ serviceaccount: { name: "db", namespace: "default" } })).toBe(false);
  });
});
