/**
 * Run orchestration benchmarks (`npm run bench`): a whole run through the transport-free handler,
 * on a fresh workspace and on one that already holds 200 finished runs (transactions copy the
 * service state, so cost grows with it). The "fresh" case gains one run per iteration. Targets:
 * a run's whole life under 10 ms on a fresh simulator and under 20 ms with 200 runs stored
 * (measured on the 2-core machine kind, loaded: 5.3 ms and 9.9 ms mean).
 */
import { bench, describe } from "vitest";
import { createDoubles } from "../src/scenarios/doubles.js";
import { configurationArchive } from "../src/scenarios/runs/archive.js";

function setup(existingRuns: number) {
  const doubles = createDoubles({ seed: 1 });
  const { runs } = doubles;
  const workspace = runs.addWorkspace(runs.addOrganization("acme"), { name: "prod" });
  const user = runs.addUser({ permissions: { [workspace.id]: "admin" } });
  const token = runs.issueUserToken(user.id);
  runs.uploadConfiguration(workspace.id, { as: user.id, autoQueueRuns: false });
  for (let i = 0; i < existingRuns; i++) {
    runs.nextRun(workspace.id, { plan: "no-changes" });
    runs.queueRun(workspace.id, { as: user.id });
    doubles.advance("5m");
  }
  const api = doubles.baseUrls().runs?.api ?? "";
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/vnd.api+json" };
  const call = (method: string, url: string, body?: string | Uint8Array) =>
    doubles.handler.handle({
      method,
      url: new URL(url),
      headers,
      body: typeof body === "string" ? new TextEncoder().encode(body) : (body ?? new Uint8Array()),
    });
  const archive = configurationArchive();
  return async () => {
    const created = await call("POST", `${api}/workspaces/${workspace.id}/configuration-versions`, JSON.stringify({ data: { type: "configuration-versions" } }));
    const uploadUrl = (JSON.parse(String(created.body)) as { data: { attributes: { "upload-url": string } } }).data.attributes["upload-url"];
    await call("PUT", uploadUrl, archive);
    doubles.advance("1m");
    const run = runs.runsOf(workspace.id)[0];
    await call("POST", `${api}/runs/${run?.id ?? ""}/actions/apply`, "{}");
    doubles.advance("5m");
  };
}

describe("runs", () => {
  const fresh = setup(0);
  const busy = setup(200);
  bench("upload, plan, apply, finish (fresh simulator)", fresh);
  bench("upload, plan, apply, finish (200 runs stored)", busy);
});
