/**
 * The access-control route table: every endpoint of the spec (token and binding-rule endpoints),
 * login and logout, and the real service's endpoints around them (bootstrap, policies, roles,
 * `/status/leader` and `/status/peers`), as data. Handlers parse the request, call one simulator operation and
 * serialise its answer; reads with `index` block (see `blocking.ts`).
 *
 * Spec: access-control.md "Endpoints".
 */
import {
  createBindingRule,
  deleteBindingRule,
  listBindingRules,
  readBindingRule,
  updateBindingRule,
} from "../../simulator/access-control/binding-rules.js";
import { bootstrapAcl } from "../../simulator/access-control/bootstrap.js";
import { login, logout } from "../../simulator/access-control/login.js";
import {
  createPolicyOperation,
  createRoleOperation,
  deletePolicyOperation,
  deleteRoleOperation,
  listPoliciesOperation,
  listRolesOperation,
  readPolicyOperation,
  readRoleOperation,
  updatePolicyOperation,
  updateRoleOperation,
} from "../../simulator/access-control/policies.js";
import { checkNamespaceParameter, type RequestScope } from "../../simulator/access-control/authorization.js";
import { ACCESS_CONTROL, LEADER_ADDRESS, type AccessControlState } from "../../simulator/access-control/state.js";
import {
  cloneToken,
  createToken,
  deleteToken,
  listTokens,
  readSelf,
  readToken,
  updateToken,
} from "../../simulator/access-control/tokens.js";
import type { ExpandedTokenView, TokenView } from "../../simulator/access-control/views.js";
import type { OperationContext, ReadContext } from "../../simulator/kernel/simulator.js";
import { DomainError, isDomainError } from "../../simulator/kernel/errors.js";
import { json, type Route, type RouteContext, type SimResponse } from "../http.js";
import { ANY_METHOD, matchPath, routeEndpoint } from "../router.js";
import { blockingRead } from "./blocking.js";
import {
  decodeBindingRuleBody,
  decodeCloneBody,
  decodeLoginBody,
  decodePolicyBody,
  decodeRoleBody,
  decodeTokenBody,
  type BodyOptions,
} from "./bodies.js";
import { accessControlNoRoute } from "./errors.js";
import { requestScope } from "./request-scope.js";
import { bindingRuleWire, bootstrapWire, expandedTokenWire, policyListWire, policyWire, roleWire, tokenWire } from "./wire.js";

function write<R>(ctx: RouteContext, operation: (op: OperationContext<AccessControlState>) => R): R {
  return ctx.sim.update<AccessControlState, R>(ACCESS_CONTROL, operation);
}

function read<R>(ctx: RouteContext, operation: (op: ReadContext<AccessControlState>) => R): R {
  return ctx.sim.read<AccessControlState, R>(ACCESS_CONTROL, operation);
}

/**
 * What a write needs before its body is read: the namespace hints are checked first (the real
 * service parses them before decoding the body), and the decoders learn whether `Namespace` is a
 * field (the enterprise option).
 */
function beforeBody(ctx: RouteContext, scope: RequestScope, operation: string): BodyOptions {
  return read(ctx, (op) => {
    checkNamespaceParameter(op.state, scope, operation);
    return { namespaces: op.state.settings.namespaces };
  });
}

function badRequest(operation: string, message: string): DomainError {
  return new DomainError({ code: "malformed", service: ACCESS_CONTROL, operation, message });
}

function maxIndex(items: readonly { modifyIndex: number }[]): number {
  return items.reduce((max, item) => Math.max(max, item.modifyIndex), 0);
}

const FALSE_VALUES = new Set(["0", "f", "F", "false", "FALSE", "False"]);

/** `?expanded` turns expansion on when present (`?expanded`, `?expanded=true`), unless it is a Go false value. */
function isExpandedQuery(query: URLSearchParams): boolean {
  const value = query.get("expanded");
  return value !== null && !FALSE_VALUES.has(value);
}

function isExpanded(view: TokenView | ExpandedTokenView): view is ExpandedTokenView {
  return "expandedPolicies" in view;
}

/**
 * Runs a read whose "not found" the real service answers with another status: a missing policy is
 * `403 ACL not found` (its read handler returns the ACL "not found" error). The error keeps its
 * `not_found` code, so a blocking read still waits for the policy to appear.
 */
function notFoundAs<R>(status: number, compute: () => R): R {
  try {
    return compute();
  } catch (error) {
    if (!isDomainError(error) || error.code !== "not_found") throw error;
    throw new DomainError({ code: "not_found", service: ACCESS_CONTROL, operation: error.operation, message: error.detail, status, ...(error.resource === undefined ? {} : { resource: error.resource }) });
  }
}

/** The id in the URL and the body's `ID` must agree (400 `<Kind> ID in URL and payload do not match`). */
function checkBodyId(operation: string, kind: string, urlId: string, bodyId: string | undefined): void {
  if (urlId === "") {
    if (bodyId !== undefined && bodyId !== "") throw badRequest(operation, `Cannot specify the ID when creating a new ${kind.toLowerCase()}`);
    return;
  }
  if (bodyId !== undefined && bodyId !== "" && bodyId !== urlId) throw badRequest(operation, `${kind} ID in URL and payload do not match`);
}

/**
 * Policy, role, bootstrap and status endpoints (outside the spec, which says "Policy and role
 * records as standalone resources: not shown"): the real service's, over the same records the
 * fixtures make (docs/decisions/access-control.md, "Policies and roles", "ACL bootstrap").
 */
const policyAndRoleEndpoints: Route[] = [
  {
    method: "PUT",
    path: "/acl/bootstrap",
    operation: "bootstrap",
    handler: (ctx) => json(200, bootstrapWire(write(ctx, (op) => bootstrapAcl(op)))),
  },
  {
    method: "PUT",
    path: "/acl/policy",
    operation: "create policy",
    handler: (ctx) => {
      const operation = "create policy";
      const scope = requestScope(ctx.request, ctx.query);
      const input = decodePolicyBody(ctx.request, operation, beforeBody(ctx, scope, operation));
      checkBodyId(operation, "Policy", "", input.id);
      return json(200, policyWire(write(ctx, (op) => createPolicyOperation(op, scope, input))));
    },
  },
  {
    method: "GET",
    path: "/acl/policy/name/:name",
    operation: "read policy by name",
    handler: (ctx) => {
      const scope = requestScope(ctx.request, ctx.query);
      const name = ctx.params.name ?? "";
      return blockingRead(ctx, () =>
        notFoundAs(403, () => {
          const view = read(ctx, (op) => readPolicyOperation(op, scope, name, "name"));
          return { value: policyWire(view), index: view.modifyIndex };
        }),
      );
    },
  },
  {
    method: "GET",
    path: "/acl/policy/:id",
    operation: "read policy",
    handler: (ctx) => {
      const scope = requestScope(ctx.request, ctx.query);
      const id = ctx.params.id ?? "";
      return blockingRead(ctx, () =>
        notFoundAs(403, () => {
          const view = read(ctx, (op) => readPolicyOperation(op, scope, id));
          return { value: policyWire(view), index: view.modifyIndex };
        }),
      );
    },
  },
  {
    method: "PUT",
    path: "/acl/policy/:id",
    operation: "update policy",
    handler: (ctx) => {
      const operation = "update policy";
      const scope = requestScope(ctx.request, ctx.query);
      const input = decodePolicyBody(ctx.request, operation, beforeBody(ctx, scope, operation));
      const id = ctx.params.id ?? "";
      checkBodyId(operation, "Policy", id, input.id);
      return json(200, policyWire(write(ctx, (op) => updatePolicyOperation(op, scope, id, input))));
    },
  },
  {
    method: "DELETE",
    path: "/acl/policy/:id",
    operation: "delete policy",
    handler: (ctx) => {
      const scope = requestScope(ctx.request, ctx.query);
      const id = ctx.params.id ?? "";
      return json(200, write(ctx, (op) => deletePolicyOperation(op, scope, id)));
    },
  },
  {
    method: "GET",
    path: "/acl/policies",
    operation: "list policies",
    handler: (ctx) => {
      const scope = requestScope(ctx.request, ctx.query);
      return blockingRead(ctx, () => {
        const views = read(ctx, (op) => listPoliciesOperation(op, scope));
        return { value: views.map(policyListWire), index: maxIndex(views) };
      });
    },
  },
  {
    method: "PUT",
    path: "/acl/role",
    operation: "create role",
    handler: (ctx) => {
      const operation = "create role";
      const scope = requestScope(ctx.request, ctx.query);
      const input = decodeRoleBody(ctx.request, operation, beforeBody(ctx, scope, operation));
      checkBodyId(operation, "Role", "", input.id);
      return json(200, roleWire(write(ctx, (op) => createRoleOperation(op, scope, input))));
    },
  },
  {
    method: "GET",
    path: "/acl/role/name/:name",
    operation: "read role by name",
    handler: (ctx) => {
      const scope = requestScope(ctx.request, ctx.query);
      const name = ctx.params.name ?? "";
      return blockingRead(ctx, () => {
        const view = read(ctx, (op) => readRoleOperation(op, scope, name, "name"));
        return { value: roleWire(view), index: view.modifyIndex };
      });
    },
  },
  {
    method: "GET",
    path: "/acl/role/:id",
    operation: "read role",
    handler: (ctx) => {
      const scope = requestScope(ctx.request, ctx.query);
      const id = ctx.params.id ?? "";
      return blockingRead(ctx, () => {
        const view = read(ctx, (op) => readRoleOperation(op, scope, id));
        return { value: roleWire(view), index: view.modifyIndex };
      });
    },
  },
  {
    method: "PUT",
    path: "/acl/role/:id",
    operation: "update role",
    handler: (ctx) => {
      const operation = "update role";
      const scope = requestScope(ctx.request, ctx.query);
      const input = decodeRoleBody(ctx.request, operation, beforeBody(ctx, scope, operation));
      const id = ctx.params.id ?? "";
      checkBodyId(operation, "Role", id, input.id);
      return json(200, roleWire(write(ctx, (op) => updateRoleOperation(op, scope, id, input))));
    },
  },
  {
    method: "DELETE",
    path: "/acl/role/:id",
    operation: "delete role",
    handler: (ctx) => {
      const scope = requestScope(ctx.request, ctx.query);
      const id = ctx.params.id ?? "";
      return json(200, write(ctx, (op) => deleteRoleOperation(op, scope, id)));
    },
  },
  {
    method: "GET",
    path: "/acl/roles",
    operation: "list roles",
    handler: (ctx) => {
      const scope = requestScope(ctx.request, ctx.query);
      const policy = ctx.query.get("policy") ?? undefined;
      return blockingRead(ctx, () => {
        const views = read(ctx, (op) => listRolesOperation(op, scope, { policy }));
        return { value: views.map(roleWire), index: maxIndex(views) };
      });
    },
  },
  {
    method: "GET",
    path: "/status/leader",
    operation: "read leader",
    // One simulated server, always the leader; status endpoints need no token.
    handler: () => json(200, LEADER_ADDRESS),
  },
  {
    method: "GET",
    path: "/status/peers",
    operation: "list peers",
    handler: () => json(200, [LEADER_ADDRESS]),
  },
];

/** The endpoints, most specific paths first (`/acl/token/self` before `/acl/token/:AccessorID`). */
const endpoints: Route[] = [
  {
    method: "PUT",
    path: "/acl/token",
    operation: "create token",
    handler: (ctx) => {
      const scope = requestScope(ctx.request, ctx.query);
      const input = decodeTokenBody(ctx.request, "create token", beforeBody(ctx, scope, "create token"));
      return json(200, tokenWire(write(ctx, (op) => createToken(op, scope, input))));
    },
  },
  {
    method: "GET",
    path: "/acl/token/self",
    operation: "read own token",
    handler: (ctx) => {
      const scope = requestScope(ctx.request, ctx.query);
      return blockingRead(ctx, () => {
        const view = read(ctx, (op) => readSelf(op, scope));
        return { value: tokenWire(view), index: view.modifyIndex };
      });
    },
  },
  {
    method: "PUT",
    path: "/acl/token/:AccessorID/clone",
    operation: "clone token",
    handler: (ctx) => {
      const scope = requestScope(ctx.request, ctx.query);
      const input = decodeCloneBody(ctx.request, beforeBody(ctx, scope, "clone token"));
      const id = ctx.params.AccessorID ?? "";
      return json(200, tokenWire(write(ctx, (op) => cloneToken(op, scope, id, input))));
    },
  },
  {
    method: "GET",
    path: "/acl/token/:AccessorID",
    operation: "read token",
    handler: (ctx) => {
      const scope = requestScope(ctx.request, ctx.query);
      const id = ctx.params.AccessorID ?? "";
      const expanded = isExpandedQuery(ctx.query);
      return blockingRead(ctx, () => {
        const view = read(ctx, (op) => readToken(op, scope, id, expanded));
        return { value: isExpanded(view) ? expandedTokenWire(view) : tokenWire(view), index: view.modifyIndex };
      });
    },
  },
  {
    method: "PUT",
    path: "/acl/token/:AccessorID",
    operation: "update token",
    handler: (ctx) => {
      const operation = "update token";
      const scope = requestScope(ctx.request, ctx.query);
      const input = decodeTokenBody(ctx.request, operation, beforeBody(ctx, scope, operation));
      const id = ctx.params.AccessorID ?? "";
      if (input.accessorId !== undefined && input.accessorId !== "" && input.accessorId !== id) {
        throw badRequest(operation, "Token Accessor ID in URL and payload do not match");
      }
      return json(200, tokenWire(write(ctx, (op) => updateToken(op, scope, id, input))));
    },
  },
  {
    method: "DELETE",
    path: "/acl/token/:AccessorID",
    operation: "delete token",
    handler: (ctx) => {
      const scope = requestScope(ctx.request, ctx.query);
      const id = ctx.params.AccessorID ?? "";
      return json(200, write(ctx, (op) => deleteToken(op, scope, id)));
    },
  },
  {
    method: "GET",
    path: "/acl/tokens",
    operation: "list tokens",
    handler: (ctx) => {
      const scope = requestScope(ctx.request, ctx.query);
      const filters = {
        policy: ctx.query.get("policy") ?? undefined,
        role: ctx.query.get("role") ?? undefined,
        serviceName: ctx.query.get("servicename") ?? undefined,
        authMethod: ctx.query.get("authmethod") ?? undefined,
        authMethodNamespace: ctx.query.get("authmethod-ns") ?? undefined,
      };
      return blockingRead(ctx, () => {
        const views = read(ctx, (op) => listTokens(op, scope, filters));
        return { value: views.map((v) => tokenWire(v)), index: maxIndex(views) };
      });
    },
  },
  {
    method: "PUT",
    path: "/acl/binding-rule",
    operation: "create binding rule",
    handler: (ctx) => {
      const operation = "create binding rule";
      const scope = requestScope(ctx.request, ctx.query);
      const input = decodeBindingRuleBody(ctx.request, operation, beforeBody(ctx, scope, operation));
      // The real create handler is the update handler with an empty URL id, so any body ID mismatches.
      if (input.id !== undefined && input.id !== "") throw badRequest(operation, "BindingRule ID in URL and payload do not match");
      return json(200, bindingRuleWire(write(ctx, (op) => createBindingRule(op, scope, input))));
    },
  },
  {
    method: "GET",
    path: "/acl/binding-rule/:id",
    operation: "read binding rule",
    handler: (ctx) => {
      const scope = requestScope(ctx.request, ctx.query);
      const id = ctx.params.id ?? "";
      return blockingRead(ctx, () => {
        const view = read(ctx, (op) => readBindingRule(op, scope, id));
        return { value: bindingRuleWire(view), index: view.modifyIndex };
      });
    },
  },
  {
    method: "PUT",
    path: "/acl/binding-rule/:id",
    operation: "update binding rule",
    handler: (ctx) => {
      const operation = "update binding rule";
      const scope = requestScope(ctx.request, ctx.query);
      const input = decodeBindingRuleBody(ctx.request, operation, beforeBody(ctx, scope, operation));
      const id = ctx.params.id ?? "";
      if (input.id !== undefined && input.id !== "" && input.id !== id) {
        throw badRequest(operation, "BindingRule ID in URL and payload do not match");
      }
      return json(200, bindingRuleWire(write(ctx, (op) => updateBindingRule(op, scope, id, input))));
    },
  },
  {
    method: "DELETE",
    path: "/acl/binding-rule/:id",
    operation: "delete binding rule",
    handler: (ctx) => {
      const scope = requestScope(ctx.request, ctx.query);
      const id = ctx.params.id ?? "";
      return json(200, write(ctx, (op) => deleteBindingRule(op, scope, id)));
    },
  },
  {
    method: "GET",
    path: "/acl/binding-rules",
    operation: "list binding rules",
    handler: (ctx) => {
      const scope = requestScope(ctx.request, ctx.query);
      const authMethod = ctx.query.get("authmethod") ?? undefined;
      return blockingRead(ctx, () => {
        const views = read(ctx, (op) => listBindingRules(op, scope, { authMethod }));
        return { value: views.map((v) => bindingRuleWire(v, true)), index: maxIndex(views) };
      });
    },
  },
  {
    method: "POST",
    path: "/acl/login",
    operation: "login",
    handler: (ctx) => {
      const scope = requestScope(ctx.request, ctx.query);
      const input = decodeLoginBody(ctx.request, beforeBody(ctx, scope, "login"));
      return json(200, tokenWire(write(ctx, (op) => login(op, { ...scope, secret: undefined }, input))));
    },
  },
  {
    method: "POST",
    path: "/acl/logout",
    operation: "logout",
    handler: (ctx) => {
      const scope = requestScope(ctx.request, ctx.query);
      // The real HTTP handler refuses a logout without any token before asking the servers.
      if (scope.secret === undefined) {
        throw new DomainError({ code: "unauthenticated", service: ACCESS_CONTROL, operation: "logout", message: "Supplied token does not exist", status: 401 });
      }
      return json(200, write(ctx, (op) => logout(op, scope)));
    },
  },
  ...policyAndRoleEndpoints,
];

/** The methods the real router would list in `Allow` for `path`: `OPTIONS`, then the served ones. */
function allowedMethods(path: string): string[] {
  const methods = endpointsAt(path).flatMap((route) => (typeof route.method === "string" ? [route.method] : route.method));
  return methods.length === 0 ? [] : ["OPTIONS", ...new Set(methods)];
}

function endpointsAt(path: string): Route[] {
  return endpoints.filter((route) => matchPath(route.path, path) !== undefined);
}

/** 405 naming the endpoints at this path as route patterns (never the client's path, which may be long). */
function methodNotAllowed(ctx: RouteContext): SimResponse {
  const allow = allowedMethods(ctx.path);
  const nearest = endpointsAt(ctx.path).flatMap((route) =>
    (typeof route.method === "string" ? [route.method] : route.method).map((m) => `${m} /v1${route.path}`),
  );
  return accessControlNoRoute(ctx.request, nearest, allow.length > 0, allow);
}

/**
 * `GET`/`DELETE` on the collection paths. The real router serves `/acl/token` (and
 * `/acl/binding-rule`) for `PUT` only (405 otherwise), and `/acl/token/` with an empty id is its
 * own handler's `400 Missing token AccessorID` (`Missing binding rule ID`).
 */
function missingId(message: string, operation: string): Route["handler"] {
  return (ctx) => {
    if (!ctx.request.url.pathname.endsWith("/")) return methodNotAllowed(ctx);
    throw badRequest(operation, message);
  };
}

const missingIdRoutes: Route[] = [
  { method: ["GET", "DELETE"], path: "/acl/token", handler: missingId("Missing token AccessorID", "read token") },
  { method: ["GET", "DELETE"], path: "/acl/binding-rule", handler: missingId("Missing binding rule ID", "read binding rule") },
  { method: ["GET", "DELETE"], path: "/acl/policy", handler: missingId("Missing policy ID", "read policy") },
  { method: ["GET", "DELETE"], path: "/acl/role", handler: missingId("Missing role ID", "read role") },
];

/**
 * The last row: any other path under `/acl/` is answered by this service (404, or 405 with an
 * `Allow` header when the path exists for another method), so no other service mounted on the same
 * base swallows it.
 */
const fallback: Route = {
  method: ANY_METHOD,
  path: "/acl/*rest",
  handler: (ctx): SimResponse => methodNotAllowed(ctx),
};

/**
 * The service's endpoints (spec: access-control.md "Token endpoints", "Binding-rule endpoints",
 * login and logout): the route rows before the missing-id and fallback rows.
 * @example ACCESS_CONTROL_ENDPOINTS.includes("PUT /acl/token/:AccessorID/clone") // true
 */
export const ACCESS_CONTROL_ENDPOINTS: readonly string[] = Object.freeze(
  endpoints.flatMap((route) => (typeof route.method === "string" ? [route.method] : route.method).flatMap((method) => routeEndpoint(route, method) ?? [])),
);

/** Every route of the access-control service, in matching order. */
export const accessControlRoutes: readonly Route[] = [...endpoints, ...missingIdRoutes, fallback];
