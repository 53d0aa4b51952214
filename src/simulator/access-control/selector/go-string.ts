/**
 * Go string helpers the selector language needs to match the real evaluator byte for byte:
 * `strconv.Unquote` (string literals in selectors), `strconv.Quote` (the `%q` in error messages),
 * and pigeon's `line:col (offset)` positions (columns count runes, offsets count UTF-8 bytes).
 */

import { goQuote } from "../../kernel/go-quote.js";

export { goQuote };

const REPLACEMENT = 0xfffd;

/** The code points of `text`; a lone surrogate reads as U+FFFD, like invalid UTF-8 in Go. */
export function codePoints(text: string): number[] {
  const out: number[] = [];
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? REPLACEMENT;
    out.push(cp >= 0xd800 && cp <= 0xdfff ? REPLACEMENT : cp);
  }
  return out;
}

/** Bytes that code point `cp` takes in UTF-8 (a lone surrogate counts as the 3 bytes of U+FFFD). */
export function utf8Length(cp: number): number {
  if (cp < 0x80) return 1;
  if (cp < 0x800) return 2;
  if (cp < 0x10000) return 3;
  return 4;
}

function hexValue(ch: string | undefined): number {
  if (ch === undefined) return -1;
  const c = ch.charCodeAt(0);
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

function appendUtf8(bytes: number[], cp: number): void {
  if (cp < 0x80) bytes.push(cp);
  else if (cp < 0x800) bytes.push(0xc0 | (cp >> 6), 0x80 | (cp & 0x3f));
  else if (cp < 0x10000) bytes.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
  else bytes.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
}

const decoder = new TextDecoder("utf-8", { fatal: false });

/**
 * Go's `strconv.Unquote` for a double-quoted or backquoted literal (quotes included).
 * Returns undefined where Go answers `invalid syntax`. Byte escapes (`\xff`) that do not form
 * valid UTF-8 decode to U+FFFD.
 */
export function goUnquote(literal: string): string | undefined {
  if (literal.length < 2) return undefined;
  const quote = literal[0];
  if (literal[literal.length - 1] !== quote) return undefined;
  const body = literal.slice(1, -1);
  if (quote === "`") {
    if (body.includes("`")) return undefined;
    return String.fromCodePoint(...codePoints(body.replaceAll("\r", "")));
  }
  if (quote !== '"') return undefined;
  if (body.includes("\n")) return undefined;
  const cps = codePoints(body);
  const bytes: number[] = [];
  for (let i = 0; i < cps.length; i++) {
    const cp = cps[i] as number;
    if (cp === 0x22) return undefined;
    if (cp !== 0x5c) {
      appendUtf8(bytes, cp);
      continue;
    }
    const esc = cps[i + 1];
    if (esc === undefined) return undefined;
    i += 1;
    const e = String.fromCodePoint(esc);
    const simple: Record<string, number> = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, "\\": 0x5c, '"': 0x22 };
    if (e in simple) {
      bytes.push(simple[e] as number);
      continue;
    }
    if (e === "x" || e === "u" || e === "U") {
      const n = e === "x" ? 2 : e === "u" ? 4 : 8;
      let v = 0;
      for (let j = 1; j <= n; j++) {
        const d = cps[i + j];
        const h = hexValue(d === undefined ? undefined : String.fromCodePoint(d));
        if (h < 0) return undefined;
        v = v * 16 + h;
      }
      i += n;
      if (e === "x") bytes.push(v);
      else {
        if (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return undefined;
        appendUtf8(bytes, v);
      }
      continue;
    }
    if (esc >= 0x30 && esc <= 0x37) {
      let v = esc - 0x30;
      for (let j = 1; j <= 2; j++) {
        const d = cps[i + j];
        if (d === undefined || d < 0x30 || d > 0x37) return undefined;
        v = v * 8 + (d - 0x30);
      }
      if (v > 255) return undefined;
      i += 2;
      bytes.push(v);
      continue;
    }
    return undefined;
  }
  return decoder.decode(new Uint8Array(bytes));
}

/**
 * pigeon's position of UTF-16 index `index` in `text`: `line:col (offset)`, where col counts runes
 * from 1 (the position of a newline itself is column 0 of the next line, as pigeon reports it)
 * and offset counts UTF-8 bytes.
 */
export function pigeonPosition(text: string, index: number): string {
  let line = 1;
  let col = 0;
  let offset = 0;
  let i = 0;
  while (i < index) {
    const cp = text.codePointAt(i) ?? REPLACEMENT;
    const width = cp > 0xffff ? 2 : 1;
    col += 1;
    if (cp === 10) {
      line += 1;
      col = 0;
    }
    offset += utf8Length(cp >= 0xd800 && cp <= 0xdfff ? REPLACEMENT : cp);
    i += width;
  }
  col += 1;
  if (text.codePointAt(index) === 10) {
    line += 1;
    col = 0;
  }
  return `${line}:${col} (${offset})`;
}
