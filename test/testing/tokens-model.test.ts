/**
 * The project's own model-based test of access-control tokens with the testing kit's commands
 * (create, clone, update, delete, login/logout, advance): through the transport-free handler and
 * through HTTP on every transport. Invariant after every command: a token authorises exactly while
 * it lives; an expired token never authorises.
 */
import fc from "fast-check";
import { it } from "vitest";
import { createDoubles } from "../../src/index.js";
import { handlerFetch } from "../../src/testing/http.js";
import { tokensCommands, tokensModelSetup } from "../../src/testing/models/tokens-model.js";
import { describeEachTransport } from "../support/transports.js";

it("keeps every token invariant through random commands on the transport-free handler", async () => {
  await fc.assert(
    fc.asyncProperty(tokensCommands(), async (cmds) => {
      const doubles = createDoubles({ seed: 31 });
      await fc.asyncModelRun(tokensModelSetup({ doubles, send: handlerFetch(doubles) }), cmds);
    }),
    { numRuns: 40 },
  );
});

describeEachTransport("testing kit: token model commands", (t) => {
  it("keeps every token invariant through random commands over HTTP", async () => {
    const { doubles, base } = await t.startWith(createDoubles({ seed: 32 }));
    const urls = { runs: { api: base("runs"), archive: base("runs", "archive") }, accessControl: { api: base("accessControl") }, secrets: { api: base("secrets") } };
    const fresh = doubles.snapshot();
    await fc.assert(
      fc.asyncProperty(tokensCommands({ maxCommands: 12 }), async (cmds) => {
        doubles.restore(fresh);
        await fc.asyncModelRun(tokensModelSetup({ doubles, urls }), cmds);
      }),
      { numRuns: 4 },
    );
  });
});
