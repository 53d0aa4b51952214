/**
 * JSON:API plumbing of the run orchestration service: the media type, documents, resource links
 * under the API prefix, pagination (FIDELITY.md: `page[size]` default 20, clamped to 100,
 * `meta.pagination`, absolute `links` carrying `page[number]` and `page[size]`), and `include`.
 */
import { RUNS_LIMITS, type PageSizes } from "../../simulator/runs/limits.js";
import type { RouteContext, SimResponse } from "../http.js";
import { DomainError } from "../../simulator/kernel/errors.js";
import { RUNS } from "../../simulator/runs/errors.js";

/**
 * The JSON:API media type, the service's content type.
 * @example
 * { "content-type": JSON_API } // "application/vnd.api+json"
 */
export const JSON_API = "application/vnd.api+json";

/** A JSON:API resource object. */
export interface ResourceObject {
  readonly id: string;
  readonly type: string;
  readonly attributes: Record<string, unknown>;
  readonly relationships?: Record<string, unknown>;
  readonly links?: Record<string, string>;
}

/**
 * A JSON:API document response.
 * @example
 * document(201, { data: serializeRun(out, run, { single: true }) })
 */
export function document(status: number, body: Record<string, unknown>): SimResponse {
  return { status, headers: { "content-type": JSON_API }, body: JSON.stringify(body) };
}

/**
 * A JSON:API document response from JSON text a serializer wrote (see `serializeRunJson`).
 * @example
 * documentText(200, `{"data":${serializeRunJson(out, run, { single: true })}}`)
 */
export function documentText(status: number, json: string): SimResponse {
  return { status, headers: { "content-type": JSON_API }, body: json };
}

/**
 * A 202 or 204 response without a body.
 * @example
 * noContent(202) // the run actions' answer
 */
export function noContent(status: 202 | 204): SimResponse {
  return { status, headers: {} };
}

/** Builds resource links (`/api/v2/runs/run-...`): paths under the API base's path prefix. */
export type LinkBuilder = (path: string) => string;

/**
 * The link builder of a request (the API base's path, e.g. `/api/v2`).
 * @example
 * linksFor(ctx)("/runs/run-abc") // "/api/v2/runs/run-abc"
 */
export function linksFor(ctx: RouteContext): LinkBuilder {
  const base = ctx.mount.bases.api ?? "http://x/api/v2";
  let link = linkBuilders.get(base);
  if (link === undefined) {
    const prefix = new URL(base).pathname.replace(/\/+$/, "");
    link = (path) => `${prefix}${path}`;
    if (linkBuilders.size >= 1024) linkBuilders.clear();
    linkBuilders.set(base, link);
  }
  return link;
}

/** One link builder per API base (a base is parsed once, not on every request). */
const linkBuilders = new Map<string, LinkBuilder>();

/**
 * Default page size (spec: 20).
 * @example
 * pageRequest(new URLSearchParams()).size === DEFAULT_PAGE_SIZE // true
 */
export const DEFAULT_PAGE_SIZE = RUNS_LIMITS.pageSize.value;
/**
 * Largest page size; larger values are clamped (FIDELITY.md: 100).
 * @example
 * pageRequest(new URLSearchParams("page[size]=500")).size === MAX_PAGE_SIZE // true
 */
export const MAX_PAGE_SIZE = RUNS_LIMITS.maxPageSize.value;

/** A page request. */
export interface PageRequest {
  readonly number: number;
  readonly size: number;
}

/**
 * Reads `page[number]` and `page[size]`: missing, non-numeric or below-one values take the
 * defaults (page 1, size `sizes.size`, 20); sizes above `sizes.max` (100) are clamped to it.
 * @param sizes - the service's page sizes (`pageSizes(readContext)`: a mutant may scale them).
 * @example
 * pageRequest(new URLSearchParams("page%5Bnumber%5D=2&page%5Bsize%5D=500")) // { number: 2, size: 100 }
 */
export function pageRequest(query: URLSearchParams, sizes: PageSizes = { size: DEFAULT_PAGE_SIZE, max: MAX_PAGE_SIZE }): PageRequest {
  const number = positiveInt(query.get("page[number]")) ?? 1;
  const size = Math.min(positiveInt(query.get("page[size]")) ?? sizes.size, sizes.max);
  return { number, size };
}

function positiveInt(text: string | null): number | undefined {
  if (text === null || !/^\s*\d+\s*$/.test(text)) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) && value >= 1 ? value : undefined;
}

/** One page of a list, with `links` and `meta.pagination`. */
export interface Page<T> {
  readonly items: readonly T[];
  readonly links: Record<string, string | null>;
  readonly meta: { pagination: Record<string, number | null> };
}

/**
 * Cuts `all` into the requested page.
 * @param url - the request URL; links keep its other query parameters (filters, searches).
 * @example
 * paginate(runs, { number: 2, size: 20 }, request.url).meta.pagination["prev-page"] // 1
 */
export function paginate<T>(all: readonly T[], request: PageRequest, url: URL): Page<T> {
  const start = (request.number - 1) * request.size;
  return pageOf(all.slice(start, start + request.size), all.length, request, url);
}

/**
 * The requested page when the caller already cut it: `items` are the page's own (at most
 * `request.size`, starting at `(number - 1) * size` of the whole list), `totalCount` the whole
 * list's length. Same document as {@link paginate} over the whole list.
 * @example
 * pageOf(runsOfPage2, 57, { number: 2, size: 20 }, request.url).meta.pagination["total-pages"] // 3
 */
export function pageOf<T>(items: readonly T[], totalCount: number, request: PageRequest, url: URL): Page<T> {
  const totalPages = Math.max(1, Math.ceil(totalCount / request.size));
  const current = request.number;
  const prev = current > 1 ? Math.min(current - 1, totalPages) : null;
  const next = current < totalPages ? current + 1 : null;
  const link = (page: number): string => {
    const out = new URL(url.href);
    out.searchParams.set("page[number]", String(page));
    out.searchParams.set("page[size]", String(request.size));
    return out.href;
  };
  return {
    items,
    links: {
      self: link(current),
      first: link(1),
      prev: prev === null ? null : link(prev),
      next: next === null ? null : link(next),
      last: link(totalPages),
    },
    meta: {
      pagination: {
        "current-page": current,
        "page-size": request.size,
        "prev-page": prev,
        "next-page": next,
        "total-pages": totalPages,
        "total-count": totalCount,
      },
    },
  };
}

/**
 * Reads the `include` parameter: comma-separated paths, `-` read as `_`.
 * @throws {DomainError} `malformed` (400 `invalid include parameter`) for a path not in `allowed`.
 * @example
 * includes(new URLSearchParams("include=plan,configuration-version"), RUN_INCLUDES) // Set { "plan", "configuration_version" }
 */
export function includes(query: URLSearchParams, allowed: readonly string[]): Set<string> {
  const raw = query.get("include");
  const out = new Set<string>();
  if (raw === null || raw.trim() === "") return out;
  for (const part of raw.split(",")) {
    const path = part.trim().replace(/-/g, "_");
    if (path === "") continue;
    if (!allowed.includes(path)) {
      throw new DomainError({
        code: "malformed",
        service: RUNS,
        operation: "read include parameter",
        message: `Invalid include parameter "${part.trim()}"; allowed: ${allowed.join(", ")}`,
        status: 400,
        title: "invalid include parameter",
      });
    }
    out.add(path);
  }
  return out;
}

/**
 * A comma-separated filter value as a list (`filter[status]=planned,applied`), or undefined when absent.
 * @example
 * commaList(new URLSearchParams("filter[status]=planned,applied"), "filter[status]") // ["planned", "applied"]
 */
export function commaList(query: URLSearchParams, name: string): string[] | undefined {
  const raw = query.get(name);
  if (raw === null) return undefined;
  return raw
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/**
 * Keeps the first resource of each `type`/`id` pair (for `included`).
 * @example
 * uniqueResources([planA, planA, applyA]) // [planA, applyA]
 */
export function uniqueResources(resources: readonly ResourceObject[]): ResourceObject[] {
  const seen = new Set<string>();
  const out: ResourceObject[] = [];
  for (const resource of resources) {
    const key = `${resource.type}/${resource.id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(resource);
  }
  return out;
}
