/**
 * Issue 28 item 1: the dashboard's read routes. `GET /_sim/tables` lists what each service stores,
 * `GET /_sim/tables/:service/:table` answers one page of it (paged, searched and masked on the
 * server), `GET /_sim/journal/rows` the journal newest first without bodies, and `GET /_sim/ui`
 * the page with a strict Content-Security-Policy, loadable without the control token (its data
 * routes are not). The control API is served by the server only, so these go through HTTP to it.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { RunningServer } from "../../src/interceptors/server.js";
import type { ListenOptions } from "../../src/scenarios/doubles-core.js";
import { createDoubles } from "../../src/scenarios/doubles.js";

const servers: RunningServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function start(listen: ListenOptions = {}) {
  const doubles = createDoubles({ seed: 3, clock: "manual" });
  const server = await doubles.listen({ port: 0, ...listen });
  servers.push(server);
  const headers: Record<string, string> = server.controlToken === undefined ? {} : { "x-infra-doubles-control-token": server.controlToken };
  const get = async (path: string) => {
    const response = await fetch(`${server.url}/_sim${path}`, { headers });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, body: (response.headers.get("content-type")?.includes("json") ? JSON.parse(text) : undefined) as Record<string, unknown> & { error?: { message: string } } };
  };
  return { doubles, server, get };
}

interface Page {
  readonly rows: Record<string, unknown>[];
  readonly total: number;
  readonly page: number;
  readonly size: number;
}

describe("GET /_sim/tables", () => {
  it("lists every service's tables with their columns", async () => {
    const { get } = await start();
    const { status, body } = await get("/tables");
    expect(status).toBe(200);
    const services = body.services as { key: string; tables: { name: string; columns: { key: string; kind: string }[] }[] }[];
    expect(Object.fromEntries(services.map((s) => [s.key, s.tables.map((t) => t.name)]))).toEqual({
      runs: ["organizations", "workspaces", "runs", "configurationVersions"],
      accessControl: ["tokens", "policies", "roles", "authMethods", "bindingRules"],
      secrets: ["tokens", "mounts", "leases", "sshRoles", "otps", "node"],
    });
    const runs = services[0]?.tables.find((t) => t.name === "runs");
    expect(runs?.columns.find((c) => c.key === "status")?.kind).toBe("status");
  });

  it("pages runs newest first, with their status timestamps and the workspace queue and lock", async () => {
    const { doubles, get } = await start();
    const runs = doubles.runs;
    runs.addOrganization("acme");
    const ws = runs.addWorkspace("acme", { name: "prod" });
    const alice = runs.addUser({ username: "alice", permissions: { [ws.id]: "admin" } });
    const first = runs.uploadConfiguration(ws.id, { as: alice.id }).runId ?? "";
    const ids = [first];
    for (let index = 0; index < 4; index += 1) ids.push(runs.queueRun(ws.id, { as: alice.id, message: `run ${index}` }));
    const page1 = (await get("/tables/runs/runs?size=2")).body as unknown as Page;
    expect(page1).toMatchObject({ total: 5, page: 1, size: 2 });
    expect(page1.rows.map((r) => r.id)).toEqual([ids[4], ids[3]]);
    const page3 = (await get("/tables/runs/runs?size=2&page=3")).body as unknown as Page;
    expect(page3.rows.map((r) => r.id)).toEqual([first]);
    expect(page3.rows[0]).toMatchObject({ workspace: "acme/prod", status: "pending", since: "2024-01-01T00:00:00.000Z", timestamps: ["pending 2024-01-01T00:00:00.000Z"] });
    const workspace = ((await get("/tables/runs/workspaces")).body as unknown as Page).rows[0];
    const queue = runs.workspaceQueue(ws.id);
    expect(workspace).toMatchObject({ id: ws.id, name: "prod", organization: "acme", lockedBy: queue.holder, queue: queue.waiting, runs: 5 });
    expect(queue.waiting.length).toBeGreaterThan(0);
  });

  it("searches every row as shown (q, case-insensitive) and pages the matches", async () => {
    const { doubles, get } = await start();
    const runs = doubles.runs;
    runs.addOrganization("acme");
    for (const name of ["prod", "staging", "prod-eu", "dev"]) runs.addWorkspace("acme", { name });
    const found = (await get("/tables/runs/workspaces?q=PROD")).body as unknown as Page;
    expect(found.total).toBe(2);
    expect(found.rows.map((r) => r.name)).toEqual(["prod", "prod-eu"]);
    const second = (await get("/tables/runs/workspaces?q=prod&size=1&page=2")).body as unknown as Page;
    expect(second).toMatchObject({ total: 2, rows: [{ name: "prod-eu" }] });
  });

  it("masks secrets unless ?reveal=true, and a search never matches a masked value", async () => {
    const { doubles, get } = await start();
    const root = doubles.secrets.rootToken;
    const masked = (await get("/tables/secrets/tokens")).body as unknown as Page;
    expect(masked.rows.length).toBeGreaterThan(0);
    expect(masked.rows.every((r) => r.token === "***")).toBe(true);
    expect(JSON.stringify(masked)).not.toContain(root);
    expect(((await get(`/tables/secrets/tokens?q=${encodeURIComponent(root)}`)).body as unknown as Page).total).toBe(0);
    const revealed = (await get("/tables/secrets/tokens?reveal=true")).body as unknown as Page;
    expect(revealed.rows.map((r) => r.token)).toContain(root);
    expect(((await get(`/tables/secrets/tokens?reveal=true&q=${encodeURIComponent(root)}`)).body as unknown as Page).total).toBe(1);
    const acl = (await get("/tables/accessControl/tokens")).body as unknown as Page;
    expect(acl.rows.every((r) => r.secretId === "***")).toBe(true);
  });

  it("shows time left on the simulated clock (leases, tokens), and the node state", async () => {
    const { doubles, get } = await start();
    doubles.secrets.createToken({ policies: ["default"], ttl: "1h" });
    const before = ((await get("/tables/secrets/tokens")).body as unknown as Page).rows.find((r) => r.timeLeft !== null);
    expect(before?.timeLeft).toBe(3_600_000);
    doubles.advance("10m");
    const after = ((await get("/tables/secrets/tokens")).body as unknown as Page).rows.find((r) => r.timeLeft !== null);
    expect(after?.timeLeft).toBe(3_000_000);
    doubles.secrets.setNodeState("sealed");
    expect(((await get("/tables/secrets/node")).body as unknown as Page).rows).toEqual([expect.objectContaining({ state: "sealed" })]);
  });

  it("refuses an unknown table (404, naming the tables) and a bad page or size (400)", async () => {
    const { get } = await start();
    const missing = await get("/tables/runs/nope");
    expect(missing.status).toBe(404);
    expect(missing.body.error?.message).toContain("runs/organizations");
    for (const bad of ["page=0", "size=0", "size=501", "page=x"]) {
      const answer = await get(`/tables/runs/runs?${bad}`);
      expect(answer.status, bad).toBe(400);
    }
  });
});

describe("GET /_sim/journal/rows", () => {
  it("answers service requests newest first, without bodies, the URL masked, searched by q", async () => {
    const { server, get } = await start();
    await fetch(`${server.url}/v1/sys/health`);
    await fetch(`${server.url}/v1/auth/token/lookup-self?token=s.secret-value`);
    await fetch(`${server.url}/api/v2/organizations/none`);
    await get("/clock"); // control requests are not journalled
    const rows = (await get("/journal/rows")).body as unknown as Page & { last: number };
    expect(rows.total).toBe(3);
    expect(rows.rows.map((r) => r.url)).toEqual([
      `${server.url}/api/v2/organizations/none`,
      `${server.url}/v1/auth/token/lookup-self?token=***`,
      `${server.url}/v1/sys/health`,
    ]);
    expect(rows.last).toBe(rows.rows[0]?.seq);
    expect(rows.rows[0]).not.toHaveProperty("responseBody");
    const found = (await get("/journal/rows?q=health")).body as unknown as Page;
    expect(found.rows.map((r) => r.url)).toEqual([`${server.url}/v1/sys/health`]);
    expect(((await get("/journal/rows?q=secret-value")).body as unknown as Page).total).toBe(0);
    const paged = (await get("/journal/rows?size=1&page=2")).body as unknown as Page;
    expect(paged.rows.map((r) => r.seq)).toEqual([rows.rows[1]?.seq]);
  });
});

describe("GET /_sim/ui", () => {
  it("serves the page, its script and its style sheet with a strict Content-Security-Policy", async () => {
    const { get } = await start();
    for (const [path, type] of [
      ["/ui", "text/html"],
      ["/ui/app.js", "text/javascript"],
      ["/ui/app.css", "text/css"],
    ] as const) {
      const answer = await get(path);
      expect(answer.status, path).toBe(200);
      expect(answer.headers.get("content-type"), path).toContain(type);
      const csp = answer.headers.get("content-security-policy") ?? "";
      expect(csp, path).toContain("default-src 'none'");
      expect(csp, path).toContain("script-src 'self'");
      expect(csp, path).not.toContain("unsafe");
      expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
    }
    const page = (await get("/ui")).text;
    // Nothing from another origin, no inline script or style.
    expect(page).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect(page).not.toMatch(/<script>|<style|style="/);
  });

  it("loads without the control token on a server that needs one; every data route still needs it", async () => {
    const { server } = await start({ controlToken: "tok-123" });
    for (const path of ["/ui", "/ui/app.js", "/ui/app.css"]) expect((await fetch(`${server.url}/_sim${path}`)).status, path).toBe(200);
    for (const path of ["", "/clock", "/tables", "/tables/secrets/tokens", "/journal/rows", "/journal", "/faults"]) {
      expect((await fetch(`${server.url}/_sim${path}`)).status, path).toBe(401);
      expect((await fetch(`${server.url}/_sim${path}`, { headers: { "x-infra-doubles-control-token": "tok-123" } })).status, path).toBe(200);
    }
    // Only GET: the page's files take no other method without the token either.
    expect((await fetch(`${server.url}/_sim/ui`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).status).toBe(401);
    // The Host and Origin checks still hold for the page.
    expect((await fetch(`${server.url}/_sim/ui`, { headers: { origin: "http://evil.example" } })).status).toBe(403);
  });
});
