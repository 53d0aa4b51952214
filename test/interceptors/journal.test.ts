/**
 * The request journal through every transport: each entry's request headers and body, response
 * status, headers and body, route template, operation, service, simulated time and duration;
 * filters, the readable dump with credentials masked, and the bounds (ring, body cap).
 */
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { createDoubles, type DoublesOptions } from "../../src/index.js";
import { RequestJournal } from "../../src/interceptors/journal.js";
import { describeEachTransport } from "../support/transports.js";

const START = Date.UTC(2024, 0, 1);

describeEachTransport("the request journal", (t) => {
  const start = async (options: DoublesOptions = {}) => {
    const started = await t.startWith(createDoubles({ seed: 1, ...options }));
    const { runs } = started.doubles;
    const ws = runs.addWorkspace(runs.addOrganization("acme"), { name: "prod" });
    const token = runs.issueUserToken(runs.addUser({ permissions: { [ws.id]: "write" } }).id);
    return { ...started, ws, token, api: started.base("runs"), secrets: started.base("secrets") };
  };

  it("keeps what was sent and what came back, with the route template and operation", async () => {
    const { doubles, ws, token, api } = await start();
    const sent = { data: { type: "configuration-versions", attributes: { "auto-queue-runs": false } } };
    const response = await fetch(`${api}/workspaces/${ws.id}/configuration-versions`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/vnd.api+json", "x-trace": "t-1" },
      body: JSON.stringify(sent),
    });
    const answered = (await response.json()) as { data: { id: string } };
    expect(response.status).toBe(201);
    const entry = doubles.journal.last();
    expect(entry).toMatchObject({
      seq: 1,
      at: START,
      durationMs: 0,
      service: "runs",
      method: "POST",
      url: `${api}/workspaces/${ws.id}/configuration-versions`,
      route: "/workspaces/:workspace_id/configuration-versions",
      operation: "create configuration version",
      endpoint: "POST /workspaces/:workspace_id/configuration-versions",
      matched: true,
      status: 201,
      headers: expect.objectContaining({ authorization: `Bearer ${token}`, "x-trace": "t-1" }),
      responseHeaders: expect.objectContaining({ "content-type": "application/vnd.api+json" }),
    });
    expect(entry?.body).toEqual(sent);
    expect(entry?.requestBody.text()).toBe(JSON.stringify(sent));
    expect(entry?.responseBody.json()).toMatchObject({ data: { id: answered.data.id } });
    expect(entry?.fault).toBeUndefined();
  });

  it("names the secrets service's inner route and operation, and marks unmatched requests", async () => {
    const { doubles, secrets } = await start();
    const root = doubles.secrets.rootToken;
    await fetch(`${secrets}/sys/health`);
    await fetch(`${secrets}/sys/mounts/ssh-ca`, { method: "POST", headers: { "x-vault-token": root }, body: JSON.stringify({ type: "ssh" }) });
    await fetch(`${secrets}/ssh-ca/roles/admin`, { method: "POST", headers: { "x-vault-token": root }, body: JSON.stringify({ key_type: "ca", allow_user_certificates: true }) });
    await fetch(`${secrets}/sys/no-such-thing`, { headers: { "x-vault-token": root } });
    expect(doubles.journal.entries.map((e) => [e.service, e.endpoint, e.operation, e.status, e.matched])).toEqual([
      ["secrets", "GET /sys/health", "read", 200, true],
      ["secrets", "POST /sys/mounts/*path", "create-or-update", 204, true],
      ["secrets", "POST /ssh-ca/roles/:name", "create-or-update", 204, true],
      ["secrets", undefined, undefined, 404, false],
    ]);
    expect(doubles.journal.unmatched().map((e) => new URL(e.url).pathname)).toEqual(["/v1/sys/no-such-thing"]);
  });

  it("filters by service, route, method, status and time window", async () => {
    const { doubles, ws, token, api, secrets } = await start();
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/vnd.api+json" };
    const body = JSON.stringify({ data: { type: "configuration-versions" } });
    await fetch(`${api}/workspaces/${ws.id}/configuration-versions`, { method: "POST", headers, body });
    doubles.advance("1m");
    await fetch(`${api}/workspaces/${ws.id}/configuration-versions`, { headers });
    await fetch(`${api}/runs/run-nope`, { headers });
    doubles.advance("1m");
    await fetch(`${secrets}/sys/health`);
    const { journal } = doubles;
    const paths = (filter: Parameters<typeof journal.filter>[0]) => journal.filter(filter).map((e) => `${e.method} ${e.route ?? "-"} ${e.status}`);
    expect(paths({ service: "runs" })).toEqual([
      "POST /workspaces/:workspace_id/configuration-versions 201",
      "GET /workspaces/:workspace_id/configuration-versions 200",
      "GET /runs/:run_id 404",
    ]);
    expect(paths({ route: "/workspaces/:workspace_id/configuration-versions" })).toHaveLength(2);
    expect(paths({ route: "POST /workspaces/:workspace_id/configuration-versions" })).toEqual(["POST /workspaces/:workspace_id/configuration-versions 201"]);
    expect(paths({ method: "GET" })).toHaveLength(3);
    expect(paths({ status: 404 })).toEqual(["GET /runs/:run_id 404"]);
    expect(paths({ status: "2xx", service: "runs" })).toHaveLength(2);
    expect(paths({ status: (s) => s >= 400 })).toHaveLength(1);
    expect(paths({ since: START + 60_000, until: "2024-01-01T00:01:00Z" })).toEqual([
      "GET /workspaces/:workspace_id/configuration-versions 200",
      "GET /runs/:run_id 404",
    ]);
    expect(paths({ since: new Date(START + 120_000) })).toEqual(["GET /sys/health 200"]);
    expect(journal.count({ operation: "show run" })).toBe(1);
    expect(() => journal.filter({ stauts: 200 } as never)).toThrow(/unknown field "stauts"/);
    expect(() => journal.filter({ status: "6xx" as never })).toThrow(/status must be/);
  });

  it("prints entries readably with credentials masked, and reveals them only when asked", async () => {
    const { doubles, ws, token, api, secrets } = await start();
    await fetch(`${api}/workspaces/${ws.id}/configuration-versions?token=${token}`, { headers: { authorization: `Bearer ${token}` } });
    const root = doubles.secrets.rootToken;
    await fetch(`${secrets}/sys/mounts/ssh-ca`, { method: "POST", headers: { "x-vault-token": root }, body: JSON.stringify({ type: "ssh", config: { password: "hunter2" } }) });
    const text = doubles.journal.format();
    expect(text).toContain(`#1 2024-01-01T00:00:00.000Z runs GET ${api}/workspaces/${ws.id}/configuration-versions?token=*** -> 200 (list configuration versions, GET /workspaces/:workspace_id/configuration-versions, 0 ms)`);
    expect(text).toContain("  > authorization: ***");
    expect(text).toContain("  > x-vault-token: ***");
    expect(text).toContain('"password":"***"');
    expect(text).toMatch(/ {2}< content-type: application\/vnd\.api\+json/);
    for (const secret of [token, root, "hunter2"]) expect(text).not.toContain(secret);
    expect(inspect(doubles.journal.last())).not.toContain(root);
    expect(String(doubles.journal.last())).toContain("POST /sys/mounts/*path");
    const revealed = doubles.journal.format(undefined, { reveal: true });
    expect(revealed).toContain(`authorization: Bearer ${token}`);
    expect(revealed).toContain("hunter2");
    expect(doubles.journal.format({ service: "secrets", status: 599 })).toBe("(no requests)");
  });

  it("keeps a bounded ring of entries with bodies cut at the configured length", async () => {
    const { doubles, ws, token, api } = await start({ journal: { limit: 3, maxBodyBytes: 64 } });
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/vnd.api+json" };
    const long = JSON.stringify({ data: { type: "configuration-versions", attributes: { note: "x".repeat(500) } } });
    for (let i = 0; i < 4; i++) await fetch(`${api}/workspaces/${ws.id}/configuration-versions`, { headers });
    await fetch(`${api}/workspaces/${ws.id}/configuration-versions`, { method: "POST", headers, body: long });
    expect(doubles.journal.size).toBe(3);
    expect(doubles.journal.entries.map((e) => e.seq)).toEqual([3, 4, 5]);
    const last = doubles.journal.last();
    expect(last?.requestBody).toMatchObject({ truncated: true, length: Buffer.byteLength(long) });
    expect(last?.requestBody.bytes).toHaveLength(64);
    expect(last?.body).toBeUndefined(); // cut: not parsed
    expect(doubles.journal.format([last!])).toContain(`(${Buffer.byteLength(long)} bytes, first 64 kept)`);
    doubles.journal.clear();
    expect(doubles.journal.entries).toEqual([]);
  });
});

describe("RequestJournal", () => {
  it("refuses limits that are not whole numbers, in createDoubles too", () => {
    expect(() => new RequestJournal({ limit: -1 })).toThrow(/journal.limit must be a whole number/);
    expect(() => createDoubles({ journal: { limt: 3 } as never })).toThrow(/unknown option "journal.limt" \(did you mean "limit"\?\)/);
    expect(() => createDoubles({ journal: { maxBodyBytes: 1.5 } })).toThrow(/"journal.maxBodyBytes" must be a whole number/);
  });

  it("a limit of 0 keeps nothing (and records nothing)", async () => {
    const doubles = createDoubles({ journal: { limit: 0 } });
    await doubles.handler.handle({ method: "GET", url: new URL(`${doubles.baseUrls().secrets.api}/sys/health`), headers: {}, body: new Uint8Array() });
    expect(doubles.journal.entries).toEqual([]);
  });

  it("holds a bounded amount after 100,000 requests", async () => {
    const doubles = createDoubles({ journal: { limit: 50, maxBodyBytes: 32 } });
    const url = new URL(`${doubles.baseUrls().secrets.api}/sys/health`);
    const body = new Uint8Array(4096);
    for (let i = 0; i < 100_000; i++) await doubles.handler.handle({ method: "GET", url, headers: {}, body });
    expect(doubles.journal.size).toBe(50);
    expect(doubles.journal.entries[0]?.seq).toBe(99_951);
    for (const entry of doubles.journal) {
      expect(entry.requestBody.bytes.byteLength).toBe(32);
      expect(entry.requestBody.bytes.buffer.byteLength).toBe(32); // a copy, not a view holding the 4 KiB
    }
  });
});
