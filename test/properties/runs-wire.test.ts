/**
 * Robustness of the run orchestration wire layer: arbitrary bodies, query strings and ids never
 * produce a library-bug 500, always answer a JSON:API document with the service's own statuses, and
 * a refused request leaves the simulator exactly as it was.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { SimResponse } from "../../src/interceptors/http.js";
import { DoublesCore } from "../../src/scenarios/doubles-core.js";
import { runsPlugin } from "../../src/scenarios/runs/plugin.js";
import type { RunsScenario } from "../../src/scenarios/runs/runs-scenario.js";

const API = "https://app.run-orchestration.test/api/v2";

function world() {
  const doubles = new DoublesCore([runsPlugin], { seed: 9 });
  const runs = doubles.controlsOf<RunsScenario>("runs");
  const org = runs.addOrganization("acme");
  const ws = runs.addWorkspace(org, { name: "prod" });
  const user = runs.addUser({ username: "alice", permissions: { [ws.id]: "admin" } });
  const token = runs.issueUserToken(user.id);
  const admin = runs.issueSiteAdminToken();
  runs.setProgression("manual");
  const { runId } = runs.uploadConfiguration(ws.id, { as: user.id });
  return { doubles, ws, token, admin, runId: runId ?? "" };
}

const text = (response: SimResponse): string => (response.body === undefined ? "" : typeof response.body === "string" ? response.body : Buffer.from(response.body).toString("utf8"));

function expectServiceAnswer(response: SimResponse): void {
  expect(response.headers["x-infra-doubles-bug"]).toBeUndefined();
  expect([200, 201, 202, 204, 302, 400, 401, 403, 404, 409, 422]).toContain(response.status);
  if (response.status >= 400) {
    expect(response.headers["content-type"]).toBe("application/vnd.api+json");
    const body = JSON.parse(text(response)) as { errors: { status: string; title: string }[] };
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0]?.status).toBe(String(response.status));
    expect(typeof body.errors[0]?.title).toBe("string");
  }
}

const jsonValue = fc.jsonValue({ maxDepth: 4 });
const attributesLike = fc.dictionary(
  fc.constantFrom("auto-apply", "is-destroy", "refresh-only", "plan-only", "save-plan", "message", "variables", "target-addrs", "replace-addrs", "engine-version", "refresh", "allow-empty-apply", "version", "url", "sha", "deprecated", "deprecated-reason", "speculative", "provisional", "auto-queue-runs"),
  jsonValue,
);
const bodyArb = fc.oneof(
  fc.string().map((s) => s),
  jsonValue.map((v) => JSON.stringify(v)),
  fc.record({ type: fc.constantFrom("runs", "configuration-versions", "engine-versions", "x"), attributes: attributesLike, relationships: jsonValue }).map((data) => JSON.stringify({ data })),
);

describe("runs: the wire layer under arbitrary input", () => {
  it("answers every POST, PATCH and action with the service's own statuses and changes nothing when it refuses", async () => {
    const w = world();
    const toolId = w.doubles.controlsOf<RunsScenario>("runs").engineVersions()[0]?.id ?? "";
    const paths: [string, string][] = [
      ["POST", "/runs"],
      ["POST", `/workspaces/${w.ws.id}/configuration-versions`],
      ["POST", `/runs/${w.runId}/actions/apply`],
      ["POST", `/runs/${w.runId}/actions/discard`],
      ["POST", `/runs/${w.runId}/actions/cancel`],
      ["POST", `/runs/${w.runId}/actions/force-cancel`],
      ["POST", "/admin/engine-versions"],
      ["PATCH", `/admin/engine-versions/${toolId}`],
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), bodyArb, fc.boolean(), async ([method, path], body, withWorkspace) => {
        let payload = body;
        if (path === "/runs" && withWorkspace) {
          try {
            const parsed = JSON.parse(body) as { data?: { relationships?: unknown } };
            if (parsed && typeof parsed === "object" && parsed.data && typeof parsed.data === "object") {
              parsed.data.relationships = { workspace: { data: { type: "workspaces", id: w.ws.id } } };
              payload = JSON.stringify(parsed);
            }
          } catch {
            // keep the raw body
          }
        }
        const before = w.doubles.snapshot();
        const token = path.startsWith("/admin") ? w.admin : w.token;
        const response = await w.doubles.handler.handle({
          method,
          url: new URL(`${API}${path}`),
          headers: { authorization: `Bearer ${token}`, "content-type": "application/vnd.api+json" },
          body: new TextEncoder().encode(payload),
        });
        expectServiceAnswer(response);
        if (response.status >= 400) expect(w.doubles.snapshot()).toEqual(before);
        else w.doubles.restore(before);
      }),
      { numRuns: 300 },
    );
  });

  it("answers every list query and unknown id with the service's own statuses", async () => {
    const w = world();
    const key = fc.constantFrom("page[number]", "page[size]", "filter[status]", "filter[operation]", "filter[source]", "search[user]", "search[commit]", "search[basic]", "include", "filter[version]", "search[version]");
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(`/workspaces/${w.ws.id}/runs`, `/workspaces/${w.ws.id}/configuration-versions`, "/admin/engine-versions", `/runs/${w.runId}`),
        fc.array(fc.tuple(key, fc.string()), { maxLength: 4 }),
        fc.string(),
        async (path, params, junkId) => {
          const url = new URL(`${API}${path}`);
          for (const [k, v] of params) url.searchParams.append(k, v);
          const token = path.startsWith("/admin") ? w.admin : w.token;
          const response = await w.doubles.handler.handle({ method: "GET", url, headers: { authorization: `Bearer ${token}` }, body: new Uint8Array() });
          expectServiceAnswer(response);
          const odd = await w.doubles.handler.handle({
            method: "GET",
            url: new URL(`${API}/runs/${encodeURIComponent(junkId)}`),
            headers: { authorization: `Bearer ${w.token}` },
            body: new Uint8Array(),
          });
          expectServiceAnswer(odd);
        },
      ),
      { numRuns: 200 },
    );
  });
});
