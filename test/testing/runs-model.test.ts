/**
 * The project's own model-based test of the run orchestration service, with the testing kit's
 * commands: through the transport-free handler (more runs), and through HTTP on every transport.
 * Invariants after every command: one active run per workspace lock, final runs never change,
 * actions accepted exactly when the run's flags say so.
 */
import fc from "fast-check";
import { expect, it } from "vitest";
import { createDoubles } from "../../src/index.js";
import { handlerFetch } from "../../src/testing/http.js";
import { runsCommands, runsModelSetup } from "../../src/testing/models/runs-model.js";
import { describeEachTransport } from "../support/transports.js";

it("keeps every runs invariant through random commands on the transport-free handler", async () => {
  await fc.assert(
    fc.asyncProperty(runsCommands(), async (cmds) => {
      const doubles = createDoubles({ seed: 11 });
      await fc.asyncModelRun(runsModelSetup({ doubles, send: handlerFetch(doubles) }), cmds);
    }),
    { numRuns: 40 },
  );
});

it("a failing step shrinks to a story that names each command", async () => {
  const result = await fc.check(
    fc.asyncProperty(runsCommands({ client: { name: "refuse", act: () => Promise.reject(new Error("refused")) } }), async (cmds) => {
      const doubles = createDoubles({ seed: 11 });
      await fc.asyncModelRun(runsModelSetup({ doubles, send: handlerFetch(doubles) }), cmds);
    }),
    { numRuns: 40, seed: 7 },
  );
  expect(result.failed).toBe(true);
  expect(String(result.counterexample?.[0])).toMatch(/^refuse \(your client\)( \/\*replayPath=.*\*\/)?$/);
});

describeEachTransport("testing kit: runs model commands", (t) => {
  it("keeps every runs invariant through random commands over HTTP", async () => {
    const { doubles, base } = await t.startWith(createDoubles({ seed: 12 }));
    const urls = { runs: { api: base("runs"), archive: base("runs", "archive") }, accessControl: { api: base("accessControl") }, secrets: { api: base("secrets") } };
    const fresh = doubles.snapshot();
    await fc.assert(
      fc.asyncProperty(runsCommands({ maxCommands: 12 }), async (cmds) => {
        doubles.restore(fresh);
        await fc.asyncModelRun(runsModelSetup({ doubles, urls }), cmds);
      }),
      { numRuns: 4 },
    );
  });
});
