/**
 * The selector parser against the real evaluator's grammar: AST shapes, precedence, literal forms
 * and escapes, and the exact error messages the real evaluator's parser (pigeon) produces. The
 * golden cases come from go-bexpr's own grammar tests.
 */
import { describe, expect, it } from "vitest";
import { MAX_SELECTOR_NESTING, parseSelector, type SelectorAst } from "../../../../src/simulator/access-control/selector/index.js";
import { domainErrorOf, messageOf } from "./helpers.js";

const m = (selector: string[], operator: string, value?: string): SelectorAst =>
  (value === undefined ? { kind: "match", operator, selector } : { kind: "match", operator, selector, value }) as SelectorAst;

describe("parseSelector: match expressions", () => {
  it.each([
    ["foo == 3", m(["foo"], "==", "3")],
    ["foo != xyz", m(["foo"], "!=", "xyz")],
    ["list is empty", m(["list"], "is empty")],
    ["list is not empty", m(["list"], "is not empty")],
    ["foo in bar", m(["bar"], "in", "foo")],
    ["foo not in bar", m(["bar"], "not in", "foo")],
    ["bar contains foo", m(["bar"], "contains", "foo")],
    ["bar not contains foo", m(["bar"], "not contains", "foo")],
    ["foo matches bar", m(["foo"], "matches", "bar")],
    ["foo not matches bar", m(["foo"], "not matches", "bar")],
  ])("%s", (text, ast) => {
    expect(parseSelector(text)).toEqual(ast);
  });

  it("accepts every value form: bare words, dotted words, numbers, double-quoted and backquoted strings", () => {
    expect(parseSelector('foo == "bar"')).toEqual(m(["foo"], "==", "bar"));
    expect(parseSelector("foo == `bar`")).toEqual(m(["foo"], "==", "bar"));
    expect(parseSelector('"foo" in bar')).toEqual(m(["bar"], "in", "foo"));
    expect(parseSelector("`foo` not in bar")).toEqual(m(["bar"], "not in", "foo"));
    expect(parseSelector("foo == a.b.c")).toEqual(m(["foo"], "==", "a.b.c"));
    expect(parseSelector('foo == a["x y"]')).toEqual(m(["foo"], "==", "a.x y"));
    expect(parseSelector("foo == 0.2")).toEqual(m(["foo"], "==", "0.2"));
    expect(parseSelector("foo == 11.11")).toEqual(m(["foo"], "==", "11.11"));
    expect(parseSelector("foo == -0.2")).toEqual(m(["foo"], "==", "-0.2"));
    expect(parseSelector('foo == ""')).toEqual(m(["foo"], "==", ""));
  });

  it("reads dotted selectors and [\"key\"] indexes as the same path, with any characters inside an index", () => {
    const expected = m(["foo", "bar", "meta", "tags", "ENV"], "in", "environment");
    expect(parseSelector('`environment` in foo.bar["meta"].tags[\t`ENV` ]')).toEqual(expected);
    expect(parseSelector('environment in foo["bar"]["meta"]["tags"]["ENV"]')).toEqual(expected);
    expect(parseSelector("environment in foo.bar.meta.tags.ENV")).toEqual(expected);
    expect(parseSelector('environment in foo["abc-def ghi åß∂ƒ"]')).toEqual(m(["foo", "abc-def ghi åß∂ƒ"], "in", "environment"));
    expect(parseSelector('value["name"] == x')).toEqual(parseSelector("value.name == x"));
    expect(parseSelector('value["a.b"] == x')).toEqual(m(["value", "a.b"], "==", "x"));
    expect(parseSelector("foo_1.Bar2 == x")).toEqual(m(["foo_1", "Bar2"], "==", "x"));
  });

  it("refuses bare words with characters outside [a-zA-Z0-9_] (quote them), as the real evaluator does", () => {
    expect(messageOf(() => parseSelector("value.sub == web-1"))).toBe(
      '1:17 (16): no match found, expected: ".", "[", [ \\t\\r\\n], [a-zA-Z0-9_] or EOF',
    );
    expect(parseSelector('value.sub == "web-1"')).toEqual(m(["value", "sub"], "==", "web-1"));
  });

  it("needs no spaces around == and != but does around word operators", () => {
    expect(parseSelector("foo==bar")).toEqual(m(["foo"], "==", "bar"));
    expect(parseSelector('foo!="x"')).toEqual(m(["foo"], "!=", "x"));
    expect(messageOf(() => parseSelector('foo contains"x"'))).toMatch(/no match found/);
    expect(messageOf(() => parseSelector("a == b and(c == d)"))).toMatch(/no match found/);
    expect(messageOf(() => parseSelector("not(a == b)"))).toMatch(/no match found/);
    expect(parseSelector("not (a == b)")).toEqual({ kind: "not", operand: m(["a"], "==", "b") });
  });

  it("allows any whitespace (space, tab, CR, LF) between tokens and around the expression", () => {
    expect(parseSelector("\t\r\n  foo \t\r\n == \t\r\n x \t\r\n")).toEqual(m(["foo"], "==", "x"));
    expect(parseSelector("\t\r\n  foo \t\r\n not \t\r\n in \t\r\n x \t\r\n")).toEqual(m(["x"], "not in", "foo"));
    expect(parseSelector("\t\r\n  foo \t\r\n is \t\r\n not \t\r\n empty \t\r\n")).toEqual(m(["foo"], "is not empty"));
    expect(parseSelector("\t\r\n ( \t\r\n foo \t\r\n == \t\r\n x \t\r\n ) \t\r\n")).toEqual(m(["foo"], "==", "x"));
  });

  it("treats keywords as field names where no operator fits", () => {
    expect(parseSelector("not == x")).toEqual(m(["not"], "==", "x"));
    expect(parseSelector("not is empty")).toEqual(m(["not"], "is empty"));
    expect(parseSelector("and == or")).toEqual(m(["and"], "==", "or"));
    expect(parseSelector("not not == x")).toEqual({ kind: "not", operand: m(["not"], "==", "x") });
    expect(parseSelector("notx == 1")).toEqual(m(["notx"], "==", "1"));
    expect(parseSelector("in in in")).toEqual(m(["in"], "in", "in"));
  });
});

describe("parseSelector: logical operators", () => {
  it("binds not tighter than and, and and tighter than or", () => {
    expect(parseSelector("x in foo and not str == something or list is empty")).toEqual({
      kind: "or",
      left: { kind: "and", left: m(["foo"], "in", "x"), right: { kind: "not", operand: m(["str"], "==", "something") } },
      right: m(["list"], "is empty"),
    });
  });

  it("lets parentheses override precedence", () => {
    expect(parseSelector("x in foo and not (str == something or list is empty)")).toEqual({
      kind: "and",
      left: m(["foo"], "in", "x"),
      right: { kind: "not", operand: { kind: "or", left: m(["str"], "==", "something"), right: m(["list"], "is empty") } },
    });
  });

  it("nests chains to the right", () => {
    expect(parseSelector("a == 1 and b == 2 and c == 3")).toEqual({
      kind: "and",
      left: m(["a"], "==", "1"),
      right: { kind: "and", left: m(["b"], "==", "2"), right: m(["c"], "==", "3") },
    });
    expect(parseSelector("(a == 1 or b == 2) or c == 3")).toEqual({
      kind: "or",
      left: { kind: "or", left: m(["a"], "==", "1"), right: m(["b"], "==", "2") },
      right: m(["c"], "==", "3"),
    });
  });

  it("folds not not x to x, as the real evaluator does", () => {
    expect(parseSelector("not not foo == 3")).toEqual(m(["foo"], "==", "3"));
    expect(parseSelector("not (not foo == 3)")).toEqual(m(["foo"], "==", "3"));
    expect(parseSelector("not not not foo == 3")).toEqual({ kind: "not", operand: m(["foo"], "==", "3") });
  });

  it("parses go-bexpr's complex golden case", () => {
    const text =
      "(((foo == 3) and (not ((bar in baz) and (not (one != two))))) or (((next is empty) and (not (foo is not empty))) and (bar not in foo)))";
    expect(parseSelector(text)).toEqual({
      kind: "or",
      left: {
        kind: "and",
        left: m(["foo"], "==", "3"),
        right: { kind: "not", operand: { kind: "and", left: m(["baz"], "in", "bar"), right: { kind: "not", operand: m(["one"], "!=", "two") } } },
      },
      right: {
        kind: "and",
        left: { kind: "and", left: m(["next"], "is empty"), right: { kind: "not", operand: m(["foo"], "is not empty") } },
        right: m(["foo"], "not in", "bar"),
      },
    });
  });

  it("parses long chains without deep recursion", () => {
    const text = Array.from({ length: 3000 }, (_, i) => `f${i} == ${i}`).join(" and ");
    let ast = parseSelector(text);
    let count = 1;
    while (ast.kind === "and") {
      ast = ast.right;
      count += 1;
    }
    expect(count).toBe(3000);
  });
});

describe("parseSelector: string literals", () => {
  it("unquotes double-quoted strings like Go's strconv.Unquote", () => {
    expect(parseSelector(String.raw`a == "tab\there"`)).toEqual(m(["a"], "==", "tab\there"));
    expect(parseSelector(String.raw`a == "\a\b\f\n\r\t\v\\"`)).toEqual(m(["a"], "==", "\x07\b\f\n\r\t\v\\"));
    expect(parseSelector(String.raw`a == "\x41\101\u00e9\U0001F600"`)).toEqual(m(["a"], "==", "AAé😀"));
    expect(parseSelector(String.raw`a == "\xc3\xa9"`)).toEqual(m(["a"], "==", "é"));
    expect(parseSelector(String.raw`a == "\x22quoted\x22"`)).toEqual(m(["a"], "==", '"quoted"'));
    expect(parseSelector('a == "é 😀"')).toEqual(m(["a"], "==", "é 😀"));
  });

  it("keeps backquoted strings raw, dropping carriage returns as Go does", () => {
    expect(parseSelector("a == `\\n\"x\"`")).toEqual(m(["a"], "==", '\\n"x"'));
    expect(parseSelector("a == `line1\r\nline2`")).toEqual(m(["a"], "==", "line1\nline2"));
  });

  it.each([
    [String.raw`a == "\q"`, '1:6 (5): rule "string": invalid syntax'],
    [String.raw`a == "\'"`, '1:6 (5): rule "string": invalid syntax'],
    [String.raw`a == "\x4"`, '1:6 (5): rule "string": invalid syntax'],
    [String.raw`a == "\400"`, '1:6 (5): rule "string": invalid syntax'],
    [String.raw`a == "\ud800"`, '1:6 (5): rule "string": invalid syntax'],
    ['a == "two\nlines"', '1:6 (5): rule "string": invalid syntax'],
    // a backslash cannot escape the closing quote: the literal ends there and is then invalid
    [String.raw`a == "x\"`, '1:6 (5): rule "string": invalid syntax'],
  ])("refuses the bad escape in %j", (text, message) => {
    expect(messageOf(() => parseSelector(text))).toBe(message);
  });
});

describe("parseSelector: the real evaluator's error messages", () => {
  it.each([
    ["foo == \"12x", '1:12 (11): rule "string": Unterminated string literal'],
    ["foo == `12x", '1:12 (11): rule "string": Unterminated string literal'],
    ["foo == 3x", '1:9 (8): rule "number": Invalid number literal'],
    ["foo[3] == abc", '1:5 (4): rule "index": Invalid index'],
    ['x in foo["abc"', '1:15 (14): rule "index": Unclosed index expression'],
    ['foo["abc" == 3', '1:11 (10): rule "index": Unclosed index expression'],
    ["x in 32", '1:6 (5): rule "match": Invalid selector'],
    ["32 == 32", '1:4 (3): no match found, expected: "in", "not" or [ \\t\\r\\n]'],
    ["32 is empty", '1:4 (3): no match found, expected: "in", "not" or [ \\t\\r\\n]'],
    ["x in foo abc", '1:10 (9): no match found, expected: "and", "or", [ \\t\\r\\n] or EOF'],
    ["x in foo and ", '1:14 (13): no match found, expected: "(", "-", "0", "\\"", "`", "not", [ \\t\\r\\n], [1-9] or [a-zA-Z]'],
    ["x in foo or ", '1:13 (12): no match found, expected: "(", "-", "0", "\\"", "`", "not", [ \\t\\r\\n], [1-9] or [a-zA-Z]'],
    [
      "x in foo or not ",
      '1:17 (16): no match found, expected: "!=", "(", "-", "0", "==", "\\"", "`", "contains", "in", "is", "matches", "not", [ \\t\\r\\n], [1-9] or [a-zA-Z]',
    ],
    ["(foo == 4", '1:10 (9): rule "grouping": Unmatched parentheses'],
    ["bogus", '1:6 (5): no match found, expected: "!=", ".", "==", "[", [ \\t\\r\\n] or [a-zA-Z0-9_]'],
    ["", '1:1 (0): no match found, expected: "(", "-", "0", "\\"", "`", "not", [ \\t\\r\\n], [1-9] or [a-zA-Z]'],
  ])("%j -> %s", (text, message) => {
    expect(messageOf(() => parseSelector(text))).toBe(message);
  });

  it("reports lines and columns in runes and offsets in UTF-8 bytes", () => {
    expect(messageOf(() => parseSelector('a == "é" b'))).toBe('1:10 (10): no match found, expected: "and", "or", [ \\t\\r\\n] or EOF');
    expect(messageOf(() => parseSelector("a == b\n  c"))).toBe('2:3 (9): no match found, expected: "and", "or", [ \\t\\r\\n] or EOF');
  });

  it("names the operation and keeps the service's error shape", () => {
    const error = domainErrorOf(() => parseSelector("bogus"));
    expect(error.operation).toBe("parse selector");
    expect(error.message).toContain("access-control: cannot parse selector");
  });

  it("refuses nesting deeper than the limit instead of overflowing the stack", () => {
    const depth = MAX_SELECTOR_NESTING + 1;
    expect(messageOf(() => parseSelector("(".repeat(depth) + "a == b" + ")".repeat(depth)))).toBe(
      `selector nests deeper than ${MAX_SELECTOR_NESTING} levels`,
    );
    expect(messageOf(() => parseSelector("not ".repeat(depth) + "a == b"))).toMatch(/nests deeper/);
    const ok = MAX_SELECTOR_NESTING - 5;
    expect(parseSelector("(".repeat(ok) + "a == b" + ")".repeat(ok))).toEqual(m(["a"], "==", "b"));
    expect(messageOf(() => parseSelector("(".repeat(100_000)))).toMatch(/nests deeper/);
  });
});
