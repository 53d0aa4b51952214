/**
 * Go's `strconv.Quote` (what `%q` prints), for messages the Go services word with quoted input:
 * `time: invalid duration "1x"`, `Selector "bogus" is not valid`.
 */

/** The code points of `text`; a lone surrogate reads as U+FFFD, like invalid UTF-8 in Go. */
function codePoints(text: string): number[] {
  const out: number[] = [];
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0xfffd;
    out.push(cp >= 0xd800 && cp <= 0xdfff ? 0xfffd : cp);
  }
  return out;
}

/** True for the runes Go's `unicode.IsPrint` accepts (letters, marks, numbers, punctuation, symbols, ASCII space). */
function isPrint(cp: number): boolean {
  if (cp === 0x20) return true;
  return /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(String.fromCodePoint(cp));
}

/**
 * Go's `strconv.Quote` (what `%q` prints for a string): escapes, `\\xNN`, `\\uNNNN`, `\\UNNNNNNNN`
 * for what Go's `unicode.IsPrint` refuses.
 * @example goQuote('a"b') // '"a\\"b"'
 */
export function goQuote(text: string): string {
  let out = '"';
  for (const cp of codePoints(text)) {
    switch (cp) {
      case 7: out += "\\a"; continue;
      case 8: out += "\\b"; continue;
      case 12: out += "\\f"; continue;
      case 10: out += "\\n"; continue;
      case 13: out += "\\r"; continue;
      case 9: out += "\\t"; continue;
      case 11: out += "\\v"; continue;
      case 0x5c: out += "\\\\"; continue;
      case 0x22: out += '\\"'; continue;
    }
    if (isPrint(cp)) out += String.fromCodePoint(cp);
    else if (cp < 0x20 || cp === 0x7f) out += "\\x" + cp.toString(16).padStart(2, "0");
    else if (cp < 0x10000) out += "\\u" + cp.toString(16).padStart(4, "0");
    else out += "\\U" + cp.toString(16).padStart(8, "0");
  }
  return out + '"';
}

