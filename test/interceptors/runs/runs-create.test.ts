import axios from "axios";
import { describe, expect, it } from "vitest";
import { describeEachTransport } from "../../support/transports.js";
import { expectError, startRuns, type RunsWorld } from "./support.js";

function runBody(w: RunsWorld, attributes: Record<string, unknown> = {}, cvId?: string): unknown {
  const relationships: Record<string, unknown> = { workspace: { data: { type: "workspaces", id: w.ws.id } } };
  if (cvId) relationships["configuration-version"] = { data: { type: "configuration-versions", id: cvId } };
  return { data: { type: "runs", attributes, relationships } };
}

describeEachTransport("runs: POST /runs", (h) => {
  it("creates a pending run (201) with the defaults of the spec's table", async () => {
    const w = await startRuns(h);
    const { cvId } = await w.upload({ attributes: { "auto-queue-runs": false } });
    const response = await w.api("POST", "/runs", { body: runBody(w) });
    expect(response.status).toBe(201);
    expect(response.headers.get("content-type")).toBe("application/vnd.api+json");
    const data = response.body.data;
    expect(data.id).toMatch(/^run-[0-9A-Za-z]{16}$/);
    expect(data.attributes).toEqual({
      actions: { "is-cancelable": false, "is-confirmable": false, "is-discardable": true, "is-force-cancelable": false },
      "allow-config-generation": false,
      "allow-empty-apply": false,
      "auto-apply": false,
      "canceled-at": null,
      "created-at": "2024-01-01T00:00:00.000Z",
      "engine-version": "1.9.8",
      "has-changes": false,
      "is-destroy": false,
      message: "Queued manually via the API",
      "plan-only": false,
      refresh: true,
      "refresh-only": false,
      "replace-addrs": null,
      "save-plan": false,
      source: "svc-api",
      "status-timestamps": { "plan-queueable-at": "2024-01-01T00:00:00+00:00" },
      status: "pending",
      "target-addrs": null,
      "trigger-reason": "manual",
      variables: [],
      permissions: {
        "can-apply": true,
        "can-cancel": true,
        "can-comment": true,
        "can-discard": true,
        "can-force-execute": true,
        "can-force-cancel": true,
        "can-override-policy-check": true,
      },
    });
    expect(Object.keys(data.relationships).sort()).toEqual(
      [
        "apply",
        "comments",
        "configuration-version",
        "cost-estimate",
        "created-by",
        "input-state-version",
        "plan",
        "run-events",
        "policy-checks",
        "workspace",
        "workspace-run-alerts",
        "task-stages",
      ].sort(),
    );
    expect(data.relationships.workspace.data).toEqual({ type: "workspaces", id: w.ws.id });
    expect(data.relationships["configuration-version"].data).toEqual({ type: "configuration-versions", id: cvId });
    expect(data.relationships.plan.data.id).toMatch(/^plan-/);
    expect(data.relationships.apply.data.id).toMatch(/^apply-/);
    expect(data.links).toEqual({ self: `/api/v2/runs/${data.id}` });
    expect(data).not.toHaveProperty("attributes.force_cancel_available_at");
  });

  it("takes every attribute of the create body", async () => {
    const w = await startRuns(h);
    const { cvId } = await w.upload({ attributes: { "auto-queue-runs": false } });
    const response = await w.api("POST", "/runs", {
      body: runBody(
        w,
        {
          "allow-empty-apply": true,
          "allow-config-generation": true,
          "auto-apply": true,
          message: "Custom message",
          refresh: false,
          "replace-addrs": ["aws_instance.a"],
          "target-addrs": ["module.web", "aws_s3_bucket.b"],
          variables: [
            { key: "region", value: '"eu-west-1"' },
            { key: "count", value: "3" },
          ],
          "debugging-mode": true,
        },
        cvId,
      ),
    });
    expect(response.status).toBe(201);
    expect(response.body.data.attributes).toMatchObject({
      "allow-empty-apply": true,
      "allow-config-generation": true,
      "auto-apply": true,
      message: "Custom message",
      refresh: false,
      "replace-addrs": ["aws_instance.a"],
      "target-addrs": ["module.web", "aws_s3_bucket.b"],
      variables: [
        { key: "region", value: '"eu-west-1"' },
        { key: "count", value: "3" },
      ],
    });
  });

  it("takes is-destroy, refresh-only, save-plan and plan-only", async () => {
    const w = await startRuns(h);
    await w.upload({ attributes: { "auto-queue-runs": false } });
    for (const [attributes, expected] of [
      [{ "is-destroy": true }, { "is-destroy": true }],
      [{ "refresh-only": true }, { "refresh-only": true }],
      [{ "save-plan": true }, { "save-plan": true }],
      [{ "plan-only": true }, { "plan-only": true }],
    ] as const) {
      const response = await w.api("POST", "/runs", { body: runBody(w, attributes) });
      expect(response.status, response.text).toBe(201);
      expect(response.body.data.attributes).toMatchObject(expected);
    }
  });

  it("uses the workspace's most recently used configuration version when none is given", async () => {
    const w = await startRuns(h);
    await w.upload({ attributes: { "auto-queue-runs": false } });
    const second = await w.upload({ attributes: { "auto-queue-runs": false } });
    const response = await w.api("POST", "/runs", { body: runBody(w) });
    expect(response.body.data.relationships["configuration-version"].data.id).toBe(second.cvId);
  });

  it("keeps the newest configuration version as the default when an older version's run is applied", async () => {
    const w = await startRuns(h);
    const { runId } = await w.upload();
    w.doubles.advance("1m");
    const newer = await w.upload({ attributes: { "auto-queue-runs": false } });
    expect((await w.api("POST", `/runs/${runId}/actions/apply`)).status).toBe(202);
    w.doubles.advance("2m");
    expect(w.runs.run(runId ?? "").status).toBe("applied");
    const response = await w.api("POST", "/runs", { body: runBody(w) });
    expect(response.status, response.text).toBe(201);
    expect(response.body.data.relationships["configuration-version"].data.id).toBe(newer.cvId);
  });

  it("can use a configuration version of another workspace", async () => {
    const w = await startRuns(h);
    const other = w.runs.addWorkspace(w.org, { name: "staging" });
    w.runs.grant(w.userIds.admin ?? "", other.id, "admin");
    const { cvId } = await w.upload({ workspaceId: other.id, attributes: { "auto-queue-runs": false } });
    const response = await w.api("POST", "/runs", { body: runBody(w, {}, cvId) });
    expect(response.status, response.text).toBe(201);
    expect(response.body.data.relationships.workspace.data.id).toBe(w.ws.id);
    expect(response.body.data.relationships["configuration-version"].data.id).toBe(cvId);
  });

  it("makes runs on a speculative version plan-only by default and refuses plan-only false (422)", async () => {
    const w = await startRuns(h);
    const { cvId } = await w.upload({ attributes: { "auto-queue-runs": false, speculative: true } });
    const response = await w.api("POST", "/runs", { body: runBody(w, {}, cvId) });
    expect(response.body.data.attributes["plan-only"]).toBe(true);
    expectError(await w.api("POST", "/runs", { body: runBody(w, { "plan-only": false }, cvId) }), 422, "invalid attribute", "/data/attributes/plan-only");
  });

  describe("422 invalid attribute", () => {
    it("refuses is-destroy with refresh-only", async () => {
      const w = await startRuns(h);
      await w.upload({ attributes: { "auto-queue-runs": false } });
      const response = await w.api("POST", "/runs", { body: runBody(w, { "is-destroy": true, "refresh-only": true }) });
      expectError(response, 422, "invalid attribute", "/data/attributes/is-destroy");
      expect(response.body.errors[0].detail).toMatch(/mutually exclusive/);
    });

    it("refuses engine-version on a run that is not plan-only, and an unknown or disabled engine version", async () => {
      const w = await startRuns(h);
      await w.upload({ attributes: { "auto-queue-runs": false } });
      expectError(await w.api("POST", "/runs", { body: runBody(w, { "engine-version": "1.8.5" }) }), 422, "invalid attribute", "/data/attributes/engine-version");
      expectError(
        await w.api("POST", "/runs", { body: runBody(w, { "plan-only": true, "engine-version": "9.9.9" }) }),
        422,
        "invalid attribute",
        "/data/attributes/engine-version",
      );
      const ok = await w.api("POST", "/runs", { body: runBody(w, { "plan-only": true, "engine-version": "1.8.5" }) });
      expect(ok.status).toBe(201);
      expect(ok.body.data.attributes["engine-version"]).toBe("1.8.5");
    });

    it("refuses save-plan with plan-only", async () => {
      const w = await startRuns(h);
      await w.upload({ attributes: { "auto-queue-runs": false } });
      expectError(await w.api("POST", "/runs", { body: runBody(w, { "save-plan": true, "plan-only": true }) }), 422, "invalid attribute", "/data/attributes/save-plan");
    });

    it("refuses wrong types with a pointer to the attribute", async () => {
      const w = await startRuns(h);
      await w.upload({ attributes: { "auto-queue-runs": false } });
      const cases: [Record<string, unknown>, string][] = [
        [{ "auto-apply": "true" }, "/data/attributes/auto-apply"],
        [{ "is-destroy": 1 }, "/data/attributes/is-destroy"],
        [{ message: 42 }, "/data/attributes/message"],
        [{ refresh: null }, "/data/attributes/refresh"],
        [{ "target-addrs": "a.b" }, "/data/attributes/target-addrs"],
        [{ "replace-addrs": ["ok", 3] }, "/data/attributes/replace-addrs/1"],
        [{ variables: {} }, "/data/attributes/variables"],
        [{ variables: [{ key: "a" }] }, "/data/attributes/variables/0/value"],
        [{ variables: [{ key: "a", value: 3 }] }, "/data/attributes/variables/0/value"],
        [{ variables: [{ value: "1" }] }, "/data/attributes/variables/0/key"],
        [{ "plan-only": "no" }, "/data/attributes/plan-only"],
        [{ "save-plan": 0 }, "/data/attributes/save-plan"],
        [{ "allow-empty-apply": "x" }, "/data/attributes/allow-empty-apply"],
        [{ "allow-config-generation": [] }, "/data/attributes/allow-config-generation"],
        [{ "refresh-only": {} }, "/data/attributes/refresh-only"],
        [{ "engine-version": 1.5 }, "/data/attributes/engine-version"],
      ];
      for (const [attributes, pointer] of cases) {
        expectError(await w.api("POST", "/runs", { body: runBody(w, attributes) }), 422, "invalid attribute", pointer);
      }
      expect(w.runs.runsOf(w.ws.id)).toHaveLength(0);
    });

    it("refuses malformed bodies: bad JSON, no data, wrong type, missing or malformed workspace", async () => {
      const w = await startRuns(h);
      await w.upload({ attributes: { "auto-queue-runs": false } });
      expectError(await w.api("POST", "/runs", { raw: '{"data":' }), 422, "invalid attribute", "");
      expectError(await w.api("POST", "/runs", { raw: "" }), 422, "invalid attribute", "/data");
      expectError(await w.api("POST", "/runs", { body: { data: null } }), 422, "invalid attribute", "/data");
      expectError(await w.api("POST", "/runs", { body: { data: { type: "workspaces" } } }), 422, "invalid attribute", "/data/type");
      expectError(await w.api("POST", "/runs", { body: { data: { type: "runs", attributes: [] } } }), 422, "invalid attribute", "/data/attributes");
      expectError(await w.api("POST", "/runs", { body: { data: { type: "runs" } } }), 422, "invalid attribute", "/data/relationships/workspace/data/id");
      expectError(
        await w.api("POST", "/runs", { body: { data: { type: "runs", relationships: { workspace: { data: { type: "workspaces" } } } } } }),
        422,
        "invalid attribute",
        "/data/relationships/workspace/data/id",
      );
      expectError(
        await w.api("POST", "/runs", { body: { data: { type: "runs", relationships: { workspace: { data: { type: "runs", id: w.ws.id } } } } } }),
        422,
        "invalid attribute",
        "/data/relationships/workspace/data/type",
      );
    });

    it("refuses a configuration version that is pending, errored, or archived after an API upload", async () => {
      const w = await startRuns(h);
      const none = await w.api("POST", "/runs", { body: runBody(w) });
      expectError(none, 422, "invalid attribute", "/data/relationships/configuration-version/data/id");
      const pending = await w.api("POST", `/workspaces/${w.ws.id}/configuration-versions`, { body: { data: { type: "configuration-versions" } } });
      expectError(await w.api("POST", "/runs", { body: runBody(w) }), 422, "invalid attribute", "/data/relationships/configuration-version/data/id");
      expectError(
        await w.api("POST", "/runs", { body: runBody(w, {}, pending.body.data.id) }),
        422,
        "invalid attribute",
        "/data/relationships/configuration-version/data/id",
      );
      w.runs.setUploadOutcome("errors", { workspaceId: w.ws.id });
      const errored = await w.upload();
      expectError(await w.api("POST", "/runs", { body: runBody(w, {}, errored.cvId) }), 422, "invalid attribute");
      const archived = await w.upload({ attributes: { "auto-queue-runs": false } });
      await w.api("POST", `/configuration-versions/${archived.cvId}/actions/archive`);
      expectError(await w.api("POST", "/runs", { body: runBody(w, {}, archived.cvId) }), 422, "invalid attribute");
    });
  });

  describe("404 and 401", () => {
    it("answers 404 for an unknown workspace or configuration version, and for callers who may not queue plans", async () => {
      const w = await startRuns(h);
      await w.upload({ attributes: { "auto-queue-runs": false } });
      const unknownWs = { data: { type: "runs", relationships: { workspace: { data: { type: "workspaces", id: "ws-nope" } } } } };
      expectError(await w.api("POST", "/runs", { body: unknownWs }), 404, "not found");
      expectError(await w.api("POST", "/runs", { body: runBody(w, {}, "cv-nope") }), 404, "not found");
      for (const token of [w.reader, w.stranger, w.orgToken]) {
        expectError(await w.api("POST", "/runs", { body: runBody(w), token }), 404, "not found");
      }
      expectError(await w.api("POST", "/runs", { body: runBody(w), token: null }), 401, "unauthorized");
      expectError(await w.api("POST", "/runs", { body: runBody(w), token: "nope.atlasv1.nope" }), 401, "unauthorized");
      expect(w.runs.runsOf(w.ws.id)).toHaveLength(0);
      expect((await w.api("POST", "/runs", { body: runBody(w), token: w.planner })).status).toBe(201);
    });
  });

  it("answers axios clients the same way", async () => {
    const w = await startRuns(h);
    await w.upload({ attributes: { "auto-queue-runs": false } });
    const response = await axios.post(`${w.base}/runs`, runBody(w, { message: "via axios" }), {
      headers: { authorization: `Bearer ${w.writer}`, "content-type": "application/vnd.api+json" },
    });
    expect(response.status).toBe(201);
    expect(response.headers["content-type"]).toBe("application/vnd.api+json");
    expect((response.data as { data: { attributes: { message: string } } }).data.attributes.message).toBe("via axios");
    const refused = await axios.post(`${w.base}/runs`, runBody(w, { "is-destroy": true, "refresh-only": true }), {
      headers: { authorization: `Bearer ${w.writer}`, "content-type": "application/vnd.api+json" },
      validateStatus: () => true,
    });
    expect(refused.status).toBe(422);
    expect(refused.data).toEqual({
      errors: [{ status: "422", title: "invalid attribute", detail: "is-destroy and refresh-only are mutually exclusive", source: { pointer: "/data/attributes/is-destroy" } }],
    });
  });
});
