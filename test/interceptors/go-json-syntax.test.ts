/** Go's encoding/json syntax-error wording, checked against messages Go itself prints. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { goJsonSyntaxMessage } from "../../src/interceptors/go-json-syntax.js";

const message = (text: string): string => {
  try {
    JSON.parse(text);
  } catch (error) {
    return goJsonSyntaxMessage(text, error);
  }
  throw new Error(`valid JSON: ${text}`);
};

describe("Go encoding/json syntax errors", () => {
  it.each([
    ['{"a":', "unexpected EOF"],
    ["", "unexpected EOF"],
    ['{"a": x}', "invalid character 'x' looking for beginning of value"],
    ["{a: 1}", "invalid character 'a' looking for beginning of object key string"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a": 1 "b": 2}', "invalid character '\"' after object key:value pair"],
    ["[1 2]", "invalid character '2' after array element"],
    ['{"a": 1}}', "invalid character '}' after top-level value"],
    ["tru", "unexpected EOF"],
    ["trux", "invalid character 'x' in literal true (expecting 'e')"],
    ["nul!", "invalid character '!' in literal null (expecting 'l')"],
    ['"a\u0001"', "invalid character '\\x01' in string literal"],
    ['"\\q"', "invalid character 'q' in string escape code"],
    ["-", "unexpected EOF"],
    ["-x", "invalid character 'x' in numeric literal"],
    ["1.x", "invalid character 'x' after decimal point in numeric literal"],
    ["1ex", "invalid character 'x' in exponent of numeric literal"],
    ["{'a': 1}", "invalid character '\\'' looking for beginning of object key string"],
  ])("words %j as Go does", (text, expected) => {
    expect(message(text)).toBe(expected);
  });

  it("reads 5,000 levels of objects or arrays cut short without overflowing the stack (fuzz seed 8 index 64328)", () => {
    expect(goJsonSyntaxMessage('{"a":'.repeat(5_000))).toBe("unexpected EOF");
    expect(goJsonSyntaxMessage(`${'{"a":'.repeat(5_000)}x`)).toBe("invalid character 'x' looking for beginning of value");
    expect(goJsonSyntaxMessage(`${"[".repeat(9_000)}1,}`)).toBe("invalid character '}' looking for beginning of value");
    expect(goJsonSyntaxMessage(`${'{"a":[1,'.repeat(4_000)}2]]`)).toBe("invalid character ']' after object key:value pair");
  });

  it("never throws on any text JSON.parse refuses, and always answers a Go-shaped message", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        let valid = true;
        try {
          JSON.parse(text);
        } catch {
          valid = false;
        }
        if (valid) return;
        expect(goJsonSyntaxMessage(text)).toMatch(/^(unexpected EOF|invalid character '.+' .+)$/s);
      }),
    );
  });
});
