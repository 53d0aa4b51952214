/**
 * The rules language of access-control policies, as the real service reads it: HCL (version 1)
 * with top-level levels (`acl = "write"`, `operator = "read"`, `keyring`, `mesh`, `peering`) and
 * labelled resource blocks (`key_prefix "" { policy = "read" }`, `service "web" { policy = "write"
 * intentions = "read" }`), or the same structure written as JSON. Unknown keys are ignored, as the
 * real decoder ignores them. One parser serves both the evaluator (what `acl` a policy grants)
 * and the validation of policies created through HTTP or fixtures, so the fake never accepts rules
 * it would then read differently.
 *
 * Errors are the real service's: `Failed to parse ACL rules: At <line>:<col>: ...` for syntax and
 * type errors (the text after the position is close to, not always the same as, the real HCL
 * parser's), `Invalid acl policy: "list"` and `Invalid key_prefix policy: &acl.KeyRule{...}` for
 * levels a resource does not take. See docs/decisions/access-control.md ("Policy rules").
 */
import { invalid } from "./errors.js";

/** An access level a rule may name. `list` is valid on `key` and `key_prefix` only. */
export type RuleLevel = "read" | "write" | "deny" | "list";

/** One labelled resource rule, e.g. `key_prefix "app/" { policy = "read" }`. */
export interface ResourceRule {
  /** The block type: `key_prefix`, `service`, ... */
  readonly resource: string;
  /** The block's label (the name or prefix it applies to). */
  readonly label: string;
  readonly policy: string;
  /** `service`/`service_prefix`/`identity` blocks only; empty when absent. */
  readonly intentions: string;
}

/** Parsed rules: the top-level levels and the resource rules, in order. */
export interface PolicyRules {
  /** `acl`, `keyring`, `operator`, `mesh`, `peering` as written (empty when absent). */
  readonly levels: Readonly<Record<string, string>>;
  readonly resources: readonly ResourceRule[];
}

/** Top-level string fields. */
const LEVEL_FIELDS = ["acl", "keyring", "operator", "mesh", "peering"] as const;

/** Resource blocks: Go rule struct and its label field, for the real error's `%#v` dump. */
const RESOURCE_FIELDS: Readonly<Record<string, { struct: string; label: string; list?: true; intentions?: true }>> = {
  agent: { struct: "AgentRule", label: "Node" },
  agent_prefix: { struct: "AgentRule", label: "Node" },
  key: { struct: "KeyRule", label: "Prefix", list: true },
  key_prefix: { struct: "KeyRule", label: "Prefix", list: true },
  node: { struct: "NodeRule", label: "Name" },
  node_prefix: { struct: "NodeRule", label: "Name" },
  service: { struct: "ServiceRule", label: "Name", intentions: true },
  service_prefix: { struct: "ServiceRule", label: "Name", intentions: true },
  identity: { struct: "IdentityRule", label: "Name", intentions: true },
  identity_prefix: { struct: "IdentityRule", label: "Name", intentions: true },
  session: { struct: "SessionRule", label: "Node" },
  session_prefix: { struct: "SessionRule", label: "Node" },
  event: { struct: "EventRule", label: "Event" },
  event_prefix: { struct: "EventRule", label: "Event" },
  query: { struct: "PreparedQueryRule", label: "Prefix" },
  query_prefix: { struct: "PreparedQueryRule", label: "Prefix" },
};

/** The real validation order of resource blocks. */
const VALIDATION_ORDER = [
  "agent", "agent_prefix", "key", "key_prefix", "node", "node_prefix", "service", "service_prefix", "identity", "identity_prefix",
  "session", "session_prefix", "event", "event_prefix", "query", "query_prefix",
];

class RulesSyntaxError extends Error {}

type TokenType = "IDENT" | "STRING" | "NUMBER" | "BOOL" | "LBRACE" | "RBRACE" | "LBRACK" | "RBRACK" | "ASSIGN" | "COMMA" | "EOF";

interface Token {
  readonly type: TokenType;
  readonly text: string;
  /** Decoded value of a STRING. */
  readonly value: string;
  readonly line: number;
  readonly col: number;
}

function at(line: number, col: number, message: string): RulesSyntaxError {
  return new RulesSyntaxError(`At ${line}:${col}: ${message}`);
}

const PUNCTUATION: Readonly<Record<string, TokenType>> = { "{": "LBRACE", "}": "RBRACE", "[": "LBRACK", "]": "RBRACK", "=": "ASSIGN", ",": "COMMA" };
const ESCAPES: Readonly<Record<string, string>> = { n: "\n", t: "\t", r: "\r", '"': '"', "\\": "\\", "/": "/" };

/** Splits HCL text into tokens (comments `#`, `//` and block comments are skipped). */
function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  let col = 1;
  const advance = (n = 1): void => {
    for (let k = 0; k < n; k++) {
      if (text[i] === "\n") {
        line += 1;
        col = 1;
      } else {
        col += 1;
      }
      i += 1;
    }
  };
  while (i < text.length) {
    const c = text[i] as string;
    if (c === " " || c === "\t" || c === "\r" || c === "\n") {
      advance();
      continue;
    }
    if (c === "#" || (c === "/" && text[i + 1] === "/")) {
      while (i < text.length && text[i] !== "\n") advance();
      continue;
    }
    if (c === "/" && text[i + 1] === "*") {
      const start = { line, col };
      const end = text.indexOf("*/", i + 2);
      if (end < 0) throw at(start.line, start.col, "comment not terminated");
      advance(end + 2 - i);
      continue;
    }
    const startLine = line;
    const startCol = col;
    const punct = PUNCTUATION[c];
    if (punct !== undefined) {
      tokens.push({ type: punct, text: c, value: c, line, col });
      advance();
      continue;
    }
    if (c === '"') {
      let value = "";
      advance();
      for (;;) {
        const d = text[i];
        if (d === undefined || d === "\n") throw at(startLine, startCol, "literal not terminated");
        if (d === '"') break;
        if (d === "\\") {
          const e = text[i + 1] ?? "";
          const escaped = ESCAPES[e];
          if (escaped === undefined) throw at(line, col, "unknown escape sequence");
          value += escaped;
          advance(2);
          continue;
        }
        value += d;
        advance();
      }
      advance();
      tokens.push({ type: "STRING", text: JSON.stringify(value), value, line: startLine, col: startCol });
      continue;
    }
    const word = /^(?:[A-Za-z_][A-Za-z0-9_\-.]*|-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)/.exec(text.slice(i, i + 512));
    if (word === null) throw at(line, col, "illegal char");
    const w = word[0];
    const type: TokenType = /^-?[0-9]/.test(w) ? "NUMBER" : w === "true" || w === "false" ? "BOOL" : "IDENT";
    tokens.push({ type, text: w, value: w, line, col });
    advance(w.length);
  }
  tokens.push({ type: "EOF", text: "", value: "", line, col });
  return tokens;
}

/** A parsed HCL value. */
type Value =
  | { readonly kind: "literal"; readonly value: string; readonly token: Token }
  | { readonly kind: "list"; readonly token: Token }
  | { readonly kind: "object"; readonly items: readonly Item[]; readonly token: Token };

/** One item of an object list: `key = value` or `key "label" { ... }`. */
interface Item {
  readonly keys: readonly Token[];
  readonly assign: boolean;
  readonly value: Value;
}

class Parser {
  private pos = 0;
  constructor(private readonly tokens: readonly Token[]) {}

  private peek(): Token {
    return this.tokens[this.pos] as Token;
  }

  private next(): Token {
    const token = this.peek();
    if (token.type !== "EOF") this.pos += 1;
    return token;
  }

  /** Items until EOF (top level) or the closing brace (inside an object). */
  objectList(nested: boolean): Item[] {
    const items: Item[] = [];
    for (;;) {
      const token = this.peek();
      if (token.type === "EOF") {
        if (nested) throw at(token.line, token.col, "object expected closing RBRACE got: EOF");
        return items;
      }
      if (token.type === "RBRACE") {
        if (nested) return items;
        throw at(token.line, token.col, "expected: IDENT | STRING got: RBRACE");
      }
      items.push(this.item());
      if (this.peek().type === "COMMA") this.next();
    }
  }

  private item(): Item {
    const keys: Token[] = [];
    while (this.peek().type === "IDENT" || this.peek().type === "STRING") keys.push(this.next());
    const token = this.peek();
    if (keys.length === 0) throw at(token.line, token.col, `expected: IDENT | STRING got: ${token.type}`);
    if (token.type === "ASSIGN") {
      if (keys.length > 1) throw at(token.line, token.col, "nested object expected: LBRACE got: ASSIGN");
      this.next();
      return { keys, assign: true, value: this.value() };
    }
    if (token.type === "LBRACE") return { keys, assign: false, value: this.value() };
    const named = keys.map((k) => k.text).join(" ");
    throw at(token.line, token.col, `key '${named}' expected start of object ('{') or assignment ('=')`);
  }

  private value(): Value {
    const token = this.next();
    switch (token.type) {
      case "STRING":
      case "NUMBER":
      case "BOOL":
        return { kind: "literal", value: token.value, token };
      case "LBRACE": {
        const items = this.objectList(true);
        this.next();
        return { kind: "object", items, token };
      }
      case "LBRACK": {
        for (;;) {
          const inner = this.peek();
          if (inner.type === "RBRACK") break;
          if (inner.type === "EOF") throw at(inner.line, inner.col, "list expected closing RBRACK got: EOF");
          if (inner.type === "COMMA") this.next();
          else this.value();
        }
        this.next();
        return { kind: "list", token };
      }
      case "IDENT":
        throw at(token.line, token.col, `Unknown token: ${token.line}:${token.col} IDENT ${token.text}`);
      default:
        throw at(token.line, token.col, `Unknown token: ${token.line}:${token.col} ${token.type} ${token.text}`);
    }
  }
}

function astType(value: Value): string {
  return value.kind === "list" ? "*ast.ListType" : value.kind === "object" ? "*ast.ObjectType" : "*ast.LiteralType";
}

function stringOf(value: Value, name: string): string {
  if (value.kind !== "literal") throw at(value.token.line, value.token.col, `${name}: unknown type for string ${astType(value)}`);
  return value.value;
}

/** The string fields of a resource block's body. */
function blockBody(value: Value, name: string): { policy: string; intentions: string } {
  if (value.kind !== "object") throw at(value.token.line, value.token.col, `${name}: not an object type for struct (${astType(value)})`);
  let policy = "";
  let intentions = "";
  for (const item of value.items) {
    const key = item.keys[0]?.value ?? "";
    if (item.keys.length !== 1 || !item.assign) continue;
    if (key === "policy") policy = stringOf(item.value, `${name}.policy`);
    else if (key === "intentions") intentions = stringOf(item.value, `${name}.intentions`);
  }
  return { policy, intentions };
}

function decodeItems(items: readonly Item[]): PolicyRules {
  const levels: Record<string, string> = {};
  const seen = new Map<string, Token>();
  const resources: ResourceRule[] = [];
  for (const item of items) {
    const [first, second] = item.keys;
    if (first === undefined) continue;
    const name = first.value;
    if ((LEVEL_FIELDS as readonly string[]).includes(name)) {
      if (item.keys.length > 1 || !item.assign) throw at(item.value.token.line, item.value.token.col, `root.${name}: unknown type for string *ast.ObjectType`);
      if (seen.has(name)) {
        throw new RulesSyntaxError(`The argument ${JSON.stringify(name)} at ${first.line}:${first.col} was already set. Each argument can only be defined once`);
      }
      seen.set(name, first);
      levels[name] = stringOf(item.value, `root.${name}`);
      continue;
    }
    if (RESOURCE_FIELDS[name] === undefined) continue;
    if (item.assign) {
      // `key_prefix = { "app/" = { policy = "read" } }`: the object form of the same blocks.
      const value = item.value;
      if (value.kind !== "object") throw at(value.token.line, value.token.col, `root.${name}: not an object type for struct (${astType(value)})`);
      for (const entry of value.items) {
        resources.push({ resource: name, label: entry.keys[0]?.value ?? "", ...blockBody(entry.value, `root.${name}`) });
      }
      continue;
    }
    resources.push({ resource: name, label: second?.value ?? "", ...blockBody(item.value, `root.${name}`) });
  }
  return { levels, resources };
}

/** JSON rules (`{"acl": "write", "key_prefix": {"": {"policy": "read"}}}`), as HCL reads JSON. */
function decodeJson(text: string): PolicyRules {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw at(1, 1, (error as Error).message);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw at(1, 1, "root: not an object type for struct");
  const levels: Record<string, string> = {};
  const resources: ResourceRule[] = [];
  const literal = (value: unknown, name: string): string => {
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return String(value);
    throw at(1, 1, `${name}: unknown type for string ${Array.isArray(value) ? "*ast.ListType" : "*ast.ObjectType"}`);
  };
  for (const [name, value] of Object.entries(parsed)) {
    if ((LEVEL_FIELDS as readonly string[]).includes(name)) {
      levels[name] = literal(value, `root.${name}`);
      continue;
    }
    if (RESOURCE_FIELDS[name] === undefined) continue;
    const blocks = Array.isArray(value) ? value : [value];
    for (const block of blocks) {
      if (typeof block !== "object" || block === null) throw at(1, 1, `root.${name}: not an object type for struct`);
      for (const [label, body] of Object.entries(block as Record<string, unknown>)) {
        const fields = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
        resources.push({
          resource: name,
          label,
          policy: fields.policy === undefined ? "" : literal(fields.policy, `root.${name}.policy`),
          intentions: fields.intentions === undefined ? "" : literal(fields.intentions, `root.${name}.intentions`),
        });
      }
    }
  }
  return { levels, resources };
}

function validLevel(level: string, allowList: boolean): boolean {
  return level === "read" || level === "write" || level === "deny" || (allowList && level === "list");
}

function goString(value: string): string {
  return JSON.stringify(value);
}

function validate(rules: PolicyRules): void {
  const acl = rules.levels.acl ?? "";
  if (acl !== "" && !validLevel(acl, false)) throw new RulesSyntaxError(`Invalid acl policy: ${goString(acl)}`);
  for (const resource of VALIDATION_ORDER) {
    const shape = RESOURCE_FIELDS[resource];
    if (shape === undefined) continue;
    for (const rule of rules.resources.filter((r) => r.resource === resource)) {
      const dump = `&acl.${shape.struct}{${shape.label}:${goString(rule.label)}, Policy:${goString(rule.policy)}${shape.intentions ? `, Intentions:${goString(rule.intentions)}` : ""}}`;
      if (!validLevel(rule.policy, shape.list === true)) throw new RulesSyntaxError(`Invalid ${resource} policy: ${dump}`);
      if (shape.intentions && rule.intentions !== "" && !validLevel(rule.intentions, false)) {
        throw new RulesSyntaxError(`Invalid ${resource} intentions policy: ${dump}`);
      }
    }
  }
  for (const field of LEVEL_FIELDS) {
    if (field === "acl") continue;
    const level = rules.levels[field] ?? "";
    if (level !== "" && !validLevel(level, false)) throw new RulesSyntaxError(`Invalid ${field} policy: ${goString(level)}`);
  }
}

function parse(text: string): PolicyRules {
  if (text.trim() === "") return { levels: {}, resources: [] };
  try {
    return text.trimStart().startsWith("{") ? decodeJson(text) : decodeItems(new Parser(tokenize(text)).objectList(false));
  } catch (error) {
    if (error instanceof RulesSyntaxError) throw new RulesSyntaxError(`Failed to parse ACL rules: ${error.message}`);
    throw error;
  }
}

/**
 * Parses and validates policy rules as the real service does when a policy is written.
 * @param operation - the operation named in the error (`create policy`, `update policy`).
 * @returns the parsed rules.
 * @throws {DomainError} `invalid` (the real service answers 500): `Failed to parse ACL rules: At
 * 1:7: Unknown token: 1:7 IDENT read`, `Invalid acl policy: "list"`, `Invalid key_prefix policy:
 * &acl.KeyRule{Prefix:"", Policy:"bogus"}`.
 * @example checkPolicyRules('acl = "read"', "create policy").levels.acl // "read"
 */
export function checkPolicyRules(text: string, operation: string): PolicyRules {
  try {
    const rules = parse(text);
    validate(rules);
    return rules;
  } catch (error) {
    if (error instanceof RulesSyntaxError) throw invalid(operation, error.message);
    throw error;
  }
}

const ACL_LEVEL_CACHE_LIMIT = 1024;
const aclLevelCache = new Map<string, string | undefined>();

/**
 * The top-level `acl` level of rules text (read through the same parser as validation), or
 * `undefined` when the rules do not say or cannot be read. Remembered per text (bounded): every
 * authorized request asks for it.
 * @example aclLevelOf('key_prefix "" { policy = "write" }\nacl = "read"') // "read"
 */
export function aclLevelOf(text: string): string | undefined {
  if (aclLevelCache.has(text)) return aclLevelCache.get(text);
  let level: string | undefined;
  try {
    const found = parse(text).levels.acl;
    level = found === undefined || found === "" ? undefined : found;
  } catch {
    level = undefined;
  }
  if (aclLevelCache.size >= ACL_LEVEL_CACHE_LIMIT) aclLevelCache.clear();
  aclLevelCache.set(text, level);
  return level;
}
