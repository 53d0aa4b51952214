/**
 * The executor of the username template language (Go `text/template` semantics): evaluates a
 * {@link ParsedTemplate} against a data record with a function table, and Go's built-in functions
 * (`printf`, `print`, `println`, `eq`, `ne`, `lt`, `le`, `gt`, `ge`, `and`, `or`, `not`, `len`,
 * `index`, `slice`, `html`, `js`, `urlquery`).
 *
 * Execution errors follow Go's wording:
 * `template: template:1:17: executing "template" at <truncate 0>: error calling truncate: max length must be > 0 but was 0`.
 */
import { TemplateRecord, goDefault, goSprint, goSprintf, goSprintln, goTypeName, type TemplateValue } from "./go-format.js";
import { TemplateError, columnOf, lineOf, type Command, type Operand, type ParsedTemplate, type Pipeline, type TemplateNode } from "./template-parser.js";

/** The parameter kinds a template function declares (Go's static parameter types). */
export type ParamKind = "int" | "string" | "any";

/** A function callable from a template. */
export interface TemplateFunction {
  /** Fixed parameters, in order. */
  readonly params: readonly ParamKind[];
  /** Kind of the trailing variadic parameters, if the function is variadic. */
  readonly variadic?: ParamKind;
  /**
   * Runs the function. Throwing an `Error` makes the template fail with
   * `error calling <name>: <message>`.
   */
  call(args: TemplateValue[]): TemplateValue;
}

/** Functions by name. */
export type TemplateFunctions = Readonly<Record<string, TemplateFunction>>;

class CallFailure extends Error {}

/**
 * Go's truth: false, 0, `nil`, the empty string are false; records are true.
 * @example isTrue("") // false
 */
export function isTrue(value: TemplateValue): boolean {
  if (value === null) return false;
  if (typeof value === "string") return value.length > 0;
  if (typeof value === "number") return value !== 0;
  if (typeof value === "boolean") return value;
  return true;
}

type BasicKind = "string" | "int" | "float" | "bool";

function basicKind(value: TemplateValue): BasicKind | undefined {
  if (typeof value === "string") return "string";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float";
  return undefined;
}

function compare(name: string, a: TemplateValue, b: TemplateValue): number {
  const ka = basicKind(a);
  const kb = basicKind(b);
  if (ka === undefined || kb === undefined) throw new CallFailure("invalid type for comparison");
  if (ka !== kb) throw new CallFailure("incompatible types for comparison");
  if (ka === "bool" && name !== "eq" && name !== "ne") throw new CallFailure("invalid type for comparison");
  if (a === b) return 0;
  return (a as string | number) < (b as string | number) ? -1 : 1;
}

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();

function htmlEscape(text: string): string {
  return text.replace(/[&'<>"\0]/g, (c) => ({ "&": "&amp;", "'": "&#39;", "<": "&lt;", ">": "&gt;", '"': "&#34;", "\0": "\uFFFD" })[c] ?? c);
}

function jsEscape(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what js escapes
  return text.replace(/[\\'"<>&=\n\r\t\u0000-\u001f]/g, (c) => {
    const simple: Record<string, string> = { "\\": "\\\\", "'": "\\'", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t" };
    return simple[c] ?? `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
  });
}

/** Go's built-in template functions (except `and`/`or`, which the executor evaluates lazily). */
export const BUILTIN_FUNCTIONS: TemplateFunctions = Object.freeze({
  printf: { params: ["string"], variadic: "any", call: ([format, ...args]) => goSprintf(format as string, args) },
  print: { params: [], variadic: "any", call: (args) => goSprint(args) },
  println: { params: [], variadic: "any", call: (args) => goSprintln(args) },
  not: { params: ["any"], call: ([value]) => !isTrue(value ?? null) },
  eq: {
    params: ["any"],
    variadic: "any",
    call: ([first, ...rest]) => {
      if (rest.length === 0) throw new CallFailure("missing argument for comparison");
      return rest.some((other) => compare("eq", first ?? null, other) === 0);
    },
  },
  ne: { params: ["any", "any"], call: ([a, b]) => compare("ne", a ?? null, b ?? null) !== 0 },
  lt: { params: ["any", "any"], call: ([a, b]) => compare("lt", a ?? null, b ?? null) < 0 },
  le: { params: ["any", "any"], call: ([a, b]) => compare("le", a ?? null, b ?? null) <= 0 },
  gt: { params: ["any", "any"], call: ([a, b]) => compare("gt", a ?? null, b ?? null) > 0 },
  ge: { params: ["any", "any"], call: ([a, b]) => compare("ge", a ?? null, b ?? null) >= 0 },
  len: {
    params: ["any"],
    call: ([value]) => {
      if (typeof value === "string") return utf8.encode(value).length;
      throw new CallFailure(`len of type ${goTypeName(value ?? null)}`);
    },
  },
  index: {
    params: ["any"],
    variadic: "int",
    call: ([value, ...indexes]) => {
      let current: TemplateValue = value ?? null;
      for (const index of indexes as number[]) {
        if (typeof current !== "string") throw new CallFailure(`can't index item of type ${goTypeName(current)}`);
        const bytes = utf8.encode(current);
        if (index < 0 || index >= bytes.length) throw new CallFailure(`index out of range: ${index}`);
        current = bytes[index] ?? 0;
      }
      return current;
    },
  },
  slice: {
    params: ["any"],
    variadic: "int",
    call: ([value, ...bounds]) => {
      if (typeof value !== "string") throw new CallFailure(`can't slice item of type ${goTypeName(value ?? null)}`);
      const bytes = utf8.encode(value);
      const [from = 0, to = bytes.length] = bounds as number[];
      if (bounds.length > 2) throw new CallFailure("cannot 3-index slice a string");
      if (from < 0 || from > bytes.length || to < from || to > bytes.length) throw new CallFailure(`index out of range: ${to < from ? to : from}`);
      return utf8Decoder.decode(bytes.slice(from, to));
    },
  },
  html: { params: [], variadic: "any", call: (args) => htmlEscape(goSprint(args)) },
  js: { params: [], variadic: "any", call: (args) => jsEscape(goSprint(args)) },
  urlquery: { params: [], variadic: "any", call: (args) => encodeURIComponent(goSprint(args)).replace(/%20/g, "+").replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`) },
  call: {
    params: ["any"],
    variadic: "any",
    call: ([fn]) => {
      throw new CallFailure(`non-function of type ${goTypeName(fn ?? null)}`);
    },
  },
} satisfies Record<string, TemplateFunction>);

/**
 * Names a template may call: the given functions, the built-ins, and `and`/`or`.
 * @example parseTemplate(source, functionNames(usernameTemplateFunctions(now, ids)))
 */
export function functionNames(functions: TemplateFunctions): Set<string> {
  return new Set([...Object.keys(BUILTIN_FUNCTIONS), "and", "or", ...Object.keys(functions)]);
}

interface Variable {
  readonly name: string;
  value: TemplateValue;
}

/** Marks a value that is missing (Go's invalid reflect.Value, printed `<no value>`). */
const MISSING = Symbol("missing");
type Evaluated = TemplateValue | typeof MISSING;

/**
 * Executes a parsed template.
 * @param template - from `parseTemplate`.
 * @param data - the value of `.` (and `$`).
 * @param functions - the template's own functions (they override built-ins of the same name).
 * @returns the output text.
 * @throws {TemplateError} on an execution error, worded like Go.
 * @example executeTemplate(parseTemplate("{{ .Type }}", names), record, fns) // "IAM"
 */
export function executeTemplate(template: ParsedTemplate, data: TemplateValue, functions: TemplateFunctions): string {
  return new Executor(template, { ...BUILTIN_FUNCTIONS, ...functions }, data).run();
}

class Executor {
  private out = "";
  private readonly vars: Variable[];
  private command: Command | undefined;

  constructor(
    private readonly template: ParsedTemplate,
    private readonly functions: TemplateFunctions,
    private readonly root: TemplateValue,
  ) {
    this.vars = [{ name: "$", value: root }];
  }

  run(): string {
    this.walkList(this.template.root, this.root);
    return this.out;
  }

  private fail(offset: number, message: string): never {
    const { source, name } = this.template;
    const at = this.command ? ` at <${this.command.source}>` : "";
    throw new TemplateError(`template: ${name}:${lineOf(source, offset)}:${columnOf(source, offset)}: executing "${name}"${at}: ${message}`);
  }

  private walkList(nodes: readonly TemplateNode[], dot: TemplateValue): void {
    const mark = this.vars.length;
    for (const node of nodes) this.walk(node, dot);
    this.vars.length = mark;
  }

  private walk(node: TemplateNode, dot: TemplateValue): void {
    switch (node.type) {
      case "text":
        this.out += node.text;
        return;
      case "action": {
        const value = this.evalPipeline(node.pipe, dot);
        if (node.pipe.declare === undefined) this.out += value === MISSING || value === null ? "<no value>" : goDefault(value);
        return;
      }
      case "if":
      case "with": {
        const mark = this.vars.length;
        const raw = this.evalPipeline(node.pipe, dot);
        const value = raw === MISSING ? null : raw;
        if (isTrue(value)) this.walkList(node.list, node.type === "with" ? value : dot);
        else if (node.elseList) this.walkList(node.elseList, dot);
        this.vars.length = mark;
        return;
      }
    }
  }

  private evalPipeline(pipe: Pipeline, dot: TemplateValue): Evaluated {
    let value: Evaluated | undefined;
    for (const command of pipe.commands) value = this.evalCommand(command, dot, value);
    const result = value ?? MISSING;
    if (pipe.declare) {
      const stored = result === MISSING ? null : result;
      for (const name of pipe.declare.names) {
        if (pipe.declare.assign) {
          const existing = [...this.vars].reverse().find((v) => v.name === name);
          if (existing) existing.value = stored;
        } else this.vars.push({ name, value: stored });
      }
    }
    return result;
  }

  private evalCommand(command: Command, dot: TemplateValue, final: Evaluated | undefined): Evaluated {
    const saved = this.command;
    this.command = command;
    try {
      const [head, ...args] = command.args;
      if (head === undefined) return this.fail(command.offset, "empty command");
      if (head.type === "identifier") return this.evalFunction(head.name, head.offset, args, dot, final);
      if (args.length > 0 || final !== undefined) {
        if (head.type === "field") this.fail(head.offset, `${head.fields[head.fields.length - 1]} has arguments but cannot be invoked as function`);
        this.fail(head.offset, `can't give argument to non-function ${this.operandText(head)}`);
      }
      return this.evalOperand(head, dot);
    } finally {
      this.command = saved;
    }
  }

  private operandText(operand: Operand): string {
    const source = this.template.source;
    switch (operand.type) {
      case "string":
        return JSON.stringify(operand.value);
      case "number":
        return operand.text;
      case "bool":
        return String(operand.value);
      case "nil":
        return "nil";
      case "dot":
        return ".";
      case "field":
        return `.${operand.fields.join(".")}`;
      case "variable":
        return [operand.name, ...operand.fields].join(".");
      default:
        return source.slice(operand.offset, operand.offset + 1);
    }
  }

  private evalOperand(operand: Operand, dot: TemplateValue): Evaluated {
    switch (operand.type) {
      case "identifier":
        return this.evalFunction(operand.name, operand.offset, [], dot, undefined);
      case "dot":
        return dot;
      case "nil":
        return null;
      case "bool":
      case "number":
      case "string":
        return operand.value;
      case "field":
        return this.evalFields(dot, operand.fields, operand.offset);
      case "variable": {
        const variable = [...this.vars].reverse().find((v) => v.name === operand.name);
        if (variable === undefined) return this.fail(operand.offset, `undefined variable: ${operand.name}`);
        return this.evalFields(variable.value, operand.fields, operand.offset);
      }
      case "pipeline": {
        const value = this.evalPipeline(operand.pipe, dot);
        return operand.fields.length === 0 ? value : this.evalFields(value === MISSING ? null : value, operand.fields, operand.offset);
      }
    }
  }

  private evalFields(start: TemplateValue, fields: readonly string[], offset: number): Evaluated {
    let value: TemplateValue = start;
    for (const field of fields) {
      if (value instanceof TemplateRecord) {
        if (!Object.hasOwn(value.fields, field)) this.fail(offset, `can't evaluate field ${field} in type ${value.typeName}`);
        value = value.fields[field] ?? null;
      } else if (value === null) {
        this.fail(offset, `nil data; no entry for key "${field}"`);
      } else {
        this.fail(offset, `can't evaluate field ${field} in type ${goTypeName(value)}`);
      }
    }
    return value;
  }

  private evalFunction(name: string, offset: number, argNodes: readonly Operand[], dot: TemplateValue, final: Evaluated | undefined): Evaluated {
    if (name === "and" || name === "or") return this.evalLogic(name, offset, argNodes, dot, final);
    const fn = this.functions[name];
    if (fn === undefined) return this.fail(offset, `"${name}" is not a defined function`);
    const count = argNodes.length + (final === undefined ? 0 : 1);
    const fixed = fn.params.length;
    if (fn.variadic === undefined ? count !== fixed : count < fixed) {
      this.fail(offset, `wrong number of args for ${name}: want ${fn.variadic === undefined ? "" : "at least "}${fixed} got ${count}`);
    }
    const kindAt = (index: number): ParamKind => fn.params[index] ?? fn.variadic ?? "any";
    const args: TemplateValue[] = argNodes.map((node, index) => this.evalArg(node, kindAt(index), dot));
    if (final !== undefined) args.push(this.checkValue(final === MISSING ? null : final, kindAt(args.length), offset));
    try {
      return fn.call(args);
    } catch (error) {
      if (error instanceof TemplateError) throw error;
      return this.fail(offset, `error calling ${name}: ${(error as Error).message}`);
    }
  }

  private evalLogic(name: "and" | "or", offset: number, argNodes: readonly Operand[], dot: TemplateValue, final: Evaluated | undefined): Evaluated {
    const count = argNodes.length + (final === undefined ? 0 : 1);
    if (count < 1) this.fail(offset, `wrong number of args for ${name}: want at least 1 got 0`);
    let value: TemplateValue = null;
    const thunks: (() => TemplateValue)[] = argNodes.map((node) => () => this.evalArg(node, "any", dot));
    if (final !== undefined) thunks.push(() => (final === MISSING ? null : final));
    for (const thunk of thunks) {
      value = thunk();
      if (isTrue(value) === (name === "or")) return value;
    }
    return value;
  }

  private evalArg(node: Operand, kind: ParamKind, dot: TemplateValue): TemplateValue {
    if (kind !== "any") {
      if (node.type === "string" && kind === "int") this.fail(node.offset, `expected integer; found ${JSON.stringify(node.value)}`);
      if (node.type === "number" && kind === "int" && !Number.isInteger(node.value)) this.fail(node.offset, `expected integer; found ${node.text}`);
      if (node.type === "number" && kind === "string") this.fail(node.offset, `expected string; found ${node.text}`);
      if (node.type === "bool") this.fail(node.offset, `expected ${kind === "int" ? "integer" : "string"}; found ${node.value}`);
      if (node.type === "nil") this.fail(node.offset, `cannot assign nil to ${kind}`);
    }
    const value = this.evalOperand(node, dot);
    return this.checkValue(value === MISSING ? null : value, kind, node.offset);
  }

  private checkValue(value: TemplateValue, kind: ParamKind, offset: number): TemplateValue {
    if (kind === "any") return value;
    const ok = kind === "int" ? typeof value === "number" && Number.isInteger(value) : typeof value === "string";
    if (!ok) this.fail(offset, `wrong type for value; expected ${kind}; got ${goTypeName(value)}`);
    return value;
  }
}
