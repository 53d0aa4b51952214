/**
 * The RE2 engine behind `matches`: Go's regexp syntax and error messages (cases from Go's own
 * regexp tests), and Go's matching semantics (unanchored search, `.` and `$` rules, flags, ASCII
 * `\b \d \s \w`, Unicode classes, case folding), in linear time.
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { compileRe2, Re2SyntaxError } from "../../../../src/simulator/access-control/selector/re2-adapter.js";

interface GoCase {
  readonly pattern: string;
  readonly error?: string;
  readonly matches?: ReadonlyArray<readonly [string, boolean]>;
}
const goReference = JSON.parse(readFileSync(new URL("../../../fixtures/go-regexp-reference.json", import.meta.url), "utf8")) as { cases: GoCase[] };

function goError(pattern: string): string {
  try {
    compileRe2(pattern);
  } catch (error) {
    expect(error).toBeInstanceOf(Re2SyntaxError);
    return (error as Error).message;
  }
  throw new Error(`expected ${JSON.stringify(pattern)} to be refused`);
}

describe("syntax errors with Go's messages", () => {
  it.each([
    ["*", "missing argument to repetition operator: `*`"],
    ["+", "missing argument to repetition operator: `+`"],
    ["?", "missing argument to repetition operator: `?`"],
    ["(*)", "missing argument to repetition operator: `*`"],
    ["a|*", "missing argument to repetition operator: `*`"],
    ["{2}", "missing argument to repetition operator: `{2}`"],
    ["(?i)*", "missing argument to repetition operator: `*`"],
    ["\\Q\\E*", "missing argument to repetition operator: `*`"],
    ["(abc", "missing closing ): `(abc`"],
    ["(a|b", "missing closing ): `(a|b`"],
    ["(", "missing closing ): `(`"],
    ["abc)", "unexpected ): `abc)`"],
    [")", "unexpected ): `)`"],
    ["(a))", "unexpected ): `(a))`"],
    ["x[a-z", "missing closing ]: `[a-z`"],
    ["[]", "missing closing ]: `[]`"],
    ["[z-a]", "invalid character class range: `z-a`"],
    ["[a-Z]", "invalid character class range: `a-Z`"],
    ["(?i)[a-Z]", "invalid character class range: `a-Z`"],
    ["[[:foo:]]", "invalid character class range: `[:foo:]`"],
    ["\\pX", "invalid character class range: `\\pX`"],
    ["\\p{Nope}", "invalid character class range: `\\p{Nope}`"],
    ["\\p{L", "invalid character class range: `\\p{L`"],
    ["abc\\", "trailing backslash at end of expression: ``"],
    ["a**", "invalid nested repetition operator: `**`"],
    ["a*+", "invalid nested repetition operator: `*+`"],
    ["a??*", "invalid nested repetition operator: `??*`"],
    ["a{2}{3}", "invalid nested repetition operator: `{2}{3}`"],
    ["\\x", "invalid escape sequence: `\\x`"],
    ["\\x4", "invalid escape sequence: `\\x4`"],
    ["\\xZZ", "invalid escape sequence: `\\xZZ`"],
    ["\\x{}", "invalid escape sequence: `\\x{}`"],
    ["\\x{110000}", "invalid escape sequence: `\\x{110000`"],
    ["\\1", "invalid escape sequence: `\\1`"],
    ["(a)\\1", "invalid escape sequence: `\\1`"],
    ["\\8", "invalid escape sequence: `\\8`"],
    ["\\C", "invalid escape sequence: `\\C`"],
    ["\\Z", "invalid escape sequence: `\\Z`"],
    ["\\q", "invalid escape sequence: `\\q`"],
    ["\\é", "invalid escape sequence: `\\é`"],
    ["(?=a)", "invalid or unsupported Perl syntax: `(?=`"],
    ["(?!a)", "invalid or unsupported Perl syntax: `(?!`"],
    ["(?<=a)", "invalid named capture: `(?<=a)`"],
    ["(?<!a)", "invalid named capture: `(?<!a)`"],
    ["(?P=name)", "invalid or unsupported Perl syntax: `(?P`"],
    ["(?i", "invalid or unsupported Perl syntax: `(?i`"],
    ["(?-)", "invalid or unsupported Perl syntax: `(?-)`"],
    ["(?i-)", "invalid or unsupported Perl syntax: `(?i-)`"],
    ["(?--i)", "invalid or unsupported Perl syntax: `(?--`"],
    ["(?x)", "invalid or unsupported Perl syntax: `(?x`"],
    ["(?P<name>a", "missing closing ): `(?P<name>a`"],
    ["(?P<name", "invalid named capture: `(?P<name`"],
    ["(?P<x y>a)", "invalid named capture: `(?P<x y>`"],
    ["(?P<>a)", "invalid named capture: `(?P<>`"],
    ["(?<name", "invalid named capture: `(?<name`"],
    ["(?<x!>a)", "invalid named capture: `(?<x!>`"],
    ["x{1001}", "invalid repeat count: `{1001}`"],
    ["x{9876543210}", "invalid repeat count: `{9876543210}`"],
    ["x{2,1}", "invalid repeat count: `{2,1}`"],
    ["x{1,9876543210}", "invalid repeat count: `{1,9876543210}`"],
    ["a{100000,}", "invalid repeat count: `{100000,}`"],
    ["((((((((((x{2}){2}){2}){2}){2}){2}){2}){2}){2}){2})", "invalid repeat count: `{2}`"],
  ])("%j", (pattern, message) => {
    expect(goError(pattern)).toBe(`error parsing regexp: ${message}`);
  });

  it("refuses nesting and size beyond Go's limits, printing the whole expression as Go does", () => {
    for (const [pattern, code] of [
      ["(".repeat(1000) + ")".repeat(1000), "expression nests too deeply"],
      ["(?:".repeat(1000) + ")*".repeat(1000), "expression nests too deeply"],
      ["(" + "(xx?)".repeat(1000) + "){1000}", "expression too large"],
      ["(xx?){1000}".repeat(1000), "expression too large"],
    ] as const) {
      expect(goError(pattern)).toBe(`error parsing regexp: ${code}: \`${pattern}\``);
    }
  });

  it("refuses lookbehind as Go 1.22+ does (a named capture without its closing >)", () => {
    expect(goError("(?<=a)b")).toBe("error parsing regexp: invalid named capture: `(?<=a)b`");
    expect(goError("(?<!a)b")).toBe("error parsing regexp: invalid named capture: `(?<!a)b`");
  });
});

describe("recorded answers of Go's regexp (test/fixtures/go-regexp-reference.json)", () => {
  it.each(goReference.cases.map((c) => [c.pattern.length > 60 ? `${c.pattern.slice(0, 60)}…` : c.pattern, c] as const))("%j", (_name, c) => {
    if (c.error !== undefined) {
      expect(goError(c.pattern)).toBe(c.error);
      return;
    }
    const re = compileRe2(c.pattern);
    for (const [input, expected] of c.matches ?? []) expect([input, re.test(input)]).toEqual([input, expected]);
  });

  it("keeps Go's answers for a capture name used twice, wherever the name text appears", () => {
    expect(compileRe2("(?P<n>a)(?<n>b)").test("ab")).toBe(true);
    expect(compileRe2("[(?P<n>x)](?P<n>a)(?P<n>b)").test("(ab")).toBe(true);
    expect(compileRe2("[(?P<n>x)](?P<n>a)(?P<n>b)").test("ab")).toBe(false);
    expect(compileRe2("[]a(?P<n>](?P<n>a)(?P<n>b)").test("]ab")).toBe(true);
    expect(compileRe2("\\Q(?P<n>\\E(?P<n>a)(?P<n>b)").test("(?P<n>ab")).toBe(true);
  });
});

describe("accepted syntax", () => {
  it.each([
    "",
    "a{,2}",
    "x{",
    "a{1,}b{0}c{2,3}",
    "\\Q+|*?{[\\E",
    "\\Qa.b",
    "(?:a)",
    "(?i)a",
    "(?i:a)b",
    "(?-i)a",
    "(?is-m:a)",
    "(?U)a*",
    "(?)",
    "(?P<name>a)",
    "(?<name_1>a)",
    "(?P<n>a)(?P<n>b)",
    "[[:alpha:]]",
    "[^[:^alpha:]]",
    "[]a]",
    "[a-]",
    "[-a]",
    "[\\d-z]",
    "\\pL",
    "\\p{Greek}",
    "\\P{L}",
    "\\p{^Lu}",
    "\\pN\\p{Any}",
    "[\\p{L}\\d\\S]",
    "\\x{10FFFF}",
    "\\x41\\101\\0\\07",
    "\\_\\-\\.\\*",
    "^*$*\\b*",
    "a*?b+?c??d{2}?",
    "a(?i)*",
    "\\A\\z\\b\\B",
    "\\a\\f\\n\\r\\t\\v",
  ])("%j", (pattern) => {
    expect(compileRe2(pattern).source).toBe(pattern);
  });
});

describe("matching like Go's MatchString", () => {
  const cases: Array<[string, string, boolean]> = [
    ["eb", "web-1", true],
    ["^eb", "web-1", false],
    ["^web-[0-9]+$", "web-12", true],
    ["^web-[0-9]+$", "web-12x", false],
    ["", "", true],
    ["", "anything", true],
    ["a.c", "abc", true],
    ["a.c", "a\nc", false],
    ["(?s)a.c", "a\nc", true],
    ["a$", "a\n", false],
    ["a\\z", "a", true],
    ["^b", "a\nb", false],
    ["(?m)^b", "a\nb", true],
    ["(?m)a$", "a\nb", true],
    ["(?m:^b)$", "a\nb", true],
    ["\\Ab", "a\nb", false],
    ["[^a]", "\n", true],
    ["x{2,3}", "axxb", true],
    ["^x{2,3}$", "x", false],
    ["^x{2,3}$", "xxxx", false],
    ["^x{2,}$", "xxxxxx", true],
    ["^(ab|cd)+$", "abcdab", true],
    ["^(ab|cd)+$", "abc", false],
    ["^a{0}b$", "b", true],
    ["(?i)k", "\u212a", true],
    ["(?i)K", "k", true],
    ["(?i)ſ", "S", true],
    ["(?i)i", "ı", false],
    ["(?i)[^k]", "K", false],
    ["(?i)[a-c]+", "AbC", true],
    ["(?i:a)b", "AB", false],
    ["(?i:a)b", "Ab", true],
    ["(?i)a(?-i)b", "AB", false],
    ["(?i)\\W", "k", false],
    ["(?i)[[:upper:]]", "x", true],
    ["\\w", "é", false],
    ["\\pL", "é", true],
    ["\\p{Greek}", "λ", true],
    ["\\p{Greek}", "l", false],
    ["\\PL", "é", false],
    ["\\p{^L}", "1", true],
    ["\\d", "٣", false],
    ["\\pN", "٣", true],
    ["\\s", "\u00a0", false],
    ["\\s", "\t", true],
    ["\\bfoo\\b", "a foo b", true],
    ["\\bfoo\\b", "afoob", false],
    ["\\Bfoo", "afoo", true],
    ["\\bé", " é", false],
    ["[[:digit:]]+", "abc123", true],
    ["[[:^digit:]]", "123", false],
    ["\\Qa.b\\E", "axb", false],
    ["\\Qa.b\\E", "a.b", true],
    ["\\Qab\\E*c", "ac", true],
    ["^\\x41\\101\\x{1F600}$", "AA😀", true],
    ["^.$", "😀", true],
    ["^..$", "😀", false],
    ["(?U)a+", "aaa", true],
    ["^(a*)*$", "aaaa", true],
    ["^(a|)*b$", "aab", true],
    ["^$", "\n", false],
  ];
  it.each(cases)("%j on %j -> %s", (pattern, text, expected) => {
    expect(compileRe2(pattern).test(text)).toBe(expected);
  });

  it("treats a lone surrogate like invalid UTF-8 (U+FFFD)", () => {
    expect(compileRe2("^\\x{FFFD}$").test("\ud800")).toBe(true);
  });

  it("runs pathological patterns in linear time (no backtracking)", () => {
    const text = "a".repeat(3000) + "b";
    expect(compileRe2("^(a+)+$").test(text)).toBe(false);
    expect(compileRe2("(a|aa)*c").test(text)).toBe(false);
    expect(compileRe2("(x+x+)+y").test("x".repeat(2000))).toBe(false);
  });
});
