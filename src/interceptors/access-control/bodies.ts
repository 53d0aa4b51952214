/**
 * Decoders of the access-control request bodies (token, clone, binding rule, login) into the
 * simulator's inputs. Shapes only: the simulator checks the rules.
 *
 * Spec: access-control.md "Token endpoints", "Binding-rule endpoints"; FIDELITY.md (400 wording).
 */
import type { BindingRuleInput } from "../../simulator/access-control/binding-rules.js";
import type { LinkInput, NodeIdentityInput, ServiceIdentityInput } from "../../simulator/access-control/links.js";
import type { LoginInput } from "../../simulator/access-control/login.js";
import type { TokenInput } from "../../simulator/access-control/tokens.js";
import { bodyText, type SimRequest } from "../http.js";
import { GoObject, decodeFailure, parseGoDuration } from "./go-json.js";

function link(item: GoObject): LinkInput {
  return { id: item.string("ID"), name: item.string("Name") };
}

function serviceIdentity(item: GoObject): ServiceIdentityInput {
  return { serviceName: item.string("ServiceName"), datacenters: item.strings("Datacenters") };
}

function nodeIdentity(item: GoObject): NodeIdentityInput {
  return { nodeName: item.string("NodeName"), datacenter: item.string("Datacenter") };
}

/**
 * Decodes a token create or update body.
 * @throws {DomainError} `malformed` (400) `Token decoding failed: ...`.
 */
export function decodeTokenBody(request: SimRequest, operation: string): TokenInput {
  const fail = decodeFailure(operation, "Token decoding failed");
  const body = GoObject.parse(bodyText(request), "ACLToken", fail);
  let expirationTtlMs: number | undefined;
  const ttl = body.raw("ExpirationTTL");
  if (typeof ttl === "string") {
    expirationTtlMs = parseGoDuration(ttl);
    if (expirationTtlMs === undefined) throw fail(`time: invalid duration "${ttl}"`);
  } else if (typeof ttl === "number") {
    expirationTtlMs = ttl / 1e6;
  }
  return {
    accessorId: body.string("AccessorID"),
    secretId: body.string("SecretID"),
    description: body.string("Description"),
    policies: body.objects("Policies", "ACLTokenPolicyLink", link),
    roles: body.objects("Roles", "ACLTokenRoleLink", link),
    serviceIdentities: body.objects("ServiceIdentities", "ACLServiceIdentity", serviceIdentity),
    nodeIdentities: body.objects("NodeIdentities", "ACLNodeIdentity", nodeIdentity),
    local: body.bool("Local"),
    authMethod: body.string("AuthMethod"),
    expirationTime: body.time("ExpirationTime"),
    expirationTtlMs,
    namespace: body.string("Namespace"),
  };
}

/**
 * Decodes a clone body (`Description`, `Namespace`); an empty body is fine.
 * @throws {DomainError} `malformed` (400) `Token decoding failed: ...`.
 */
export function decodeCloneBody(request: SimRequest): { description?: string | undefined; namespace?: string | undefined } {
  const body = GoObject.parse(bodyText(request), "ACLToken", decodeFailure("clone token", "Token decoding failed"), true);
  return { description: body.string("Description"), namespace: body.string("Namespace") };
}

/**
 * Decodes a binding-rule body, with its `ID`.
 * @throws {DomainError} `malformed` (400) `BindingRule decoding failed: ...`.
 */
export function decodeBindingRuleBody(request: SimRequest, operation: string): BindingRuleInput & { id?: string | undefined } {
  const body = GoObject.parse(bodyText(request), "ACLBindingRule", decodeFailure(operation, "BindingRule decoding failed"));
  return {
    id: body.string("ID"),
    description: body.string("Description"),
    authMethod: body.string("AuthMethod"),
    selector: body.string("Selector"),
    bindType: body.string("BindType"),
    bindName: body.string("BindName"),
    namespace: body.string("Namespace"),
  };
}

/**
 * Decodes a login body: `{"AuthMethod": "...", "BearerToken": "...", "Meta": {...}}`.
 * @throws {DomainError} `malformed` (400) `Failed to decode request body: ...`.
 */
export function decodeLoginBody(request: SimRequest): LoginInput {
  const body = GoObject.parse(bodyText(request), "ACLLoginParams", decodeFailure("login", "Failed to decode request body"));
  return {
    authMethod: body.string("AuthMethod") ?? "",
    bearerToken: body.string("BearerToken") ?? "",
    meta: body.stringMap("Meta"),
    namespace: body.string("Namespace"),
  };
}
