/**
 * Go's text formatting, as the cloud engine's messages and its username templates need it: the
 * values a template handles, `strconv.Quote` (`%q`), `fmt.Sprintf` with its `%!verb(type=value)`
 * error forms, `fmt.Sprint`, and the `%v` form of request values in field errors.
 *
 * The real service is written in Go; its error strings embed Go-formatted values, and its username
 * templates are Go `text/template` programs whose `printf` is `fmt.Sprintf`.
 */

import { goQuote } from "../../kernel/go-quote.js";

export { goQuote };

/**
 * A record value a template reads fields from (Go: a struct such as `UsernameMetadata`).
 * @example new TemplateRecord("aws.UsernameMetadata", { Type: "IAM", DisplayName: "root", PolicyName: "deploy" })
 */
export class TemplateRecord {
  /**
   * @param typeName - the Go type name shown in errors, e.g. `aws.UsernameMetadata`.
   * @param fields - field values by name, in declaration order.
   */
  constructor(
    readonly typeName: string,
    readonly fields: Readonly<Record<string, TemplateValue>>,
  ) {}
}

/**
 * A value inside a template: a string, a number (an `int` when integral, else a `float64`), a
 * boolean, `null` (Go's `nil`) or a record.
 */
export type TemplateValue = string | number | boolean | null | TemplateRecord;

/**
 * The Go type name of a template value (`string`, `int`, `float64`, `bool`, `<nil>`, or the record's type).
 * @example goTypeName(3) // "int"
 */
export function goTypeName(value: TemplateValue): string {
  if (value === null) return "<nil>";
  if (value instanceof TemplateRecord) return value.typeName;
  if (typeof value === "string") return "string";
  if (typeof value === "boolean") return "bool";
  return Number.isInteger(value) ? "int" : "float64";
}


/**
 * Go's default (`%v`) text of a template value; `nil` prints as `<nil>`.
 * @example goDefault(null) // "<nil>"
 */
export function goDefault(value: TemplateValue): string {
  if (value === null) return "<nil>";
  if (value instanceof TemplateRecord) return `{${Object.values(value.fields).map(goDefault).join(" ")}}`;
  if (typeof value === "number") return formatNumber(value);
  return String(value);
}

function formatNumber(value: number): string {
  if (Number.isInteger(value)) return String(value);
  // Go's %v of a float64 is %g with the shortest representation.
  const text = String(value);
  return text.includes("e") ? text.replace(/e([+-])(\d)$/, "e$10$2") : text;
}

/**
 * Go's `fmt.Sprint`: operands concatenated, with a space between two operands when neither is a
 * string.
 * @example goSprint([1, 2, "x"]) // "1 2x"
 */
export function goSprint(args: readonly TemplateValue[]): string {
  let out = "";
  args.forEach((arg, index) => {
    const previous = args[index - 1];
    if (index > 0 && typeof arg !== "string" && typeof previous !== "string") out += " ";
    out += goDefault(arg);
  });
  return out;
}

/**
 * Go's `fmt.Sprintln`: operands separated by spaces, then a newline.
 * @example goSprintln(["a", 1]) // "a 1\n"
 */
export function goSprintln(args: readonly TemplateValue[]): string {
  return `${args.map(goDefault).join(" ")}\n`;
}

interface Spec {
  minus: boolean;
  plus: boolean;
  sharp: boolean;
  space: boolean;
  zero: boolean;
  width: number | undefined;
  precision: number | undefined;
}

/**
 * Go's `fmt.Sprintf` for the verbs templates use: `%v %s %q %d %x %X %o %b %c %t %f %e %g %%`, with
 * flags `-+# 0`, width and precision. Mismatches render like Go: `%!d(string=abc)`,
 * `%!s(MISSING)`, `%!(EXTRA int=1)`, `%!(NOVERB)`.
 * @example goSprintf("secrets-%s-%d", ["a", 7]) // "secrets-a-7"
 */
export function goSprintf(format: string, args: readonly TemplateValue[]): string {
  let out = "";
  let argIndex = 0;
  let i = 0;
  while (i < format.length) {
    const percent = format.indexOf("%", i);
    if (percent < 0) {
      out += format.slice(i);
      break;
    }
    out += format.slice(i, percent);
    i = percent + 1;
    const spec: Spec = { minus: false, plus: false, sharp: false, space: false, zero: false, width: undefined, precision: undefined };
    for (; i < format.length; i++) {
      const flag = format[i];
      if (flag === "-") spec.minus = true;
      else if (flag === "+") spec.plus = true;
      else if (flag === "#") spec.sharp = true;
      else if (flag === " ") spec.space = true;
      else if (flag === "0") spec.zero = true;
      else break;
    }
    const widthMatch = /^\d+/.exec(format.slice(i));
    if (widthMatch) {
      spec.width = Number(widthMatch[0]);
      i += widthMatch[0].length;
    }
    if (format[i] === ".") {
      i++;
      const precisionMatch = /^\d+/.exec(format.slice(i));
      spec.precision = precisionMatch ? Number(precisionMatch[0]) : 0;
      if (precisionMatch) i += precisionMatch[0].length;
    }
    if (i >= format.length) {
      out += "%!(NOVERB)";
      break;
    }
    const verb = [...format.slice(i)][0] ?? "";
    i += verb.length;
    if (verb === "%") {
      out += "%";
      continue;
    }
    if (argIndex >= args.length) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    const arg = args[argIndex++] as TemplateValue;
    out += formatOne(verb, arg, spec);
  }
  if (argIndex < args.length) {
    const extra = args.slice(argIndex).map((arg) => (arg === null ? "<nil>" : `${goTypeName(arg)}=${goDefault(arg)}`));
    out += `%!(EXTRA ${extra.join(", ")})`;
  }
  return out;
}

function bad(verb: string, arg: TemplateValue): string {
  return arg === null ? `%!${verb}(<nil>)` : `%!${verb}(${goTypeName(arg)}=${goDefault(arg)})`;
}

function pad(text: string, spec: Spec, numeric = false): string {
  const width = spec.width ?? 0;
  const length = [...text].length;
  if (length >= width) return text;
  const fill = width - length;
  if (spec.minus) return text + " ".repeat(fill);
  if (spec.zero && numeric) {
    const sign = /^[+-]/.test(text) ? (text[0] as string) : "";
    return sign + "0".repeat(fill) + text.slice(sign.length);
  }
  return " ".repeat(fill) + text;
}

function formatOne(verb: string, arg: TemplateValue, spec: Spec): string {
  if (arg instanceof TemplateRecord) {
    if (verb === "v" || verb === "s") {
      const parts = Object.entries(arg.fields).map(([name, value]) => (spec.plus ? `${name}:` : "") + formatOne(verb, value, { ...spec, width: undefined }));
      return pad(`{${parts.join(" ")}}`, spec);
    }
    return bad(verb, arg);
  }
  if (arg === null) return verb === "v" || verb === "s" ? pad(verb === "v" ? "<nil>" : "%!s(<nil>)", spec) : bad(verb, arg);
  if (typeof arg === "string") return formatString(verb, arg, spec);
  if (typeof arg === "boolean") return verb === "v" || verb === "t" ? pad(String(arg), spec) : bad(verb, arg);
  return Number.isInteger(arg) ? formatInt(verb, arg, spec) : formatFloat(verb, arg, spec);
}

function formatString(verb: string, arg: string, spec: Spec): string {
  const cut = spec.precision === undefined ? arg : [...arg].slice(0, spec.precision).join("");
  switch (verb) {
    case "v":
      return pad(spec.sharp ? goQuote(arg) : cut, spec);
    case "s":
      return pad(cut, spec);
    case "q":
      return pad(spec.sharp && !arg.includes("`") ? `\`${arg}\`` : goQuote(cut), spec);
    case "x":
    case "X": {
      const hex = Array.from(new TextEncoder().encode(cut), (b) => b.toString(16).padStart(2, "0")).join(spec.space ? " " : "");
      return pad(verb === "X" ? hex.toUpperCase() : hex, spec);
    }
    default:
      return bad(verb, arg);
  }
}

function formatInt(verb: string, arg: number, spec: Spec): string {
  const sign = arg < 0 ? "-" : spec.plus ? "+" : spec.space ? " " : "";
  const magnitude = Math.abs(arg);
  let digits: string;
  switch (verb) {
    case "v":
    case "d":
      digits = String(magnitude);
      break;
    case "x":
      digits = (spec.sharp ? "0x" : "") + magnitude.toString(16);
      break;
    case "X":
      digits = (spec.sharp ? "0X" : "") + magnitude.toString(16).toUpperCase();
      break;
    case "o":
      digits = (spec.sharp ? "0" : "") + magnitude.toString(8);
      break;
    case "b":
      digits = magnitude.toString(2);
      break;
    case "c":
      return pad(String.fromCodePoint(arg), spec);
    case "q":
      return pad(`'${String.fromCodePoint(arg).replace(/'/g, "\\'")}'`, spec);
    default:
      return bad(verb, arg);
  }
  if (spec.precision !== undefined) digits = digits.padStart(spec.precision, "0");
  return pad(sign + digits, spec, spec.precision === undefined);
}

function formatFloat(verb: string, arg: number, spec: Spec): string {
  const sign = arg < 0 ? "-" : spec.plus ? "+" : "";
  const magnitude = Math.abs(arg);
  switch (verb) {
    case "v":
    case "g":
      return pad(sign + formatNumber(magnitude), spec, true);
    case "f":
    case "F":
      return pad(sign + magnitude.toFixed(spec.precision ?? 6), spec, true);
    case "e":
      return pad(sign + magnitude.toExponential(spec.precision ?? 6).replace(/e([+-])(\d)$/, "e$10$2"), spec, true);
    default:
      return bad(verb, arg);
  }
}

/**
 * Go's `%v` of a decoded JSON request value, as the real service prints request values in field
 * errors: strings bare, arrays `[a b]`, objects `map[k:v]` (keys sorted), `null` `<nil>`; containers
 * nested deeper than 32 levels print `...`.
 * @example goRequestValue({ b: 1, a: [true] }) // "map[a:[true] b:1]"
 */
export function goRequestValue(value: unknown, depth = 0): string {
  if (value === null || value === undefined) return "<nil>";
  if (typeof value === "object" && depth >= 32) return "...";
  if (Array.isArray(value)) return `[${value.map((item) => goRequestValue(item, depth + 1)).join(" ")}]`;
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `map[${entries.map(([k, v]) => `${k}:${goRequestValue(v, depth + 1)}`).join(" ")}]`;
  }
  return String(value);
}

/**
 * The text of a Go `multierror` with its errors, as the real service embeds it in messages:
 * `1 error occurred:\n\t* did not supply credential_type\n\n`.
 * @example goMultiError(["a", "b"]) // "2 errors occurred:\n\t* a\n\t* b\n\n"
 */
export function goMultiError(messages: readonly string[]): string {
  const head = messages.length === 1 ? "1 error occurred:" : `${messages.length} errors occurred:`;
  return `${head}\n${messages.map((m) => `\t* ${m}`).join("\n")}\n\n`;
}
