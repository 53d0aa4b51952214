/**
 * Decoders of the access-control request bodies (token, clone, binding rule, login) into the
 * simulator's inputs. Shapes only: the simulator checks the rules. Like the real service's decoder
 * (`DisallowUnknownFields`), a key that names no field of the body's struct is a 400; fields the
 * service sets itself (`CreateTime`, `Hash`, `CreateIndex`, `ModifyIndex`) are accepted, type
 * checked and ignored, so a token read back can be sent again. `Namespace` (and a token's
 * `AuthMethodNamespace`) are fields only with the enterprise option; without it an unknown
 * `Namespace` gets the real note `- Namespaces are an enterprise feature`.
 *
 * Spec: access-control.md "Token endpoints", "Binding-rule endpoints"; FIDELITY.md (400 wording).
 */
import type { BindingRuleInput } from "../../simulator/access-control/binding-rules.js";
import type { LinkInput, NodeIdentityInput, ServiceIdentityInput } from "../../simulator/access-control/links.js";
import type { LoginInput } from "../../simulator/access-control/login.js";
import type { PolicyBody, RoleBody } from "../../simulator/access-control/policies.js";
import type { TokenInput } from "../../simulator/access-control/tokens.js";
import { bodyText, type SimRequest } from "../http.js";
import { GoObject, decodeFailure, parseGoDuration, type FieldReader, type FieldReaders, type GoParseOptions } from "./go-json.js";

/** What the decoders need to know about the service. */
export interface BodyOptions {
  /** The enterprise option (`Namespace` is a field only then). */
  readonly namespaces: boolean;
}

/**
 * How a body field is read, as the real (Go) decoder reads its type: `string`, `bool`, `uint`
 * (`uint64`), `strings` (`[]string`), `string-map` (`map[string]string`), `time` (RFC 3339),
 * `duration` (a Go duration string or a number of nanoseconds; other JSON types are ignored), or
 * `objects` (a list of nested structs of `goType`, each read by `fields`).
 */
export type GoFieldKind = "string" | "bool" | "uint" | "strings" | "string-map" | "time" | "duration" | "objects";

/** One field of a Go request struct. */
export interface GoFieldRule {
  readonly kind: GoFieldKind;
  /** Set by the service itself: accepted and type-checked, then ignored. */
  readonly ignored?: true;
  /** A field only with the enterprise option (namespaces); otherwise an unknown field. */
  readonly enterprise?: true;
  /** `objects`: the Go struct name of each item, e.g. `ACLTokenPolicyLink`. */
  readonly goType?: string;
  /** `objects`: the item's fields. */
  readonly fields?: GoFields;
}

/** The fields of a Go request struct by their Go names. */
export type GoFields = Readonly<Record<string, GoFieldRule>>;

/** A request body's decoding rules: the Go struct name, the 400 prefix and the fields. */
export interface GoBodyRules {
  /** The Go struct name in type errors, e.g. `ACLToken`. */
  readonly struct: string;
  /** The 400 detail prefix, e.g. `Token decoding failed`. */
  readonly prefix: string;
  readonly fields: GoFields;
}

const f = (kind: GoFieldKind, extra: Omit<GoFieldRule, "kind"> = {}): GoFieldRule => Object.freeze({ kind, ...extra });
const LINK_FIELDS: GoFields = Object.freeze({ ID: f("string"), Name: f("string") });

/**
 * The token body (create, update and clone): the real `ACLToken` struct's fields.
 * @example TOKEN_BODY.fields.ExpirationTTL.kind // "duration"
 */
export const TOKEN_BODY: GoBodyRules = Object.freeze({
  struct: "ACLToken",
  prefix: "Token decoding failed",
  fields: Object.freeze({
    AccessorID: f("string"),
    SecretID: f("string"),
    Description: f("string"),
    Policies: f("objects", { goType: "ACLTokenPolicyLink", fields: LINK_FIELDS }),
    Roles: f("objects", { goType: "ACLTokenRoleLink", fields: LINK_FIELDS }),
    ServiceIdentities: f("objects", { goType: "ACLServiceIdentity", fields: Object.freeze({ ServiceName: f("string"), Datacenters: f("strings") }) }),
    NodeIdentities: f("objects", { goType: "ACLNodeIdentity", fields: Object.freeze({ NodeName: f("string"), Datacenter: f("string") }) }),
    Local: f("bool"),
    AuthMethod: f("string"),
    ExpirationTime: f("time"),
    ExpirationTTL: f("duration"),
    CreateTime: f("time", { ignored: true }),
    Hash: f("string", { ignored: true }),
    CreateIndex: f("uint", { ignored: true }),
    ModifyIndex: f("uint", { ignored: true }),
    Namespace: f("string", { enterprise: true }),
    AuthMethodNamespace: f("string", { enterprise: true, ignored: true }),
  }),
});

/**
 * The binding-rule body (create and update).
 * @example BINDING_RULE_BODY.prefix // "BindingRule decoding failed"
 */
export const BINDING_RULE_BODY: GoBodyRules = Object.freeze({
  struct: "ACLBindingRule",
  prefix: "BindingRule decoding failed",
  fields: Object.freeze({
    ID: f("string"),
    Description: f("string"),
    AuthMethod: f("string"),
    Selector: f("string"),
    BindType: f("string"),
    BindName: f("string"),
    CreateIndex: f("uint", { ignored: true }),
    ModifyIndex: f("uint", { ignored: true }),
    Namespace: f("string", { enterprise: true }),
  }),
});

/**
 * The policy body (create and update): the real `ACLPolicy` struct's fields (`Syntax`, a legacy
 * field, is accepted and ignored, like the fields the service sets itself).
 * @example POLICY_BODY.prefix // "Policy decoding failed"
 */
export const POLICY_BODY: GoBodyRules = Object.freeze({
  struct: "ACLPolicy",
  prefix: "Policy decoding failed",
  fields: Object.freeze({
    ID: f("string"),
    Name: f("string"),
    Description: f("string"),
    Rules: f("string"),
    Syntax: f("string", { ignored: true }),
    Datacenters: f("strings"),
    Hash: f("string", { ignored: true }),
    CreateIndex: f("uint", { ignored: true }),
    ModifyIndex: f("uint", { ignored: true }),
    Namespace: f("string", { enterprise: true }),
  }),
});

/**
 * The role body (create and update): the real `ACLRole` struct's fields.
 * @example ROLE_BODY.fields.Policies.goType // "ACLRolePolicyLink"
 */
export const ROLE_BODY: GoBodyRules = Object.freeze({
  struct: "ACLRole",
  prefix: "Role decoding failed",
  fields: Object.freeze({
    ID: f("string"),
    Name: f("string"),
    Description: f("string"),
    Policies: f("objects", { goType: "ACLRolePolicyLink", fields: LINK_FIELDS }),
    ServiceIdentities: TOKEN_BODY.fields.ServiceIdentities as GoFieldRule,
    NodeIdentities: TOKEN_BODY.fields.NodeIdentities as GoFieldRule,
    Hash: f("string", { ignored: true }),
    CreateIndex: f("uint", { ignored: true }),
    ModifyIndex: f("uint", { ignored: true }),
    Namespace: f("string", { enterprise: true }),
  }),
});

/**
 * The login body.
 * @example LOGIN_BODY.fields.Meta.kind // "string-map"
 */
export const LOGIN_BODY: GoBodyRules = Object.freeze({
  struct: "ACLLoginParams",
  prefix: "Failed to decode request body",
  fields: Object.freeze({ AuthMethod: f("string"), BearerToken: f("string"), Meta: f("string-map"), Namespace: f("string", { enterprise: true }) }),
});

/**
 * The Go type name a field's kind is reported with in a type error (`undefined` for `time` and
 * `duration`, which have their own messages).
 * @example goTypeName(TOKEN_BODY.fields.Policies) // "[]*structs.ACLTokenPolicyLink"
 */
export function goTypeName(rule: GoFieldRule): string | undefined {
  switch (rule.kind) {
    case "string":
    case "bool":
      return rule.kind;
    case "uint":
      return "uint64";
    case "strings":
      return "[]string";
    case "string-map":
      return "map[string]string";
    case "objects":
      return `[]*structs.${rule.goType ?? ""}`;
    default:
      return undefined;
  }
}

/** `ExpirationTTL`: a Go duration string, or a JSON number of nanoseconds; other types are ignored (as the real decoder does). */
function duration(body: GoObject, field: string, fail: (message: string) => Error): number | undefined {
  const ttl = body.raw(field);
  if (typeof ttl === "string") {
    const ms = parseGoDuration(ttl);
    if (ms === undefined) throw fail(`time: invalid duration ${JSON.stringify(ttl)}`);
    return ms;
  }
  return typeof ttl === "number" ? ttl / 1e6 : undefined;
}

type Decoded = Record<string, unknown>;

function readerOf(rule: GoFieldRule, options: BodyOptions, fail: (message: string) => Error): FieldReader<unknown> | undefined {
  if (rule.enterprise === true && !options.namespaces) return undefined;
  const read = ((): FieldReader<unknown> => {
    switch (rule.kind) {
      case "string":
        return (b, field) => b.string(field);
      case "bool":
        return (b, field) => b.bool(field);
      case "uint":
        return (b, field) => b.uint(field);
      case "strings":
        return (b, field) => b.strings(field);
      case "string-map":
        return (b, field) => b.stringMap(field);
      case "time":
        return (b, field) => b.time(field);
      case "duration":
        return (b, field) => duration(b, field, fail);
      case "objects": {
        const fields = rule.fields ?? {};
        return (b, field) => b.objects(field, rule.goType ?? "", (item) => item.decode(readersOf(fields, options, fail)) as Decoded);
      }
    }
  })();
  return rule.ignored === true ? (b, field) => void read(b, field) : read;
}

function readersOf(fields: GoFields, options: BodyOptions, fail: (message: string) => Error): FieldReaders {
  return Object.fromEntries(Object.entries(fields).map(([name, rule]) => [name, readerOf(rule, options, fail)]));
}

function decodeBody(request: SimRequest, rules: GoBodyRules, operation: string, options: BodyOptions): Decoded {
  const fail = decodeFailure(operation, rules.prefix);
  const body = GoObject.parse(bodyText(request), rules.struct, fail, parseOptions(options));
  return body.decode(readersOf(rules.fields, options, fail)) as Decoded;
}

function parseOptions(options: BodyOptions): GoParseOptions {
  if (options.namespaces) return {};
  return { rewordUnknown: (message, key) => (key === "Namespace" ? `${message} - Namespaces are an enterprise feature` : message) };
}

const str = (value: unknown): string | undefined => value as string | undefined;
const items = (value: unknown): Decoded[] | undefined => value as Decoded[] | undefined;
const link = (item: Decoded): LinkInput => ({ id: str(item.ID), name: str(item.Name) });

/**
 * Decodes a token create or update body.
 * @throws {DomainError} `malformed` (400) `Token decoding failed: ...` (syntax, an unknown field,
 * a value of the wrong type, a bad `ExpirationTTL` or `ExpirationTime`).
 */
export function decodeTokenBody(request: SimRequest, operation: string, options: BodyOptions): TokenInput {
  const decoded = decodeBody(request, TOKEN_BODY, operation, options);
  return {
    accessorId: str(decoded.AccessorID),
    secretId: str(decoded.SecretID),
    description: str(decoded.Description),
    policies: items(decoded.Policies)?.map(link),
    roles: items(decoded.Roles)?.map(link),
    serviceIdentities: items(decoded.ServiceIdentities)?.map((item): ServiceIdentityInput => ({ serviceName: str(item.ServiceName), datacenters: item.Datacenters as string[] | undefined })),
    nodeIdentities: items(decoded.NodeIdentities)?.map((item): NodeIdentityInput => ({ nodeName: str(item.NodeName), datacenter: str(item.Datacenter) })),
    local: decoded.Local as boolean | undefined,
    authMethod: str(decoded.AuthMethod),
    expirationTime: decoded.ExpirationTime as number | undefined,
    expirationTtlMs: decoded.ExpirationTTL as number | undefined,
    namespace: str(decoded.Namespace),
  };
}

/**
 * Decodes a clone body: the real service decodes it as a token (so every token field is known);
 * only `Description` (and `Namespace`) are used. An empty body is `EOF`, as in the real service.
 * @throws {DomainError} `malformed` (400) `Token decoding failed: ...`.
 */
export function decodeCloneBody(request: SimRequest, options: BodyOptions): { description?: string | undefined; namespace?: string | undefined } {
  const decoded = decodeBody(request, TOKEN_BODY, "clone token", options);
  return { description: str(decoded.Description), namespace: str(decoded.Namespace) };
}

/**
 * Decodes a binding-rule body, with its `ID`.
 * @throws {DomainError} `malformed` (400) `BindingRule decoding failed: ...`.
 */
export function decodeBindingRuleBody(request: SimRequest, operation: string, options: BodyOptions): BindingRuleInput & { id?: string | undefined } {
  const decoded = decodeBody(request, BINDING_RULE_BODY, operation, options);
  return {
    id: str(decoded.ID),
    description: str(decoded.Description),
    authMethod: str(decoded.AuthMethod),
    selector: str(decoded.Selector),
    bindType: str(decoded.BindType),
    bindName: str(decoded.BindName),
    namespace: str(decoded.Namespace),
  };
}

/**
 * Decodes a login body: `{"AuthMethod": "...", "BearerToken": "...", "Meta": {...}}` (and
 * `Namespace` with the enterprise option).
 * @throws {DomainError} `malformed` (400) `Failed to decode request body: ...`.
 */
export function decodeLoginBody(request: SimRequest, options: BodyOptions): LoginInput {
  const decoded = decodeBody(request, LOGIN_BODY, "login", options);
  return {
    authMethod: str(decoded.AuthMethod) ?? "",
    bearerToken: str(decoded.BearerToken) ?? "",
    meta: decoded.Meta as Record<string, string> | undefined,
    namespace: str(decoded.Namespace),
  };
}

/**
 * Decodes a policy body, with its `ID`.
 * @throws {DomainError} `malformed` (400) `Policy decoding failed: ...`.
 */
export function decodePolicyBody(request: SimRequest, operation: string, options: BodyOptions): PolicyBody & { id?: string | undefined } {
  const decoded = decodeBody(request, POLICY_BODY, operation, options);
  return {
    id: str(decoded.ID),
    name: str(decoded.Name),
    description: str(decoded.Description),
    rules: str(decoded.Rules),
    datacenters: decoded.Datacenters as string[] | undefined,
    namespace: str(decoded.Namespace),
  };
}

/**
 * Decodes a role body, with its `ID`.
 * @throws {DomainError} `malformed` (400) `Role decoding failed: ...`.
 */
export function decodeRoleBody(request: SimRequest, operation: string, options: BodyOptions): RoleBody & { id?: string | undefined } {
  const decoded = decodeBody(request, ROLE_BODY, operation, options);
  return {
    id: str(decoded.ID),
    name: str(decoded.Name),
    description: str(decoded.Description),
    policies: items(decoded.Policies)?.map(link),
    serviceIdentities: items(decoded.ServiceIdentities)?.map((item): ServiceIdentityInput => ({ serviceName: str(item.ServiceName), datacenters: item.Datacenters as string[] | undefined })),
    nodeIdentities: items(decoded.NodeIdentities)?.map((item): NodeIdentityInput => ({ nodeName: str(item.NodeName), datacenter: str(item.Datacenter) })),
    namespace: str(decoded.Namespace),
  };
}
