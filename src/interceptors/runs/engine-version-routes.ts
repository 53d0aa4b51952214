/**
 * Routes of the engine versions admin API (spec: "Engine versions"): list with `filter[version]`,
 * `search[version]` and pagination, create, show, update and delete; site administrators only
 * (everyone else gets 404).
 */
import { pageSizes } from "../../simulator/runs/limits.js";
import type { Route, RouteContext } from "../http.js";
import {
  createEngineVersion,
  deleteEngineVersion,
  listEngineVersions,
  showEngineVersion,
  updateEngineVersion,
  type EngineVersionInput,
} from "../../simulator/runs/engine-versions.js";
import { requireSiteAdmin } from "../../simulator/runs/access.js";
import { readAs, updateAs } from "./context.js";
import { ENGINE_VERSION_RULES, readAttributes } from "./fields.js";
import { document, noContent, pageRequest, paginate } from "./json-api.js";
import { jsonBody, readData } from "./request.js";
import { serializeEngineVersion } from "./serializers.js";

/**
 * Parses an engine version body.
 * @throws {DomainError} `invalid` (422 with a pointer) for a malformed body or a wrong type.
 * @example
 * parseEngineVersion(ctx, "update engine version") // { enabled: false } from {"data":{"type":"engine-versions","attributes":{"enabled":false}}}
 */
export function parseEngineVersion(ctx: RouteContext, operation: string): EngineVersionInput {
  const a = readData(jsonBody(ctx.request, operation), ENGINE_VERSION_RULES.type, operation).attributes;
  return readAttributes(a, ENGINE_VERSION_RULES) as EngineVersionInput;
}

/**
 * The engine version routes.
 * @example
 * const service = { ...runsHttp, routes: [...engineVersionRoutes] };
 */
export const engineVersionRoutes: readonly Route[] = [
  {
    method: "GET",
    path: "/admin/engine-versions",
    operation: "list engine versions",
    handler: (ctx) =>
      readAs(ctx, "list engine versions", ({ sim, caller, out }) => {
        const filter = ctx.query.get("filter[version]");
        const search = ctx.query.get("search[version]");
        const all = listEngineVersions(sim.state, caller, {
          ...(filter !== null ? { filterVersion: filter } : {}),
          ...(search !== null ? { searchVersion: search } : {}),
        });
        const page = paginate(all, pageRequest(ctx.query, pageSizes(sim)), ctx.request.url);
        return document(200, { data: page.items.map((v) => serializeEngineVersion(out, v)), links: page.links, meta: page.meta });
      }),
  },
  {
    method: "POST",
    path: "/admin/engine-versions",
    operation: "create engine version",
    handler: (ctx) =>
      updateAs(ctx, "create engine version", ({ sim, caller, out }) => {
        // Authentication and the admin check come before reading the body: non-admins get 404 whatever they send.
        requireSiteAdmin(caller, "create engine version");
        const input = parseEngineVersion(ctx, "create engine version");
        return document(201, { data: serializeEngineVersion(out, createEngineVersion(sim, caller, input)) });
      }),
  },
  {
    method: "GET",
    path: "/admin/engine-versions/:id",
    operation: "show engine version",
    handler: (ctx) =>
      readAs(ctx, "show engine version", ({ sim, caller, out }) =>
        document(200, { data: serializeEngineVersion(out, showEngineVersion(sim.state, caller, ctx.params.id ?? "")) }),
      ),
  },
  {
    method: "PATCH",
    path: "/admin/engine-versions/:id",
    operation: "update engine version",
    handler: (ctx) =>
      updateAs(ctx, "update engine version", ({ sim, caller, out }) => {
        showEngineVersion(sim.state, caller, ctx.params.id ?? "");
        const input = parseEngineVersion(ctx, "update engine version");
        return document(200, { data: serializeEngineVersion(out, updateEngineVersion(sim, caller, ctx.params.id ?? "", input)) });
      }),
  },
  {
    method: "DELETE",
    path: "/admin/engine-versions/:id",
    operation: "delete engine version",
    handler: (ctx) => {
      updateAs(ctx, "delete engine version", ({ sim, caller }) => deleteEngineVersion(sim, caller, ctx.params.id ?? ""));
      return noContent(204);
    },
  },
];
