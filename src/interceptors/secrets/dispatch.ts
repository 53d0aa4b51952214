/**
 * The secrets service's request pipeline, in the real service's order: namespace, health (answers
 * even when sealed), sealed / DR-secondary refusal, the logical operation, the service's own routes
 * (`sys/...`, `identity/...`) or the engine mounted at the longest matching path, the token and its
 * policy capabilities, the handler, then the response envelope.
 *
 * Spec: secrets.md "Endpoints", "Authentication"; FIDELITY.md "Secrets".
 */
import { SECRETS_ANSWERS } from "./answers.js";
import { json, type HttpService, type NamedRoute, type RouteContext, type SimResponse } from "../http.js";
import { ANY_METHOD, matchPath } from "../router.js";
import type { OperationContext, ReadContext, Simulator } from "../../simulator/kernel/simulator.js";
import type { Capability, Caller } from "../../simulator/secrets/engine.js";
import { engineContext, engineReadContext } from "../../simulator/secrets/engine-runtime.js";
import type { EngineRegistry } from "../../simulator/secrets/engines.js";
import { SECRETS, secretsError } from "../../simulator/secrets/errors.js";
import { findMount } from "../../simulator/secrets/mounts.js";
import { resolveNamespace } from "../../simulator/secrets/namespaces.js";
import { assertServing, traceNodeState } from "../../simulator/secrets/node-state.js";
import type { SecretsState } from "../../simulator/secrets/state.js";
import { useToken } from "../../simulator/secrets/token-store.js";
import { liveToken, requireCapabilities, resolveCaller } from "../../simulator/secrets/tokens.js";
import type { CoreRoute, CoreRouteContext } from "./core-route.js";
import type { EngineResult, EngineRoute, EngineRouteContext } from "./engine-routes.js";
import type { EngineHttpRegistry } from "./engines.js";
import { envelope } from "./envelope.js";
import { noHandlerResponse, secretsErrorResponse } from "./error-response.js";
import { SECRETS_FAULT_ANSWERS } from "./fault-answers.js";
import { healthResponse } from "./health-route.js";
import { requestWrapTtlMs, wrapResponse } from "./wrap-header.js";
import { header, operationOf, requestData, unsupportedOperation, unsupportedPath, type Operation } from "./request.js";

/** The token header. */
export const TOKEN_HEADER = "x-secrets-token";
/** The namespace header. */
export const NAMESPACE_HEADER = "x-secrets-namespace";
/**
 * The real service's names of the same headers, which its clients send (node-vault, hvac, the Go
 * client): accepted with the same meaning; where both names come, the spec's name wins.
 * (`X-Vault-Request: true`, which the official clients also send, means nothing to the service.)
 * FIDELITY.md "What real clients send and read"; docs/decisions/clients.md.
 */
export const TOKEN_HEADER_ALIAS = "x-vault-token";
/** See {@link TOKEN_HEADER_ALIAS}. */
export const NAMESPACE_HEADER_ALIAS = "x-vault-namespace";


/** What the pipeline works with. */
export interface SecretsPipeline {
  readonly engines: EngineRegistry;
  readonly engineHttp: EngineHttpRegistry;
  readonly coreRoutes: readonly CoreRoute[];
}

/**
 * The secrets service's HTTP face: one catch-all route per method under the API base, so
 * mounts made at run time are reachable. On a shared origin it must be mounted after services
 * with more specific routes under the same base (the access-control service's `/acl/...`).
 */
export function createSecretsHttpService(pipeline: SecretsPipeline): HttpService {
  return {
    name: SECRETS,
    routes: [{ method: ANY_METHOD, path: "/*path", handler: (ctx) => handleSecretsRequest(pipeline, ctx) }],
    errorResponse: (error, request) => secretsErrorResponse(error, request),
    noRoute: () => noHandlerResponse(""),
    faultAnswers: SECRETS_FAULT_ANSWERS,
    answerTable: SECRETS_ANSWERS,
    catalog: (sim) => secretsCatalog(pipeline, sim),
    endpoints: () => secretsEndpoints(pipeline),
    endpointOf: (sim, request, path) => endpointBeforePipeline(pipeline, sim, request, path),
    routeNames: (sim) => secretsRouteNames(pipeline, sim),
    operationNames: Object.keys(SPEC_METHOD),
    routeOf: (sim, request, path) => routeBeforePipeline(pipeline, sim, request, path),
    bodyLimit: SECRETS_BODY_LIMIT,
  };
}

/**
 * The method the spec writes for each operation (coverage names endpoints as the spec does: `POST`
 * stands for POST and PUT, `LIST` for LIST and `GET ?list=true`).
 */
const SPEC_METHOD: Readonly<Record<Operation, string>> = Object.freeze({
  read: "GET",
  list: "LIST",
  "create-or-update": "POST",
  delete: "DELETE",
});

/** The health endpoints' labels. */
const HEALTH_ENDPOINTS: readonly string[] = Object.freeze(["GET /sys/health", "HEAD /sys/health"]);

/** The endpoint label of a core route's operation: `POST /sys/leases/renew`. */
function coreEndpoint(route: CoreRoute, operation: Operation): string {
  return `${SPEC_METHOD[operation]} ${route.path}`;
}

/**
 * The endpoint label of an engine route's operation, at the spec's mount path for its type (the
 * type's name), whatever path it is mounted at: `POST /ssh/sign/:name`. The route's name at the
 * spec's path (`RouteName`): coverage counts per engine type.
 */
function engineEndpoint(type: string, path: string, operation: Operation): string {
  return `${SPEC_METHOD[operation]} /${type}${path}`;
}

/**
 * Every endpoint of the service, whatever is mounted now: health, each core route's operations,
 * and each engine type's routes at the spec's mount path for it (`/ssh/...`, `/cloud/...`; spec:
 * "Engine paths depend on the mount location").
 */
function secretsEndpoints(pipeline: SecretsPipeline): string[] {
  const labels = [...HEALTH_ENDPOINTS];
  for (const route of pipeline.coreRoutes) for (const operation of route.operations) labels.push(coreEndpoint(route, operation));
  for (const [type, http] of Object.entries(pipeline.engineHttp)) {
    for (const route of http.routes) for (const operation of route.operations) labels.push(engineEndpoint(type, route.path, operation));
  }
  return [...new Set(labels)];
}

/**
 * The service's route names, as its spec writes them (the vocabulary faults, journal filters and
 * matchers check against): health, each core route's operations, and each engine type's routes at
 * the spec's mount path for it (`/ssh/...`, `/cloud/...`: the type's name); with `sim`, also each
 * engine route under every path something is mounted at now (`/ssh-prod/creds/:name`), as the
 * journal names requests to it. Methods are the spec's: `POST` stands for POST and PUT, `LIST`
 * for LIST and `GET ?list=true`.
 */
function secretsRouteNames(pipeline: SecretsPipeline, sim: Simulator | undefined): string[] {
  const names = [...HEALTH_ENDPOINTS];
  for (const route of pipeline.coreRoutes) for (const operation of route.operations) names.push(coreEndpoint(route, operation));
  const mounts: { path: string; type: string }[] = Object.keys(pipeline.engineHttp).map((type) => ({ path: type, type }));
  if (sim !== undefined) for (const mount of sim.read<SecretsState, { path: string; type: string }[]>(SECRETS, (ctx) => Object.values(ctx.state.mounts).map((m) => ({ path: m.path, type: m.type })))) mounts.push(mount);
  for (const mount of mounts) {
    for (const route of pipeline.engineHttp[mount.type]?.routes ?? []) for (const operation of route.operations) names.push(`${SPEC_METHOD[operation]} /${mount.path}${route.path}`);
  }
  return [...new Set(names)];
}

/**
 * The route a request is for, as the pipeline would describe it (from its method and path alone:
 * no token, node state or body read), or undefined when its method or path names none: what
 * {@link HttpService.routeOf} asks of the secrets service.
 */
function routeBeforePipeline(pipeline: SecretsPipeline, sim: Simulator, request: RouteContext["request"], routePath: string): NamedRoute | undefined {
  const rawPath = decodePath(routePath).replace(/^\/+/, "");
  const resolved = sim.read<SecretsState, ReturnType<typeof resolveNamespace>>(SECRETS, (ctx) => resolveNamespace(ctx.state, requestNamespace(request), rawPath));
  if (resolved === undefined) return undefined;
  const { namespace, path } = resolved;
  if (isHealthPath(path)) return { route: "/sys/health", operation: "read", method: request.method };
  const found = findRoute(pipeline, sim, request, namespace, path);
  if (found === undefined) return undefined;
  const method = SPEC_METHOD[found.operation];
  return found.mount === undefined ? { route: found.route.path, operation: found.operation, method } : { route: `/${found.mount.path}${found.route.path}`, operation: found.operation, method };
}

/**
 * The real service's default `max_request_size`: 32 MiB. A longer body is answered 413 with the
 * real wording (its JSON decoder reads through `http.MaxBytesReader`, and
 * `AdjustErrorStatusCode` turns `http: request body too large` into 413).
 */
export const SECRETS_MAX_REQUEST_BYTES = 32 * 1024 * 1024;

const SECRETS_BODY_LIMIT = Object.freeze({
  maxBytes: SECRETS_MAX_REQUEST_BYTES,
  tooLarge: () => json(413, { errors: ["failed to parse JSON input: http: request body too large"] }),
});

const METHODS_OF: Readonly<Record<Operation, readonly string[]>> = Object.freeze({
  read: ["GET"],
  list: ["LIST", "GET"],
  "create-or-update": ["POST", "PUT"],
  delete: ["DELETE"],
});

/**
 * The endpoints that exist now, as `METHOD /path` labels relative to `/v1`: health, the core's
 * routes and each mount's engine routes under its path (for naming the nearest ones).
 */
function secretsCatalog(pipeline: SecretsPipeline, sim: Simulator): string[] {
  const labels = ["GET /sys/health", "HEAD /sys/health"];
  const add = (operations: readonly Operation[], path: string): void => {
    for (const operation of operations) for (const method of METHODS_OF[operation] ?? []) labels.push(`${method} ${path}`);
  };
  for (const route of pipeline.coreRoutes) add(route.operations, route.path);
  const mounts = sim.read<SecretsState, readonly { path: string; type: string }[]>(SECRETS, (ctx) => Object.values(ctx.state.mounts));
  for (const mount of mounts) {
    for (const route of pipeline.engineHttp[mount.type]?.routes ?? []) add(route.operations, `/${mount.path}${route.path}`);
  }
  return labels;
}

function decodePath(raw: string): string {
  return raw
    .split("/")
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        return segment;
      }
    })
    .join("/");
}

/** Runs one request through the pipeline (errors are thrown as domain errors for `errorResponse`). */
export function handleSecretsRequest(pipeline: SecretsPipeline, route: RouteContext): SimResponse {
  const { sim, request } = route;
  const rawPath = decodePath(route.path).replace(/^\/+/, "");
  const resolved = sim.read<SecretsState, ReturnType<typeof resolveNamespace>>(SECRETS, (ctx) => {
    traceNodeState(ctx, ctx.state.node.state);
    return resolveNamespace(ctx.state, requestNamespace(request), rawPath);
  });
  if (resolved === undefined) return noHandlerResponse(rawPath);
  const { namespace, path } = resolved;
  if (path.replace(/\/+$/, "") === "sys/health") {
    if (route.endpoint && (request.method === "GET" || request.method === "HEAD")) route.endpoint.label = `${request.method} /sys/health`;
    route.describe?.("/sys/health", "read", request.method);
    return healthResponse(sim, request, namespace);
  }

  // Coverage: a request refused before routing (sealed, standby, a body that is not JSON) still
  // counts for the endpoint its path and method name.
  if (route.endpoint) route.endpoint.label = endpointOf(pipeline, sim, request, namespace, path);
  // `sys/seal-status` and `sys/init` answer in every node state, as health does.
  if (!servesSealed(pipeline.coreRoutes, path)) sim.read<SecretsState, void>(SECRETS, (ctx) => assertServing(ctx.state.node, `${request.method} ${path}`));
  const operation = operationOf(request);

  const body = requestData(request, operation);
  // X-Vault-Wrap-TTL: parsed before the token check (a bad value is a 400, as the real HTTP layer answers).
  const wrapTtlMs = requestWrapTtlMs(request);
  const answer = (response: SimResponse): SimResponse => (wrapTtlMs === undefined ? response : wrapResponse(sim, response, wrapTtlMs, path.replace(/\/+$/, ""), namespace));
  // The token and its policy are checked before the path is known to exist: a caller who may not
  // touch a path learns nothing about it (403), one who may gets the 404/405.
  const guardUnrouted = (): void => {
    const caller = authenticate(sim, route, namespace, false, `${request.method} ${path}`);
    if (caller !== undefined) requireCapabilities(caller, policyPath(path, operation), defaultCapabilities(operation, undefined), `${request.method} ${path}`);
  };

  let core: ReturnType<typeof matchCoreRoute>;
  try {
    core = matchCoreRoute(pipeline.coreRoutes, path, operation);
  } catch (error) {
    guardUnrouted();
    throw error;
  }
  if (core !== undefined) return answer(runCoreRoute(pipeline, route, core, operation, namespace, path, body));

  const mounted = sim.read<SecretsState, ReturnType<typeof findMount>>(SECRETS, (ctx) => findMount(ctx.state, namespace + path));
  if (mounted === undefined) {
    guardUnrouted();
    return noHandlerResponse(path);
  }
  const http = pipeline.engineHttp[mounted.mount.type];
  let match: ReturnType<typeof matchEngineRoute>;
  try {
    if (http === undefined) throw unsupportedPath();
    match = matchEngineRoute(http.routes, mounted.rest, operation);
  } catch (error) {
    guardUnrouted();
    throw error;
  }
  if (route.endpoint) route.endpoint.label = engineEndpoint(mounted.mount.type, match.route.path, operation);
  return answer(runEngineRoute(pipeline, route, match, operation, namespace, path, mounted.mount.path, body));
}

/** Whether `path` is a core route that answers while sealed (`servesSealed`). */
function servesSealed(routes: readonly CoreRoute[], path: string): boolean {
  const encoded = reencodePath(`/${path}`);
  return routes.some((route) => route.servesSealed === true && matchPath(route.path, encoded) !== undefined);
}

/**
 * The endpoint label a request is for, from its method and path alone (no token, node state or
 * body read): health, a core route or an engine route of the mount at the longest matching path,
 * or undefined when the method or path names none. For coverage only.
 */
function endpointOf(pipeline: SecretsPipeline, sim: Simulator, request: RouteContext["request"], namespace: string, path: string): string | undefined {
  if (isHealthPath(path)) return request.method === "GET" || request.method === "HEAD" ? `${request.method} /sys/health` : undefined;
  const found = findRoute(pipeline, sim, request, namespace, path);
  if (found === undefined) return undefined;
  return found.mount === undefined ? coreEndpoint(found.route, found.operation) : engineEndpoint(found.mount.type, found.route.path, found.operation);
}

function isHealthPath(path: string): boolean {
  return path.replace(/\/+$/, "") === "sys/health";
}

/**
 * The route a request (not health) is for, from its method and path alone (no token, node state or
 * body read): a core route, or an engine route of the mount at the longest matching path (with that
 * mount); undefined when the method or path names none. Shared by the journal's route name
 * ({@link routeBeforePipeline}) and coverage's endpoint label ({@link endpointOf}).
 */
function findRoute(
  pipeline: SecretsPipeline,
  sim: Simulator,
  request: RouteContext["request"],
  namespace: string,
  path: string,
): { readonly route: SecretsPipeline["coreRoutes"][number]; readonly operation: Operation; readonly mount?: undefined } | { readonly route: { readonly path: string }; readonly operation: Operation; readonly mount: { readonly path: string; readonly type: string } } | undefined {
  let operation: Operation;
  try {
    operation = operationOf(request);
  } catch {
    return undefined;
  }
  const encoded = reencodePath(`/${path}`);
  for (const route of pipeline.coreRoutes) {
    if (route.operations.includes(operation) && matchPath(route.path, encoded) !== undefined) return { route, operation };
  }
  const mounted = sim.read<SecretsState, ReturnType<typeof findMount>>(SECRETS, (ctx) => findMount(ctx.state, namespace + path));
  if (mounted === undefined) return undefined;
  const rest = reencodePath(mounted.rest);
  const engineRoute = pipeline.engineHttp[mounted.mount.type]?.routes.find((r) => r.operations.includes(operation) && matchPath(r.path, rest) !== undefined);
  return engineRoute === undefined ? undefined : { route: engineRoute, operation, mount: mounted.mount };
}

/**
 * The endpoint label of a request the service refused before its pipeline ran (a body over the
 * limit): what {@link HttpService.endpointOf} asks of the secrets service.
 */
function endpointBeforePipeline(pipeline: SecretsPipeline, sim: Simulator, request: RouteContext["request"], routePath: string): string | undefined {
  const rawPath = decodePath(routePath).replace(/^\/+/, "");
  const resolved = sim.read<SecretsState, ReturnType<typeof resolveNamespace>>(SECRETS, (ctx) => resolveNamespace(ctx.state, requestNamespace(request), rawPath));
  return resolved === undefined ? undefined : endpointOf(pipeline, sim, request, resolved.namespace, resolved.path);
}

/**
 * An already percent-decoded path, re-encoded for matching with the shared `matchPath`, which
 * decodes each segment again: a name is decoded once, as the real service's HTTP server does
 * (`e%2541` is the name `e%41`, not `eA`).
 */
function reencodePath(decodedPath: string): string {
  return decodedPath.split("/").map(encodeURIComponent).join("/");
}

function matchCoreRoute(
  routes: readonly CoreRoute[],
  path: string,
  operation: Operation,
): { route: CoreRoute; params: Record<string, string> } | undefined {
  let pathMatched = false;
  const encoded = reencodePath(`/${path}`); // once, not once per route: paths may be long
  for (const route of routes) {
    const params = matchPath(route.path, encoded);
    if (params === undefined) continue;
    pathMatched = true;
    if (route.operations.includes(operation)) return { route, params };
  }
  if (pathMatched) throw unsupportedOperation();
  return undefined;
}

function matchEngineRoute<M>(
  routes: readonly EngineRoute<M>[],
  rest: string,
  operation: Operation,
): { route: EngineRoute<M>; params: Record<string, string> } {
  let pathMatched = false;
  const encoded = reencodePath(rest);
  for (const route of routes) {
    const params = matchPath(route.path, encoded);
    if (params === undefined) continue;
    pathMatched = true;
    if (route.operations.includes(operation)) return { route, params };
  }
  if (pathMatched) throw unsupportedOperation();
  throw unsupportedPath();
}

/** The path policies see: lists end in `/` (as the real service adds it). */
function policyPath(path: string, operation: Operation): string {
  const trimmed = path.replace(/\/+$/, "");
  return operation === "list" ? `${trimmed}/` : trimmed;
}

/**
 * The request's token: `X-Secrets-Token`, else `X-Vault-Token`, else an `Authorization: Bearer`
 * token (the real server reads its token header before `Authorization`; an empty header counts
 * as absent).
 * @example requestToken(request) // "root-token" for "X-Vault-Token: root-token"
 */
export function requestToken(request: RouteContext["request"]): string | undefined {
  const token = header(request, TOKEN_HEADER) ?? header(request, TOKEN_HEADER_ALIAS);
  if (token !== undefined) return token;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header(request, "authorization") ?? "");
  return bearer?.[1];
}

/**
 * The request's namespace header: `X-Secrets-Namespace`, else `X-Vault-Namespace` (empty = absent).
 * @example requestNamespace(request) // "ns1/" for "X-Vault-Namespace: ns1/"
 */
export function requestNamespace(request: RouteContext["request"]): string | undefined {
  return header(request, NAMESPACE_HEADER) ?? header(request, NAMESPACE_HEADER_ALIAS);
}

/**
 * The request's caller (403 for a missing, unknown or dead token unless `optional`). An
 * authenticated request takes one use of a limited-use token (`num_uses`), refused or not, as the
 * real service counts a use before its policy check.
 */
function authenticate(sim: Simulator, route: RouteContext, namespace: string, optional: boolean, operation: string): Caller | undefined {
  const token = requestToken(route.request);
  const { caller, limited } = sim.read<SecretsState, { caller: Caller | undefined; limited: boolean }>(SECRETS, (ctx) => {
    if (optional && liveToken(ctx.state, token, ctx.now) === undefined) return { caller: undefined, limited: false };
    const resolved = resolveCaller(ctx.state, token, ctx.now, namespace, operation, ctx);
    return { caller: resolved, limited: !optional && (ctx.state.tokens[resolved.tokenId]?.numUses ?? 0) > 0 };
  });
  if (limited && caller !== undefined) sim.update<SecretsState, void>(SECRETS, (ctx) => useToken(ctx, caller.tokenId));
  return caller;
}

function defaultCapabilities(operation: Operation, exists: boolean | undefined): Capability[] {
  switch (operation) {
    case "read":
      return ["read"];
    case "list":
      return ["list"];
    case "delete":
      return ["delete"];
    case "create-or-update":
      return [exists === false ? "create" : "update"];
  }
}

function runCoreRoute(
  pipeline: SecretsPipeline,
  route: RouteContext,
  match: { route: CoreRoute; params: Record<string, string> },
  operation: Operation,
  namespace: string,
  path: string,
  body: Record<string, unknown>,
): SimResponse {
  const { sim, request } = route;
  const core = match.route;
  if (route.endpoint) route.endpoint.label = coreEndpoint(core, operation);
  route.describe?.(core.path, operation, SPEC_METHOD[operation]);
  const label = `${request.method} ${path}`;
  if (core.rootNamespaceOnly && namespace !== "") {
    throw secretsError("not_found", label, "unsupported path", { status: 404 });
  }
  const caller = authenticate(sim, route, namespace, core.unauthenticated === true, label);
  const ctx: CoreRouteContext = {
    sim,
    request,
    operation,
    params: match.params,
    query: request.url.searchParams,
    body,
    namespace,
    caller,
    engines: pipeline.engines,
    update: <R>(fn: (c: OperationContext<SecretsState>) => R) => sim.update<SecretsState, R>(SECRETS, fn),
    read: <R>(fn: (c: ReadContext<SecretsState>) => R) => sim.read<SecretsState, R>(SECRETS, fn),
  };
  return authorizeAndRun(sim, core, ctx, operation, path, label);
}

function runEngineRoute<M>(
  pipeline: SecretsPipeline,
  route: RouteContext,
  match: { route: EngineRoute<M>; params: Record<string, string> },
  operation: Operation,
  namespace: string,
  path: string,
  mountPath: string,
  body: Record<string, unknown>,
): SimResponse {
  const { sim, request } = route;
  const engineRoute = match.route;
  route.describe?.(`/${mountPath}${engineRoute.path}`, operation, SPEC_METHOD[operation]);
  const label = `${request.method} ${path}`;
  const caller = authenticate(sim, route, namespace, engineRoute.unauthenticated === true, label);
  const ctx: EngineRouteContext<M> = {
    sim,
    request,
    operation,
    params: match.params,
    query: request.url.searchParams,
    body,
    mountPath,
    caller,
    update: <R>(fn: (c: Parameters<Parameters<EngineRouteContext<M>["update"]>[0]>[0]) => R) =>
      sim.update<SecretsState, R>(SECRETS, (c) => fn(engineContext<M>(c, pipeline.engines, mountPath, caller))),
    read: <R>(fn: (c: Parameters<Parameters<EngineRouteContext<M>["read"]>[0]>[0]) => R) =>
      sim.read<SecretsState, R>(SECRETS, (c) => fn(engineReadContext<M>(c, mountPath, caller))),
  };
  return authorizeAndRun(sim, engineRoute, ctx, operation, path, label);
}

/** What {@link authorizeAndRun} needs of a core or engine route. */
interface RouteRules<C> {
  readonly unauthenticated?: boolean;
  readonly capabilities?: (ctx: C) => readonly Capability[];
  readonly exists?: (ctx: C) => boolean;
  readonly handler: (ctx: C) => EngineResult;
}

/**
 * Checks the caller's capabilities on the request path (the route's own list, else the default
 * for the operation; skipped for unauthenticated routes and callers without a token), then runs
 * the handler and renders its result.
 */
function authorizeAndRun<C extends { readonly caller: Caller | undefined }>(sim: Simulator, rules: RouteRules<C>, ctx: C, operation: Operation, path: string, label: string): SimResponse {
  if (!rules.unauthenticated && ctx.caller !== undefined) {
    const needed = rules.capabilities?.(ctx) ?? defaultCapabilities(operation, rules.exists?.(ctx));
    requireCapabilities(ctx.caller, policyPath(path, operation), needed, label);
  }
  return render(sim, rules.handler(ctx), operation);
}

/**
 * Turns a handler result into the response: the envelope with a seeded `request_id`, 204, or the
 * raw response. An empty list is a 404 with an empty `errors` list, as in the real service.
 * Successful writes count towards the health endpoint's `last_wal`.
 */
export function render(sim: Simulator, result: EngineResult, operation: Operation): SimResponse {
  const write = operation === "create-or-update" || operation === "delete";
  if (result.kind === "data" && operation === "list") {
    const keys = result.data.keys;
    if (keys === undefined || (Array.isArray(keys) && keys.length === 0)) return json(404, { errors: [] });
  }
  const requestId = sim.update<SecretsState, string | undefined>(SECRETS, (ctx) => {
    if (write) ctx.state.writeIndex++;
    return result.kind === "data" ? ctx.ids.uuid() : undefined;
  });
  if (result.kind === "raw") return result.response;
  if (result.kind === "no-content") return { status: 204, headers: {} };
  return envelope(
    requestId ?? "",
    {
      data: result.data,
      ...(result.leaseId === undefined ? {} : { leaseId: result.leaseId }),
      ...(result.leaseDurationSeconds === undefined ? {} : { leaseDurationSeconds: result.leaseDurationSeconds }),
      ...(result.renewable === undefined ? {} : { renewable: result.renewable }),
      ...(result.warnings === undefined ? {} : { warnings: result.warnings }),
    },
    result.status ?? 200,
  );
}
