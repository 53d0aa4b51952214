/**
 * The run resource written straight to JSON text (`serializeRunJson`, the hot path of GET
 * /runs/:id) gives exactly the bytes of `JSON.stringify(serializeRun(...))`, for any run: strings
 * that need escaping (quotes, controls, lone surrogates, non-BMP), every status and timestamp set,
 * null and non-null optional fields, any caller and time.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { serializeRun, serializeRunJson, type SerializeContext } from "../../../src/interceptors/runs/serializers.js";
import { createDoubles } from "../../../src/scenarios/doubles.js";
import { authenticate } from "../../../src/simulator/runs/access.js";
import { RUN_STATUSES } from "../../../src/simulator/runs/run-machine.js";
import type { Run, RunsState } from "../../../src/simulator/runs/state.js";

function fixture(): { state: RunsState; run: Run; callers: SerializeContext["caller"][] } {
  const doubles = createDoubles({ seed: 1 });
  const { runs } = doubles;
  const org = runs.addOrganization("acme");
  const ws = runs.addWorkspace(org, { name: "prod" });
  const admin = runs.issueUserToken(runs.addUser({ permissions: { [ws.id]: "admin" } }).id);
  const reader = runs.issueUserToken(runs.addUser({ permissions: { [ws.id]: "read" } }).id);
  const owner = runs.addUser({ organizationAccess: { acme: "admin" } });
  runs.uploadConfiguration(ws.id, { as: owner.id, autoQueueRuns: false });
  runs.queueRun(ws.id, { as: owner.id });
  doubles.advance("5m");
  return doubles.sim.read<RunsState, ReturnType<typeof fixture>>("runs", (ctx) => ({
    state: ctx.state,
    run: Object.values(ctx.state.runs)[0] as Run,
    callers: [admin, reader].map((token) => authenticate(ctx.state, token, "show run")),
  }));
}

const text = fc.oneof(fc.string(), fc.string({ unit: "binary" }), fc.string({ unit: fc.constantFrom("\"", "\\", "\u0000", "\u001f", "\u2028", "\ud800", "\udfff", "é", "😀", "/") }));
const time = fc.integer({ min: 0, max: Date.UTC(9999, 11, 31) });

describe("serializeRunJson", () => {
  it("writes the bytes JSON.stringify(serializeRun(...)) writes, for any run, caller and time", () => {
    const { state, run, callers } = fixture();
    const statusList = [...RUN_STATUSES];
    const arbitraryRun = fc.record({
      status: fc.constantFrom(...statusList),
      statusTimestamps: fc.dictionary(fc.constantFrom(...statusList), time),
      message: text,
      engineVersion: text,
      triggerReason: text,
      id: text,
      createdBy: fc.oneof(fc.constant(""), text),
      costEstimateId: fc.option(text),
      targetAddrs: fc.option(fc.array(text, { maxLength: 3 })),
      replaceAddrs: fc.option(fc.array(text, { maxLength: 3 })),
      variables: fc.array(fc.record({ key: text, value: text }), { maxLength: 3 }),
      canceledAt: fc.option(time),
      forceCancelAvailableAt: fc.option(time),
      createdAt: time,
      hasChanges: fc.boolean(),
      autoApply: fc.boolean(),
      isDestroy: fc.boolean(),
      planOnly: fc.boolean(),
      refresh: fc.boolean(),
      refreshOnly: fc.boolean(),
      savePlan: fc.boolean(),
      allowEmptyApply: fc.boolean(),
      allowConfigGeneration: fc.boolean(),
      policyCheckIds: fc.array(text, { maxLength: 3 }),
      comments: fc.array(text, { maxLength: 3 }),
    });
    fc.assert(
      fc.property(arbitraryRun, fc.constantFrom(...callers), time, fc.boolean(), fc.constantFrom("", "/api/v2", "/x\"y"), (fields, caller, now, single, prefix) => {
        const candidate: Run = { ...run, ...fields, comments: fields.comments.map((id) => ({ id, body: "b", action: "apply", by: "u", at: 0 })) };
        const ctx: SerializeContext = { state, caller, now, link: (path) => `${prefix}${path}` };
        expect(serializeRunJson(ctx, candidate, { single })).toBe(JSON.stringify(serializeRun(ctx, candidate, { single })));
      }),
      { numRuns: 500 },
    );
  });
});
