/**
 * Run orchestration rows (`npm run bench`, see bench/README.md): a run's whole life through the
 * transport-free handler (upload, plan, apply, finish) on a workspace that already holds 200
 * finished runs, against the same on a fresh one (which gains one run per iteration).
 */
import { createDoubles } from "../src/scenarios/doubles.js";
import { configurationArchive } from "../src/scenarios/runs/archive.js";
import { row } from "./table.js";

function setup(existingRuns: number): () => Promise<void> {
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

row({
  name: "a run's whole life, 200 runs stored",
  clock: "cpu",
  setup: () => ({
    figure: { label: "200 runs stored", run: setup(200) },
    anchor: { label: "fresh workspace", run: setup(0) },
  }),
});
