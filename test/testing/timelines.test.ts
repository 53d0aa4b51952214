/** The testing kit's timelines: played steps move the clock, script the next run and add faults the services then answer with. */
import fc from "fast-check";
import { expect, it } from "vitest";
import { createDoubles } from "../../src/index.js";
import { installWorkspace } from "../../src/testing/fixtures.js";
import { handlerFetch } from "../../src/testing/http.js";
import { describeTimeline, faultStep, playStep, timeline } from "../../src/testing/timelines.js";

it("a played timeline moves the clock by its advances and leaves its faults in the fault set", async () => {
  await fc.assert(
    fc.asyncProperty(timeline(), async (steps) => {
      const doubles = createDoubles({ seed: 51 });
      const ws = installWorkspace(doubles, { name: "t", autoApply: false, finished: [], paused: false, queued: 0 });
      const start = doubles.now();
      for (const step of steps) playStep(doubles, step, { workspaceId: ws.workspaceId });
      const advanced = steps.reduce((sum, step) => sum + (step.kind === "advance" ? step.ms : 0), 0);
      expect(doubles.now() - start).toBe(advanced);
      expect(doubles.faults.list().map((f) => [f.service, f.answer ?? f.connection, f.times])).toEqual(
        steps.flatMap((s) => (s.kind === "fault" ? [[s.fault.service, s.fault.answer ?? s.fault.connection, s.fault.times]] : [])),
      );
      expect(describeTimeline(steps).split(" -> ").length).toBe(Math.max(1, steps.length));
    }),
    { numRuns: 40 },
  );
});

it("a fault step's answer is what the next matching request gets (status of the service's own answer)", async () => {
  const statuses: Record<string, number> = { "rate-limited": 429, "internal-error": 500, "bad-gateway": 502, unavailable: 503, sealed: 503, "no-cluster-leader": 500 };
  await fc.assert(
    fc.asyncProperty(fc.constantFrom("runs" as const, "secrets" as const, "accessControl" as const).chain(faultStep), async (fault) => {
      fc.pre(fault.answer !== undefined && fault.after === undefined);
      const doubles = createDoubles({ seed: 52 });
      playStep(doubles, { kind: "fault", fault });
      const urls = doubles.baseUrls();
      const url = { runs: `${urls.runs.api}/runs/run-x`, secrets: `${urls.secrets.api}/sys/health`, accessControl: `${urls.accessControl.api}/acl/token/self` }[fault.service as "runs"];
      expect((await handlerFetch(doubles)(url)).status).toBe(statuses[fault.answer ?? ""]);
    }),
    { numRuns: 30 },
  );
});

it("a timeline reads as a story", () => {
  expect(describeTimeline([{ kind: "advance", ms: 600_000 }, { kind: "outcome", script: { plan: "errors" } }, { kind: "fault", fault: { service: "runs", answer: "rate-limited", times: 1 } }])).toBe(
    "advance 10m -> next run: plan errors -> fault runs rate-limited x1",
  );
});
