/**
 * The paged workspace run list (`listRunsPage`, served from the creation-ordered indexes) gives the
 * same page and total as a straightforward reference: every stored run of the workspace, filtered
 * (plan-only runs left out unless `filter[operation]` asks), sorted newest first by creation
 * sequence, sliced. Random run sets over two workspaces, random filters and page sizes; and the
 * route's whole document through `handle()` against `paginate` over the reference.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { pageRequest, paginate } from "../../src/interceptors/runs/json-api.js";
import { createDoubles } from "../../src/scenarios/doubles.js";
import { authenticate } from "../../src/simulator/runs/access.js";
import { listRunsPage, operationOf, type RunListQuery } from "../../src/simulator/runs/runs.js";
import type { Run, RunsState } from "../../src/simulator/runs/state.js";

type Kind = "apply" | "planOnly" | "savePlan" | "refresh" | "destroy" | "empty" | "ui";

const kinds: readonly Kind[] = ["apply", "planOnly", "savePlan", "refresh", "destroy", "empty", "ui"];

function world(runs: readonly { kind: Kind; second: boolean }[]) {
  const doubles = createDoubles({ seed: 7 });
  const r = doubles.runs;
  const org = r.addOrganization("acme");
  const ws = [r.addWorkspace(org, { name: "a" }), r.addWorkspace(org, { name: "b" })];
  const user = r.addUser({ permissions: Object.fromEntries(ws.map((w) => [w.id, "admin"])) });
  const token = r.issueUserToken(user.id);
  r.setProgression("manual");
  for (const w of ws) r.uploadConfiguration(w.id, { as: user.id, autoQueueRuns: false });
  for (const { kind, second } of runs) {
    const id = (second ? ws[1] : ws[0])?.id ?? "";
    const input = {
      apply: {},
      planOnly: { planOnly: true },
      savePlan: { savePlan: true },
      refresh: { refreshOnly: true },
      destroy: { isDestroy: true },
      empty: { allowEmptyApply: true },
      ui: { source: "svc-ui" as const },
    }[kind];
    r.queueRun(id, { as: user.id, ...input });
  }
  return { doubles, wsId: ws[0]?.id ?? "", token };
}

/** The reference: no index, every stored run. */
function reference(state: RunsState, workspaceId: string, query: RunListQuery): Run[] {
  return Object.values(state.runs)
    .filter((run) => run.workspaceId === workspaceId)
    .filter((run) => (query.operations !== undefined && query.operations.length > 0 ? query.operations.includes(operationOf(run)) : operationOf(run) !== "plan_only"))
    .filter((run) => query.statuses === undefined || query.statuses.length === 0 || query.statuses.includes(run.status))
    .filter((run) => query.sources === undefined || query.sources.length === 0 || query.sources.includes(run.source))
    .sort((a, b) => b.seq - a.seq);
}

const operationsArb = fc.option(fc.subarray(["plan_only", "save_plan", "refresh_only", "destroy", "empty_apply", "plan_and_apply", "bogus"]), { nil: undefined });
const runsArb = fc.array(fc.record({ kind: fc.constantFrom(...kinds), second: fc.boolean() }), { maxLength: 60 });

describe("runs: paged workspace run list", () => {
  it("gives the reference's page and total count for random runs, filters and pages", () => {
    fc.assert(
      fc.property(runsArb, operationsArb, fc.boolean(), fc.boolean(), fc.integer({ min: 1, max: 25 }), fc.integer({ min: 1, max: 8 }), (runs, operations, bySource, byStatus, size, number) => {
        const { doubles, wsId, token } = world(runs);
        const query: RunListQuery = { ...(operations !== undefined ? { operations } : {}), ...(bySource ? { sources: ["svc-ui"] } : {}), ...(byStatus ? { statuses: ["pending"] } : {}) };
        doubles.sim.read<RunsState, void>("runs", (ctx) => {
          const caller = authenticate(ctx.state, token, "list runs");
          const expected = reference(ctx.state, wsId, query);
          const page = listRunsPage(ctx.state, caller, wsId, query, (number - 1) * size, size);
          expect(page.totalCount).toBe(expected.length);
          expect(page.runs.map((run) => run.id)).toEqual(expected.slice((number - 1) * size, number * size).map((run) => run.id));
        });
      }),
      { numRuns: 60 },
    );
  });

  it("answers GET /workspaces/:id/runs with the document paginate builds over the reference", async () => {
    await fc.assert(
      fc.asyncProperty(runsArb, operationsArb, fc.integer({ min: 1, max: 25 }), fc.integer({ min: 1, max: 8 }), async (runs, operations, size, number) => {
        const { doubles, wsId, token } = world(runs);
        const api = doubles.baseUrls().runs.api;
        const filter = operations !== undefined ? `&filter%5Boperation%5D=${operations.join(",")}` : "";
        const url = new URL(`${api}/workspaces/${wsId}/runs?page%5Bnumber%5D=${number}&page%5Bsize%5D=${size}${filter}`);
        const response = await doubles.handler.handle({ method: "GET", url, headers: { authorization: `Bearer ${token}` }, body: new Uint8Array() });
        expect(response.status).toBe(200);
        const body = JSON.parse(typeof response.body === "string" ? response.body : new TextDecoder().decode(response.body)) as { data: { id: string }[]; links: unknown; meta: unknown };
        const expected = doubles.sim.read<RunsState, Run[]>("runs", (ctx) => reference(ctx.state, wsId, operations !== undefined && operations.length > 0 ? { operations } : {}));
        const page = paginate(expected, pageRequest(url.searchParams), url);
        expect(body.data.map((d) => d.id)).toEqual(page.items.map((run) => run.id));
        expect(body.links).toEqual(page.links);
        expect(body.meta).toEqual(page.meta);
      }),
      { numRuns: 30 },
    );
  });
});
