/**
 * Routes around the spec's edges that real clients call first (the spec is silent on them;
 * docs/decisions/runs.md, "Organizations, workspaces and the account"): organization and workspace
 * reads over the fixtures, the workspace list (paged, `search[name]`), workspace lock, unlock and
 * force-unlock tied to the run queue, the caller's account, and `GET /ping`.
 */
import { pageSizes } from "../../simulator/runs/limits.js";
import type { Route, RouteContext, SimResponse } from "../http.js";
import { invalidAttribute } from "../../simulator/runs/errors.js";
import {
  currentAccount,
  forceUnlockWorkspace,
  listWorkspacesPage,
  lockWorkspace,
  unlockWorkspace,
  visibleOrganization,
  visibleWorkspace,
  workspaceByName,
} from "../../simulator/runs/workspaces.js";
import type { Caller } from "../../simulator/runs/access.js";
import type { OperationContext } from "../../simulator/kernel/simulator.js";
import type { RunsState, Workspace } from "../../simulator/runs/state.js";
import { readAs, updateAs } from "./context.js";
import type { SerializeContext } from "./serializers.js";
import { document, includes, pageOf, pageRequest, uniqueResources } from "./json-api.js";
import { jsonBody } from "./request.js";
import { serializeAccount, serializeOrganization, serializeWorkspace, WORKSPACE_INCLUDES, workspaceIncluded } from "./workspace-serializers.js";

/**
 * The API version `GET /ping` announces in `TFP-API-Version` (go-tfe keeps it as `RemoteAPIVersion()`).
 * @example
 * response.headers["tfp-api-version"] === RUNS_API_VERSION // true
 */
export const RUNS_API_VERSION = "2.6";

/**
 * The optional `{"reason": string}` body of `POST /workspaces/:id/actions/lock`.
 * @throws {DomainError} `invalid` (422) when the body is not a JSON object or `reason` not a string or null.
 * @example
 * lockReason(ctx.request, "lock workspace") // "maintenance" for {"reason":"maintenance"}, null without a body
 */
export function lockReason(request: RouteContext["request"], operation: string): string | null {
  const body = jsonBody(request, operation);
  if (body === undefined || body === null) return null;
  if (typeof body !== "object" || Array.isArray(body)) throw invalidAttribute(operation, "", 'the body must be a JSON object like {"reason": "..."}');
  const reason = (body as Record<string, unknown>).reason;
  if (reason === undefined || reason === null) return null;
  if (typeof reason !== "string") throw invalidAttribute(operation, "/reason", "reason must be a string");
  return reason;
}

/** One workspace's document, with `included` when `include` asks for anything. */
function workspaceDocument(out: SerializeContext, workspace: Workspace, include: ReadonlySet<string>): SimResponse {
  const data = serializeWorkspace(out, workspace);
  return include.size === 0 ? document(200, { data }) : document(200, { data, included: uniqueResources(workspaceIncluded(out, workspace, include)) });
}

type LockAction = (sim: OperationContext<RunsState>, caller: Caller, workspaceId: string, reason: string | null) => Workspace;

function lockRoute(action: "lock" | "unlock" | "force-unlock", fn: LockAction): Route {
  const operation = `${action} workspace`;
  return {
    method: "POST",
    path: `/workspaces/:workspace_id/actions/${action}`,
    operation,
    handler: (ctx) =>
      updateAs(ctx, operation, ({ sim, caller, out }) => {
        const reason = action === "lock" ? lockReason(ctx.request, operation) : null;
        const workspace = fn(sim, caller, ctx.params.workspace_id ?? "", reason);
        return document(200, { data: serializeWorkspace(out, workspace) });
      }),
  };
}

/**
 * The organization, workspace, account and ping routes.
 * @example
 * const service = { ...runsHttp, routes: [...workspaceRoutes] };
 */
export const workspaceRoutes: readonly Route[] = [
  {
    method: "GET",
    path: "/ping",
    operation: "ping",
    // No token needed; go-tfe's NewClient reads the headers (API version, rate limit) and ignores the status.
    handler: () => ({ status: 204, headers: { "tfp-api-version": RUNS_API_VERSION } }),
  },
  {
    method: "GET",
    path: "/account/details",
    operation: "show account",
    handler: (ctx) =>
      readAs(ctx, "show account", ({ sim, caller, out }) => document(200, { data: serializeAccount(out, currentAccount(sim.state, caller)) })),
  },
  {
    method: "GET",
    path: "/organizations/:organization_name",
    operation: "show organization",
    handler: (ctx) =>
      readAs(ctx, "show organization", ({ sim, caller, out }) => {
        includes(ctx.query, []);
        const organization = visibleOrganization(sim.state, caller, ctx.params.organization_name ?? "", "show organization");
        return document(200, { data: serializeOrganization(out, organization) });
      }),
  },
  {
    method: "GET",
    path: "/organizations/:organization_name/workspaces",
    operation: "list workspaces",
    handler: (ctx) =>
      readAs(ctx, "list workspaces", ({ sim, caller, out }) => {
        const include = includes(ctx.query, WORKSPACE_INCLUDES);
        const requested = pageRequest(ctx.query, pageSizes(sim));
        const search = ctx.query.get("search[name]");
        const { workspaces, totalCount } = listWorkspacesPage(
          sim.state,
          caller,
          ctx.params.organization_name ?? "",
          search === null ? {} : { name: search },
          (requested.number - 1) * requested.size,
          requested.size,
        );
        const page = pageOf(workspaces, totalCount, requested, ctx.request.url);
        const data = page.items.map((w) => serializeWorkspace(out, w));
        if (include.size === 0) return document(200, { data, links: page.links, meta: page.meta });
        const included = uniqueResources(page.items.flatMap((w) => workspaceIncluded(out, w, include)));
        return document(200, { data, included, links: page.links, meta: page.meta });
      }),
  },
  {
    method: "GET",
    path: "/organizations/:organization_name/workspaces/:name",
    operation: "show workspace by name",
    handler: (ctx) =>
      readAs(ctx, "show workspace by name", ({ sim, caller, out }) => {
        const include = includes(ctx.query, WORKSPACE_INCLUDES);
        const workspace = workspaceByName(sim.state, caller, ctx.params.organization_name ?? "", ctx.params.name ?? "", "show workspace by name");
        return workspaceDocument(out, workspace, include);
      }),
  },
  {
    method: "GET",
    path: "/workspaces/:workspace_id",
    operation: "show workspace",
    handler: (ctx) =>
      readAs(ctx, "show workspace", ({ sim, caller, out }) => {
        const include = includes(ctx.query, WORKSPACE_INCLUDES);
        return workspaceDocument(out, visibleWorkspace(sim.state, caller, ctx.params.workspace_id ?? "", "show workspace"), include);
      }),
  },
  lockRoute("lock", lockWorkspace),
  lockRoute("unlock", (sim, caller, id) => unlockWorkspace(sim, caller, id)),
  lockRoute("force-unlock", (sim, caller, id) => forceUnlockWorkspace(sim, caller, id)),
];
