/**
 * The project's own model-based test of the secrets service with the testing kit's commands (OTP
 * issue/verify/expire, leases issue/renew/revoke, health states, advance): through the
 * transport-free handler and through HTTP on every transport. Invariants: an OTP verifies at most
 * once; every lease ends at or before its max TTL; each node state answers its health code.
 */
import fc from "fast-check";
import { it } from "vitest";
import { createDoubles } from "../../src/index.js";
import { handlerFetch } from "../../src/testing/http.js";
import { secretsCommands, secretsModelSetup } from "../../src/testing/models/secrets-model.js";
import { describeEachTransport } from "../support/transports.js";

it("keeps every secrets invariant through random commands on the transport-free handler", async () => {
  await fc.assert(
    fc.asyncProperty(secretsCommands(), async (cmds) => {
      const doubles = createDoubles({ seed: 41 });
      await fc.asyncModelRun(secretsModelSetup({ doubles, send: handlerFetch(doubles) }), cmds);
    }),
    { numRuns: 40 },
  );
});

describeEachTransport("testing kit: secrets model commands", (t) => {
  it("keeps every secrets invariant through random commands over HTTP", async () => {
    const { doubles, base } = await t.startWith(createDoubles({ seed: 42 }));
    const urls = { runs: { api: base("runs"), archive: base("runs", "archive") }, accessControl: { api: base("accessControl") }, secrets: { api: base("secrets") } };
    const fresh = doubles.snapshot();
    await fc.assert(
      fc.asyncProperty(secretsCommands({ maxCommands: 12 }), async (cmds) => {
        doubles.restore(fresh);
        await fc.asyncModelRun(secretsModelSetup({ doubles, urls }), cmds);
      }),
      { numRuns: 4 },
    );
  });
});
