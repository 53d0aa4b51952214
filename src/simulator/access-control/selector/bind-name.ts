/**
 * BindName templates (spec: access-control.md "Binding rule" BindName; FIDELITY.md "Access
 * control"): plain text with `${variable}` interpolations of the identity's string fields, the
 * subset of HIL templates the real service evaluates them with. `$${` is a literal `${`. An unknown
 * variable is refused at rule creation with HIL's message, `1:3: unknown variable accessed: value.foo`.
 */
import type { Identity, IdentitySchema } from "./ast.js";
import { selectorError } from "./selector-error.js";

/** Options of {@link CompiledBindName.render}. */
export interface RenderOptions {
  /**
   * Lowercase each interpolated value (not the template's own text), as the real service does for
   * every bind type (service, node and role names). Default false.
   */
  readonly lowercase?: boolean;
}

/** A checked BindName template. */
export interface CompiledBindName {
  /** The template exactly as given. */
  readonly template: string;
  /** The variables the template interpolates, in order of first use, e.g. `["value.sub"]`. */
  readonly variables: readonly string[];
  /**
   * The bind name for `identity`.
   * @throws DomainError code `invalid`, operation `render bind name`, when the identity lacks a
   *   variable: `1:3: unknown variable accessed: value.sub`.
   */
  render(identity: Identity, options?: RenderOptions): string;
  /**
   * The bind name from already-flattened variables (what {@link identityVariables} returns). The
   * real service checks a new rule's BindName by rendering it with every variable set to `fake`.
   * @throws DomainError code `invalid`, operation `render bind name`, for a missing variable.
   */
  renderValues(values: Readonly<Record<string, string>>, options?: RenderOptions): string;
}

type Part = { readonly text: string } | { readonly variable: string; readonly position: string };

const IDENTIFIER_START = /[\p{L}_]/u;
const IDENTIFIER_CHAR = /[\p{L}\p{M}\p{Nd}_.-]/u;
const SPACE = /[ \t\r\n]/;

/** HIL's `line:column` of index `index` (columns count runes from 1). */
function position(template: string, index: number): string {
  let line = 1;
  let column = 1;
  for (const ch of template.slice(0, index)) {
    if (ch === "\n") {
      line += 1;
      column = 1;
    } else column += 1;
  }
  return `${line}:${column}`;
}

function parseError(template: string, index: number, message: string): never {
  throw selectorError("compile bind name", `parse error at ${position(template, index)}: ${message}`);
}

function describeFound(template: string, index: number): string {
  const cp = template.codePointAt(index);
  return cp === undefined ? "end of template" : JSON.stringify(String.fromCodePoint(cp));
}

function parseTemplate(template: string): Part[] {
  if (!template.includes("${")) return [{ text: template }];
  const parts: Part[] = [];
  let text = "";
  let i = 0;
  while (i < template.length) {
    if (template.startsWith("$${", i)) {
      text += "${";
      i += 3;
      continue;
    }
    if (!template.startsWith("${", i)) {
      text += template[i];
      i += 1;
      continue;
    }
    if (text !== "") parts.push({ text });
    text = "";
    i += 2;
    while (i < template.length && SPACE.test(template[i] as string)) i += 1;
    const start = i;
    const first = template.codePointAt(i);
    if (first === undefined || !IDENTIFIER_START.test(String.fromCodePoint(first))) {
      parseError(template, i, `expected a variable name but found ${describeFound(template, i)}`);
    }
    for (;;) {
      const cp = template.codePointAt(i);
      if (cp === undefined || !IDENTIFIER_CHAR.test(String.fromCodePoint(cp))) break;
      i += cp > 0xffff ? 2 : 1;
    }
    const variable = template.slice(start, i);
    while (i < template.length && SPACE.test(template[i] as string)) i += 1;
    if (template[i] !== "}") parseError(template, i, `expected "}" but found ${describeFound(template, i)}`);
    i += 1;
    parts.push({ variable, position: position(template, start) });
  }
  if (text !== "") parts.push({ text });
  return parts;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The identity's string fields flattened to dotted names, the variables a BindName may use.
 * Lists and other non-strings are left out.
 *
 * @example
 * identityVariables({ value: { sub: "x" }, list: { groups: ["a"] } }); // { "value.sub": "x" }
 */
export function identityVariables(identity: Identity): Record<string, string> {
  const out: Record<string, string> = {};
  const seen = new Set<object>();
  const walk = (node: Record<string, unknown>, prefix: string): void => {
    if (seen.has(node)) return;
    seen.add(node);
    for (const [key, value] of Object.entries(node)) {
      const name = prefix === "" ? key : `${prefix}.${key}`;
      // defineProperty: a claim named `__proto__` is data like any other
      if (typeof value === "string") Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
      else if (isPlainObject(value)) walk(value, name);
    }
  };
  walk(identity, "");
  return out;
}

function variableAllowed(name: string, schema: IdentitySchema): boolean {
  if (Object.hasOwn(schema.fields, name) && schema.fields[name] === "string") return true;
  return schema.claims === true && name.startsWith("value.") && name.length > "value.".length;
}

/**
 * Parses a BindName template and checks its variables against the auth method's string fields
 * (`value.<claim>` for claims-based methods). A template without `${` is a plain name.
 *
 * The thrown message is HIL's; the service adds its prefix when answering a request (the real
 * service words it `Invalid Binding Rule: invalid BindName: <message>`).
 *
 * @throws DomainError code `invalid`, operation `compile bind name`: an unknown variable
 *   (`1:8: unknown variable accessed: value.nope`) or bad syntax
 *   (`parse error at 1:12: expected "}" but found end of template`).
 * @example
 * const name = compileBindName("web-${serviceaccount.name}", { fields: { "serviceaccount.name": "string" } });
 * name.variables;                                                         // ["serviceaccount.name"]
 * name.render({ serviceaccount: { name: "Frontend" } }, { lowercase: true }); // "web-frontend"
 */
export function compileBindName(template: string, schema: IdentitySchema): CompiledBindName {
  const parts = parseTemplate(template);
  const variables: string[] = [];
  for (const part of parts) {
    if (!("variable" in part)) continue;
    if (!variableAllowed(part.variable, schema)) {
      throw selectorError("compile bind name", `${part.position}: unknown variable accessed: ${part.variable}`);
    }
    if (!variables.includes(part.variable)) variables.push(part.variable);
  }
  const renderValues = (values: Readonly<Record<string, string>>, options?: RenderOptions): string => {
    let out = "";
    for (const part of parts) {
      if ("text" in part) {
        out += part.text;
        continue;
      }
      const value = Object.hasOwn(values, part.variable) ? values[part.variable] : undefined;
      if (typeof value !== "string") {
        throw selectorError("render bind name", `${part.position}: unknown variable accessed: ${part.variable}`);
      }
      out += options?.lowercase === true ? value.toLowerCase() : value;
    }
    return out;
  };
  return Object.freeze({
    template,
    variables: Object.freeze(variables),
    render: (identity: Identity, options?: RenderOptions): string => renderValues(identityVariables(identity), options),
    renderValues,
  });
}
