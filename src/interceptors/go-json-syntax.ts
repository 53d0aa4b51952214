/**
 * Go's `encoding/json` syntax-error wording, for services written in Go (access control,
 * secrets). JavaScript's `JSON.parse` messages differ between Node versions and often carry no
 * position, so the body is scanned here the way Go's scanner reads it, and the first error is
 * worded as Go words it: `unexpected EOF`, `invalid character 'x' looking for beginning of value`,
 * `... looking for beginning of object key string`, `... after object key`, `... after object
 * key:value pair`, `... after array element`, `... after top-level value`, `... in string literal`,
 * `... in literal true (expecting 'r')`, `... in numeric literal`.
 */

class GoSyntaxError extends Error {}

/** Nesting Go's `encoding/json` accepts; one level more is `exceeded max depth`. */
export const GO_MAX_JSON_DEPTH = 10_000;

/**
 * Whether `text` opens more than `max` nested arrays or objects at some point (strings skipped),
 * read without recursion in one pass, so a body of any depth costs time linear in its length.
 * @example jsonDepthExceeds("[[[]]]", 2) // true
 * @example jsonDepthExceeds('["[[["]', 2) // false
 */
export function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c) i++; // backslash: skip the escaped character
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      if (++depth > max) return true;
    } else if (code === 0x5d || code === 0x7d) depth--;
  }
  return false;
}

/**
 * The Go `encoding/json` message for a body `JSON.parse` refused (`exceeded max depth` for nesting
 * beyond {@link GO_MAX_JSON_DEPTH}, reported before any other error).
 * @param text - the body as text.
 * @param _error - what `JSON.parse(text)` threw (unused: the body is scanned instead).
 * @returns e.g. `unexpected EOF`, `invalid character 'x' looking for beginning of value`.
 * @example goJsonSyntaxMessage('{"a": x}', new SyntaxError()) // "invalid character 'x' looking for beginning of value"
 */
export function goJsonSyntaxMessage(text: string, _error?: unknown): string {
  // Deeper bodies are Go's depth error, whatever else (Go checks the depth as it scans).
  if (jsonDepthExceeds(text, GO_MAX_JSON_DEPTH)) return "exceeded max depth";
  try {
    const scanner = new Scanner(text);
    scanner.value();
    scanner.skipSpace();
    if (scanner.pos < text.length) scanner.fail("after top-level value");
    return "unexpected EOF";
  } catch (error) {
    if (error instanceof GoSyntaxError) return error.message;
    throw error;
  }
}

class Scanner {
  pos = 0;
  constructor(private readonly text: string) {}

  fail(context: string): never {
    if (this.pos >= this.text.length) throw new GoSyntaxError("unexpected EOF");
    throw new GoSyntaxError(`invalid character ${quoteChar(this.text.charAt(this.pos))} ${context}`);
  }

  skipSpace(): void {
    while (this.pos < this.text.length && " \t\r\n".includes(this.text.charAt(this.pos))) this.pos++;
  }

  /**
   * One value, nested arrays and objects included, read with an explicit stack of open containers
   * (no recursion: a body cut short after thousands of levels cannot overflow the call stack).
   */
  value(): void {
    const open: ("{" | "[")[] = [];
    for (;;) {
      // A value starts here.
      this.skipSpace();
      const ch = this.text.charAt(this.pos);
      if (ch === "{" || ch === "[") {
        this.pos++;
        this.skipSpace();
        const close = ch === "{" ? "}" : "]";
        if (this.text.charAt(this.pos) !== close) {
          open.push(ch);
          if (ch === "{") this.key();
          continue;
        }
        this.pos++;
      } else this.scalar(ch);
      // The value ended: close containers until one expects another element.
      for (;;) {
        const top = open[open.length - 1];
        if (top === undefined) return;
        this.skipSpace();
        const next = this.text.charAt(this.pos);
        if (next === (top === "{" ? "}" : "]")) {
          this.pos++;
          open.pop();
          continue;
        }
        if (next !== ",") this.fail(top === "{" ? "after object key:value pair" : "after array element");
        this.pos++;
        if (top === "{") {
          this.skipSpace();
          this.key();
        }
        break;
      }
    }
  }

  /** An object key and its colon (the value follows). */
  private key(): void {
    this.skipSpace();
    if (this.text.charAt(this.pos) !== '"') this.fail("looking for beginning of object key string");
    this.string();
    this.skipSpace();
    if (this.text.charAt(this.pos) !== ":") this.fail("after object key");
    this.pos++;
  }

  private scalar(ch: string): void {
    if (ch === '"') return this.string();
    if (ch === "-" || (ch >= "0" && ch <= "9")) return this.number();
    for (const literal of ["true", "false", "null"]) {
      if (ch === literal[0]) return this.literal(literal);
    }
    this.fail("looking for beginning of value");
  }

  private string(): void {
    this.pos++;
    while (this.pos < this.text.length) {
      const ch = this.text.charAt(this.pos);
      if (ch === '"') {
        this.pos++;
        return;
      }
      if (ch < " ") this.fail("in string literal");
      if (ch === "\\") {
        this.pos++;
        const escape = this.text.charAt(this.pos);
        if (escape === "u") {
          for (let i = 1; i <= 4; i++) {
            this.pos++;
            if (!/[0-9a-fA-F]/.test(this.text.charAt(this.pos))) this.fail("in \\u hexadecimal character escape");
          }
        } else if (!'"\\/bfnrt'.includes(escape) || escape === "") {
          this.fail("in string escape code");
        }
      }
      this.pos++;
    }
    this.fail("in string literal");
  }

  private number(): void {
    if (this.text.charAt(this.pos) === "-") this.pos++;
    const digits = (): number => {
      const start = this.pos;
      while (/[0-9]/.test(this.text.charAt(this.pos))) this.pos++;
      return this.pos - start;
    };
    if (this.text.charAt(this.pos) === "0") this.pos++;
    else if (digits() === 0) this.fail("in numeric literal");
    if (this.text.charAt(this.pos) === ".") {
      this.pos++;
      if (digits() === 0) this.fail("after decimal point in numeric literal");
    }
    if (/[eE]/.test(this.text.charAt(this.pos))) {
      this.pos++;
      if (/[+-]/.test(this.text.charAt(this.pos))) this.pos++;
      if (digits() === 0) this.fail("in exponent of numeric literal");
    }
  }

  private literal(word: string): void {
    for (let i = 0; i < word.length; i++) {
      if (this.text.charAt(this.pos) !== word[i]) this.fail(`in literal ${word} (expecting ${quoteChar(word[i] ?? "")})`);
      this.pos++;
    }
  }
}

/** Go's `quoteChar`: `'x'`, with `'\''` and `'"'` as Go writes them. */
function quoteChar(ch: string): string {
  if (ch === "'") return "'\\''";
  if (ch === '"') return "'\"'";
  const code = ch.codePointAt(0) ?? 0;
  if (code < 0x20) return `'\\x${code.toString(16).padStart(2, "0")}'`;
  return `'${ch}'`;
}
