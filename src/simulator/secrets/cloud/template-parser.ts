/**
 * The parser of the username template language: a subset of Go's `text/template` large enough for
 * every template the real service documents, e.g. its default
 * `{{ if (eq .Type "STS") }}{{ printf "..." (unix_time) (random 20) | truncate 32 }}{{ else }}...{{ end }}`.
 *
 * Supported: text and `{{ actions }}` with `{{-`/`-}}` trim markers and `{{/* comments *\/}}`;
 * pipelines (`a | f x`), parenthesized pipelines, fields (`.Type`, `.A.B`), `.`, variables (`$`,
 * `$x := ...`, `$x = ...`), string (`"..."` with Go escapes, raw `` `...` ``), character, number,
 * boolean and `nil` constants; `if`/`else if`/`else`/`end` and `with`/`else with`/`else`/`end`.
 * `range`, `define`, `template`, `block`, `break` and `continue` are refused with a parse error (the
 * username data has nothing to range over and no nested templates).
 *
 * Errors follow Go's wording: `template: template:1: function "foo" not defined`.
 */

/** A position in the template source (byte offset of the first character). */
export type Offset = number;

/** An operand of a command. */
export type Operand =
  | { readonly type: "identifier"; readonly name: string; readonly offset: Offset }
  | { readonly type: "field"; readonly fields: readonly string[]; readonly offset: Offset }
  | { readonly type: "variable"; readonly name: string; readonly fields: readonly string[]; readonly offset: Offset }
  | { readonly type: "dot"; readonly offset: Offset }
  | { readonly type: "nil"; readonly offset: Offset }
  | { readonly type: "bool"; readonly value: boolean; readonly offset: Offset }
  | { readonly type: "number"; readonly value: number; readonly text: string; readonly offset: Offset }
  | { readonly type: "string"; readonly value: string; readonly offset: Offset }
  | { readonly type: "pipeline"; readonly pipe: Pipeline; readonly fields: readonly string[]; readonly offset: Offset };

/** A command: a function call or a single operand. */
export interface Command {
  readonly args: readonly Operand[];
  readonly offset: Offset;
  /** The command's source text (for Go-style error context `<truncate 0>`). */
  readonly source: string;
}

/** A pipeline: optional variable declaration, then commands joined by `|`. */
export interface Pipeline {
  readonly declare: { readonly names: readonly string[]; readonly assign: boolean } | undefined;
  readonly commands: readonly Command[];
  readonly offset: Offset;
}

/** A node of the template tree. */
export type TemplateNode =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "action"; readonly pipe: Pipeline; readonly offset: Offset }
  | {
      readonly type: "if" | "with";
      readonly pipe: Pipeline;
      readonly list: readonly TemplateNode[];
      readonly elseList: readonly TemplateNode[] | undefined;
      readonly offset: Offset;
    };

/** A parsed template: its name, source (for positions) and tree. */
export interface ParsedTemplate {
  readonly name: string;
  readonly source: string;
  readonly root: readonly TemplateNode[];
}

/**
 * A parse or execution error, worded like Go's `text/template`.
 * @example new TemplateError("template: template:1: unexpected EOF")
 */
export class TemplateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TemplateError";
  }
}

/** Deepest nesting of parentheses and control structures (Go's parser has a limit too). */
export const MAX_TEMPLATE_DEPTH = 500;

const KEYWORDS = new Set(["if", "else", "end", "with", "range", "define", "template", "block", "break", "continue"]);
const UNSUPPORTED = new Set(["range", "define", "template", "block", "break", "continue"]);

type TokenKind =
  | "identifier"
  | "keyword"
  | "field"
  | "variable"
  | "dot"
  | "nil"
  | "bool"
  | "number"
  | "string"
  | "char"
  | "pipe"
  | "leftParen"
  | "rightParen"
  | "declare"
  | "assign"
  | "comma";

interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  readonly offset: Offset;
  /** Decoded value of string, char and number tokens. */
  readonly value?: string | number;
}

type Item = { readonly type: "text"; readonly text: string } | { readonly type: "action"; readonly tokens: readonly Token[]; readonly offset: Offset; readonly end: Offset };

/**
 * The 1-based line of an offset.
 * @example lineOf("a\n{{ x }}", 2) // 2
 */
export function lineOf(source: string, offset: Offset): number {
  let line = 1;
  for (let i = 0; i < offset && i < source.length; i++) if (source[i] === "\n") line++;
  return line;
}

/**
 * The 0-based column of an offset within its line (Go's `line:col` in execution errors).
 * @example columnOf("{{.Foo}}", 2) // 2
 */
export function columnOf(source: string, offset: Offset): number {
  const lineStart = source.lastIndexOf("\n", offset - 1) + 1;
  return offset - lineStart;
}

/**
 * Parses a template.
 * @param source - the template text.
 * @param functions - names of the functions the template may call (Go checks them at parse time).
 * @param name - the template's name in error messages (the real service uses `template`).
 * @throws {TemplateError} with Go's wording, e.g. `template: template:1: unexpected EOF`.
 * @example parseTemplate('{{ .Type | lowercase }}', new Set(["lowercase"]))
 */
export function parseTemplate(source: string, functions: ReadonlySet<string>, name = "template"): ParsedTemplate {
  const items = lex(source, name);
  const parser = new Parser(source, name, items, functions);
  return { name, source, root: parser.parseRoot() };
}

function isSpace(char: string | undefined): boolean {
  return char === " " || char === "\t" || char === "\r" || char === "\n";
}

function isAlphaNumeric(char: string | undefined): boolean {
  return char !== undefined && /^[\p{L}\p{Nd}_]$/u.test(char);
}

function lex(source: string, name: string): Item[] {
  const items: Item[] = [];
  let pending = "";
  let i = 0;
  const fail = (offset: Offset, message: string): never => {
    throw new TemplateError(`template: ${name}:${lineOf(source, offset)}: ${message}`);
  };
  while (i < source.length) {
    const open = source.indexOf("{{", i);
    if (open < 0) {
      pending += source.slice(i);
      break;
    }
    pending += source.slice(i, open);
    let j = open + 2;
    if (source[j] === "-" && isSpace(source[j + 1])) {
      pending = pending.replace(/[ \t\r\n]+$/, "");
      j += 2;
    }
    if (source.startsWith("/*", j)) {
      const close = source.indexOf("*/", j + 2);
      if (close < 0) fail(j, "unclosed comment");
      let k = close + 2;
      let trimAfter = false;
      if (isSpace(source[k]) && source.startsWith("-}}", k + 1)) {
        trimAfter = true;
        k += 4;
      } else if (source.startsWith("}}", k)) k += 2;
      else fail(k, "comment ends before closing delimiter");
      if (pending) items.push({ type: "text", text: pending });
      pending = "";
      i = k;
      if (trimAfter) while (isSpace(source[i])) i++;
      continue;
    }
    if (pending) items.push({ type: "text", text: pending });
    pending = "";
    const { tokens, end, trimAfter } = lexAction(source, j, fail);
    items.push({ type: "action", tokens, offset: open, end });
    i = end;
    if (trimAfter) while (isSpace(source[i])) i++;
  }
  if (pending) items.push({ type: "text", text: pending });
  return items;
}

function lexAction(
  source: string,
  start: Offset,
  fail: (offset: Offset, message: string) => never,
): { tokens: Token[]; end: Offset; trimAfter: boolean } {
  const tokens: Token[] = [];
  let i = start;
  let parenDepth = 0;
  for (;;) {
    const char = source[i];
    if (char === undefined) fail(i, "unclosed action");
    if (isSpace(char)) {
      let k = i;
      while (isSpace(source[k])) k++;
      if (source.startsWith("-}}", k)) return { tokens, end: k + 3, trimAfter: true };
      if (source[k] === undefined) fail(k, "unclosed action");
      i = k;
      continue;
    }
    if (source.startsWith("}}", i)) {
      if (parenDepth > 0) fail(i, "unclosed left paren");
      return { tokens, end: i + 2, trimAfter: false };
    }
    const offset = i;
    const push = (kind: TokenKind, text: string, value?: string | number): void => {
      tokens.push(value === undefined ? { kind, text, offset } : { kind, text, offset, value });
      i += text.length;
    };
    if (char === "|") push("pipe", "|");
    else if (char === "(") {
      parenDepth++;
      push("leftParen", "(");
    } else if (char === ")") {
      parenDepth--;
      if (parenDepth < 0) fail(i, `unexpected right paren`);
      push("rightParen", ")");
    } else if (char === ",") push("comma", ",");
    else if (source.startsWith(":=", i)) push("declare", ":=");
    else if (char === "=") push("assign", "=");
    else if (char === '"') {
      const { value, length } = readQuoted(source, i, fail);
      push("string", source.slice(i, i + length), value);
    } else if (char === "`") {
      const close = source.indexOf("`", i + 1);
      if (close < 0) fail(i, "unterminated raw quoted string");
      push("string", source.slice(i, close + 1), source.slice(i + 1, close).replace(/\r/g, ""));
    } else if (char === "'") {
      const { value, length } = readChar(source, i, fail);
      push("char", source.slice(i, i + length), value);
    } else if (char === "$") {
      let k = i + 1;
      while (isAlphaNumeric(source[k])) k++;
      push("variable", source.slice(i, k));
    } else if (char === "." && isAlphaNumeric(source[i + 1]) && !/\d/.test(source[i + 1] ?? "")) {
      let k = i + 1;
      while (isAlphaNumeric(source[k])) k++;
      push("field", source.slice(i, k));
    } else if (/\d/.test(char) || ((char === "-" || char === "+" || char === ".") && /\d/.test(source[i + 1] ?? "")) || ((char === "-" || char === "+") && source[i + 1] === "." && /\d/.test(source[i + 2] ?? ""))) {
      const match = /^[+-]?(0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|(?:\d[\d_]*)?(?:\.\d[\d_]*)?(?:[eE][+-]?\d+)?)/.exec(source.slice(i));
      const text = match?.[0] ?? "";
      if (isAlphaNumeric(source[i + text.length]) || source[i + text.length] === ".") {
        let k = i + text.length;
        while (isAlphaNumeric(source[k]) || source[k] === ".") k++;
        fail(i, `bad number syntax: ${JSON.stringify(source.slice(i, k))}`);
      }
      push("number", text, parseNumber(text));
    } else if (char === ".") push("dot", ".");
    else if (isAlphaNumeric(char)) {
      let k = i;
      while (isAlphaNumeric(source[k])) k++;
      const word = source.slice(i, k);
      if (word === "true" || word === "false") push("bool", word);
      else if (word === "nil") push("nil", word);
      else push(KEYWORDS.has(word) ? "keyword" : "identifier", word);
    } else {
      const code = char.codePointAt(0) ?? 0;
      fail(i, `unrecognized character in action: U+${code.toString(16).toUpperCase().padStart(4, "0")} ${JSON.stringify(char).replace(/^"|"$/g, "'")}`);
    }
  }
}

function parseNumber(text: string): number {
  const clean = text.replace(/_/g, "");
  const sign = clean.startsWith("-") ? -1 : 1;
  const body = clean.replace(/^[+-]/, "");
  if (/^0[xX]/.test(body)) return sign * parseInt(body.slice(2), 16);
  if (/^0[oO]/.test(body)) return sign * parseInt(body.slice(2), 8);
  if (/^0[bB]/.test(body)) return sign * parseInt(body.slice(2), 2);
  if (/^0\d+$/.test(body)) return sign * parseInt(body, 8);
  return sign * Number(body);
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = { a: "\u0007", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v", "\\": "\\", "'": "'", '"': '"' };

function readEscape(source: string, i: Offset, quote: string, fail: (offset: Offset, message: string) => never): { value: string; length: number } {
  const next = source[i + 1] ?? "";
  if (next in SIMPLE_ESCAPES && (next !== "'" || quote === "'") && (next !== '"' || quote === '"')) return { value: SIMPLE_ESCAPES[next] ?? "", length: 2 };
  const hex = (count: number, base: number, offset: number): { value: string; length: number } => {
    const digits = source.slice(i + offset, i + offset + count);
    const pattern = base === 16 ? /^[0-9a-fA-F]+$/ : /^[0-7]+$/;
    if (digits.length !== count || !pattern.test(digits)) fail(i, "invalid syntax");
    return { value: String.fromCodePoint(parseInt(digits, base)), length: offset + count };
  };
  if (next === "x") return hex(2, 16, 2);
  if (next === "u") return hex(4, 16, 2);
  if (next === "U") return hex(8, 16, 2);
  if (/[0-7]/.test(next)) return hex(3, 8, 1);
  return fail(i, "invalid syntax");
}

function readQuoted(source: string, start: Offset, fail: (offset: Offset, message: string) => never): { value: string; length: number } {
  let value = "";
  let i = start + 1;
  for (;;) {
    const char = source[i];
    if (char === undefined || char === "\n") fail(start, "unterminated quoted string");
    if (char === '"') return { value, length: i + 1 - start };
    if (char === "\\") {
      const escape = readEscape(source, i, '"', fail);
      value += escape.value;
      i += escape.length;
      continue;
    }
    value += char;
    i++;
  }
}

function readChar(source: string, start: Offset, fail: (offset: Offset, message: string) => never): { value: number; length: number } {
  const next = source[start + 1];
  if (next === undefined || next === "\n") fail(start, "unterminated character constant");
  let value: string;
  let i: number;
  if (next === "\\") {
    const escape = readEscape(source, start + 1, "'", fail);
    value = escape.value;
    i = start + 1 + escape.length;
  } else {
    value = [...source.slice(start + 1)][0] ?? "";
    i = start + 1 + value.length;
  }
  if (source[i] !== "'") fail(start, "unterminated character constant");
  return { value: value.codePointAt(0) ?? 0, length: i + 1 - start };
}

class Parser {
  private index = 0;
  private depth = 0;
  /** Declared variable names, innermost scope last. */
  private readonly scopes: string[][] = [["$"]];

  constructor(
    private readonly source: string,
    private readonly name: string,
    private readonly items: readonly Item[],
    private readonly functions: ReadonlySet<string>,
  ) {}

  parseRoot(): TemplateNode[] {
    const { nodes, stop } = this.parseList();
    if (stop !== undefined) this.fail(stop.offset, `unexpected {{${stop.tokens[0]?.text ?? ""}}}`);
    return nodes;
  }

  private fail(offset: Offset, message: string): never {
    throw new TemplateError(`template: ${this.name}:${lineOf(this.source, offset)}: ${message}`);
  }

  /** Parses nodes until EOF or an `{{end}}`/`{{else ...}}` action, which it returns unconsumed-in-tree. */
  private parseList(): { nodes: TemplateNode[]; stop: Extract<Item, { type: "action" }> | undefined } {
    const nodes: TemplateNode[] = [];
    while (this.index < this.items.length) {
      const item = this.items[this.index++] as Item;
      if (item.type === "text") {
        nodes.push({ type: "text", text: item.text });
        continue;
      }
      const first = item.tokens[0];
      if (first?.kind === "keyword") {
        if (first.text === "end" || first.text === "else") return { nodes, stop: item };
        if (UNSUPPORTED.has(first.text)) this.fail(first.offset, `{{${first.text}}} is not supported in username templates`);
        nodes.push(this.parseControl(first.text as "if" | "with", item.tokens.slice(1), item.offset));
        continue;
      }
      if (item.tokens.length === 0) this.fail(item.offset, "missing value for command");
      const cursor = new Cursor(item.tokens, item.end);
      const pipe = this.parsePipeline(cursor, "command", true);
      if (!cursor.done) this.fail(cursor.peek()?.offset ?? item.end, `unexpected ${describe(cursor.peek())} in command`);
      nodes.push({ type: "action", pipe, offset: item.offset });
    }
    return { nodes, stop: undefined };
  }

  private parseControl(kind: "if" | "with", tokens: readonly Token[], offset: Offset): TemplateNode {
    this.scopes.push([]);
    if (++this.depth > MAX_TEMPLATE_DEPTH) this.fail(offset, "max expression depth exceeded");
    try {
      const cursor = new Cursor(tokens, offset);
      if (cursor.done) this.fail(offset, `missing value for ${kind}`);
      const pipe = this.parsePipeline(cursor, kind, true);
      if (!cursor.done) this.fail(cursor.peek()?.offset ?? offset, `unexpected ${describe(cursor.peek())} in ${kind}`);
      const body = this.parseList();
      if (body.stop === undefined) this.fail(this.source.length, "unexpected EOF");
      const stopTokens = body.stop.tokens;
      if (stopTokens[0]?.text === "end") {
        if (stopTokens.length > 1) this.fail(body.stop.offset, `unexpected ${describe(stopTokens[1])} in end`);
        return { type: kind, pipe, list: body.nodes, elseList: undefined, offset };
      }
      // {{else}} or {{else if ...}} / {{else with ...}}
      if (stopTokens.length > 1) {
        const chained = stopTokens[1];
        if (chained?.kind !== "keyword" || chained.text !== kind) this.fail(body.stop.offset, `unexpected ${describe(chained)} in else`);
        const nested = this.parseControl(kind, stopTokens.slice(2), body.stop.offset);
        return { type: kind, pipe, list: body.nodes, elseList: [nested], offset };
      }
      const elseBody = this.parseList();
      if (elseBody.stop === undefined) this.fail(this.source.length, "unexpected EOF");
      if (elseBody.stop.tokens[0]?.text !== "end") this.fail(elseBody.stop.offset, "expected end; found {{else}}");
      return { type: kind, pipe, list: body.nodes, elseList: elseBody.nodes, offset };
    } finally {
      this.scopes.pop();
      this.depth--;
    }
  }

  private parsePipeline(cursor: Cursor, context: string, allowDeclare: boolean): Pipeline {
    const offset = cursor.peek()?.offset ?? cursor.end;
    let declare: Pipeline["declare"];
    const first = cursor.peek();
    const second = cursor.peek(1);
    if (allowDeclare && first?.kind === "variable" && (second?.kind === "declare" || second?.kind === "assign")) {
      cursor.next();
      cursor.next();
      if (second.kind === "assign" && !this.isDeclared(first.text)) this.fail(first.offset, `undefined variable "${first.text}"`);
      if (second.kind === "declare") this.scopes[this.scopes.length - 1]?.push(first.text);
      declare = { names: [first.text], assign: second.kind === "assign" };
    }
    const commands: Command[] = [];
    for (;;) {
      const command = this.parseCommand(cursor, context);
      commands.push(command);
      if (cursor.peek()?.kind === "pipe") {
        cursor.next();
        continue;
      }
      break;
    }
    commands.slice(1).forEach((command) => {
      const head = command.args[0];
      if (head !== undefined && head.type !== "identifier" && head.type !== "field" && head.type !== "variable" && head.type !== "pipeline" && head.type !== "dot") {
        this.fail(command.offset, `non executable command in pipeline stage ${commands.indexOf(command) + 1}`);
      }
    });
    return { declare, commands, offset };
  }

  private parseCommand(cursor: Cursor, context: string): Command {
    const args: Operand[] = [];
    const start = cursor.peek()?.offset ?? cursor.end;
    while (!cursor.done) {
      const token = cursor.peek();
      if (token?.kind === "pipe" || token?.kind === "rightParen") break;
      args.push(this.parseOperand(cursor, context));
    }
    if (args.length === 0) this.fail(start, `missing value for ${context}`);
    const head = args[0];
    if (head?.type === "nil" && args.length === 1) this.fail(head.offset, "nil is not a command");
    return { args, offset: start, source: this.source.slice(start, cursor.lastEnd) };
  }

  private parseOperand(cursor: Cursor, context: string): Operand {
    const token = cursor.next();
    if (token === undefined) return this.fail(cursor.end, `missing value for ${context}`);
    const fields = (): string[] => {
      const out: string[] = [];
      while (cursor.peek()?.kind === "field" && cursor.peek()?.offset === cursor.lastEnd) out.push((cursor.next() as Token).text.slice(1));
      return out;
    };
    switch (token.kind) {
      case "identifier":
        if (!this.functions.has(token.text)) this.fail(token.offset, `function "${token.text}" not defined`);
        return { type: "identifier", name: token.text, offset: token.offset };
      case "field":
        return { type: "field", fields: [token.text.slice(1), ...fields()], offset: token.offset };
      case "variable":
        if (!this.isDeclared(token.text)) this.fail(token.offset, `undefined variable "${token.text}"`);
        return { type: "variable", name: token.text, fields: fields(), offset: token.offset };
      case "dot": {
        const chained = fields();
        return chained.length > 0 ? { type: "field", fields: chained, offset: token.offset } : { type: "dot", offset: token.offset };
      }
      case "nil":
        return { type: "nil", offset: token.offset };
      case "bool":
        return { type: "bool", value: token.text === "true", offset: token.offset };
      case "number":
        return { type: "number", value: token.value as number, text: token.text, offset: token.offset };
      case "char":
        return { type: "number", value: token.value as number, text: token.text, offset: token.offset };
      case "string":
        return { type: "string", value: token.value as string, offset: token.offset };
      case "leftParen": {
        if (++this.depth > MAX_TEMPLATE_DEPTH) this.fail(token.offset, "max expression depth exceeded");
        const pipe = this.parsePipeline(cursor, "parenthesized pipeline", false);
        this.depth--;
        const close = cursor.next();
        if (close?.kind !== "rightParen") this.fail(close?.offset ?? cursor.end, "unclosed left paren");
        return { type: "pipeline", pipe, fields: fields(), offset: token.offset };
      }
      default:
        return this.fail(token.offset, `unexpected ${describe(token)} in operand`);
    }
  }

  private isDeclared(name: string): boolean {
    return this.scopes.some((scope) => scope.includes(name));
  }
}

function describe(token: Token | undefined): string {
  if (token === undefined) return "EOF";
  if (token.kind === "keyword") return `<${token.text}>`;
  return JSON.stringify(token.text);
}

class Cursor {
  private index = 0;
  lastEnd = -1;

  constructor(
    private readonly tokens: readonly Token[],
    readonly end: Offset,
  ) {}

  get done(): boolean {
    return this.index >= this.tokens.length;
  }

  peek(ahead = 0): Token | undefined {
    return this.tokens[this.index + ahead];
  }

  next(): Token | undefined {
    const token = this.tokens[this.index++];
    if (token !== undefined) this.lastEnd = token.offset + token.text.length;
    return token;
  }
}
