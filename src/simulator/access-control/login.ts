/**
 * Login and logout through an auth method. Login validates the bearer token (the scenario says
 * which bearer tokens the method accepts and the identity each stands for), applies every binding
 * rule of the method whose selector matches the identity, and issues a token carrying what the
 * rules bound: service identities, node identities in the local datacenter, and roles that exist
 * at login time. Nothing bound: permission denied.
 *
 * Spec: access-control.md "Binding rule" (BindType effects); FIDELITY.md "Access control" (login).
 */
import { traceTokenEvent } from "./token-events.js";
import { Buffer } from "node:buffer";
import { isDomainError } from "../kernel/errors.js";
import type { OperationContext } from "../kernel/simulator.js";
import { bindNameSchema, rejectedBearerTokenMessage, selectorSchema } from "./auth-methods.js";
import { liveTokenBySecret, selectNamespace, checkNamespaceParameter, type RequestScope } from "./authorization.js";
import { isValidBindName, rulesOf } from "./binding-rules.js";
import { aclError, aclNotFound, invalid } from "./errors.js";
import { roleByName } from "./links.js";
import { compileBindName, compileSelector, type Identity } from "./selector/index.js";
import { authMethodKey, type AccessControlState, type NodeIdentity, type ServiceIdentity } from "./state.js";
import { removeToken, setToken } from "./tokens.js";
import { tokenView, type TokenView } from "./views.js";

/** A login request (`POST /acl/login` body). */
export interface LoginInput {
  /** Name of the auth method. */
  readonly authMethod: string;
  /** The bearer token the auth method validates. */
  readonly bearerToken: string;
  /** Free-form metadata, recorded in the token's description. */
  readonly meta?: Readonly<Record<string, string>> | undefined;
  /** Enterprise: the auth method's namespace. */
  readonly namespace?: string | undefined;
}

/** What the matching rules bind. */
export interface Bindings {
  readonly serviceIdentities: ServiceIdentity[];
  readonly nodeIdentities: NodeIdentity[];
  /** Role IDs. */
  readonly roles: string[];
}

/** A string as Go's `encoding/json` writes it: `<`, `>`, `&`, U+2028 and U+2029 escaped too. */
function goJsonString(text: string): string {
  return JSON.stringify(text).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** `meta` as Go's `json.Marshal` writes a `map[string]string`: keys sorted by their UTF-8 bytes. */
function goMapJson(meta: Readonly<Record<string, string>>): string {
  const keys = Object.keys(meta).sort((a, b) => Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8")));
  return `{${keys.map((k) => `${goJsonString(k)}:${goJsonString(meta[k] ?? "")}`).join(",")}}`;
}

/**
 * Applies the rules of the auth method `methodName` (in `namespace`) to `identity`.
 * @throws {DomainError} `invalid` when a matching rule's BindName cannot be computed for this
 * identity or computes an invalid name.
 * @example evaluateBindings(state, "k8s", "default", { serviceaccount: { name: "web", namespace: "default", uid: "" } }).serviceIdentities
 */
export function evaluateBindings(state: AccessControlState, methodName: string, namespace: string, identity: Identity): Bindings {
  const method = state.authMethods[authMethodKey(namespace, methodName)];
  const bindings: Bindings = { serviceIdentities: [], nodeIdentities: [], roles: [] };
  if (!method) return bindings;
  for (const rule of rulesOf(state, method)) {
    let matches: boolean;
    try {
      matches = compileSelector(rule.selector, selectorSchema(method)).matches(identity);
    } catch (error) {
      if (!isDomainError(error)) throw error;
      matches = false;
    }
    if (!matches) continue;
    let name: string;
    try {
      name = compileBindName(rule.bindName, bindNameSchema(method)).render(identity, { lowercase: true });
    } catch (error) {
      if (!isDomainError(error)) throw error;
      throw invalid("login", `cannot compute "${rule.bindType}" bind name for bind target: ${error.detail}`);
    }
    if (!isValidBindName(rule.bindType, name)) {
      throw invalid("login", `computed "${rule.bindType}" bind name for bind target is invalid: "${name}"`);
    }
    if (rule.bindType === "service") {
      if (!bindings.serviceIdentities.some((s) => s.serviceName === name)) bindings.serviceIdentities.push({ serviceName: name, datacenters: [] });
    } else if (rule.bindType === "node") {
      const datacenter = state.settings.localDatacenter;
      if (!bindings.nodeIdentities.some((n) => n.nodeName === name && n.datacenter === datacenter)) {
        bindings.nodeIdentities.push({ nodeName: name, datacenter });
      }
    } else {
      const role = roleByName(state, name, method.namespace);
      if (role && !bindings.roles.includes(role.id)) bindings.roles.push(role.id);
    }
  }
  return bindings;
}

/**
 * Logs in (`POST /acl/login`): needs no token. The new token has Description `token created via
 * login` (plus `: <meta as JSON>` when meta is given), `AuthMethod` set, `Local` true unless the
 * method's token locality is `global`, and expires after the method's max token TTL (if any).
 * @returns the new token, SecretID shown.
 * @throws {DomainError} `unauthenticated` (403 `ACL not found: auth method "x" not found`),
 * `invalid` (500) for a bearer token the method does not accept, `forbidden` (403 `Permission
 * denied`) when no rule binds anything.
 * @example login(ctx, {}, { authMethod: "k8s", bearerToken: "jwt-of-web" })
 */
export function login(ctx: OperationContext<AccessControlState>, scope: RequestScope, input: LoginInput): TokenView {
  const operation = "login";
  const { state } = ctx;
  checkNamespaceParameter(state, scope, operation);
  const namespace = selectNamespace(state, scope, undefined, input.namespace);
  const method = state.authMethods[authMethodKey(namespace, input.authMethod)];
  if (!method) throw aclNotFound(operation, `ACL not found: auth method "${input.authMethod}" not found`);
  const identity = method.bearerTokens[input.bearerToken];
  if (input.bearerToken === "" || identity === undefined) throw invalid(operation, rejectedBearerTokenMessage(method), method.name);
  const bindings = evaluateBindings(state, method.name, method.namespace, identity);
  if (bindings.serviceIdentities.length + bindings.nodeIdentities.length + bindings.roles.length === 0) {
    throw aclError("forbidden", operation, "Permission denied", { resource: method.name });
  }
  const meta = input.meta ?? {};
  const description = Object.keys(meta).length === 0 ? "token created via login" : `token created via login: ${goMapJson(meta)}`;
  const record = setToken(
    ctx,
    {
      description,
      roles: bindings.roles.map((id) => ({ id })),
      serviceIdentities: bindings.serviceIdentities,
      nodeIdentities: bindings.nodeIdentities,
      local: method.tokenLocality !== "global",
      authMethod: method.name,
      expirationTtlMs: method.maxTokenTtlMs,
    },
    method.namespace,
    { create: true, fromLogin: true, operation, authMethodNamespace: method.namespace },
  );
  traceTokenEvent(ctx, "logged-in");
  return tokenView(state, record, true);
}

/**
 * Logs out (`POST /acl/logout`): destroys the login-created token whose secret is presented.
 * (The HTTP layer answers a request without any secret itself: 401 `Supplied token does not exist`.)
 * @returns `true`.
 * @throws {DomainError} `unauthenticated` (403 `ACL not found`) without a secret or for an unknown
 * one, `forbidden` (403 `Permission denied: token wasn't created via login`) for a token not
 * created by login.
 * @example logout(ctx, { secret: loginToken.secretId }) // true
 */
export function logout(ctx: OperationContext<AccessControlState>, scope: RequestScope): true {
  const operation = "logout";
  const token = scope.secret ? liveTokenBySecret(ctx.state, scope.secret, ctx.now) : undefined;
  if (!token) throw aclNotFound(operation);
  if (token.authMethod === "") {
    throw aclError("forbidden", operation, "Permission denied: token wasn't created via login", { resource: token.accessorId });
  }
  removeToken(ctx, token);
  traceTokenEvent(ctx, "logged-out");
  return true;
}
