/**
 * Type checking against auth-method identity schemas, as measured on the real evaluator
 * (FIDELITY.md "Access control"): every operator on every field type, valid and invalid, with the
 * evaluator's messages.
 */
import { describe, expect, it } from "vitest";
import {
  compileSelector,
  MATCH_OPERATORS,
  type IdentitySchema,
  type MatchOperator,
} from "../../../../src/simulator/access-control/selector/index.js";
import { domainErrorOf, messageOf } from "./helpers.js";

const claims: IdentitySchema = { fields: {}, claims: true };
const kubernetes: IdentitySchema = {
  fields: { "serviceaccount.name": "string", "serviceaccount.namespace": "string", "serviceaccount.uid": "string" },
};
const typed: IdentitySchema = { fields: { name: "string", tags: "list", meta: "map" } };

function selectorFor(operator: MatchOperator, field: string): string {
  if (operator === "is empty" || operator === "is not empty") return `${field} ${operator}`;
  if (operator === "in" || operator === "not in") return `"x" ${operator} ${field}`;
  return `${field} ${operator} "x"`;
}

const EVALUATOR_NAME: Record<MatchOperator, string> = {
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
};

const ACCEPTS: Record<"string" | "list" | "map", readonly MatchOperator[]> = {
  string: ["==", "!=", "contains", "not contains", "in", "not in", "matches", "not matches"],
  list: ["contains", "not contains", "in", "not in", "is empty", "is not empty"],
  map: ["contains", "not contains", "in", "not in", "is empty", "is not empty"],
};

const FIELDS: ReadonlyArray<[string, IdentitySchema, string, "string" | "list" | "map"]> = [
  ["claims value.<claim>", claims, "value.sub", "string"],
  ["claims value[\"odd claim\"]", claims, 'value["odd.claim name"]', "string"],
  ["claims list.<claim>", claims, "list.groups", "list"],
  ["claims value map", claims, "value", "map"],
  ["claims list map", claims, "list", "map"],
  ["kubernetes string field", kubernetes, "serviceaccount.name", "string"],
  ["typed string", typed, "name", "string"],
  ["typed list", typed, "tags", "list"],
  ["typed map", typed, "meta", "map"],
  ["typed map entry", typed, "meta.anything", "string"],
];

describe("checking every operator on every field type", () => {
  for (const [label, schema, field, type] of FIELDS) {
    for (const operator of MATCH_OPERATORS) {
      const text = selectorFor(operator, field);
      if (ACCEPTS[type].includes(operator)) {
        it(`${label}: accepts ${text}`, () => {
          expect(compileSelector(text, schema).ast).toBeDefined();
        });
      } else {
        it(`${label}: refuses ${text}`, () => {
          const path = field.replace('["odd.claim name"]', ".odd.claim name");
          expect(messageOf(() => compileSelector(text, schema))).toBe(
            `Invalid match operator "${EVALUATOR_NAME[operator]}" for selector "${path}"`,
          );
        });
      }
    }
  }
});

describe("unknown fields", () => {
  it("names the first unknown prefix of the path", () => {
    expect(messageOf(() => compileSelector("bogus.x == y", claims))).toBe('Selector "bogus" is not valid');
    expect(messageOf(() => compileSelector("value.a.b == y", claims))).toBe('Selector "value.a.b" is not valid');
    expect(messageOf(() => compileSelector("list.groups.first == y", claims))).toBe('Selector "list.groups.first" is not valid');
    expect(messageOf(() => compileSelector("serviceaccount.token == y", kubernetes))).toBe('Selector "serviceaccount.token" is not valid');
    expect(messageOf(() => compileSelector("value.sub == y", kubernetes))).toBe('Selector "value" is not valid');
  });

  it("quotes odd path segments the way Go's %q does", () => {
    expect(messageOf(() => compileSelector('value["q\\x22uote\\n"].x == y', claims))).toBe('Selector "value.q\\"uote\\n.x" is not valid');
    expect(messageOf(() => compileSelector('value["a"]["tab\\there"] == y', claims))).toBe('Selector "value.a.tab\\there" is not valid');
  });

  it("refuses operators on the struct parts of dotted fields", () => {
    expect(messageOf(() => compileSelector("serviceaccount is empty", kubernetes))).toBe(
      'Invalid match operator "Is Empty" for selector "serviceaccount"',
    );
    expect(messageOf(() => compileSelector("serviceaccount == web", kubernetes))).toBe(
      'Invalid match operator "Equal" for selector "serviceaccount"',
    );
  });

  it("checks every comparison, in order, and reports the first problem", () => {
    expect(messageOf(() => compileSelector("value.sub == a and (bogus == b or list.x == c)", claims))).toBe('Selector "bogus" is not valid');
    expect(messageOf(() => compileSelector("not (value.sub is empty) or bogus == b", claims))).toBe(
      'Invalid match operator "Is Empty" for selector "value.sub"',
    );
  });

  it("checks nothing for a schema without fields, like the real evaluator", () => {
    expect(compileSelector("anything.at.all == 1", { fields: {} }).ast).toBeDefined();
  });

  it("reports the operation as compile selector", () => {
    expect(domainErrorOf(() => compileSelector("bogus == 1", claims)).operation).toBe("compile selector");
  });
});

describe("regular expressions of matches", () => {
  it("accepts RE2 syntax", () => {
    for (const re of ["^web-[0-9]+$", "(?i)admin", "\\pL+", "[[:alpha:]]", "a{2,3}", "(?P<name>x)", "\\Qa.b\\E"]) {
      expect(compileSelector(`value.sub matches ${JSON.stringify(re)}`, claims).ast).toBeDefined();
      expect(compileSelector(`value.sub not matches ${JSON.stringify(re)}`, claims).ast).toBeDefined();
    }
  });

  it.each([
    ["(", "missing closing ): `(`"],
    ["a)", "unexpected ): `a)`"],
    ["[a", "missing closing ]: `[a`"],
    ["*", "missing argument to repetition operator: `*`"],
    ["a**", "invalid nested repetition operator: `**`"],
    ["(a)\\1", "invalid escape sequence: `\\1`"],
    ["(?=a)", "invalid or unsupported Perl syntax: `(?=`"],
    ["(?!a)", "invalid or unsupported Perl syntax: `(?!`"],
    ["(?<=a)b", "invalid named capture: `(?<=a)b`"],
    ["a{1001}", "invalid repeat count: `{1001}`"],
  ])("refuses %j with Go's message", (pattern, goMessage) => {
    expect(messageOf(() => compileSelector(`value.sub matches ${JSON.stringify(pattern)}`, claims))).toBe(
      `Failed to compile regular expression ${JSON.stringify(pattern)}: error parsing regexp: ${goMessage}`,
    );
  });

  it("checks the field before the pattern", () => {
    expect(messageOf(() => compileSelector('list.groups matches "("', claims))).toBe('Invalid match operator "Matches" for selector "list.groups"');
  });
});
