/** Canonical printing of selector ASTs: the fewest parentheses, quoted values, Go escapes. */
import { describe, expect, it } from "vitest";
import { parseSelector, printSelector, quoteSelectorValue, type SelectorAst } from "../../../../src/simulator/access-control/selector/index.js";
import { UsageError } from "../../../../src/simulator/kernel/errors.js";

const canonical = (text: string): string => printSelector(parseSelector(text));

describe("printSelector", () => {
  it.each([
    ["foo==bar", 'foo == "bar"'],
    ["foo != 3", 'foo != "3"'],
    ["x in foo", '"x" in foo'],
    ["x not in foo", '"x" not in foo'],
    ["foo contains x", 'foo contains "x"'],
    ["foo not contains x", 'foo not contains "x"'],
    ["foo matches `^a.*$`", 'foo matches "^a.*$"'],
    ["foo not matches x", 'foo not matches "x"'],
    ["foo is empty", "foo is empty"],
    ["foo   is  not\tempty", "foo is not empty"],
    ["value.sub==web  and not (list.groups is empty)", 'value.sub == "web" and not list.groups is empty'],
    ["a == 1 or b == 2 and c == 3", 'a == "1" or b == "2" and c == "3"'],
    ["(a == 1 or b == 2) and c == 3", '(a == "1" or b == "2") and c == "3"'],
    ["(a == 1 and b == 2) and c == 3", '(a == "1" and b == "2") and c == "3"'],
    ["a == 1 and (b == 2 and c == 3)", 'a == "1" and b == "2" and c == "3"'],
    ["(a == 1 or b == 2) or c == 3", '(a == "1" or b == "2") or c == "3"'],
    ["not (a == 1 and b == 2)", 'not (a == "1" and b == "2")'],
    ["((a == 1))", 'a == "1"'],
    ['value["a.b"]["c"].d == x', 'value["a.b"].c.d == "x"'],
    ['value["_x"] == x', 'value["_x"] == "x"'],
  ])("%j -> %s", (text, printed) => {
    expect(canonical(text)).toBe(printed);
    expect(canonical(printed)).toBe(printed);
  });

  it("quotes values with Go escapes, or backquotes when that is shorter and exact", () => {
    expect(quoteSelectorValue("plain")).toBe('"plain"');
    expect(quoteSelectorValue('say "hi"')).toBe('`say "hi"`');
    expect(quoteSelectorValue('a"`b')).toBe('"a\\x22`b"');
    expect(quoteSelectorValue('a"\rb')).toBe('"a\\x22\\rb"');
    expect(quoteSelectorValue("tab\t nl\n bs\\ nul\0 del\x7f é 😀")).toBe('"tab\\t nl\\n bs\\\\ nul\\x00 del\\x7f é 😀"');
    for (const value of ['say "hi"', 'a"`b', 'a"\rb', "tab\t nl\n bs\\ nul\0 del\x7f é 😀", "\u0085\u2028"]) {
      expect(parseSelector(`a == ${quoteSelectorValue(value)}`)).toEqual({ kind: "match", operator: "==", selector: ["a"], value });
    }
  });

  it("refuses hand-built ASTs the grammar cannot express", () => {
    const badPath: SelectorAst = { kind: "match", operator: "==", selector: ["9lives"], value: "x" };
    expect(() => printSelector(badPath)).toThrow(UsageError);
    expect(() => printSelector({ kind: "match", operator: "==", selector: [], value: "x" })).toThrow(UsageError);
    expect(() => printSelector({ kind: "match", operator: "in", selector: ["a"] })).toThrow(UsageError);
  });
});
