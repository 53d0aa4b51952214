/**
 * One vocabulary for every consumer of routes (faults, the journal's filters, the journal matchers,
 * `/_sim/` faults, scenario documents): the services' keys (`runs`, `accessControl`, `secrets`)
 * and their route names, written as the specs write them: the method in upper case, then the path
 * template without the API prefix (`GET /runs/:run_id`, `POST /ssh/creds/:name`,
 * `GET /acl/token/self`). The names are read from the route tables (a service that routes at run
 * time, the secrets service, lists its own: see {@link HttpService.routeNames}); the TypeScript
 * types of the same names are generated from the same tables (`route-names.ts`).
 *
 * A name that is not one of them is refused with the nearest valid one: never a filter that
 * silently counts 0, never a fault that never fires.
 *
 * Implements DESIGN.md "One vocabulary"; see docs/decisions/faults.md and journal.md.
 */
import type { Simulator } from "../simulator/kernel/simulator.js";
import type { HttpService } from "./http.js";
import type { AccessControlOperation, AccessControlRoute, RunsOperation, RunsRoute, SecretsRoute } from "./route-names.js";
import type { Operation as SecretsOperation } from "./secrets/request.js";
import { ANY_METHOD, nearestInCatalog, nearestNames } from "./router.js";

export type { AccessControlOperation, AccessControlRoute, RunsOperation, RunsRoute, SecretsRoute } from "./route-names.js";

/** The services' keys, as `createDoubles()` names them (`doubles.runs`, `doubles.accessControl`, `doubles.secrets`). */
export type ServiceKey = "runs" | "accessControl" | "secrets";

/** Every {@link ServiceKey}. */
export const SERVICE_KEYS: readonly ServiceKey[] = Object.freeze(["runs", "accessControl", "secrets"]);

/** The route names of each service (see {@link RouteName}). */
export interface RoutesOf {
  readonly runs: RunsRoute;
  readonly accessControl: AccessControlRoute;
  readonly secrets: SecretsRoute;
}

/**
 * A route as the specs write it: `METHOD /template`, method upper case, no API prefix, e.g.
 * `"GET /runs/:run_id"`, `"PUT /acl/token"`, `"POST /ssh/creds/:name"`. Secrets engine routes are
 * named at the spec's mount paths (`/ssh/...`, `/cloud/...`); on another mount path, name them
 * with {@link mountedRoute}.
 */
export type RouteName = RunsRoute | AccessControlRoute | SecretsRoute;

/** A route's template alone, without its method: `"/runs/:run_id"`. */
export type RouteTemplate = TemplateOf<RouteName>;

/** The template of a route name (`"/runs/:run_id"` of `"GET /runs/:run_id"`). */
export type TemplateOf<R extends string> = R extends `${infer _Method} ${infer T}` ? T : never;

/** An operation's name in the spec's words (`"apply run"`, `"create token"`; secrets: `"read"`, `"list"`, ...). */
export type OperationName = RunsOperation | AccessControlOperation | SecretsOperation;

declare const mounted: unique symbol;

/**
 * A secrets engine route on a mount path other than the spec's (see {@link mountedRoute}), e.g.
 * `"POST /ssh-prod/creds/:name"`.
 */
export type MountedRoute = string & { readonly [mounted]: true };

declare const userRouteBrand: unique symbol;

/**
 * A user route's name, `METHOD /template` (`"GET /secret/data/:path"`), as
 * `doubles.<service>.route()` returns it (`handle.name`): what the journal calls its requests and
 * what faults and journal filters take.
 */
export type UserRouteName = string & { readonly [userRouteBrand]: true };

/** The secrets engine routes at the spec's mount paths, with the mount's type as first segment. */
export type SecretsEngineRoute = Extract<SecretsRoute, `${string} /ssh/${string}` | `${string} /cloud/${string}`>;

/**
 * The name of a secrets engine route on the mount at `mountPath`: the spec's name with its mount
 * path (`/ssh`, `/cloud`) replaced, as the journal names requests to that mount (spec: "engines can
 * be mounted elsewhere, in which case paths change accordingly").
 * @param mountPath - the mount's path, without slashes around it (`"ssh-prod"`, `"team/ssh"`).
 * @param route - the route at the spec's mount path (`"POST /ssh/creds/:name"`).
 * @throws {TypeError} for a route that is not a secrets engine route, or an empty mount path.
 * @example mountedRoute("ssh-prod", "POST /ssh/creds/:name") // "POST /ssh-prod/creds/:name"
 */
export function mountedRoute(mountPath: string, route: SecretsEngineRoute): MountedRoute {
  const match = /^(\S+) \/(ssh|cloud)(\/.*)$/.exec(route);
  const path = mountPath.replace(/^\/+|\/+$/g, "");
  if (match === null) throw new TypeError(`infra-doubles: mountedRoute: ${JSON.stringify(route)} is not a secrets engine route (e.g. "POST /ssh/creds/:name")`);
  if (path === "") throw new TypeError("infra-doubles: mountedRoute: give the mount's path, e.g. \"ssh-prod\"");
  return `${match[1] ?? ""} /${path}${match[3] ?? ""}` as MountedRoute;
}

/** A route's method and template, split at the first space (`undefined` method: a template alone). */
export function splitRoute(route: string): { readonly method: string | undefined; readonly template: string } {
  const space = route.indexOf(" ");
  return space > 0 ? { method: route.slice(0, space), template: route.slice(space + 1).trim() } : { method: undefined, template: route.trim() };
}

/**
 * A service's route names: its own list ({@link HttpService.routeNames}), else its endpoints
 * ({@link HttpService.endpoints}: the access-control service leaves out the rows that only give
 * the real service's error for a missing id), else one name per method of each route table row
 * that is not a catch-all (`*` method or a `*rest` path), on every base.
 * @param sim - the simulator, for a service whose routes depend on its state (secrets mounts);
 *   without it, the names at the spec's mount paths only.
 * @example routeNamesOf(runsHttp) // ["GET /workspaces/:workspace_id/configuration-versions", ...]
 */
export function routeNamesOf(service: HttpService, sim?: Simulator): readonly string[] {
  if (service.routeNames !== undefined) return service.routeNames(sim);
  if (service.endpoints !== undefined) return service.endpoints();
  const names: string[] = [];
  for (const route of service.routes) {
    const methods = typeof route.method === "string" ? [route.method] : route.method;
    if (route.path.includes("*") || methods.includes(ANY_METHOD)) continue;
    for (const method of methods) names.push(`${method} ${route.path}`);
  }
  return [...new Set(names)];
}

/**
 * A service's operation names: those its route table names, or its own list.
 * @example operationNamesOf(runsHttp) // ["list configuration versions", ...]
 */
export function operationNamesOf(service: HttpService): readonly string[] {
  if (service.operationNames !== undefined) return service.operationNames;
  return [...new Set(service.routes.flatMap((route) => (route.operation === undefined ? [] : [route.operation])))];
}

/** Methods a service takes for another (the secrets service's `PUT` is its `POST`; `LIST` may come as `GET`). */
const METHOD_ALIASES: Readonly<Record<string, readonly string[]>> = { PUT: ["POST"], POST: ["PUT"], GET: ["LIST"] };

/**
 * The valid name nearest to `name`: first the name written the spec's way (method upper-cased, a
 * base path such as `/api/v2` or `/v1` taken off), else the nearest by edit distance.
 * @param prefixes - the services' base paths, taken off a route that carries one.
 * @example nearestName("get /v1/sys/health", ["GET /sys/health"], ["/v1"]) // "GET /sys/health"
 */
export function nearestName(name: string, valid: readonly string[], prefixes: readonly string[] = []): string | undefined {
  if (valid.length === 0) return undefined;
  const { method, template } = splitRoute(name);
  if (template.startsWith("/")) {
    const upper = method?.toUpperCase();
    for (const prefix of ["", ...prefixes]) {
      if (prefix !== "" && !template.startsWith(`${prefix}/`)) continue;
      const bare = template.slice(prefix.length);
      for (const m of upper === undefined ? [undefined] : [upper, ...(METHOD_ALIASES[upper] ?? [])]) {
        const written = m === undefined ? bare : `${m} ${bare}`;
        if (valid.includes(written)) return written;
      }
    }
    return nearestInCatalog(valid, upper ?? "", template, 1)[0];
  }
  return nearestNames(valid, name, 1)[0];
}

/**
 * `<what> "name" (did you mean "nearest"?)`: the words every refusal of a name uses.
 * @example unknownName("route", "GET /api/v2/runs/:run_id", ["GET /runs/:run_id"], ["/api/v2"]) // 'no route "GET /api/v2/runs/:run_id" (did you mean "GET /runs/:run_id"?)'
 */
export function unknownName(what: string, name: string, valid: readonly string[], prefixes: readonly string[] = []): string {
  const near = nearestName(name, valid, prefixes);
  return `no ${what} ${JSON.stringify(name)}${near === undefined ? "" : ` (did you mean ${JSON.stringify(near)}?)`}`;
}

/** Said after a refused route: how routes are written. */
export const ROUTE_FORM = "routes are written as in the specs: METHOD in upper case, then the path template without the API prefix, e.g. \"GET /runs/:run_id\", \"POST /ssh/creds/:name\"";

/** The services one doubles object mounts, as the vocabulary checks names against them. */
export interface VocabularyService {
  /** The service's key (`runs`). */
  readonly key: string;
  readonly http: HttpService;
  /** The path prefixes of its bases on every transport (`/api/v2`, `/v1`): suggested away in errors. */
  readonly prefixes: readonly string[];
  /** Route names of the service's user routes now (`doubles.<service>.route()`). */
  readonly userRoutes?: () => readonly string[];
}

/**
 * The names valid now for a set of services: keys, route names (the secrets service's include its
 * mounts now), templates and operations.
 */
export class Vocabulary {
  constructor(
    private readonly services: () => readonly VocabularyService[],
    private readonly sim: Simulator | undefined,
  ) {}

  /** The service keys. */
  keys(): string[] {
    return this.services().map((s) => s.key);
  }

  /** The route names of one service (or of all). */
  routes(key?: string): string[] {
    return this.of(key).flatMap((s) => [...routeNamesOf(s.http, this.sim), ...(s.userRoutes?.() ?? [])]);
  }

  /** The operation names of one service (or of all). */
  operations(key?: string): string[] {
    return [...new Set(this.of(key).flatMap((s) => operationNamesOf(s.http)))];
  }

  /** The base path prefixes of every service (for suggesting a route without one). */
  prefixes(): string[] {
    return [...new Set(this.services().flatMap((s) => s.prefixes))].filter((p) => p !== "").sort((a, b) => b.length - a.length);
  }

  /**
   * Why `key` is not a service key (`undefined`: it is one).
   * @example vocabulary.checkService("access-control") // 'no service "access-control" (did you mean "accessControl"?); services: runs, accessControl, secrets'
   */
  checkService(key: string): string | undefined {
    const keys = this.keys();
    return keys.includes(key) ? undefined : `${unknownName("service", key, keys)}; services: ${keys.join(", ")}`;
  }

  /**
   * Why `route` (`METHOD /template`, or a template alone when `template` is true) is no route of
   * the service (or of any service) now (`undefined`: it is one).
   */
  checkRoute(route: string, key?: string): string | undefined {
    const names = this.routes(key);
    const { method } = splitRoute(route);
    if (method !== undefined) return names.includes(route) ? undefined : `${unknownName("route", route, names, this.prefixes())}; ${ROUTE_FORM}`;
    const templates = [...new Set(names.map((name) => splitRoute(name).template))];
    return templates.includes(route) ? undefined : `${unknownName("route template", route, templates, this.prefixes())}; ${ROUTE_FORM}`;
  }

  /** Why `operation` is no operation of the service (or of any) (`undefined`: it is one). */
  checkOperation(operation: string, key?: string): string | undefined {
    const operations = this.operations(key);
    return operations.includes(operation) ? undefined : unknownName("operation", operation, operations);
  }

  private of(key: string | undefined): readonly VocabularyService[] {
    const all = this.services();
    return key === undefined ? all : all.filter((s) => s.key === key);
  }
}
