/**
 * The README's quick start, verbatim except for the import path: if this test fails, the README
 * is wrong. Keep the two in step.
 */
import { expect, it } from "vitest";
import { configurationArchive, createDoubles } from "../../src/index.js";

it("plans a run, pauses for confirmation and applies it", async () => {
  const doubles = createDoubles({ seed: 1 });             // manual clock at 2024-01-01T00:00:00Z
  using _nock = doubles.intercept();                       // https://app.run-orchestration.test/api/v2, ...
  const { runs } = doubles;
  const ws = runs.addWorkspace(runs.addOrganization("acme"), { name: "prod" });
  const token = runs.issueUserToken(runs.addUser({ permissions: { [ws.id]: "write" } }).id);
  const api = "https://app.run-orchestration.test/api/v2";
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/vnd.api+json" };
  const body = JSON.stringify({ data: { type: "configuration-versions" } });
  const created = await fetch(`${api}/workspaces/${ws.id}/configuration-versions`, { method: "POST", headers, body });
  const cv = (await created.json()) as { data: { attributes: { "upload-url": string } } };
  await fetch(cv.data.attributes["upload-url"], { method: "PUT", body: configurationArchive() });
  doubles.advance("1m");                                   // the queued run plans, then waits
  const [run] = runs.runsOf(ws.id);
  expect(run?.status).toBe("planned");
  await fetch(`${api}/runs/${run?.id}/actions/apply`, { method: "POST", headers });
  doubles.advance("5m");
  expect(runs.run(run?.id ?? "").status).toBe("applied");
});
