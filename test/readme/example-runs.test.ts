/** The README's run orchestration example, exactly as README.md shows it (the readme-in-step test compares them). */
import { expect, it } from "vitest";
import { createDoubles } from "../../src/index.js";

it("shows a plan that errors to the user, without waiting for a real plan", async () => {
  const doubles = createDoubles({ seed: 1 });
  using _nock = doubles.intercept();
  const { runs } = doubles;
  const ws = runs.addWorkspace(runs.addOrganization("acme"), { name: "prod" });
  const alice = runs.addUser({ permissions: { [ws.id]: "write" } });
  runs.nextRun(ws.id, { plan: "errors" });                // script what the next run does
  const { runId } = runs.uploadConfiguration(ws.id, { as: alice.id, files: { "main.tf": "" } }); // or your client's upload
  doubles.advance("1m");                                   // the plan runs on the simulator's clock
  const api = "https://app.run-orchestration.test/api/v2";
  const headers = { authorization: `Bearer ${runs.issueUserToken(alice.id)}` };
  const run = (await (await fetch(`${api}/runs/${runId}`, { headers })).json()) as { data: { attributes: { status: string } } };
  expect(run.data.attributes.status).toBe("errored");
});
