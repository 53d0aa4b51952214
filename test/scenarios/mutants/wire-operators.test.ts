/**
 * The wire-side mutant operators: derived from the services' answers tables (every endpoint has a
 * row, no row names a non-endpoint), ids unique, stable and in the documented form, descriptions
 * from the tables and the services' own error functions, and every mutant builds doubles that
 * answer a request to its endpoint without a bug (a property over every mutant, fixed seed).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { routeEndpoint, endpointsOf } from "../../../src/interceptors/router.js";
import { ALL_PLUGINS, createDoubles } from "../../../src/scenarios/doubles.js";
import { mutantsOf } from "../../../src/scenarios/mutants/catalogue.js";
import type { Mutant } from "../../../src/scenarios/mutants/types.js";
import { errorStatus, wireMutants } from "../../../src/scenarios/mutants/wire-operators.js";

const mutants = wireMutants(ALL_PLUGINS);

/** Number of mutants per `service operator`. */
function counts(list: readonly Mutant[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of list) out[`${m.service} ${m.operator}`] = (out[`${m.service} ${m.operator}`] ?? 0) + 1;
  return out;
}

describe("wire-side mutants: derived from the answers tables", () => {
  it("every endpoint of every service has an answers row, and every row names an endpoint", () => {
    for (const plugin of ALL_PLUGINS) {
      const table = plugin.http.answerTable;
      expect(table, plugin.key).toBeDefined();
      expect(Object.keys(table!.routes).sort(), plugin.key).toEqual([...endpointsOf(plugin.http)].sort());
    }
  });

  it("ids are unique, stable (the same twice) and `<service>:<operator>:<METHOD> <template>[/<code>]`", () => {
    expect(new Set(mutants.map((m) => m.id)).size).toBe(mutants.length);
    expect(wireMutants(ALL_PLUGINS)).toEqual(mutants);
    for (const m of mutants) {
      expect(m.id).toMatch(/^(runs|accessControl|secrets):(status-swapped|list-reordered|field-omitted):[A-Z]+ \/\S*$/);
      expect(m.change.layer).toBe("wire");
      expect(m.reaches).toEqual([{ kind: "endpoint", service: m.service, label: (m.change.mutation as { endpoint: string }).endpoint }]);
      const plugin = ALL_PLUGINS.find((p) => p.key === m.service)!;
      expect(endpointsOf(plugin.http)).toContain(m.reaches[0]!.kind === "endpoint" ? m.reaches[0]!.label : "");
    }
    // The catalogue holds them all.
    expect(mutantsOf(ALL_PLUGINS, { operators: ["status-swapped", "list-reordered", "field-omitted"] }).map((m) => m.id).sort()).toEqual(mutants.map((m) => m.id).sort());
  });

  it("how many per operator and service (a change to the tables shows here)", () => {
    expect(counts(mutants)).toEqual({
      "runs status-swapped": 46,
      "runs field-omitted": 20,
      "accessControl status-swapped": 52,
      "accessControl list-reordered": 4,
      "secrets status-swapped": 128,
      "secrets list-reordered": 4,
      "secrets field-omitted": 70,
    });
  });

  it("descriptions read after `your suite passes when`, with the service's own statuses", () => {
    const byId = new Map(mutants.map((m) => [m.id, m.description]));
    expect(byId.get("runs:status-swapped:POST /runs/:run_id/actions/discard/conflict")).toBe("`POST /runs/:run_id/actions/discard` answers 409 (conflict) where it answers 202");
    expect(byId.get("runs:status-swapped:POST /runs/:run_id/actions/force-execute/precondition_failed")).toBe(
      "`POST /runs/:run_id/actions/force-execute` answers 403 (precondition failed) where it answers 202",
    );
    expect(byId.get("accessControl:status-swapped:PUT /acl/token/invalid")).toBe("`PUT /acl/token` answers 500 (invalid) where it answers 200");
    expect(byId.get("secrets:status-swapped:POST /ssh/config/ca/forbidden")).toBe("`POST /ssh/config/ca` answers 403 (forbidden) where it answers 204 or 200");
    expect(byId.get("secrets:list-reordered:LIST /ssh/roles")).toBe("`LIST /ssh/roles` answers `data.keys` in reverse order");
    expect(byId.get("accessControl:list-reordered:GET /acl/tokens")).toBe("`GET /acl/tokens` answers its items in reverse order");
    expect(byId.get("runs:field-omitted:GET /runs/:run_id/canceled-at")).toBe("`GET /runs/:run_id` leaves out `canceled-at` where it answers it as `null` (absent instead of null)");
    expect(byId.get("runs:field-omitted:GET /workspaces/:workspace_id")).toBe("`GET /workspaces/:workspace_id` leaves out the members it answers as `null` (absent instead of null)");
    expect(byId.get("secrets:field-omitted:GET /cloud/creds/:name/security_token")).toBeDefined();
    for (const m of mutants.filter((x) => x.operator === "status-swapped")) {
      const code = (m.change.mutation as { code: Parameters<typeof errorStatus>[1] }).code;
      const status = errorStatus(ALL_PLUGINS.find((p) => p.key === m.service)!.http, code);
      expect(status, m.id).toBeGreaterThanOrEqual(400);
      expect(m.description, m.id).toContain(` answers ${status} (`);
    }
  });
});

/** A request to `label` of `plugin` (params from `param`), as a client sends it, with an all-powerful token. */
function requestFor(doubles: ReturnType<typeof createDoubles>, m: Mutant, param: string): { method: string; url: URL; headers: Record<string, string>; body: Uint8Array } {
  const label = m.reaches[0]!.kind === "endpoint" ? m.reaches[0]!.label : "";
  const [specMethod, template] = label.split(" ") as [string, string];
  const plugin = ALL_PLUGINS.find((p) => p.key === m.service)!;
  const row = plugin.http.routes.find((r) => (typeof r.method === "string" ? [r.method] : r.method).some((method) => routeEndpoint(r, method) === label));
  const base = doubles.baseUrls()[m.service]![row?.base ?? "api"]!.replace(/\/+$/, "");
  const path = template.replace(/[:*][A-Za-z_]+/g, encodeURIComponent(param));
  const list = specMethod === "LIST";
  const url = new URL(`${base}${path}${list ? "?list=true" : ""}`);
  const method = list ? "GET" : specMethod;
  const hasBody = method === "POST" || method === "PUT" || method === "PATCH";
  const headers: Record<string, string> = {
    authorization: `Bearer ${doubles.runs.issueSiteAdminToken({ username: "root" })}`,
    "x-consul-token": doubles.accessControl.bootstrapToken.secretId,
    "x-vault-token": doubles.secrets.rootToken,
    ...(hasBody ? { "content-type": m.service === "runs" ? "application/vnd.api+json" : "application/json" } : {}),
  };
  return { method, url, headers, body: hasBody ? new TextEncoder().encode("{}") : new Uint8Array() };
}

/** Requests to endpoints of each service that answer a success with bare doubles (a mutant's untargeted request is one of them). */
const PROBES: readonly (readonly [string, string, string, string])[] = [
  ["secrets", "GET", "/sys/mounts", "GET /sys/mounts"],
  ["accessControl", "GET", "/acl/tokens", "GET /acl/tokens"],
  ["runs", "GET", "/account/details", "GET /account/details"],
];

describe("wire-side mutants: every one answers without a bug", () => {
  it("property (fixed seed): a mutant's doubles answer a request to its endpoint with no 500 bug answer and no journalled error", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...mutants), fc.constantFrom("x", "web", "run-1", "00000000-0000-0000-0000-000000000002", "a b", "%"), async (m, param) => {
        const doubles = createDoubles({ seed: 7, mutant: m.id });
        expect(doubles.mutant?.id).toBe(m.id);
        const response = await doubles.handler.handle(requestFor(doubles, m, param));
        expect(response.headers["x-infra-doubles-bug"], `${m.id} ${param}`).toBeUndefined();
        const entry = doubles.journal.entries.at(-1);
        expect(entry?.error, `${m.id} ${param}`).toBeUndefined();
        expect(entry?.status).toBe(response.status);
      }),
      { numRuns: 200 },
    );
  });

  it("every mutant (each once): an untargeted request answers as the faithful fake; its own endpoint answers without a bug, a success with the table's status", async () => {
    const changed: Record<string, number> = {};
    for (const m of mutants) {
      const label = m.reaches[0]!.kind === "endpoint" ? m.reaches[0]!.label : "";
      const faithful = createDoubles({ seed: 7, mutant: null });
      const doubles = createDoubles({ seed: 7, mutant: m.id });
      // First a request the mutant does not target: byte for byte the faithful answer.
      const probe = PROBES.find(([, , , probeLabel]) => probeLabel !== label)!;
      const untargeted = async (d: ReturnType<typeof createDoubles>) => {
        const [key, method, path] = probe;
        const headers = { authorization: `Bearer ${d.runs.issueSiteAdminToken({ username: "prober" })}`, "x-consul-token": d.accessControl.bootstrapToken.secretId, "x-vault-token": d.secrets.rootToken };
        const answer = await d.handler.handle({ method, url: new URL(`${d.baseUrls()[key]!.api}${path}`), headers, body: new Uint8Array() });
        return { status: answer.status, headers: answer.headers, body: Buffer.from(answer.body ?? "").toString() };
      };
      const probed = await untargeted(faithful);
      expect(probed.status, probe.join(" ")).toBeLessThan(300);
      expect(await untargeted(doubles), m.id).toEqual(probed);
      // Then the mutant's own endpoint.
      const expected = await faithful.handler.handle(requestFor(faithful, m, "x"));
      const response = await doubles.handler.handle(requestFor(doubles, m, "x"));
      expect(response.headers["x-infra-doubles-bug"], m.id).toBeUndefined();
      expect(doubles.journal.entries.at(-1)?.error, m.id).toBeUndefined();
      const success = ALL_PLUGINS.find((p) => p.key === m.service)!.http.answerTable!.routes[label]!.success;
      if (expected.status >= 200 && expected.status < 300) expect(success, m.id).toContain(expected.status);
      if (m.operator === "status-swapped" && expected.status >= 200 && expected.status < 300) expect(response.status, m.id).toBeGreaterThanOrEqual(400);
      if (m.operator === "status-swapped" && !(expected.status >= 200 && expected.status < 300)) expect(response.status, m.id).toBe(expected.status);
      if (response.status !== expected.status || Buffer.from(response.body ?? "").toString() !== Buffer.from(expected.body ?? "").toString()) changed[m.operator] = (changed[m.operator] ?? 0) + 1;
    }
    // These bare requests (no fixtures) reach a success on some endpoints of each operator, where the mutant changes the answer.
    expect(changed).toEqual({ "status-swapped": 34, "field-omitted": 14, "list-reordered": 1 });
  }, 120_000);
});

describe("wire-side mutants: a refusal is the service's own answer to that error", () => {
  /** Sends one request through the doubles' handler (what every transport calls). */
  const call = async (doubles: ReturnType<typeof createDoubles>, key: string, method: string, path: string, headers: Record<string, string>, body?: string) => {
    const response = await doubles.handler.handle({ method, url: new URL(`${doubles.baseUrls()[key]!.api}${path}`), headers, body: new TextEncoder().encode(body ?? "") });
    return { status: response.status, type: response.headers["content-type"], body: Buffer.from(response.body ?? "").toString() };
  };

  it("access control: a token, a policy and a role read answer what a read of a missing one answers", async () => {
    const cases = [
      ["GET /acl/token/:AccessorID", "/acl/token/00000000-0000-0000-0000-000000000002", "/acl/token/6a0d6ab1-0000-4000-8000-000000000000", "not_found", 404],
      ["GET /acl/policy/:id", "/acl/policy/00000000-0000-0000-0000-000000000001", "/acl/policy/6a0d6ab1-0000-4000-8000-000000000000", "acl_not_found", 403],
    ] as const;
    for (const [label, existing, missing, code, status] of cases) {
      const faithful = createDoubles({ seed: 7, mutant: null });
      const headers = { "x-consul-token": faithful.accessControl.bootstrapToken.secretId };
      const expected = await call(faithful, "accessControl", "GET", missing, headers);
      expect(expected.status, label).toBe(status);
      expect((await call(faithful, "accessControl", "GET", existing, headers)).status, label).toBe(200);
      const mutated = createDoubles({ seed: 7, mutant: `accessControl:status-swapped:${label}/${code}` });
      expect(await call(mutated, "accessControl", "GET", existing, { "x-consul-token": mutated.accessControl.bootstrapToken.secretId }), label).toEqual(expected);
    }
  });

  it("secrets: a role read answers what a read of a missing role answers (404, no messages)", async () => {
    const faithful = createDoubles({ seed: 7, mutant: null });
    const expected = await call(faithful, "secrets", "GET", "/ssh/roles/missing", { "x-vault-token": faithful.secrets.rootToken });
    expect(expected.status).toBe(404);
    const mutated = createDoubles({ seed: 7, mutant: "secrets:status-swapped:GET /ssh/roles/:name/not_found" });
    const headers = { "x-vault-token": mutated.secrets.rootToken };
    expect((await call(mutated, "secrets", "POST", "/ssh/roles/web", { ...headers, "content-type": "application/json" }, '{"key_type":"otp","default_user":"deploy","cidr_list":"10.0.0.0/8"}')).status).toBe(204);
    expect(await call(mutated, "secrets", "GET", "/ssh/roles/web", headers)).toEqual(expected);
  });
});

describe("wire-side mutants: run orchestration refusals in the service's words", () => {
  it("the cancel of a pending run (a real 409) and the discard mutant's 409 have the same shape; the lock mutant's 409 is the lock endpoints' own", async () => {
    const doubles = createDoubles({ seed: 7, mutant: "runs:status-swapped:POST /workspaces/:workspace_id/actions/lock/conflict" });
    const runs = doubles.runs;
    const org = runs.addOrganization("acme");
    const ws = runs.addWorkspace(org, { name: "prod" });
    const user = runs.addUser({ username: "alice", permissions: { [ws.id]: "admin" } });
    const headers = { authorization: `Bearer ${runs.issueUserToken(user.id)}`, "content-type": "application/vnd.api+json" };
    const url = new URL(`${doubles.baseUrls().runs!.api}/workspaces/${ws.id}/actions/lock`);
    const locked = await doubles.handler.handle({ method: "POST", url, headers, body: new Uint8Array() });
    expect(locked.status).toBe(409);
    expect(JSON.parse(Buffer.from(locked.body ?? "").toString())).toEqual({ errors: [{ status: "409", title: "conflict", detail: "Unable to lock workspace. The workspace is already locked." }] });
    // Nothing stored: the workspace is still unlocked.
    const shown = await doubles.handler.handle({ method: "GET", url: new URL(`${doubles.baseUrls().runs!.api}/workspaces/${ws.id}`), headers, body: new Uint8Array() });
    expect((JSON.parse(Buffer.from(shown.body ?? "").toString()) as { data: { attributes: { locked: boolean } } }).data.attributes.locked).toBe(false);
  });
});

describe("wire-side mutants: secrets engines at other mount paths", () => {
  it("a mutant of an engine route changes it under every mount of its type", async () => {
    const doubles = createDoubles({ seed: 7, mutant: "secrets:list-reordered:LIST /ssh/roles" });
    const api = doubles.baseUrls().secrets!.api;
    const headers = { "x-vault-token": doubles.secrets.rootToken, "content-type": "application/json" };
    const send = (method: string, path: string, body?: string) => doubles.handler.handle({ method, url: new URL(`${api}${path}`), headers, body: new TextEncoder().encode(body ?? "") });
    expect((await send("POST", "/sys/mounts/ssh-prod", '{"type":"ssh"}')).status).toBe(204);
    for (const name of ["a-role", "b-role"]) expect((await send("POST", `/ssh-prod/roles/${name}`, '{"key_type":"otp","default_user":"deploy","cidr_list":"10.0.0.0/8"}')).status).toBe(204);
    const listed = await send("GET", "/ssh-prod/roles?list=true");
    expect((JSON.parse(Buffer.from(listed.body ?? "").toString()) as { data: { keys: string[] } }).data.keys).toEqual(["b-role", "a-role"]);
  });
});
