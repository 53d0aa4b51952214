import { expect, it } from "vitest";
import { configurationArchive } from "../../../src/scenarios/runs/archive.js";
import { describeEachTransport } from "../../support/transports.js";
import { startRuns, type RunsWorld } from "./support.js";

/** A fixed script of calls; returns every response body with the transport's origin masked. */
async function script(w: RunsWorld): Promise<string[]> {
  const origin = new URL(w.base).origin;
  const archiveOrigin = new URL(w.archiveBase).origin;
  const bodies: string[] = [];
  const record = (text: string): void => {
    bodies.push(text.split(origin).join("<origin>").split(archiveOrigin).join("<archive>"));
  };
  const created = await w.api("POST", `/workspaces/${w.ws.id}/configuration-versions`, { body: { data: { type: "configuration-versions" } } });
  record(created.text);
  await fetch(created.body.data.attributes["upload-url"], { method: "PUT", body: configurationArchive() });
  record((await w.api("GET", `/configuration-versions/${created.body.data.id}`)).text);
  const runId = await w.createRun({ message: "deterministic", variables: [{ key: "a", value: "1" }] });
  w.doubles.advance("90s");
  record((await w.api("GET", `/workspaces/${w.ws.id}/runs?include=plan,apply,created_by,configuration_version`)).text);
  record((await w.api("POST", `/runs/${runId}/actions/discard`, { body: { comment: "no" } })).text);
  w.doubles.advance("3m");
  record((await w.api("GET", `/runs/${runId}?include=plan`)).text);
  record((await w.api("GET", "/admin/engine-versions", { token: w.siteAdmin })).text);
  record((await w.api("POST", "/runs", { body: { data: { type: "runs", attributes: { "is-destroy": true, "refresh-only": true } } } })).text);
  return bodies;
}

describeEachTransport("runs: determinism and failed requests", (h) => {
  it("gives byte-identical response bodies for the same seed and the same calls", async () => {
    const first = await script(await startRuns(h, { seed: "same", host: "one.test" }));
    const second = await script(await startRuns(h, { seed: "same", host: "two.test" }));
    expect(second).toEqual(first);
    const other = await script(await startRuns(h, { seed: "other", host: "three.test" }));
    expect(other).not.toEqual(first);
  });

  it("leaves the service state, schedule and ids untouched when a request fails", async () => {
    const w = await startRuns(h);
    w.runs.nextRun(w.ws.id, { plan: "errors" });
    const { runId } = await w.upload();
    const before = w.doubles.snapshot();
    const wsBody = (attributes: Record<string, unknown>) => ({
      data: { type: "runs", attributes, relationships: { workspace: { data: { type: "workspaces", id: w.ws.id } } } },
    });
    const failures = [
      await w.api("POST", "/runs", { body: wsBody({ "engine-version": "1.8.5" }) }),
      await w.api("POST", "/runs", { body: wsBody({ "is-destroy": true, "refresh-only": true }) }),
      await w.api("POST", "/runs", { body: wsBody({ variables: [{ key: "x", value: 1 }] }) }),
      await w.api("POST", "/runs", { body: wsBody({}), token: w.reader }),
      await w.api("POST", "/runs", { raw: "{" }),
      await w.api("POST", `/runs/${runId}/actions/apply`),
      await w.api("POST", `/runs/${runId}/actions/cancel`, { body: { comment: "x" } }),
      await w.api("POST", `/runs/${runId}/actions/force-execute`),
      await w.api("POST", `/workspaces/${w.ws.id}/configuration-versions`, { body: { data: { type: "configuration-versions", attributes: { provisional: 1 } } } }),
      await w.api("POST", "/admin/engine-versions", { token: w.siteAdmin, body: { data: { type: "engine-versions", attributes: { version: "1.9.8", url: "https://x.example/e.zip", sha: "b".repeat(64) } } } }),
      await w.api("DELETE", `/admin/engine-versions/${w.runs.engineVersions()[0]?.id}`, { token: w.siteAdmin }),
    ];
    for (const failure of failures) expect(failure.status).toBeGreaterThanOrEqual(400);
    expect(w.doubles.snapshot()).toEqual(before);
    w.doubles.advance("1m");
    expect(w.runs.run(runId ?? "").status).toBe("errored");
  });
});
