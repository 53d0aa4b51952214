/**
 * The regular expressions of the selector `matches` operator, as the real evaluator (Go `regexp`,
 * RE2 syntax, Perl flags) reads them: a thin adapter over re2js (a port of RE2/Go `regexp`, linear
 * time, Go's own error messages). JavaScript's backtracking RegExp is never used on user patterns.
 *
 * re2js is loaded on the first compiled pattern, not at import (cold import time matters; see
 * docs/decisions/access-control-selector.md). The adapter only bridges where re2js and Go differ:
 * - Go accepts one capture name used twice (`(?P<n>a)(?P<n>b)`); re2js refuses it, so such a pattern
 *   is compiled again with its group names dropped (names never change what `MatchString` answers);
 * - Go prints the whole expression with `expression too large` and `expression nests too deeply`;
 * - Go reads text as UTF-8, where a lone surrogate cannot exist: it reads as U+FFFD, as JSON decoding
 *   does in the real service.
 */
import { createRequire } from "node:module";
import type * as Re2js from "re2js";

/** A Go `regexp/syntax` error: `error parsing regexp: <code>: `<expr>``. */
export class Re2SyntaxError extends Error {
  constructor(
    readonly code: string,
    readonly expr: string,
  ) {
    super(`error parsing regexp: ${code}: \`${expr}\``);
    this.name = "Re2SyntaxError";
  }
}

/** A compiled regular expression: `test` is Go's `MatchString` (an unanchored search). */
export interface Re2 {
  readonly source: string;
  test(text: string): boolean;
}

let engine: typeof Re2js | undefined;

function re2js(): typeof Re2js {
  // tsup shims import.meta.url in the CommonJS build.
  engine ??= createRequire(import.meta.url)("re2js") as typeof Re2js;
  return engine;
}

/**
 * Compiles `pattern` with Go's `regexp.Compile` rules (RE2 syntax, Perl flags, UTF-8 semantics).
 *
 * @throws Re2SyntaxError with Go's message, e.g. `error parsing regexp: invalid escape sequence: `\1``.
 * @example
 * compileRe2("^web-[0-9]+$").test("web-12"); // true
 * compileRe2("(?i)admin").test("ADMINS");    // true
 */
export function compileRe2(pattern: string): Re2 {
  const { RE2JS, RE2JSSyntaxException } = re2js();
  let compiled: Re2js.RE2JS;
  try {
    compiled = compileAllowingDuplicateNames(RE2JS, RE2JSSyntaxException, pattern);
  } catch (error) {
    if (!(error instanceof RE2JSSyntaxException)) throw error;
    const code = error.getDescription();
    // Go reports its size and depth limits with the whole expression; re2js with none.
    throw new Re2SyntaxError(code, WHOLE_EXPRESSION.has(code) ? pattern : (error.getPattern() ?? ""));
  }
  return {
    source: pattern,
    test: (text: string): boolean => compiled.test(LONE_SURROGATE.test(text) ? text.replace(LONE_SURROGATE_ALL, "\uFFFD") : text),
  };
}

const WHOLE_EXPRESSION = new Set(["expression too large", "expression nests too deeply"]);
const LONE_SURROGATE = /\p{Cs}/u;
const LONE_SURROGATE_ALL = /\p{Cs}/gu;

function compileAllowingDuplicateNames(engine: typeof Re2js.RE2JS, syntaxError: typeof Re2js.RE2JSSyntaxException, pattern: string): Re2js.RE2JS {
  try {
    return engine.compile(pattern);
  } catch (error) {
    if (!(error instanceof syntaxError) || error.getDescription() !== "duplicate capture group name") throw error;
    return engine.compile(withoutGroupNames(pattern));
  }
}

/** `pattern` with every `(?P<name>` / `(?<name>` opening written `(` (escapes, `\Q…\E` and classes untouched). */
function withoutGroupNames(pattern: string): string {
  let out = "";
  let i = 0;
  let inClass = false;
  while (i < pattern.length) {
    const c = pattern[i] as string;
    if (c === "\\") {
      if (!inClass && pattern[i + 1] === "Q") {
        const end = pattern.indexOf("\\E", i + 2);
        const stop = end < 0 ? pattern.length : end + 2;
        out += pattern.slice(i, stop);
        i = stop;
      } else {
        out += pattern.slice(i, i + 2);
        i += 2;
      }
      continue;
    }
    if (inClass) {
      if (c === "[" && pattern[i + 1] === ":") {
        const end = pattern.indexOf(":]", i + 2);
        if (end >= 0) {
          out += pattern.slice(i, end + 2);
          i = end + 2;
          continue;
        }
      }
      if (c === "]") inClass = false;
      out += c;
      i += 1;
      continue;
    }
    if (c === "[") {
      inClass = true;
      let j = i + 1;
      if (pattern[j] === "^") j += 1;
      if (pattern[j] === "]") j += 1; // a leading `]` is a literal
      out += pattern.slice(i, j);
      i = j;
      continue;
    }
    const named = /^\(\?P?<[A-Za-z0-9_]+>/.exec(pattern.slice(i, i + 256));
    if (named !== null) {
      out += "(";
      i += named[0].length;
      continue;
    }
    out += c;
    i += 1;
  }
  return out;
}
