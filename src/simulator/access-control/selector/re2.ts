/**
 * The regular expressions of the selector `matches` operator, as the real evaluator (Go `regexp`,
 * RE2 syntax, Perl flags) reads them: the same syntax, the same refusals with the same messages
 * (`error parsing regexp: missing closing ): `+"`(a`"), and the same unanchored search semantics.
 *
 * Parsing follows Go's `regexp/syntax` parser rule by rule. Matching runs a Thompson NFA over the
 * parsed program (linear in the input, like RE2): JavaScript's backtracking RegExp is never used on
 * user patterns, so `(a+)+$` cannot hang a test. Constructs RE2 rejects (backreferences `\1`,
 * lookaround `(?=`, `(?<=`, possessive `a*+`, `\Z`) are refused exactly as Go refuses them.
 *
 * Known gaps (documented in docs/decisions/access-control-selector.md): Unicode script names are
 * checked with the JavaScript engine's tables (which also accept short aliases such as `Grek`);
 * case folding uses JavaScript's simple case folding; Go's `expression too large` limit is
 * approximated by a program-size cap.
 */
import { codePoints } from "./go-string.js";

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

const ERR = {
  charClass: "invalid character class",
  charRange: "invalid character class range",
  escape: "invalid escape sequence",
  namedCapture: "invalid named capture",
  perlOp: "invalid or unsupported Perl syntax",
  repeatOp: "invalid nested repetition operator",
  repeatSize: "invalid repeat count",
  missingBracket: "missing closing ]",
  missingParen: "missing closing )",
  missingRepeatArgument: "missing argument to repetition operator",
  trailingBackslash: "trailing backslash at end of expression",
  unexpectedParen: "unexpected )",
  nestingDepth: "expression nests too deeply",
  large: "expression too large",
} as const;

/** Go's maxHeight for a parsed regexp. */
const MAX_NESTING = 1000;
/** Instruction cap standing in for Go's `expression too large`. */
const MAX_PROGRAM = 250_000;

type CharTest = (cp: number) => boolean;
type AssertKind = "bot" | "eot" | "bol" | "eol" | "wb" | "nwb";

type Node =
  | { readonly t: "char"; readonly test: CharTest }
  | { readonly t: "assert"; readonly kind: AssertKind }
  | { readonly t: "concat"; readonly subs: readonly Node[] }
  | { readonly t: "alt"; readonly subs: readonly Node[] }
  | { readonly t: "repeat"; readonly min: number; readonly max: number; readonly sub: Node; readonly counted: boolean };

interface Flags {
  readonly fold: boolean;
  readonly multiLine: boolean;
  readonly dotNL: boolean;
  readonly nonGreedy: boolean;
}

// ---- case folding ------------------------------------------------------------------------------

let orbitTable: Map<number, readonly number[]> | undefined;

/**
 * Simple case-folding orbits (`k`, `K`, KELVIN SIGN), built once on first use of `(?i)` from the
 * JavaScript engine's case mappings, keeping only pairs its `iu` matching (simple case folding,
 * as Go's tables) agrees are equivalent.
 */
function orbits(): Map<number, readonly number[]> {
  if (orbitTable !== undefined) return orbitTable;
  const parent = new Map<number, number>();
  const find = (x: number): number => {
    let r = x;
    while (parent.has(r) && parent.get(r) !== r) r = parent.get(r) as number;
    return r;
  };
  const union = (a: number, b: number): void => {
    const ra = find(a);
    const rb = find(b);
    if (!parent.has(ra)) parent.set(ra, ra);
    if (!parent.has(rb)) parent.set(rb, rb);
    if (ra !== rb) parent.set(ra, rb);
  };
  for (let cp = 0; cp < 0x20000; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const ch = String.fromCodePoint(cp);
    for (const mapped of [ch.toLowerCase(), ch.toUpperCase()]) {
      if (mapped === ch) continue;
      const other = mapped.codePointAt(0) as number;
      if (String.fromCodePoint(other) !== mapped) continue;
      if (!new RegExp(`^\\u{${cp.toString(16)}}$`, "iu").test(mapped)) continue;
      union(cp, other);
    }
  }
  const groups = new Map<number, number[]>();
  for (const cp of parent.keys()) {
    const root = find(cp);
    const group = groups.get(root) ?? [];
    group.push(cp);
    groups.set(root, group);
  }
  orbitTable = new Map();
  for (const group of groups.values()) {
    group.sort((a, b) => a - b);
    for (const cp of group) orbitTable.set(cp, group);
  }
  return orbitTable;
}

function orbit(cp: number): readonly number[] {
  return orbits().get(cp) ?? [cp];
}

/** `test` widened to every case variant when folding. */
function folded(test: CharTest, fold: boolean): CharTest {
  return fold ? (cp) => orbit(cp).some(test) : test;
}

// ---- character groups --------------------------------------------------------------------------

type Range = readonly [number, number];
const inRanges = (ranges: readonly Range[]): CharTest => (cp) => ranges.some(([lo, hi]) => cp >= lo && cp <= hi);
const c = (ch: string): number => ch.codePointAt(0) as number;
const r = (lo: string, hi = lo): Range => [c(lo), c(hi)];

const PERL_GROUPS: Record<string, readonly Range[]> = {
  d: [r("0", "9")],
  s: [r("\t", "\n"), r("\f", "\r"), r(" ")],
  w: [r("0", "9"), r("A", "Z"), r("_"), r("a", "z")],
};

const POSIX_GROUPS: Record<string, readonly Range[]> = {
  alnum: [r("0", "9"), r("A", "Z"), r("a", "z")],
  alpha: [r("A", "Z"), r("a", "z")],
  ascii: [[0, 0x7f]],
  blank: [r("\t"), r(" ")],
  cntrl: [[0, 0x1f], [0x7f, 0x7f]],
  digit: [r("0", "9")],
  graph: [r("!", "~")],
  lower: [r("a", "z")],
  print: [r(" ", "~")],
  punct: [r("!", "/"), r(":", "@"), r("[", "`"), r("{", "~")],
  space: [r("\t", "\r"), r(" ")],
  upper: [r("A", "Z")],
  word: [r("0", "9"), r("A", "Z"), r("a", "z"), r("_")],
  xdigit: [r("0", "9"), r("A", "F"), r("a", "f")],
};

const CATEGORIES = new Set([
  "L", "Ll", "Lm", "Lo", "Lt", "Lu", "M", "Mc", "Me", "Mn", "N", "Nd", "Nl", "No", "P", "Pc", "Pd",
  "Pe", "Pf", "Pi", "Po", "Ps", "S", "Sc", "Sk", "Sm", "So", "Z", "Zl", "Zp", "Zs", "Cc", "Cf", "Co", "Cs",
]);
const unicodeTables = new Map<string, CharTest | undefined>();

/** Go's `unicodeTable`: `Any`, a general category, or a script; undefined when Go knows no such name. */
function unicodeTable(name: string): CharTest | undefined {
  if (unicodeTables.has(name)) return unicodeTables.get(name);
  let test: CharTest | undefined;
  if (name === "Any") test = () => true;
  else {
    let source: string | undefined;
    if (name === "C") source = "[\\p{Cc}\\p{Cf}\\p{Co}\\p{Cs}]"; // Go's "C" leaves out unassigned code points
    else if (CATEGORIES.has(name)) source = `\\p{gc=${name}}`;
    else if (/^[A-Z][A-Za-z_]*$/.test(name)) source = `\\p{sc=${name}}`;
    if (source !== undefined) {
      try {
        const re = new RegExp(`^${source}$`, "u");
        test = (cp) => re.test(String.fromCodePoint(cp));
      } catch {
        test = undefined;
      }
    }
  }
  unicodeTables.set(name, test);
  return test;
}

// ---- parser ------------------------------------------------------------------------------------

interface ClassItem {
  readonly test: CharTest;
  readonly negate: boolean;
}

const isAlnum = (cp: number): boolean => (cp >= 48 && cp <= 57) || (cp >= 65 && cp <= 90) || (cp >= 97 && cp <= 122);
const hexValue = (cp: number | undefined): number => {
  if (cp === undefined) return -1;
  if (cp >= 48 && cp <= 57) return cp - 48;
  if (cp >= 97 && cp <= 102) return cp - 87;
  if (cp >= 65 && cp <= 70) return cp - 55;
  return -1;
};

class Re2Parser {
  private pos = 0;
  private flags: Flags = { fold: false, multiLine: false, dotNL: false, nonGreedy: false };
  private depth = 0;

  private readonly cps: number[];

  constructor(private readonly source: string) {
    this.cps = codePoints(source);
  }

  private text(from: number, to = this.cps.length): string {
    return String.fromCodePoint(...this.cps.slice(from, to));
  }

  private fail(code: string, from: number, to = this.cps.length): never {
    throw new Re2SyntaxError(code, this.text(from, to));
  }

  private at(i: number): number | undefined {
    return this.cps[i];
  }

  private is(i: number, ch: string): boolean {
    return this.cps[i] === ch.codePointAt(0);
  }

  parse(): Node {
    const node = this.alternation(false);
    if (this.pos < this.cps.length) this.fail(ERR.unexpectedParen, 0); // a ')' with no group open
    return node;
  }

  /** Parses until `)` (consumed by the caller) or the end. */
  private alternation(inGroup: boolean): Node {
    const entryFlags = this.flags;
    const branches: Node[] = [];
    let concat: Node[] = [];
    let lastRepeatStart = -1;
    while (this.pos < this.cps.length) {
      const start = this.pos;
      const ch = String.fromCodePoint(this.cps[start] as number);
      let repeatStart = -1;
      switch (ch) {
        case "(": {
          if (this.is(start + 1, "?")) {
            const group = this.perlFlags();
            if (group !== undefined) concat.push(group);
          } else {
            this.pos += 1;
            concat.push(this.group(this.flags));
          }
          break;
        }
        case "|":
          branches.push(seq(concat));
          concat = [];
          this.pos += 1;
          break;
        case ")":
          if (!inGroup) this.fail(ERR.unexpectedParen, 0);
          branches.push(seq(concat));
          this.flags = entryFlags;
          return branches.length === 1 ? (branches[0] as Node) : { t: "alt", subs: branches };
        case "^":
          concat.push({ t: "assert", kind: this.flags.multiLine ? "bol" : "bot" });
          this.pos += 1;
          break;
        case "$":
          concat.push({ t: "assert", kind: this.flags.multiLine ? "eol" : "eot" });
          this.pos += 1;
          break;
        case ".": {
          const dotNL = this.flags.dotNL;
          concat.push({ t: "char", test: dotNL ? () => true : (cp) => cp !== 10 });
          this.pos += 1;
          break;
        }
        case "[":
          concat.push(this.charClass());
          break;
        case "*":
        case "+":
        case "?": {
          const [min, max] = ch === "*" ? [0, -1] : ch === "+" ? [1, -1] : [0, 1];
          this.repeat(concat, min, max, start, start + 1, lastRepeatStart, false);
          repeatStart = start;
          break;
        }
        case "{": {
          const parsed = this.parseRepeat(start);
          if (parsed === undefined) {
            concat.push(this.literal(c("{")));
            this.pos += 1;
            break;
          }
          const [min, max, after] = parsed;
          if (min < 0 || min > 1000 || max > 1000 || (max >= 0 && min > max)) this.fail(ERR.repeatSize, start, after);
          this.repeat(concat, min, max, start, after, lastRepeatStart, true);
          repeatStart = start;
          break;
        }
        case "\\":
          concat.push(...this.escapeAtom());
          break;
        default:
          concat.push(this.literal(this.cps[start] as number));
          this.pos += 1;
      }
      lastRepeatStart = repeatStart;
    }
    if (inGroup) this.fail(ERR.missingParen, 0);
    branches.push(seq(concat));
    return branches.length === 1 ? (branches[0] as Node) : { t: "alt", subs: branches };
  }

  private group(flags: Flags): Node {
    this.depth += 1;
    if (this.depth >= MAX_NESTING) this.fail(ERR.nestingDepth, 0);
    const saved = this.flags;
    this.flags = flags;
    const sub = this.alternation(true);
    this.pos += 1; // the ')'
    this.flags = saved;
    this.depth -= 1;
    return sub;
  }

  private literal(cp: number): Node {
    return { t: "char", test: folded((x) => x === cp, this.flags.fold) };
  }

  /** Go's `repeat`: the operator at [start, after) applies to the last atom of `concat`. */
  private repeat(concat: Node[], min: number, max: number, start: number, after: number, lastRepeatStart: number, counted: boolean): void {
    let end = after;
    if (this.is(end, "?")) end += 1; // non-greedy: no effect on whether a match exists
    if (lastRepeatStart >= 0) this.fail(ERR.repeatOp, lastRepeatStart, end);
    const sub = concat.pop();
    if (sub === undefined) this.fail(ERR.missingRepeatArgument, start, end);
    const node: Node = { t: "repeat", min, max, sub, counted };
    if (counted && (min >= 2 || max >= 2) && !repeatIsValid(node, 1000)) this.fail(ERR.repeatSize, start, end);
    if (nodeHeight(node) > MAX_NESTING) this.fail(ERR.nestingDepth, 0);
    concat.push(node);
    this.pos = end;
  }

  /** Go's `parseRepeat`: `{n}`, `{n,}`, `{n,m}` at `start`; undefined when it is a literal `{`. */
  private parseRepeat(start: number): [number, number, number] | undefined {
    let i = start + 1;
    const int = (): number | undefined => {
      const first = this.at(i);
      if (first === undefined || first < 48 || first > 57) return undefined;
      const second = this.at(i + 1);
      if (first === 48 && second !== undefined && second >= 48 && second <= 57) return undefined;
      let n = 0;
      while (this.at(i) !== undefined && (this.at(i) as number) >= 48 && (this.at(i) as number) <= 57) {
        if (n >= 1e8) n = -1;
        else if (n >= 0) n = n * 10 + ((this.at(i) as number) - 48);
        i += 1;
      }
      return n;
    };
    let min = int();
    if (min === undefined || i >= this.cps.length) return undefined;
    let max: number;
    if (!this.is(i, ",")) max = min;
    else {
      i += 1;
      if (i >= this.cps.length) return undefined;
      if (this.is(i, "}")) max = -1;
      else {
        const m = int();
        if (m === undefined) return undefined;
        max = m;
        if (max < 0) min = -1;
      }
    }
    if (!this.is(i, "}")) return undefined;
    return [min, max, i + 1];
  }

  /** `(?` constructs: named captures, flag changes, non-capturing groups. */
  private perlFlags(): Node | undefined {
    const start = this.pos;
    const cps = this.cps;
    const rest = cps.length - start;
    if ((rest > 4 && this.is(start + 2, "P") && this.is(start + 3, "<")) || (rest > 3 && this.is(start + 2, "<"))) {
      const begin = this.is(start + 2, "<") ? start + 3 : start + 4;
      let end = -1;
      for (let i = start; i < cps.length; i++) {
        if (this.is(i, ">")) {
          end = i;
          break;
        }
      }
      if (end < 0) this.fail(ERR.namedCapture, start);
      const name = cps.slice(begin, end);
      if (name.length === 0 || !name.every((x) => x === 95 || isAlnum(x))) this.fail(ERR.namedCapture, start, end + 1);
      this.pos = end + 1;
      return this.group(this.flags);
    }
    let i = start + 2;
    let { fold, multiLine, dotNL, nonGreedy } = this.flags;
    let negate = false;
    let sawFlag = false;
    while (i < cps.length) {
      const ch = String.fromCodePoint(cps[i] as number);
      i += 1;
      const on = !negate;
      if (ch === "i") {
        fold = on;
        sawFlag = true;
      } else if (ch === "m") {
        multiLine = on;
        sawFlag = true;
      } else if (ch === "s") {
        dotNL = on;
        sawFlag = true;
      } else if (ch === "U") {
        nonGreedy = on;
        sawFlag = true;
      } else if (ch === "-") {
        if (negate) break;
        negate = true;
        sawFlag = false;
      } else if (ch === ":" || ch === ")") {
        if (negate && !sawFlag) break;
        const flags: Flags = { fold, multiLine, dotNL, nonGreedy };
        this.pos = i;
        if (ch === ":") return this.group(flags);
        this.flags = flags;
        return undefined;
      } else break;
    }
    return this.fail(ERR.perlOp, start, i);
  }

  /** A `\` outside a class: one atom, or the literals of `\Q...\E` (each its own atom, as in Go). */
  private escapeAtom(): Node[] {
    const start = this.pos;
    const next = this.at(start + 1);
    if (next !== undefined) {
      const n = String.fromCodePoint(next);
      const assertion: Record<string, AssertKind> = { A: "bot", b: "wb", B: "nwb", z: "eot" };
      if (n in assertion) {
        this.pos = start + 2;
        return [{ t: "assert", kind: assertion[n] as AssertKind }];
      }
      if (n === "C") this.fail(ERR.escape, start, start + 2);
      if (n === "Q") {
        let i = start + 2;
        const atoms: Node[] = [];
        while (i < this.cps.length && !(this.is(i, "\\") && this.is(i + 1, "E"))) {
          atoms.push(this.literal(this.cps[i] as number));
          i += 1;
        }
        this.pos = i < this.cps.length ? i + 2 : i;
        return atoms;
      }
    }
    const unicode = this.unicodeClass(start);
    if (unicode !== undefined) return [this.classNode([unicode], false)];
    const perl = this.perlClass(start);
    if (perl !== undefined) return [this.classNode([perl], false)];
    const [cp, end] = this.escape(start);
    this.pos = end;
    return [this.literal(cp)];
  }

  private classNode(items: readonly ClassItem[], negate: boolean): Node {
    const fold = this.flags.fold;
    const tests = items.map((item) => {
      const test = folded(item.test, fold);
      return item.negate ? (cp: number) => !test(cp) : test;
    });
    return { t: "char", test: (cp) => tests.some((t) => t(cp)) !== negate };
  }

  /** Go's `parseUnicodeClass` at `start` (`\pL`, `\p{Greek}`, `\P{^Lu}`); advances `pos` on success. */
  private unicodeClass(start: number): ClassItem | undefined {
    if (!this.is(start, "\\") || !(this.is(start + 1, "p") || this.is(start + 1, "P"))) return undefined;
    let negate = this.is(start + 1, "P");
    let name: string;
    let end: number;
    if (!this.is(start + 2, "{")) {
      end = Math.min(start + 3, this.cps.length);
      name = this.text(start + 2, end);
    } else {
      let close = -1;
      for (let i = start; i < this.cps.length; i++) {
        if (this.is(i, "}")) {
          close = i;
          break;
        }
      }
      if (close < 0) this.fail(ERR.charRange, start);
      end = close + 1;
      name = this.text(start + 3, close);
    }
    if (name.startsWith("^")) {
      negate = !negate;
      name = name.slice(1);
    }
    const test = unicodeTable(name);
    if (test === undefined) this.fail(ERR.charRange, start, end);
    this.pos = end;
    return { test, negate };
  }

  /** `\d \D \s \S \w \W` at `start`; advances `pos` on success. */
  private perlClass(start: number): ClassItem | undefined {
    if (!this.is(start, "\\")) return undefined;
    const next = this.at(start + 1);
    if (next === undefined) return undefined;
    const name = String.fromCodePoint(next);
    const ranges = PERL_GROUPS[name.toLowerCase()];
    if (ranges === undefined || !/^[dswDSW]$/.test(name)) return undefined;
    this.pos = start + 2;
    return { test: inRanges(ranges), negate: name !== name.toLowerCase() };
  }

  /** Go's `parseEscape` at `start` (a backslash): the rune and the index after it. */
  private escape(start: number): [number, number] {
    let i = start + 1;
    const first = this.at(i);
    if (first === undefined) throw new Re2SyntaxError(ERR.trailingBackslash, "");
    i += 1;
    const ch = String.fromCodePoint(first);
    if (first < 0x80 && !isAlnum(first)) return [first, i];
    if (first >= 0x31 && first <= 0x37) {
      const d = this.at(i);
      if (d === undefined || d < 0x30 || d > 0x37) this.fail(ERR.escape, start, i); // a backreference
    }
    if (first >= 0x30 && first <= 0x37) {
      let value = first - 0x30;
      for (let k = 1; k < 3; k++) {
        const d = this.at(i);
        if (d === undefined || d < 0x30 || d > 0x37) break;
        value = value * 8 + (d - 0x30);
        i += 1;
      }
      return [value, i];
    }
    if (ch === "x") {
      const brace = this.at(i);
      if (brace === undefined) this.fail(ERR.escape, start, i);
      i += 1;
      if (brace === c("{")) {
        let digits = 0;
        let value = 0;
        for (;;) {
          const d = this.at(i);
          if (d === undefined) this.fail(ERR.escape, start, i);
          i += 1;
          if (d === c("}")) break;
          const v = hexValue(d);
          if (v < 0) this.fail(ERR.escape, start, i);
          value = value * 16 + v;
          if (value > 0x10ffff) this.fail(ERR.escape, start, i);
          digits += 1;
        }
        if (digits === 0) this.fail(ERR.escape, start, i);
        return [value, i];
      }
      const second = this.at(i);
      if (second !== undefined) i += 1;
      const x = hexValue(brace);
      const y = hexValue(second);
      if (x < 0 || y < 0) this.fail(ERR.escape, start, i);
      return [x * 16 + y, i];
    }
    const simple: Record<string, number> = { a: 7, f: 12, n: 10, r: 13, t: 9, v: 11 };
    if (ch in simple) return [simple[ch] as number, i];
    return this.fail(ERR.escape, start, i);
  }

  /** Go's `parseClass`: `[...]` at `pos`. */
  private charClass(): Node {
    const start = this.pos;
    let i = start + 1;
    let negate = false;
    if (this.is(i, "^")) {
      negate = true;
      i += 1;
    }
    const items: ClassItem[] = [];
    let first = true;
    while (i >= this.cps.length || !this.is(i, "]") || first) {
      first = false;
      // POSIX [:alnum:]
      if (this.cps.length - i > 2 && this.is(i, "[") && this.is(i + 1, ":")) {
        let close = -1;
        for (let k = i + 2; k + 1 < this.cps.length; k++) {
          if (this.is(k, ":") && this.is(k + 1, "]")) {
            close = k;
            break;
          }
        }
        if (close >= 0) {
          let name = this.text(i + 2, close);
          const groupNegate = name.startsWith("^");
          if (groupNegate) name = name.slice(1);
          const ranges = Object.hasOwn(POSIX_GROUPS, name) ? POSIX_GROUPS[name] : undefined;
          if (ranges === undefined) this.fail(ERR.charRange, i, close + 2);
          items.push({ test: inRanges(ranges), negate: groupNegate });
          i = close + 2;
          continue;
        }
      }
      const unicode = this.unicodeClass(i);
      if (unicode !== undefined) {
        items.push(unicode);
        i = this.pos;
        continue;
      }
      const perl = this.perlClass(i);
      if (perl !== undefined) {
        items.push(perl);
        i = this.pos;
        continue;
      }
      const rangeStart = i;
      const [lo, afterLo] = this.classChar(i, start);
      i = afterLo;
      let hi = lo;
      if (this.cps.length - i >= 2 && this.is(i, "-") && !this.is(i + 1, "]")) {
        const [h, afterHi] = this.classChar(i + 1, start);
        hi = h;
        i = afterHi;
        if (hi < lo) this.fail(ERR.charRange, rangeStart, i);
      }
      const [l, h] = [lo, hi];
      items.push({ test: (cp) => cp >= l && cp <= h, negate: false });
    }
    this.pos = i + 1;
    return this.classNode(items, negate);
  }

  private classChar(i: number, classStart: number): [number, number] {
    if (i >= this.cps.length) this.fail(ERR.missingBracket, classStart);
    if (this.is(i, "\\")) return this.escape(i);
    return [this.cps[i] as number, i + 1];
  }
}

function seq(nodes: Node[]): Node {
  return nodes.length === 1 ? (nodes[0] as Node) : { t: "concat", subs: nodes };
}

function children(node: Node): readonly Node[] {
  if (node.t === "concat" || node.t === "alt") return node.subs;
  if (node.t === "repeat") return [node.sub];
  return [];
}

/** Go's `repeatIsValid`: nested counted repetitions may not multiply past `n`. */
function repeatIsValid(node: Node, n: number): boolean {
  let limit = n;
  if (node.t === "repeat" && node.counted) {
    let m = node.max;
    if (m === 0) return true;
    if (m < 0) m = node.min;
    if (m > limit) return false;
    if (m > 0) limit = Math.floor(limit / m);
  }
  return children(node).every((sub) => repeatIsValid(sub, limit));
}

function nodeHeight(node: Node): number {
  let height = 1;
  for (const sub of children(node)) height = Math.max(height, 1 + nodeHeight(sub));
  return height;
}

// ---- NFA ---------------------------------------------------------------------------------------

type Inst =
  | { op: "char"; test: CharTest; next: number }
  | { op: "split"; a: number; b: number }
  | { op: "assert"; kind: AssertKind; next: number }
  | { op: "match" };

class Compiler {
  readonly prog: Inst[] = [{ op: "match" }];

  constructor(private readonly source: string) {}

  private push(inst: Inst): number {
    if (this.prog.length >= MAX_PROGRAM) throw new Re2SyntaxError(ERR.large, this.source);
    this.prog.push(inst);
    return this.prog.length - 1;
  }

  /** Compiles `node` to continue at `next`; returns its entry. */
  compile(node: Node, next: number): number {
    switch (node.t) {
      case "char":
        return this.push({ op: "char", test: node.test, next });
      case "assert":
        return this.push({ op: "assert", kind: node.kind, next });
      case "concat": {
        let entry = next;
        for (let i = node.subs.length - 1; i >= 0; i--) entry = this.compile(node.subs[i] as Node, entry);
        return entry;
      }
      case "alt": {
        const entries = node.subs.map((sub) => this.compile(sub, next));
        let entry = entries[entries.length - 1] as number;
        for (let i = entries.length - 2; i >= 0; i--) entry = this.push({ op: "split", a: entries[i] as number, b: entry });
        return entry;
      }
      case "repeat": {
        let tail = next;
        if (node.max < 0) {
          const loop = this.push({ op: "split", a: -1, b: next });
          const body = this.compile(node.sub, loop);
          (this.prog[loop] as { a: number }).a = body;
          tail = loop;
        } else {
          for (let k = 0; k < node.max - node.min; k++) {
            const body = this.compile(node.sub, tail);
            tail = this.push({ op: "split", a: body, b: tail });
          }
        }
        for (let k = 0; k < node.min; k++) tail = this.compile(node.sub, tail);
        return tail;
      }
    }
  }
}

const isWordChar = (cp: number | undefined): boolean => cp !== undefined && (isAlnum(cp) || cp === 95);

function assertionHolds(kind: AssertKind, text: readonly number[], i: number): boolean {
  switch (kind) {
    case "bot":
      return i === 0;
    case "eot":
      return i === text.length;
    case "bol":
      return i === 0 || text[i - 1] === 10;
    case "eol":
      return i === text.length || text[i] === 10;
    case "wb":
      return isWordChar(text[i - 1]) !== isWordChar(text[i]);
    case "nwb":
      return isWordChar(text[i - 1]) === isWordChar(text[i]);
  }
}

/** A compiled regular expression: `test` is Go's `MatchString` (an unanchored search). */
export interface Re2 {
  readonly source: string;
  test(text: string): boolean;
}

/**
 * Compiles `pattern` with Go's `regexp.Compile` rules.
 *
 * @throws Re2SyntaxError with Go's message, e.g. `error parsing regexp: invalid escape sequence: `\1``.
 * @example
 * compileRe2("^web-[0-9]+$").test("web-12"); // true
 * compileRe2("(?i)admin").test("ADMINS");    // true
 */
export function compileRe2(pattern: string): Re2 {
  const ast = new Re2Parser(pattern).parse();
  const compiler = new Compiler(pattern);
  const start = compiler.compile(ast, 0);
  const prog = compiler.prog;
  return {
    source: pattern,
    test(input: string): boolean {
      const text = codePoints(input);
      const marks = new Int32Array(prog.length).fill(-1);
      const stack: number[] = [];
      const add = (list: number[], entry: number, i: number): boolean => {
        stack.push(entry);
        while (stack.length > 0) {
          const pc = stack.pop() as number;
          if (marks[pc] === i) continue;
          marks[pc] = i;
          const inst = prog[pc] as Inst;
          switch (inst.op) {
            case "match":
              stack.length = 0;
              return true;
            case "split":
              stack.push(inst.b, inst.a);
              break;
            case "assert":
              if (assertionHolds(inst.kind, text, i)) stack.push(inst.next);
              break;
            case "char":
              list.push(pc);
          }
        }
        return false;
      };
      let current: number[] = [];
      for (let i = 0; ; i++) {
        if (add(current, start, i)) return true;
        if (i === text.length) return false;
        const cp = text[i] as number;
        const next: number[] = [];
        for (const pc of current) {
          const inst = prog[pc] as { test: CharTest; next: number };
          if (inst.test(cp) && add(next, inst.next, i + 1)) return true;
        }
        current = next;
      }
    },
  };
}
