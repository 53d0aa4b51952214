/**
 * Routing: matches a request against the mounted services' route tables, and names the nearest
 * routes when nothing matches.
 */
import { lazyRequire } from "../simulator/kernel/lazy-require.js";
import type { Simulator } from "../simulator/kernel/simulator.js";
import type { HttpService, Route, ServiceMount } from "./http.js";

/**
 * Edit distance for naming the nearest routes: fastest-levenshtein (Myers' bit-parallel algorithm;
 * a 404 on the secrets service, about 200 routes, took 300-500 us with a row-by-row Levenshtein of
 * our own), loaded by the first request no route matches.
 */
const levenshtein = lazyRequire<typeof import("fastest-levenshtein")>("fastest-levenshtein");
const distance = (a: string, b: string): number => levenshtein().distance(a, b);

/** A route method that answers every method, known or not (`FROB`, lower-case `delete`). */
export const ANY_METHOD = "*";

/** A successful match. */
export interface RouteMatch {
  readonly mount: ServiceMount;
  readonly route: Route;
  readonly params: Record<string, string>;
  readonly path: string;
}

/** No route matched, but the URL is under a mounted service. */
export interface RouteMiss {
  readonly mount: ServiceMount;
  readonly path: string;
  readonly nearest: string[];
  readonly methodMismatch: boolean;
}

/**
 * The mount `matchRoute(mounts, method, url)` would name (its match's or its miss's), without the
 * nearest-endpoints search a miss costs: what a transport asks before reading a body (the service's
 * body limit, `Handler.maxBodyBytes`), for every request.
 * @returns the mount, or `undefined` when no mount owns the URL.
 * @example mountOf(handler.mounts, "POST", new URL("https://app.run-orchestration.test/api/v2/runs"))?.service.name // "runs"
 */
export function mountOf(mounts: readonly ServiceMount[], method: string, url: URL): ServiceMount | undefined {
  const located = locate(mounts, method, url);
  return located === undefined ? undefined : "route" in located ? located.mount : located.firstMiss.mount;
}

/** What {@link matchRoute} finds before it searches the nearest endpoints: a match, or its misses. */
type Located =
  | RouteMatch
  | { readonly firstMiss: { mount: ServiceMount; path: string; prefixLength: number }; readonly misses: readonly { mount: ServiceMount; path: string }[] }
  | undefined;

function locate(mounts: readonly ServiceMount[], method: string, requestUrl: URL): Located {
  // Read once: each read of a URL's origin builds a new string, and every base is compared with it.
  const url = { origin: requestUrl.origin, pathname: requestUrl.pathname };
  let firstMiss: { mount: ServiceMount; path: string; prefixLength: number } | undefined;
  const misses: { mount: ServiceMount; path: string }[] = [];
  for (const mount of mounts) {
    for (const baseName in mount.bases) {
      const base = Object.hasOwn(mount.bases, baseName) ? mount.bases[baseName] : undefined;
      const path = base === undefined ? undefined : relativePath(base, url);
      if (base === undefined || path === undefined) continue;
      const prefixLength = parsedBase(base).pathLength;
      const have = segmentsOf(path);
      let seen = false;
      for (const row of compiledRoutes(mount.service.routes)) {
        if (row.base !== baseName || (!row.rest && row.segments.length !== have.length)) continue;
        const params = matchSegments(row.segments, have);
        if (params === undefined) continue;
        seen = true;
        if (methodMatches(row.methods, method)) return { mount, route: row.route, params, path };
      }
      misses.push({ mount, path });
      if (!firstMiss || prefixLength > firstMiss.prefixLength || (seen && firstMiss.prefixLength === prefixLength)) {
        firstMiss = { mount, path, prefixLength };
      }
    }
  }
  return firstMiss === undefined ? undefined : { firstMiss, misses };
}

/**
 * Finds the route for `method` and `url` among `mounts`.
 * @returns a match, a miss (under a mount, no route), or `undefined` when no mount owns the URL.
 * @example matchRoute(handler.mounts, "GET", new URL("https://app.run-orchestration.test/api/v2/runs/run-1"))
 */
export function matchRoute(
  mounts: readonly ServiceMount[],
  method: string,
  url: URL,
): RouteMatch | RouteMiss | undefined {
  const located = locate(mounts, method, url);
  if (located === undefined || "route" in located) return located;
  const { firstMiss, misses } = located;
  const all = misses.flatMap(({ mount, path }) =>
    mount.service.routes.map((route) => ({ route, mount, path })),
  );
  const methodMismatch = all.some(({ route, path }) => matchPath(route.path, path) !== undefined);
  const targets = new Map<string, string>();
  const targetOf = (path: string): string => {
    let target = targets.get(path);
    if (target === undefined) targets.set(path, (target = searchTarget(method, path)));
    return target;
  };
  const scored = all
    .flatMap(({ route, mount, path }) =>
      methodsOf(route).map((m) => ({
        label: `${m} ${parsedBase(mount.bases[route.base ?? "api"] ?? "http://x").prefix}${route.path}`,
        score: distance(targetOf(path), `${m} ${route.path}`),
      })),
    )
    .sort((a, b) => a.score - b.score || a.label.localeCompare(b.label));
  const nearest = [...new Set(scored.map((s) => s.label))].slice(0, 3);
  return { mount: firstMiss.mount, path: firstMiss.path, nearest, methodMismatch };
}

/**
 * Whether some `METHOD /pattern` label of `catalog` matches `method` and `path`.
 * @example catalogHas(["GET /runs/:id"], "GET", "/runs/run-1") // true
 */
export function catalogHas(catalog: readonly string[], method: string, path: string): boolean {
  return catalog.some((label) => {
    const [labelMethod = "", pattern = ""] = label.split(" ");
    return labelMethod === method && matchPath(pattern, path) !== undefined;
  });
}

/** At most this many path segments take part in the nearest-endpoints search. */
export const NEAREST_MAX_SEGMENTS = 16;
/** Longer segments are cut to this many characters for the search. */
export const NEAREST_MAX_SEGMENT_LENGTH = 64;
/** The whole `METHOD /path` the search compares is cut to this many characters. */
export const NEAREST_MAX_TARGET_LENGTH = 256;

/**
 * What the nearest-endpoints search compares with each route: `METHOD /path` with the path cut to
 * its first {@link NEAREST_MAX_SEGMENTS} segments, each cut to {@link NEAREST_MAX_SEGMENT_LENGTH}
 * characters, and the whole to {@link NEAREST_MAX_TARGET_LENGTH}. The edit distance to each route
 * then costs a bounded time, so an unmatched request costs time linear in the number of routes
 * whatever its path length (real routes are far shorter than these bounds).
 * @example searchTarget("GET", `/runs/${"x".repeat(100000)}`) // "GET /runs/xxxx..." (64 x)
 */
export function searchTarget(method: string, path: string): string {
  const segments = leadingSegments(path, NEAREST_MAX_SEGMENTS).map((segment) => segment.slice(0, NEAREST_MAX_SEGMENT_LENGTH));
  return `${method.slice(0, 32)} /${segments.join("/")}`.slice(0, NEAREST_MAX_TARGET_LENGTH);
}

/**
 * The first `max` non-empty `/`-separated segments of `path`, reading no further than needed.
 * @example leadingSegments("/a//b/c", 2) // ["a", "b"]
 */
function leadingSegments(path: string, max: number): string[] {
  const out: string[] = [];
  let start = 0;
  while (out.length < max && start <= path.length) {
    let end = path.indexOf("/", start);
    if (end === -1) end = path.length;
    if (end > start) out.push(path.slice(start, end));
    start = end + 1;
  }
  return out;
}

/**
 * The (at most) `limit` labels of `catalog` closest to `METHOD path` by edit distance (the path
 * bounded as {@link searchTarget} says).
 * @example nearestInCatalog(["GET /runs/:id", "POST /runs"], "POST", "/runz") // ["POST /runs", ...]
 */
export function nearestInCatalog(catalog: readonly string[], method: string, path: string, limit = 3): string[] {
  const target = searchTarget(method, path);
  const scored = catalog.map((label) => ({ label, score: distance(target, label) }));
  scored.sort((a, b) => a.score - b.score || a.label.localeCompare(b.label));
  return [...new Set(scored.map((s) => s.label))].slice(0, limit);
}

/**
 * The (at most) `limit` names of `names` closest to `name` by edit distance (`name` cut to
 * {@link NEAREST_MAX_TARGET_LENGTH} characters): for names that are not routes (service keys,
 * operations, fields).
 * @example nearestNames(["apply run", "show run"], "aply run") // ["apply run", "show run"]
 */
export function nearestNames(names: readonly string[], name: string, limit = 3): string[] {
  const target = name.slice(0, NEAREST_MAX_TARGET_LENGTH);
  const scored = names.map((label) => ({ label, score: distance(target, label) }));
  scored.sort((a, b) => a.score - b.score || a.label.localeCompare(b.label));
  return [...new Set(scored.map((s) => s.label))].slice(0, limit);
}

/**
 * A service's catalog: its own, or its route table without catch-all rows.
 * @example catalogOf(runsHttp, sim) // ["GET /runs/:run_id", "POST /runs", ...]
 */
export function catalogOf(service: HttpService, sim: Simulator): readonly string[] {
  if (service.catalog) return service.catalog(sim);
  return service.routes
    .filter((route) => (route.base ?? "api") === "api" && !route.path.includes("*"))
    .flatMap((route) => (typeof route.method === "string" ? [route.method] : route.method).map((m) => `${m} ${route.path}`));
}

/**
 * Type guard for {@link RouteMatch}.
 * @example const result = matchRoute(mounts, "GET", url); if (result && isMatch(result)) result.params;
 */
export function isMatch(result: RouteMatch | RouteMiss): result is RouteMatch {
  return "route" in result;
}

/** Whether a route answering `methods` answers `method`: case-sensitively, as Go's net/http; `"*"` answers any method. */
function methodMatches(methods: readonly string[], method: string): boolean {
  return methods.includes(method) || methods.includes(ANY_METHOD);
}

function methodsOf(route: Route): readonly string[] {
  return typeof route.method === "string" ? [route.method] : route.method;
}

/**
 * Per-string caches of what routing derives from a base or a pattern (bases and patterns are a
 * handful of constant strings; parsing them again on every request was a fifth of a GET's time).
 */
const baseCache = new Map<string, { origin: string; prefix: string; pathLength: number }>();
const patternCache = new Map<string, readonly string[]>();

function parsedBase(base: string): { origin: string; prefix: string; pathLength: number } {
  let parsed = baseCache.get(base);
  if (parsed === undefined) {
    const baseUrl = new URL(base);
    parsed = { origin: baseUrl.origin, prefix: baseUrl.pathname.replace(/\/+$/, ""), pathLength: baseUrl.pathname.length };
    if (baseCache.size >= 1024) baseCache.clear();
    baseCache.set(base, parsed);
  }
  return parsed;
}

function patternSegments(pattern: string): readonly string[] {
  let segments = patternCache.get(pattern);
  if (segments === undefined) {
    segments = segmentsOf(pattern);
    if (patternCache.size >= 4096) patternCache.clear();
    patternCache.set(pattern, segments);
  }
  return segments;
}

interface CompiledRoute {
  readonly route: Route;
  readonly base: string;
  readonly segments: readonly string[];
  /** Whether the pattern ends in `*name` (matches any number of further segments). */
  readonly rest: boolean;
  readonly methods: readonly string[];
}

const compiled = new WeakMap<readonly Route[], readonly CompiledRoute[]>();

/** A route table with its patterns split once (rebuilt if the table's length changes). */
function compiledRoutes(routes: readonly Route[]): readonly CompiledRoute[] {
  let rows = compiled.get(routes);
  if (rows === undefined || rows.length !== routes.length) {
    rows = routes.map((route) => {
      const segments = patternSegments(route.path);
      return { route, base: route.base ?? "api", segments, rest: segments.some((segment) => segment.startsWith("*")), methods: methodsOf(route) };
    });
    compiled.set(routes, rows);
  }
  return rows;
}

function segmentsOf(path: string): string[] {
  return path.split("/").filter(Boolean);
}

/** The URL's path relative to `base`, or undefined when the URL is not under it. */
function relativePath(base: string, url: URL | { readonly origin: string; readonly pathname: string }): string | undefined {
  const { origin, prefix } = parsedBase(base);
  if (origin !== url.origin) return undefined;
  const path = url.pathname;
  if (prefix === "") return path === "" ? "/" : path;
  if (path === prefix) return "/";
  if (!path.startsWith(`${prefix}/`)) return undefined;
  return path.slice(prefix.length);
}

/**
 * Matches a pattern like `/runs/:run_id` or `/mounts/*rest`; returns decoded params.
 * @example matchPath("/runs/:run_id", "/runs/run-1") // { run_id: "run-1" }
 */
export function matchPath(pattern: string, path: string): Record<string, string> | undefined {
  const want = patternSegments(pattern);
  // Without a rest parameter, one segment more than the pattern's decides: no need to split a
  // long path whole.
  const have = want.some((segment) => segment.startsWith("*")) ? segmentsOf(path) : leadingSegments(path, want.length + 1);
  return matchSegments(want, have);
}

function matchSegments(want: readonly string[], have: readonly string[]): Record<string, string> | undefined {
  if (have.length < want.length) return undefined;
  // The literal segments first, allocating nothing: most rows a request is tried against fail here.
  for (let i = 0; i < want.length; i++) {
    const segment = want[i] ?? "";
    if (segment.startsWith("*")) break;
    if (!segment.startsWith(":") && segment !== have[i]) return undefined;
  }
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const segment = want[i] ?? "";
    if (segment.startsWith("*")) {
      const rest = have.slice(i);
      if (rest.length === 0) return undefined;
      params[segment.slice(1)] = rest.map(safeDecode).join("/");
      return params;
    }
    const actual = have[i];
    if (actual === undefined) return undefined;
    if (segment.startsWith(":")) params[segment.slice(1)] = safeDecode(actual);
    else if (segment !== actual) return undefined;
  }
  return have.length === want.length ? params : undefined;
}

function safeDecode(segment: string): string {
  if (!segment.includes("%")) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The endpoint label of a route table row answering `method`: its route name, `METHOD /path`
 * relative to its base (as the vocabulary names it, whatever the base); `undefined` for catch-all rows (`*` method or a
 * `*rest` path), which name no endpoint of their own.
 * @example routeEndpoint({ method: "GET", path: "/runs/:run_id", handler }, "GET") // "GET /runs/:run_id"
 */
export function routeEndpoint(route: Route, method: string): string | undefined {
  let labels = endpointLabels.get(route);
  if (labels === undefined) endpointLabels.set(route, (labels = new Map()));
  let label = labels.get(method);
  if (label === undefined) {
    label = route.path.includes("*") || methodsOf(route).includes(ANY_METHOD) ? null : `${method} ${route.path}`;
    labels.set(method, label);
  }
  return label ?? undefined;
}

/** Each route's endpoint label per method (null: no endpoint), made once: coverage asks on every request. */
const endpointLabels = new WeakMap<Route, Map<string, string | null>>();

/**
 * A service's endpoints for coverage: its own list ({@link HttpService.endpoints}), else one label
 * per method of each route table row that is not a catch-all (see {@link routeEndpoint}).
 * @example endpointsOf(runsHttp) // ["GET /workspaces/:workspace_id/configuration-versions", ...]
 */
export function endpointsOf(service: HttpService): readonly string[] {
  if (service.endpoints) return service.endpoints();
  return service.routes.flatMap((route) => methodsOf(route).flatMap((method) => routeEndpoint(route, method) ?? []));
}
