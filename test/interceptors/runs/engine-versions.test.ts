import { describe, expect, it } from "vitest";
import { describeEachTransport } from "../../support/transports.js";
import { expectError, startRuns, type RunsWorld } from "./support.js";

const SHA = "a".repeat(64);

function body(attributes: Record<string, unknown>): unknown {
  return { data: { type: "engine-versions", attributes } };
}

async function create(w: RunsWorld, attributes: Record<string, unknown>) {
  return w.api("POST", "/admin/engine-versions", { token: w.siteAdmin, body: body(attributes) });
}

describeEachTransport("runs: engine versions admin API", (h) => {
  describe("GET /admin/engine-versions", () => {
    it("lists the seeded official versions newest first, with links and meta.pagination", async () => {
      const w = await startRuns(h);
      const response = await w.api("GET", "/admin/engine-versions", { token: w.siteAdmin });
      expect(response.status).toBe(200);
      expect(response.body.data.map((d: { attributes: { version: string } }) => d.attributes.version)).toEqual(["1.9.8", "1.8.5", "1.7.5", "1.6.6", "1.5.7"]);
      expect(response.body.data[0]).toEqual({
        id: expect.stringMatching(/^tool-[0-9A-Za-z]{16}$/),
        type: "engine-versions",
        attributes: {
          version: "1.9.8",
          url: "https://releases.engine.example/engine/1.9.8/engine_1.9.8_linux_amd64.zip",
          sha: expect.stringMatching(/^[0-9a-f]{64}$/),
          deprecated: false,
          "deprecated-reason": null,
          official: true,
          enabled: true,
          beta: false,
          usage: 1,
          "created-at": "2024-01-01T00:00:00.000Z",
        },
        links: { self: `/api/v2/admin/engine-versions/${response.body.data[0].id}` },
      });
      expect(Object.keys(response.body.links)).toEqual(["self", "first", "prev", "next", "last"]);
      expect(response.body.meta.pagination).toEqual({ "current-page": 1, "page-size": 20, "prev-page": null, "next-page": null, "total-pages": 1, "total-count": 5 });
    });

    it("filters by exact version (over search), searches by substring, and paginates", async () => {
      const w = await startRuns(h);
      const q = async (query: string) =>
        (await w.api("GET", `/admin/engine-versions?${query}`, { token: w.siteAdmin })).body.data.map((d: { attributes: { version: string } }) => d.attributes.version);
      expect(await q("filter[version]=1.7.5")).toEqual(["1.7.5"]);
      expect(await q("filter[version]=1.7")).toEqual([]);
      expect(await q("search[version]=1.")).toHaveLength(5);
      expect(await q("search[version]=.5")).toEqual(["1.8.5", "1.7.5", "1.5.7"]);
      expect(await q("filter[version]=1.6.6&search[version]=1.9")).toEqual(["1.6.6"]);
      const page = await w.api("GET", "/admin/engine-versions?page%5Bsize%5D=2&page%5Bnumber%5D=2", { token: w.siteAdmin });
      expect(page.body.data.map((d: { attributes: { version: string } }) => d.attributes.version)).toEqual(["1.7.5", "1.6.6"]);
      expect(page.body.meta.pagination).toMatchObject({ "current-page": 2, "prev-page": 1, "next-page": 3, "total-pages": 3, "total-count": 5 });
    });

    it("answers 404 to everyone but site administrators, 401 without a token", async () => {
      const w = await startRuns(h);
      for (const token of [w.admin, w.orgToken, w.reader]) expectError(await w.api("GET", "/admin/engine-versions", { token }), 404, "not found");
      expectError(await w.api("GET", "/admin/engine-versions", { token: null }), 401, "unauthorized");
    });
  });

  describe("POST /admin/engine-versions", () => {
    it("creates a version (201) with the spec's defaults", async () => {
      const w = await startRuns(h);
      const response = await create(w, { version: "1.10.0", url: "https://example.com/engine.zip", sha: SHA });
      expect(response.status).toBe(201);
      expect(response.body.data.attributes).toEqual({
        version: "1.10.0",
        url: "https://example.com/engine.zip",
        sha: SHA,
        deprecated: false,
        "deprecated-reason": null,
        official: false,
        enabled: true,
        beta: false,
        usage: 0,
        "created-at": "2024-01-01T00:00:00.000Z",
      });
      const bundle = await create(w, { version: "1.10.0-custom", url: "https://example.com/b.zip", sha: SHA, beta: true, official: true, enabled: false, deprecated: true, "deprecated-reason": "old" });
      expect(bundle.body.data.attributes).toMatchObject({ beta: true, official: true, enabled: false, deprecated: true, "deprecated-reason": "old" });
    });

    it("answers 422 with a pointer for validation errors", async () => {
      const w = await startRuns(h);
      const base = { version: "1.11.0", url: "https://example.com/e.zip", sha: SHA };
      const cases: [Record<string, unknown>, string][] = [
        [{ url: base.url, sha: SHA }, "/data/attributes/version"],
        [{ version: "1.11.0", sha: SHA }, "/data/attributes/url"],
        [{ version: "1.11.0", url: base.url }, "/data/attributes/sha"],
        [{ ...base, version: "v1" }, "/data/attributes/version"],
        [{ ...base, version: "1.9.8" }, "/data/attributes/version"],
        [{ ...base, url: "not a url" }, "/data/attributes/url"],
        [{ ...base, sha: "abc" }, "/data/attributes/sha"],
        [{ ...base, "deprecated-reason": "why" }, "/data/attributes/deprecated-reason"],
        [{ ...base, enabled: "yes" }, "/data/attributes/enabled"],
        [{ ...base, version: 1 }, "/data/attributes/version"],
      ];
      for (const [attributes, pointer] of cases) expectError(await create(w, attributes), 422, "invalid attribute", pointer);
      expectError(await w.api("POST", "/admin/engine-versions", { token: w.siteAdmin, body: { data: { type: "runs", attributes: base } } }), 422, "invalid attribute", "/data/type");
      expect(w.runs.engineVersions()).toHaveLength(5);
    });

    it("answers 404 to non-administrators whatever they send", async () => {
      const w = await startRuns(h);
      expectError(await w.api("POST", "/admin/engine-versions", { token: w.admin, raw: "{broken" }), 404, "not found");
    });
  });

  describe("GET, PATCH and DELETE /admin/engine-versions/:id", () => {
    it("shows a version, 404 when missing or not an administrator", async () => {
      const w = await startRuns(h);
      const created = await create(w, { version: "2.0.0", url: "https://example.com/2.zip", sha: SHA });
      const id = created.body.data.id;
      expect((await w.api("GET", `/admin/engine-versions/${id}`, { token: w.siteAdmin })).body.data).toEqual(created.body.data);
      expectError(await w.api("GET", "/admin/engine-versions/tool-missing", { token: w.siteAdmin }), 404, "not found");
      expectError(await w.api("GET", `/admin/engine-versions/${id}`, { token: w.admin }), 404, "not found");
    });

    it("updates only the given attributes (200) and clears the reason when deprecated becomes false", async () => {
      const w = await startRuns(h);
      const id = (await create(w, { version: "2.0.0", url: "https://example.com/2.zip", sha: SHA })).body.data.id;
      const patch = (attributes: Record<string, unknown>) => w.api("PATCH", `/admin/engine-versions/${id}`, { token: w.siteAdmin, body: body(attributes) });
      const deprecated = await patch({ deprecated: true, "deprecated-reason": "security fix in 2.0.1" });
      expect(deprecated.status).toBe(200);
      expect(deprecated.body.data.attributes).toMatchObject({ version: "2.0.0", url: "https://example.com/2.zip", deprecated: true, "deprecated-reason": "security fix in 2.0.1", enabled: true });
      expect((await patch({ enabled: false })).body.data.attributes).toMatchObject({ enabled: false, deprecated: true, "deprecated-reason": "security fix in 2.0.1" });
      expect((await patch({ deprecated: false })).body.data.attributes).toMatchObject({ deprecated: false, "deprecated-reason": null });
      expectError(await patch({ "deprecated-reason": "x" }), 422, "invalid attribute", "/data/attributes/deprecated-reason");
      expectError(await patch({ sha: "zz" }), 422, "invalid attribute", "/data/attributes/sha");
      expectError(await patch({ version: "1.9.8" }), 422, "invalid attribute", "/data/attributes/version");
      expect((await w.api("GET", `/admin/engine-versions/${id}`, { token: w.siteAdmin })).body.data.attributes.enabled).toBe(false);
      expectError(await w.api("PATCH", "/admin/engine-versions/tool-missing", { token: w.siteAdmin, body: body({}) }), 404, "not found");
      expectError(await w.api("PATCH", `/admin/engine-versions/${id}`, { token: w.admin, body: body({ beta: true }) }), 404, "not found");
    });

    it("deletes a version (204), refusing official and used ones (422)", async () => {
      const w = await startRuns(h);
      const id = (await create(w, { version: "2.0.0", url: "https://example.com/2.zip", sha: SHA })).body.data.id;
      expectError(await w.api("DELETE", `/admin/engine-versions/${id}`, { token: w.admin }), 404, "not found");
      const official = w.runs.engineVersions().find((v) => v.version === "1.5.7")?.id;
      expectError(await w.api("DELETE", `/admin/engine-versions/${official}`, { token: w.siteAdmin }), 422, "invalid attribute");
      w.runs.addWorkspace(w.org, { name: "pinned", engineVersion: "2.0.0" });
      const used = await w.api("DELETE", `/admin/engine-versions/${id}`, { token: w.siteAdmin });
      expectError(used, 422, "invalid attribute");
      expect(used.body.errors[0].detail).toMatch(/used by 1 workspace/);
      expect((await w.api("GET", `/admin/engine-versions/${id}`, { token: w.siteAdmin })).body.data.attributes.usage).toBe(1);
      const spare = (await create(w, { version: "2.1.0", url: "https://example.com/2.zip", sha: SHA })).body.data.id;
      const deleted = await w.api("DELETE", `/admin/engine-versions/${spare}`, { token: w.siteAdmin });
      expect(deleted.status).toBe(204);
      expect(deleted.text).toBe("");
      expectError(await w.api("DELETE", `/admin/engine-versions/${spare}`, { token: w.siteAdmin }), 404, "not found");
    });

    it("lets plan-only runs use an enabled admin-created version, not a disabled one", async () => {
      const w = await startRuns(h);
      const id = (await create(w, { version: "2.0.0", url: "https://example.com/2.zip", sha: SHA })).body.data.id;
      await w.upload({ attributes: { "auto-queue-runs": false } });
      const run = (attrs: Record<string, unknown>) =>
        w.api("POST", "/runs", { body: { data: { type: "runs", attributes: attrs, relationships: { workspace: { data: { type: "workspaces", id: w.ws.id } } } } } });
      expect((await run({ "plan-only": true, "engine-version": "2.0.0" })).status).toBe(201);
      await w.api("PATCH", `/admin/engine-versions/${id}`, { token: w.siteAdmin, body: body({ enabled: false }) });
      expectError(await run({ "plan-only": true, "engine-version": "2.0.0" }), 422, "invalid attribute", "/data/attributes/engine-version");
    });
  });
});
