/**
 * Routes of runs (spec: "Endpoints", "Runs"): create, list with filters, searches and pagination,
 * show with `include`, the five actions, and the resources behind run relationships (plans,
 * applies, cost estimates, users).
 */
import { pageSizes } from "../../simulator/runs/limits.js";
import type { Route, RouteContext } from "../http.js";
import type { Caller } from "../../simulator/runs/access.js";
import { notFound } from "../../simulator/runs/errors.js";
import { applyRun, cancelRun, discardRun, forceCancelRun, forceExecuteRun } from "../../simulator/runs/run-actions.js";
import { createRun, listRunsPage, visibleRun, type CreateRunInput } from "../../simulator/runs/runs.js";
import type { Run, RunsState } from "../../simulator/runs/state.js";
import type { OperationContext } from "../../simulator/kernel/simulator.js";
import { readAs, updateAs } from "./context.js";
import { commaList, document, documentText, includes, noContent, pageOf, pageRequest, uniqueResources } from "./json-api.js";
import { CREATE_RUN_RULES, readAttributes, readRelationships } from "./fields.js";
import { actionComment, jsonBody, readData } from "./request.js";
import { LOG_PATH, RUN_INCLUDES, runIncluded, serializeCostEstimate, serializePhase, serializeRunJson, serializeUser } from "./serializers.js";
import { readLog, type LogRange } from "../../simulator/runs/logs.js";
import { RUNS } from "../../simulator/runs/errors.js";
import type { ReadContext } from "../../simulator/kernel/simulator.js";

/**
 * Parses the create-run body into {@link CreateRunInput}.
 * @throws {DomainError} `invalid` (422 with a pointer) for a malformed body, a wrong type, or a
 *   missing workspace relationship.
 * @example
 * parseCreateRun(ctx) // { workspaceId: "ws-abc", isDestroy: true, ... }
 */
export function parseCreateRun(ctx: RouteContext): CreateRunInput {
  const operation = "create run";
  const data = readData(jsonBody(ctx.request, operation), CREATE_RUN_RULES.type, operation);
  const input = { ...readRelationships(data.relationships, CREATE_RUN_RULES, operation), ...readAttributes(data.attributes, CREATE_RUN_RULES) };
  return input as unknown as CreateRunInput;
}

/**
 * The byte range a log read asks for: `offset` and `limit` (go-tfe's `LogReader` sends both); a
 * missing, non-numeric or negative value counts as absent (from the start, to the end).
 * @example
 * logRange(new URLSearchParams("limit=32768&offset=10")) // { offset: 10, limit: 32768 }
 */
export function logRange(query: URLSearchParams): LogRange {
  const number = (name: string): number | undefined => {
    const text = query.get(name);
    if (text === null || !/^\d+$/.test(text)) return undefined;
    const value = Number(text);
    return Number.isSafeInteger(value) ? value : undefined;
  };
  const offset = number("offset");
  const limit = number("limit");
  return { ...(offset === undefined ? {} : { offset }), ...(limit === undefined ? {} : { limit }) };
}

type ActionFn = (sim: OperationContext<RunsState>, caller: Caller, runId: string, comment: string | null) => Run;

function actionRoute(action: string, fn: ActionFn, withComment = true): Route {
  return {
    method: "POST",
    path: `/runs/:run_id/actions/${action}`,
    operation: `${action} run`,
    handler: (ctx) => {
      const operation = `${action} run`;
      updateAs(ctx, operation, ({ sim, caller }) => fn(sim, caller, ctx.params.run_id ?? "", withComment ? actionComment(ctx.request, operation) : null));
      return noContent(202);
    },
  };
}

/**
 * The run routes.
 * @example
 * const service = { ...runsHttp, routes: [...runRoutes] };
 */
export const runRoutes: readonly Route[] = [
  {
    method: "POST",
    path: "/runs",
    operation: "create run",
    handler: (ctx) =>
      updateAs(ctx, "create run", ({ sim, caller, out }) => {
        const run = createRun(sim, caller, parseCreateRun(ctx));
        return documentText(201, `{"data":${serializeRunJson(out, run, { single: true })}}`);
      }),
  },
  {
    method: "GET",
    path: "/workspaces/:workspace_id/runs",
    operation: "list runs",
    handler: (ctx) =>
      readAs(ctx, "list runs", ({ sim, caller, out }) => {
        const include = includes(ctx.query, RUN_INCLUDES);
        const q = ctx.query;
        const pageRequested = pageRequest(q, pageSizes(sim));
        const { runs, totalCount } = listRunsPage(sim.state, caller, ctx.params.workspace_id ?? "", {
          operations: commaList(q, "filter[operation]"),
          statuses: commaList(q, "filter[status]"),
          sources: commaList(q, "filter[source]"),
          ...(q.get("search[user]") !== null ? { user: q.get("search[user]") ?? "" } : {}),
          ...(q.get("search[commit]") !== null ? { commit: q.get("search[commit]") ?? "" } : {}),
          ...(q.get("search[basic]") !== null ? { basic: q.get("search[basic]") ?? "" } : {}),
        }, (pageRequested.number - 1) * pageRequested.size, pageRequested.size);
        const page = pageOf(runs, totalCount, pageRequested, ctx.request.url);
        const included = uniqueResources(page.items.flatMap((run) => runIncluded(out, run, include)));
        const data = `[${page.items.map((run) => serializeRunJson(out, run, { single: false })).join(",")}]`;
        return documentText(200, `{"data":${data}${include.size > 0 ? `,"included":${JSON.stringify(included)}` : ""},"links":${JSON.stringify(page.links)},"meta":${JSON.stringify(page.meta)}}`);
      }),
  },
  {
    method: "GET",
    path: "/runs/:run_id",
    operation: "show run",
    handler: (ctx) =>
      readAs(ctx, "show run", ({ sim, caller, out }) => {
        const include = includes(ctx.query, RUN_INCLUDES);
        const run = visibleRun(sim.state, caller, ctx.params.run_id ?? "", "show run");
        const data = serializeRunJson(out, run, { single: true });
        return documentText(200, include.size > 0 ? `{"data":${data},"included":${JSON.stringify(uniqueResources(runIncluded(out, run, include)))}}` : `{"data":${data}}`);
      }),
  },
  actionRoute("apply", applyRun),
  actionRoute("discard", discardRun),
  actionRoute("cancel", cancelRun),
  actionRoute("force-cancel", forceCancelRun),
  actionRoute("force-execute", (sim, caller, runId) => forceExecuteRun(sim, caller, runId), false),
  {
    method: "GET",
    path: "/plans/:id",
    operation: "show plan",
    handler: (ctx) =>
      readAs(ctx, "show plan", ({ sim, caller, out }) => {
        const plan = sim.state.plans[ctx.params.id ?? ""];
        if (plan === undefined) throw notFound("show plan", ctx.params.id);
        visibleRun(sim.state, caller, plan.runId, "show plan");
        return document(200, { data: serializePhase(out, plan, "plans") });
      }),
  },
  {
    method: "GET",
    path: "/applies/:id",
    operation: "show apply",
    handler: (ctx) =>
      readAs(ctx, "show apply", ({ sim, caller, out }) => {
        const apply = sim.state.applies[ctx.params.id ?? ""];
        if (apply === undefined) throw notFound("show apply", ctx.params.id);
        visibleRun(sim.state, caller, apply.runId, "show apply");
        return document(200, { data: serializePhase(out, apply, "applies") });
      }),
  },
  {
    method: ["GET", "HEAD"],
    base: "archive",
    path: `${LOG_PATH}/:token`,
    operation: "read log",
    handler: (ctx) => {
      const bytes = ctx.sim.read<RunsState, Uint8Array>(RUNS, (sim: ReadContext<RunsState>) => readLog(sim, ctx.params.token ?? "", logRange(ctx.query)));
      return { status: 200, headers: { "content-type": "text/plain; charset=utf-8", "content-length": String(bytes.length) }, body: bytes };
    },
  },
  {
    method: "GET",
    path: "/cost-estimates/:id",
    operation: "show cost estimate",
    handler: (ctx) =>
      readAs(ctx, "show cost estimate", ({ sim, caller, out }) => {
        const estimate = sim.state.costEstimates[ctx.params.id ?? ""];
        if (estimate === undefined) throw notFound("show cost estimate", ctx.params.id);
        visibleRun(sim.state, caller, estimate.runId, "show cost estimate");
        return document(200, { data: serializeCostEstimate(out, estimate) });
      }),
  },
  {
    method: "GET",
    path: "/users/:id",
    operation: "show user",
    handler: (ctx) =>
      readAs(ctx, "show user", ({ sim, out }) => {
        const user = sim.state.users[ctx.params.id ?? ""];
        if (user === undefined) throw notFound("show user", ctx.params.id);
        return document(200, { data: serializeUser(out, user) });
      }),
  },
];
