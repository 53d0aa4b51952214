import http from "node:http";
import https from "node:https";
import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { configurationArchive } from "../../../src/scenarios/runs/archive.js";
import { describeEachTransport } from "../../support/transports.js";
import { expectError, startRuns } from "./support.js";

const sha = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

describeEachTransport("runs: configuration versions", (h) => {
  describe("POST /workspaces/:workspace_id/configuration-versions", () => {
    it("creates a pending version with the spec's defaults and an upload-url on the archive host", async () => {
      const w = await startRuns(h);
      const response = await w.api("POST", `/workspaces/${w.ws.id}/configuration-versions`, {
        body: { data: { type: "configuration-versions" } },
      });
      expect(response.status).toBe(201);
      expect(response.headers.get("content-type")).toBe("application/vnd.api+json");
      const data = response.body.data;
      expect(data.id).toMatch(/^cv-[0-9A-Za-z]{16}$/);
      expect(data.type).toBe("configuration-versions");
      expect(data.attributes).toEqual({
        "auto-queue-runs": true,
        error: null,
        "error-message": null,
        source: "svc-api",
        speculative: false,
        status: "pending",
        "status-timestamps": {},
        provisional: false,
        "upload-url": expect.stringMatching(new RegExp(`^${w.archiveBase}/v1/object/[0-9A-Za-z]{48}$`)),
      });
      expect(data.relationships["ingress-attributes"]).toEqual({
        data: null,
        links: { related: `/api/v2/configuration-versions/${data.id}/ingress-attributes` },
      });
      expect(data.links).toEqual({
        self: `/api/v2/configuration-versions/${data.id}`,
        download: `/api/v2/configuration-versions/${data.id}/download`,
      });
    });

    it("accepts auto-queue-runs, speculative and provisional, and an empty body", async () => {
      const w = await startRuns(h);
      const response = await w.api("POST", `/workspaces/${w.ws.id}/configuration-versions`, {
        body: { data: { type: "configuration-versions", attributes: { "auto-queue-runs": false, speculative: true, provisional: true } } },
      });
      expect(response.body.data.attributes).toMatchObject({ "auto-queue-runs": false, speculative: true, provisional: true });
      const empty = await w.api("POST", `/workspaces/${w.ws.id}/configuration-versions`, { raw: "" });
      expect(empty.status).toBe(201);
      expect(empty.body.data.attributes.status).toBe("pending");
    });

    it("hides upload-url on the resource after the create response", async () => {
      const w = await startRuns(h);
      const created = await w.api("POST", `/workspaces/${w.ws.id}/configuration-versions`, { body: { data: { type: "configuration-versions" } } });
      const shown = await w.api("GET", `/configuration-versions/${created.body.data.id}`);
      expect(shown.body.data.attributes).not.toHaveProperty("upload-url");
    });

    it("answers 422 with a pointer for wrong types, a wrong data.type and malformed JSON", async () => {
      const w = await startRuns(h);
      const path = `/workspaces/${w.ws.id}/configuration-versions`;
      expectError(
        await w.api("POST", path, { body: { data: { type: "configuration-versions", attributes: { speculative: "yes" } } } }),
        422,
        "invalid attribute",
        "/data/attributes/speculative",
      );
      expectError(await w.api("POST", path, { body: { data: { type: "runs" } } }), 422, "invalid attribute", "/data/type");
      expectError(await w.api("POST", path, { raw: "{not json" }), 422, "invalid attribute", "");
      expectError(await w.api("POST", path, { body: [1] }), 422, "invalid attribute", "/data");
      expect(w.runs.workspace(w.ws.id).latestConfigurationVersionId).toBeNull();
    });

    it("answers 404 for an unknown workspace, a caller who may not queue plans and an organization token; 401 without a token", async () => {
      const w = await startRuns(h);
      const body = { data: { type: "configuration-versions" } };
      expectError(await w.api("POST", "/workspaces/ws-nope/configuration-versions", { body }), 404, "not found");
      expectError(await w.api("POST", `/workspaces/${w.ws.id}/configuration-versions`, { body, token: w.reader }), 404, "not found");
      expectError(await w.api("POST", `/workspaces/${w.ws.id}/configuration-versions`, { body, token: w.stranger }), 404, "not found");
      expectError(await w.api("POST", `/workspaces/${w.ws.id}/configuration-versions`, { body, token: w.orgToken }), 404, "not found");
      expectError(await w.api("POST", `/workspaces/${w.ws.id}/configuration-versions`, { body, token: null }), 401, "unauthorized");
      expect((await w.api("POST", `/workspaces/${w.ws.id}/configuration-versions`, { body, token: w.planner })).status).toBe(201);
    });
  });

  describe("speculative and provisional versions", () => {
    it("does not make a provisional version current until its run is applied, unless a newer one exists", async () => {
      const w = await startRuns(h);
      const base = await w.upload({ attributes: { "auto-queue-runs": false } });
      const provisional = await w.upload({ attributes: { "auto-queue-runs": false, provisional: true } });
      expect(w.runs.workspace(w.ws.id).latestConfigurationVersionId).toBe(base.cvId);
      const implicit = await w.createRun();
      expect((await w.getRun(implicit)).relationships["configuration-version"].data.id).toBe(base.cvId);
      await w.api("POST", `/runs/${implicit}/actions/discard`);
      const runId = await w.createRun({}, { cvId: provisional.cvId });
      w.doubles.advance("1m");
      expect(w.runs.workspace(w.ws.id).latestConfigurationVersionId).toBe(base.cvId);
      await w.api("POST", `/runs/${runId}/actions/apply`);
      w.doubles.advance("2m");
      expect(w.runs.run(runId).status).toBe("applied");
      expect(w.runs.workspace(w.ws.id).latestConfigurationVersionId).toBe(provisional.cvId);
      const older = await w.upload({ attributes: { "auto-queue-runs": false, provisional: true } });
      const newer = await w.upload({ attributes: { "auto-queue-runs": false } });
      const late = await w.createRun({}, { cvId: older.cvId });
      w.doubles.advance("1m");
      await w.api("POST", `/runs/${late}/actions/apply`);
      w.doubles.advance("2m");
      expect(w.runs.run(late).status).toBe("applied");
      expect(w.runs.workspace(w.ws.id).latestConfigurationVersionId).toBe(newer.cvId);
    });

    it("queues a plan-only run when a speculative version is uploaded", async () => {
      const w = await startRuns(h);
      const { runId } = await w.upload({ attributes: { speculative: true } });
      w.doubles.advance("2m");
      const run = await w.getRun(runId ?? "");
      expect(run.attributes).toMatchObject({ "plan-only": true, status: "planned_and_finished", "has-changes": true });
      expect(run.attributes.actions["is-confirmable"]).toBe(false);
    });
  });

  describe("PUT {upload_url}", () => {
    it("keeps the archive bytes exactly, marks the version uploaded and queues a run", async () => {
      const w = await startRuns(h);
      const bytes = configurationArchive({ "main.tf": 'resource "null_resource" "a" {}\n', "vars.tf": 'variable "x" {}\n' });
      const { cvId, runId } = await w.upload({ bytes });
      const shown = await w.api("GET", `/configuration-versions/${cvId}`);
      expect(shown.body.data.attributes.status).toBe("uploaded");
      expect(shown.body.data.attributes["status-timestamps"]).toEqual({ "uploaded-at": "2024-01-01T00:00:00+00:00" });
      expect(sha(w.runs.configurationVersion(cvId).archive ?? new Uint8Array())).toBe(sha(bytes));
      expect(runId).toMatch(/^run-/);
      const run = await w.getRun(runId ?? "");
      expect(run.attributes).toMatchObject({ status: "pending", source: "svc-configuration-version", "plan-only": false });
      expect(run.relationships["configuration-version"].data.id).toBe(cvId);
    });

    it("queues no run when auto-queue-runs is false", async () => {
      const w = await startRuns(h);
      const { runId } = await w.upload({ attributes: { "auto-queue-runs": false } });
      expect(runId).toBeUndefined();
      expect(w.runs.runsOf(w.ws.id)).toHaveLength(0);
    });

    it("needs no bearer token and is one-shot: a second PUT answers 404", async () => {
      const w = await startRuns(h);
      const created = await w.api("POST", `/workspaces/${w.ws.id}/configuration-versions`, { body: { data: { type: "configuration-versions" } } });
      const url = created.body.data.attributes["upload-url"] as string;
      const bytes = configurationArchive({ "main.tf": "# first\n" });
      const first = await fetch(url, { method: "PUT", headers: { "content-type": "application/octet-stream" }, body: bytes });
      expect(first.status).toBe(200);
      const second = await fetch(url, { method: "PUT", headers: { "content-type": "application/octet-stream" }, body: configurationArchive({ "main.tf": "# second\n" }) });
      expect(second.status).toBe(404);
      expect(sha(w.runs.configurationVersion(created.body.data.id).archive ?? new Uint8Array())).toBe(sha(bytes));
      expect(w.runs.configurationFiles(created.body.data.id)["main.tf"]?.text).toBe("# first\n");
    });

    it("exposes the files the client packed: the scenario's configurationFiles and the upload's journal entry", async () => {
      const w = await startRuns(h);
      const files = { "main.tf": 'module "vpc" { source = "./modules/vpc" }\n', "modules/vpc/main.tf": "# vpc\n", "empty.tf": "" };
      const { cvId } = await w.upload({ bytes: configurationArchive(files) });
      const held = w.runs.configurationFiles(cvId);
      expect(Object.keys(held)).toEqual(["main.tf", "modules/vpc/main.tf", "empty.tf"]);
      expect(Object.fromEntries(Object.entries(held).map(([path, file]) => [path, file.text]))).toEqual(files);
      expect(held["main.tf"]?.mode).toBe(0o644);
      expect(Buffer.from(held["modules/vpc/main.tf"]?.bytes ?? []).toString()).toBe("# vpc\n");
      const put = w.doubles.handler.journal.filter((entry) => entry.method === "PUT");
      expect(put).toHaveLength(1);
      expect(put[0]?.configurationFiles).toEqual(["main.tf", "modules/vpc/main.tf", "empty.tf"]);
    });

    const tarball = (): Uint8Array => configurationArchive({ "main.tf": "x".repeat(3000) });
    const bomb = (): Uint8Array => Buffer.concat(new Array<Buffer>(65).fill(gzipSync(Buffer.alloc(1 << 20)))); // 65 MiB inflated from 66 KB
    it.each([
      ["an empty body", () => new Uint8Array(0), "failed to decompress slug: EOF"],
      ["bytes that are not gzip", () => new TextEncoder().encode('resource "null_resource" "x" {}\n'), "failed to decompress slug: gzip: invalid header"],
      ["gzip of something that is not a tar", () => gzipSync(Buffer.alloc(2048, 0x41)), "failed to untar slug: archive/tar: invalid tar header"],
      ["an archive cut short", () => tarball().subarray(0, 40), "failed to untar slug: unexpected EOF"],
      ["a decompression bomb", bomb, `failed to untar slug: archive larger than ${64 * 1024 * 1024} bytes uncompressed`],
    ])("marks the version errored with error and error-message for %s; no run, no files, no download", async (_name, bytes, message) => {
      const w = await startRuns(h);
      const { cvId, runId } = await w.upload({ bytes: bytes() });
      expect(runId).toBeUndefined();
      const shown = await w.api("GET", `/configuration-versions/${cvId}`);
      expect(shown.body.data.attributes).toMatchObject({ status: "errored", error: "unprocessable_archive", "error-message": message });
      expect(Object.keys(shown.body.data.attributes["status-timestamps"])).toEqual(["errored-at"]);
      expect(w.runs.runsOf(w.ws.id)).toHaveLength(0);
      expect(() => w.runs.configurationFiles(cvId)).toThrow(`it is "errored" (unprocessable_archive: ${message})`);
      expectError(await w.api("GET", `/configuration-versions/${cvId}/download`, { redirect: "manual" }), 404, "not found");
      const put = w.doubles.handler.journal.find((entry) => entry.method === "PUT");
      expect(put?.status).toBe(200);
      expect(put?.configurationFiles).toBeUndefined();
    });

    it("marks the version errored when the archive cannot be processed (scripted), with error values", async () => {
      const w = await startRuns(h);
      w.runs.setUploadOutcome("errors", { workspaceId: w.ws.id });
      const { cvId, runId } = await w.upload();
      expect(runId).toBeUndefined();
      const shown = await w.api("GET", `/configuration-versions/${cvId}`);
      expect(shown.body.data.attributes).toMatchObject({
        status: "errored",
        error: "unprocessable_archive",
        "error-message": "The configuration archive could not be extracted.",
      });
      expect(shown.body.data.attributes["status-timestamps"]).toHaveProperty("errored-at");
    });

    it("takes binary bodies from node:http clients", async () => {
      const w = await startRuns(h);
      const created = await w.api("POST", `/workspaces/${w.ws.id}/configuration-versions`, { body: { data: { type: "configuration-versions" } } });
      const bytes = configurationArchive({ "main.tf": "x".repeat(5000) });
      const status = await new Promise<number>((resolve, reject) => {
        const url: string = created.body.data.attributes["upload-url"];
        const req = (url.startsWith("https:") ? https : http).request(url, { method: "PUT", headers: { "content-type": "application/octet-stream" } }, (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        });
        req.on("error", reject);
        req.end(Buffer.from(bytes));
      });
      expect(status).toBe(200);
      expect(sha(w.runs.configurationVersion(created.body.data.id).archive ?? new Uint8Array())).toBe(sha(bytes));
    });
  });

  describe("GET /workspaces/:workspace_id/configuration-versions", () => {
    it("lists newest first with pagination links and meta", async () => {
      const w = await startRuns(h);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await w.upload({ attributes: { "auto-queue-runs": false } })).cvId);
      const page = await w.api("GET", `/workspaces/${w.ws.id}/configuration-versions?page%5Bnumber%5D=2&page%5Bsize%5D=2`);
      expect(page.status).toBe(200);
      expect(page.body.data.map((d: { id: string }) => d.id)).toEqual([ids[0]]);
      expect(page.body.meta.pagination).toEqual({
        "current-page": 2,
        "page-size": 2,
        "prev-page": 1,
        "next-page": null,
        "total-pages": 2,
        "total-count": 3,
      });
      const listUrl = `${w.base}/workspaces/${w.ws.id}/configuration-versions`;
      expect(decodeURIComponent(page.body.links.first)).toBe(`${listUrl}?page[number]=1&page[size]=2`);
      expect(decodeURIComponent(page.body.links.prev)).toBe(`${listUrl}?page[number]=1&page[size]=2`);
      expect(page.body.links.next).toBeNull();
      expect(decodeURIComponent(page.body.links.last)).toBe(`${listUrl}?page[number]=2&page[size]=2`);
      const all = await w.api("GET", `/workspaces/${w.ws.id}/configuration-versions`);
      expect(all.body.data.map((d: { id: string }) => d.id)).toEqual([...ids].reverse());
      expect(all.body.meta.pagination["page-size"]).toBe(20);
    });

    it("lets readers and the organization token list, and hides the workspace from strangers", async () => {
      const w = await startRuns(h);
      await w.upload();
      expect((await w.api("GET", `/workspaces/${w.ws.id}/configuration-versions`, { token: w.reader })).body.data).toHaveLength(1);
      expect((await w.api("GET", `/workspaces/${w.ws.id}/configuration-versions`, { token: w.orgToken })).body.data).toHaveLength(1);
      expectError(await w.api("GET", `/workspaces/${w.ws.id}/configuration-versions`, { token: w.stranger }), 404, "not found");
      expectError(await w.api("GET", `/workspaces/${w.ws.id}/configuration-versions`, { token: "bogus" }), 401, "unauthorized");
    });
  });

  describe("GET /configuration-versions/:id", () => {
    it("shows a version and 404s for unknown ids and strangers", async () => {
      const w = await startRuns(h);
      const { cvId } = await w.upload();
      expect((await w.api("GET", `/configuration-versions/${cvId}`, { token: w.reader })).body.data.id).toBe(cvId);
      expectError(await w.api("GET", `/configuration-versions/${cvId}`, { token: w.stranger }), 404, "not found");
      expectError(await w.api("GET", "/configuration-versions/cv-missing"), 404, "not found");
    });

    it("includes ingress attributes (either spelling) and the version's run, and refuses other includes with 400", async () => {
      const w = await startRuns(h, { workspace: { vcsRepo: { identifier: "acme/infra" } } });
      const { configurationVersionId, ingressAttributesId } = w.runs.pushCommit(w.ws.id, { message: "Add bucket", sha: "a".repeat(40) });
      w.doubles.advance("5s");
      for (const include of ["ingress_attributes", "ingress-attributes"]) {
        const shown = await w.api("GET", `/configuration-versions/${configurationVersionId}?include=${include}`);
        expect(shown.body.data.relationships["ingress-attributes"].data).toEqual({ type: "ingress-attributes", id: ingressAttributesId });
        expect(shown.body.included).toHaveLength(1);
        expect(shown.body.included[0]).toMatchObject({ id: ingressAttributesId, type: "ingress-attributes", attributes: { "commit-sha": "a".repeat(40) } });
      }
      const withRun = await w.api("GET", `/configuration-versions/${configurationVersionId}?include=run`);
      expect(withRun.body.included).toHaveLength(1);
      expect(withRun.body.included[0]).toMatchObject({ type: "runs", attributes: { message: "Add bucket" } });
      const bad = await w.api("GET", `/configuration-versions/${configurationVersionId}?include=workspace`);
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0]).toMatchObject({ status: "400", title: "invalid include parameter" });
    });
  });

  describe("ingress attributes", () => {
    it("serves every spec attribute, the created-by relationship and the self link", async () => {
      const w = await startRuns(h, { workspace: { vcsRepo: { identifier: "acme/infra", branch: "main" } } });
      const sha40 = "0123456789abcdef0123456789abcdef01234567";
      const { configurationVersionId, ingressAttributesId } = w.runs.pushCommit(w.ws.id, {
        message: "Fix things",
        sha: sha40,
        branch: "feature",
        senderUsername: "hubot",
        tag: "v1.0.0",
        pullRequest: { number: 42, title: "Fix", body: "Please merge" },
      });
      const response = await w.api("GET", `/configuration-versions/${configurationVersionId}/ingress-attributes`);
      expect(response.status).toBe(200);
      expect(response.body.data).toEqual({
        id: ingressAttributesId,
        type: "ingress-attributes",
        attributes: {
          branch: "feature",
          "clone-url": "https://github.com/acme/infra.git",
          "commit-message": "Fix things",
          "commit-sha": sha40,
          "commit-url": `https://github.com/acme/infra/commit/${sha40}`,
          "compare-url": "https://github.com/acme/infra/pull/42/files",
          identifier: "acme/infra",
          "is-pull-request": true,
          "on-default-branch": false,
          "pull-request-number": 42,
          "pull-request-url": "https://github.com/acme/infra/pull/42",
          "pull-request-title": "Fix",
          "pull-request-body": "Please merge",
          tag: "v1.0.0",
          "sender-username": "hubot",
          "sender-avatar-url": expect.stringMatching(/^https:\/\//),
          "sender-html-url": "https://github.com/hubot",
        },
        relationships: {
          "created-by": {
            data: { type: "users", id: expect.stringMatching(/^user-/) },
            links: { related: `/api/v2/ingress-attributes/${ingressAttributesId}/created-by` },
          },
        },
        links: { self: `/api/v2/ingress-attributes/${ingressAttributesId}` },
      });
      const self = await w.api("GET", `/ingress-attributes/${ingressAttributesId}`);
      expect(self.body.data.id).toBe(ingressAttributesId);
      const creator = await w.api("GET", `/ingress-attributes/${ingressAttributesId}/created-by`);
      expect(creator.body.data).toMatchObject({ type: "users", attributes: { username: "hubot" } });
    });

    it("answers 404 for an API-created version, which has none", async () => {
      const w = await startRuns(h);
      const { cvId } = await w.upload();
      expectError(await w.api("GET", `/configuration-versions/${cvId}/ingress-attributes`), 404, "not found");
      expectError(await w.api("GET", "/ingress-attributes/ia-missing"), 404, "not found");
    });
  });

  describe("POST /configuration-versions/:id/actions/archive", () => {
    it("archives an uploaded API-created version with no runs in progress (202, no body) and discards the archive", async () => {
      const w = await startRuns(h);
      const { cvId } = await w.upload({ attributes: { "auto-queue-runs": false } });
      const response = await w.api("POST", `/configuration-versions/${cvId}/actions/archive`);
      expect(response.status).toBe(202);
      expect(response.text).toBe("");
      const shown = await w.api("GET", `/configuration-versions/${cvId}`);
      expect(shown.body.data.attributes.status).toBe("archived");
      expect(shown.body.data.attributes["status-timestamps"]).toHaveProperty("archived-at");
      expect(w.runs.configurationVersion(cvId).archive).toBeUndefined();
      expectError(await w.api("GET", `/configuration-versions/${cvId}/download`, { redirect: "manual" }), 404, "not found");
    });

    it("answers 409 for a pending version, a version with a run in progress, an archived one and a VCS-created one", async () => {
      const w = await startRuns(h, { workspace: { vcsRepo: { identifier: "acme/infra" } } });
      const pending = await w.api("POST", `/workspaces/${w.ws.id}/configuration-versions`, { body: { data: { type: "configuration-versions" } } });
      const conflict = await w.api("POST", `/configuration-versions/${pending.body.data.id}/actions/archive`);
      expectError(conflict, 409, "transition not allowed");
      expect(conflict.body.errors[0].detail).toMatch(/pending/);
      const { cvId, runId } = await w.upload();
      const busy = await w.api("POST", `/configuration-versions/${cvId}/actions/archive`);
      expectError(busy, 409, "transition not allowed");
      expect(busy.body.errors[0].detail).toContain(runId);
      const { configurationVersionId } = w.runs.pushCommit(w.ws.id);
      w.doubles.advance("5s");
      const vcs = await w.api("POST", `/configuration-versions/${configurationVersionId}/actions/archive`);
      expectError(vcs, 409, "transition not allowed");
      expect(vcs.body.errors[0].detail).toMatch(/VCS/);
      const idle = await w.upload({ attributes: { "auto-queue-runs": false } });
      expect((await w.api("POST", `/configuration-versions/${idle.cvId}/actions/archive`)).status).toBe(202);
      expectError(await w.api("POST", `/configuration-versions/${idle.cvId}/actions/archive`), 409, "transition not allowed");
    });

    it("answers 404 for an unknown version or an unauthorized caller", async () => {
      const w = await startRuns(h);
      const { cvId } = await w.upload({ attributes: { "auto-queue-runs": false } });
      expectError(await w.api("POST", "/configuration-versions/cv-missing/actions/archive"), 404, "not found");
      expectError(await w.api("POST", `/configuration-versions/${cvId}/actions/archive`, { token: w.stranger }), 404, "not found");
      expectError(await w.api("POST", `/configuration-versions/${cvId}/actions/archive`, { token: w.reader }), 404, "not found");
      expect(w.runs.configurationVersion(cvId).status).toBe("uploaded");
    });
  });

  describe("downloads", () => {
    it("redirects (302) to a temporary URL on the archive host that serves the same bytes", async () => {
      const w = await startRuns(h);
      const bytes = configurationArchive({ "main.tf": "# hello\n" });
      const { cvId, runId } = await w.upload({ bytes });
      const redirect = await w.api("GET", `/configuration-versions/${cvId}/download`, { redirect: "manual" });
      expect(redirect.status).toBe(302);
      const location = redirect.headers.get("location") ?? "";
      expect(location.startsWith(`${w.archiveBase}/v1/object/`)).toBe(true);
      const fetched = new Uint8Array(await (await fetch(location)).arrayBuffer());
      expect(sha(fetched)).toBe(sha(bytes));
      const followed = await fetch(`${w.base}/runs/${runId}/configuration-version/download`, { headers: { authorization: `Bearer ${w.reader}` } });
      expect(followed.status).toBe(200);
      expect(sha(new Uint8Array(await followed.arrayBuffer()))).toBe(sha(bytes));
      w.doubles.advance("5m");
      expect((await fetch(location)).status).toBe(404);
    });

    it("lets whoever may read a run download its configuration, even a version of another workspace", async () => {
      const w = await startRuns(h);
      const other = w.runs.addWorkspace(w.org, { name: "staging" });
      w.runs.grant(w.userIds.admin ?? "", other.id, "admin");
      const bytes = configurationArchive({ "main.tf": "# shared\n" });
      const { cvId } = await w.upload({ workspaceId: other.id, attributes: { "auto-queue-runs": false }, bytes });
      const runId = await w.createRun({}, { cvId });
      const redirect = await w.api("GET", `/runs/${runId}/configuration-version/download`, { token: w.reader, redirect: "manual" });
      expect(redirect.status, redirect.text).toBe(302);
      const fetched = new Uint8Array(await (await fetch(redirect.headers.get("location") ?? "")).arrayBuffer());
      expect(sha(fetched)).toBe(sha(bytes));
      expectError(await w.api("GET", `/configuration-versions/${cvId}/download`, { token: w.reader, redirect: "manual" }), 404, "not found");
      expectError(await w.api("GET", `/runs/${runId}/configuration-version/download`, { token: w.stranger, redirect: "manual" }), 404, "not found");
    });

    it("answers 404 unless the version is uploaded, for unknown ids and for strangers", async () => {
      const w = await startRuns(h);
      const pending = await w.api("POST", `/workspaces/${w.ws.id}/configuration-versions`, { body: { data: { type: "configuration-versions" } } });
      expectError(await w.api("GET", `/configuration-versions/${pending.body.data.id}/download`, { redirect: "manual" }), 404, "not found");
      expectError(await w.api("GET", "/configuration-versions/cv-missing/download", { redirect: "manual" }), 404, "not found");
      expectError(await w.api("GET", "/runs/run-missing/configuration-version/download", { redirect: "manual" }), 404, "not found");
      const { cvId } = await w.upload();
      expectError(await w.api("GET", `/configuration-versions/${cvId}/download`, { token: w.stranger, redirect: "manual" }), 404, "not found");
      expect((await fetch(`${w.archiveBase}/v1/object/not-a-token`)).status).toBe(404);
    });
  });

  describe("VCS-created versions", () => {
    it("go fetching -> uploaded on the clock, queue a run, and are archived once their runs complete, staying usable", async () => {
      const w = await startRuns(h, { workspace: { vcsRepo: { identifier: "acme/infra", provider: "gitlab" }, autoApply: true } });
      const { configurationVersionId } = w.runs.pushCommit(w.ws.id, { message: "Ship it", senderUsername: "alice" });
      let shown = await w.api("GET", `/configuration-versions/${configurationVersionId}`);
      expect(shown.body.data.attributes).toMatchObject({ status: "fetching", source: "gitlab" });
      expect(w.runs.runsOf(w.ws.id)).toHaveLength(0);
      w.doubles.advance("5s");
      shown = await w.api("GET", `/configuration-versions/${configurationVersionId}`);
      expect(shown.body.data.attributes.status).toBe("uploaded");
      const [run] = w.runs.runsOf(w.ws.id);
      expect(run).toMatchObject({ source: "svc-configuration-version", message: "Ship it", status: "pending" });
      w.doubles.advance("10m");
      expect(w.runs.run(run?.id ?? "").status).toBe("applied");
      shown = await w.api("GET", `/configuration-versions/${configurationVersionId}`);
      expect(shown.body.data.attributes.status).toBe("archived");
      const again = await w.createRun({}, { cvId: configurationVersionId });
      expect((await w.getRun(again)).attributes.status).toBe("pending");
    });

    it("go errored when the fetch fails, and cannot be used for runs", async () => {
      const w = await startRuns(h, { workspace: { vcsRepo: { identifier: "acme/infra" } } });
      const { configurationVersionId } = w.runs.pushCommit(w.ws.id, { fetch: "errors" });
      w.doubles.advance("5s");
      const shown = await w.api("GET", `/configuration-versions/${configurationVersionId}`);
      expect(shown.body.data.attributes).toMatchObject({ status: "errored", error: "vcs_fetch_failed" });
      const refused = await w.api("POST", "/runs", {
        body: {
          data: {
            type: "runs",
            relationships: {
              workspace: { data: { type: "workspaces", id: w.ws.id } },
              "configuration-version": { data: { type: "configuration-versions", id: configurationVersionId } },
            },
          },
        },
      });
      expectError(refused, 422, "invalid attribute", "/data/relationships/configuration-version/data/id");
    });

    it("go errored when the commit's files are not a gzip-compressed tar, and hold the files when they are", async () => {
      const w = await startRuns(h, { workspace: { vcsRepo: { identifier: "acme/infra" } } });
      const junk = w.runs.pushCommit(w.ws.id, { files: new TextEncoder().encode("not an archive") });
      const good = w.runs.pushCommit(w.ws.id, { files: { "main.tf": "# from git\n" } });
      w.doubles.advance("5s");
      const shown = await w.api("GET", `/configuration-versions/${junk.configurationVersionId}`);
      expect(shown.body.data.attributes).toMatchObject({ status: "errored", error: "unprocessable_archive", "error-message": "failed to decompress slug: gzip: invalid header" });
      expect((await w.api("GET", `/configuration-versions/${good.configurationVersionId}`)).body.data.attributes.status).toBe("uploaded");
      expect(w.runs.configurationFiles(good.configurationVersionId)["main.tf"]?.text).toBe("# from git\n");
      expect(w.runs.runsOf(w.ws.id).map((r) => r.configurationVersionId)).toEqual([good.configurationVersionId]);
    });

    it("make a pull request's version speculative and its run plan-only", async () => {
      const w = await startRuns(h, { workspace: { vcsRepo: { identifier: "acme/infra" } } });
      const { configurationVersionId } = w.runs.pushCommit(w.ws.id, { pullRequest: { number: 7 } });
      w.doubles.advance("5s");
      const shown = await w.api("GET", `/configuration-versions/${configurationVersionId}`);
      expect(shown.body.data.attributes.speculative).toBe(true);
      expect(w.runs.runsOf(w.ws.id)[0]?.planOnly).toBe(true);
    });
  });
});
