/**
 * Uploads go-slug refuses (docs/decisions/runs.md, "Archives are read"): a path that leaves the
 * root with `..`, an absolute path, a hard link or other entry type, a symlink whose target leaves
 * the root, an entry under a symlink. Each upload's `PUT` answers 200 (the archive host stores
 * bytes) and the version ends `errored` with go-slug's message, as for any other unreadable upload;
 * archives built by GNU tar and by nanotar, through every transport.
 */
import { expect, it } from "vitest";
import { ACCEPTED_ARCHIVES, REFUSED_ARCHIVES } from "../../support/archives.js";
import { describeEachTransport } from "../../support/transports.js";
import { expectError, startRuns } from "./support.js";

describeEachTransport("runs: configuration archives go-slug refuses", (h) => {
  it.each(REFUSED_ARCHIVES)("errors the version for %s, with no run, no files and no download", async (_what, build, message) => {
    const w = await startRuns(h);
    const { cvId, runId } = await w.upload({ bytes: build() });
    expect(runId).toBeUndefined();
    const shown = await w.api("GET", `/configuration-versions/${cvId}`);
    expect(shown.body.data.attributes).toMatchObject({ status: "errored", error: "unprocessable_archive", "error-message": message });
    expect(w.runs.runsOf(w.ws.id)).toHaveLength(0);
    expect(() => w.runs.configurationFiles(cvId)).toThrow(`(unprocessable_archive: ${message})`);
    expectError(await w.api("GET", `/configuration-versions/${cvId}/download`, { redirect: "manual" }), 404, "not found");
    const put = w.doubles.handler.journal.find((entry) => entry.method === "PUT");
    expect(put?.status).toBe(200);
    expect(put?.configurationFiles).toBeUndefined();
  });

  it.each(ACCEPTED_ARCHIVES)("uploads %s and holds only its regular files", async (_what, build, files) => {
    const w = await startRuns(h);
    const { cvId, runId } = await w.upload({ bytes: build() });
    expect(runId).toBeDefined();
    const shown = await w.api("GET", `/configuration-versions/${cvId}`);
    expect(shown.body.data.attributes.status).toBe("uploaded");
    const held = w.runs.configurationFiles(cvId);
    expect(Object.fromEntries(Object.entries(held).map(([path, file]) => [path, file.text]))).toEqual(files);
  });
});
