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
import type { TokenInput } from "../../simulator/access-control/tokens.js";
import { bodyText, type SimRequest } from "../http.js";
import { GoObject, decodeFailure, parseGoDuration, type GoParseOptions } from "./go-json.js";

/** What the decoders need to know about the service. */
export interface BodyOptions {
  /** The enterprise option (`Namespace` is a field only then). */
  readonly namespaces: boolean;
}

const string = (body: GoObject, field: string): string | undefined => body.string(field);
const ignoredString = (body: GoObject, field: string): undefined => void body.string(field);
const ignoredTime = (body: GoObject, field: string): undefined => void body.time(field);
const ignoredIndex = (body: GoObject, field: string): undefined => void body.uint(field);

function parseOptions(options: BodyOptions): GoParseOptions {
  if (options.namespaces) return {};
  return { rewordUnknown: (message, key) => (key === "Namespace" ? `${message} - Namespaces are an enterprise feature` : message) };
}

function link(item: GoObject): LinkInput {
  const decoded = item.decode({ ID: string, Name: string });
  return { id: decoded.ID, name: decoded.Name };
}

function serviceIdentity(item: GoObject): ServiceIdentityInput {
  const decoded = item.decode({ ServiceName: string, Datacenters: (b, f) => b.strings(f) });
  return { serviceName: decoded.ServiceName, datacenters: decoded.Datacenters };
}

function nodeIdentity(item: GoObject): NodeIdentityInput {
  const decoded = item.decode({ NodeName: string, Datacenter: string });
  return { nodeName: decoded.NodeName, datacenter: decoded.Datacenter };
}

/** `ExpirationTTL`: a Go duration string, or a JSON number of nanoseconds; other types are ignored (as the real decoder does). */
function expirationTtl(body: GoObject, field: string, fail: (message: string) => Error): number | undefined {
  const ttl = body.raw(field);
  if (typeof ttl === "string") {
    const ms = parseGoDuration(ttl);
    if (ms === undefined) throw fail(`time: invalid duration ${JSON.stringify(ttl)}`);
    return ms;
  }
  return typeof ttl === "number" ? ttl / 1e6 : undefined;
}

function tokenFields(options: BodyOptions, fail: (message: string) => Error) {
  return {
    AccessorID: string,
    SecretID: string,
    Description: string,
    Policies: (b: GoObject, f: string) => b.objects(f, "ACLTokenPolicyLink", link),
    Roles: (b: GoObject, f: string) => b.objects(f, "ACLTokenRoleLink", link),
    ServiceIdentities: (b: GoObject, f: string) => b.objects(f, "ACLServiceIdentity", serviceIdentity),
    NodeIdentities: (b: GoObject, f: string) => b.objects(f, "ACLNodeIdentity", nodeIdentity),
    Local: (b: GoObject, f: string) => b.bool(f),
    AuthMethod: string,
    ExpirationTime: (b: GoObject, f: string) => b.time(f),
    ExpirationTTL: (b: GoObject, f: string) => expirationTtl(b, f, fail),
    CreateTime: ignoredTime,
    Hash: ignoredString,
    CreateIndex: ignoredIndex,
    ModifyIndex: ignoredIndex,
    Namespace: options.namespaces ? string : undefined,
    AuthMethodNamespace: options.namespaces ? ignoredString : undefined,
  };
}

/**
 * Decodes a token create or update body.
 * @throws {DomainError} `malformed` (400) `Token decoding failed: ...` (syntax, an unknown field,
 * a value of the wrong type, a bad `ExpirationTTL` or `ExpirationTime`).
 */
export function decodeTokenBody(request: SimRequest, operation: string, options: BodyOptions): TokenInput {
  const fail = decodeFailure(operation, "Token decoding failed");
  const body = GoObject.parse(bodyText(request), "ACLToken", fail, parseOptions(options));
  const decoded = body.decode(tokenFields(options, fail));
  return {
    accessorId: decoded.AccessorID,
    secretId: decoded.SecretID,
    description: decoded.Description,
    policies: decoded.Policies,
    roles: decoded.Roles,
    serviceIdentities: decoded.ServiceIdentities,
    nodeIdentities: decoded.NodeIdentities,
    local: decoded.Local,
    authMethod: decoded.AuthMethod,
    expirationTime: decoded.ExpirationTime,
    expirationTtlMs: decoded.ExpirationTTL,
    namespace: decoded.Namespace,
  };
}

/**
 * Decodes a clone body: the real service decodes it as a token (so every token field is known);
 * only `Description` (and `Namespace`) are used. An empty body is `EOF`, as in the real service.
 * @throws {DomainError} `malformed` (400) `Token decoding failed: ...`.
 */
export function decodeCloneBody(request: SimRequest, options: BodyOptions): { description?: string | undefined; namespace?: string | undefined } {
  const fail = decodeFailure("clone token", "Token decoding failed");
  const body = GoObject.parse(bodyText(request), "ACLToken", fail, parseOptions(options));
  const decoded = body.decode(tokenFields(options, fail));
  return { description: decoded.Description, namespace: decoded.Namespace };
}

/**
 * Decodes a binding-rule body, with its `ID`.
 * @throws {DomainError} `malformed` (400) `BindingRule decoding failed: ...`.
 */
export function decodeBindingRuleBody(request: SimRequest, operation: string, options: BodyOptions): BindingRuleInput & { id?: string | undefined } {
  const body = GoObject.parse(bodyText(request), "ACLBindingRule", decodeFailure(operation, "BindingRule decoding failed"), parseOptions(options));
  const decoded = body.decode({
    ID: string,
    Description: string,
    AuthMethod: string,
    Selector: string,
    BindType: string,
    BindName: string,
    CreateIndex: ignoredIndex,
    ModifyIndex: ignoredIndex,
    Namespace: options.namespaces ? string : undefined,
  });
  return {
    id: decoded.ID,
    description: decoded.Description,
    authMethod: decoded.AuthMethod,
    selector: decoded.Selector,
    bindType: decoded.BindType,
    bindName: decoded.BindName,
    namespace: decoded.Namespace,
  };
}

/**
 * Decodes a login body: `{"AuthMethod": "...", "BearerToken": "...", "Meta": {...}}` (and
 * `Namespace` with the enterprise option).
 * @throws {DomainError} `malformed` (400) `Failed to decode request body: ...`.
 */
export function decodeLoginBody(request: SimRequest, options: BodyOptions): LoginInput {
  const body = GoObject.parse(bodyText(request), "ACLLoginParams", decodeFailure("login", "Failed to decode request body"), parseOptions(options));
  const decoded = body.decode({
    AuthMethod: string,
    BearerToken: string,
    Meta: (b: GoObject, f: string) => b.stringMap(f),
    Namespace: options.namespaces ? string : undefined,
  });
  return {
    authMethod: decoded.AuthMethod ?? "",
    bearerToken: decoded.BearerToken ?? "",
    meta: decoded.Meta,
    namespace: decoded.Namespace,
  };
}
