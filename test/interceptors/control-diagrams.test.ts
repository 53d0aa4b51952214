/**
 * `GET /_sim/diagrams` and `GET /_sim/diagrams/:table` on the server: the tables listed, each drawn
 * as SVG (default) or Mermaid with the number of items stored in each state now and the coverage
 * so far; 404 for an unknown table naming the tables, 400 for another format; read-only.
 */
import { request } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import type { RunningServer } from "../../src/interceptors/server.js";
import { createDoubles } from "../../src/scenarios/doubles.js";
import { STATE_TABLES, tableSummary } from "../../src/scenarios/diagrams/index.js";
import { findAll, parseXml } from "../support/xml.js";

const servers: RunningServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function start() {
  const doubles = createDoubles({ seed: 5 });
  const server = await doubles.listen();
  servers.push(server);
  const get = async (path: string) => {
    const response = await fetch(`${server.url}/_sim${path}`);
    return { status: response.status, headers: response.headers, text: await response.text() };
  };
  return { doubles, server, get };
}

describe("GET /_sim/diagrams", () => {
  it("lists every state table with its formats", async () => {
    const { get } = await start();
    const answer = await get("/diagrams");
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ diagrams: STATE_TABLES.map((t) => ({ ...tableSummary(t), formats: ["svg", "mermaid"] })) });
    expect(JSON.parse((await get("")).text).routes).toEqual(expect.arrayContaining([expect.objectContaining({ route: "GET /_sim/diagrams" }), expect.objectContaining({ route: "GET /_sim/diagrams/:table" })]));
  });

  it("draws a table with the runs stored in each state now and the transitions taken so far", async () => {
    const { doubles, server, get } = await start();
    const runs = doubles.runs;
    const org = runs.addOrganization("acme");
    const ws = runs.addWorkspace(org, { name: "prod" });
    const alice = runs.addUser({ username: "alice", permissions: { [ws.id]: "admin" } });
    const token = runs.issueUserToken(alice.id);
    runs.setProgression("manual");
    runs.uploadConfiguration(ws.id, { as: alice.id, autoQueueRuns: false });
    const created = await fetch(`${server.url}/api/v2/runs`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/vnd.api+json" },
      body: JSON.stringify({ data: { type: "runs", relationships: { workspace: { data: { type: "workspaces", id: ws.id } } } } }),
    });
    expect(created.status).toBe(201);
    const runId = ((await created.json()) as { data: { id: string } }).data.id;
    expect((await fetch(`${server.url}/_sim/runs/runs/${runId}/step`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).status).toBe(200);

    const svg = await get("/diagrams/runs");
    expect(svg.status).toBe(200);
    expect(svg.headers.get("content-type")).toBe("image/svg+xml; charset=utf-8");
    expect(svg.headers.get("content-security-policy")).toBe("default-src 'none'; style-src 'unsafe-inline'");
    const root = parseXml(svg.text);
    const fetching = findAll(root, (e) => e.attributes["data-state"] === "fetching")[0];
    expect(fetching?.attributes).toMatchObject({ "data-current": "1", "data-reached": "1" });
    expect(findAll(root, (e) => e.attributes["data-event"] === "start")[0]?.attributes).toMatchObject({ class: "transition reached", "data-count": "1" });

    const mermaid = await get("/diagrams/runs?format=mermaid");
    expect(mermaid.status).toBe(200);
    expect(mermaid.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(mermaid.text).toContain("  pending --> fetching : start (1)\n");
    expect(mermaid.text).toContain("  fetching : reached 1, now 1\n");
    const node = await get("/diagrams/node-states?format=mermaid");
    expect(node.text).toContain("  active : ");
    expect(node.text).toContain("now 1");
  });

  it("answers 404 for an unknown table naming the tables, 400 for another format, and changes nothing", async () => {
    const { doubles, server, get } = await start();
    const before = doubles.sim.version;
    const unknown = await get("/diagrams/run");
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.text)).toEqual({ error: { status: 404, code: "not_found", message: `_sim: cannot draw state diagram: no state table "run"; the tables are ${STATE_TABLES.map((t) => t.name).join(", ")} (GET /_sim/diagrams lists them)` } });
    const format = await get("/diagrams/runs?format=png");
    expect(format.status).toBe(400);
    expect(JSON.parse(format.text)).toMatchObject({ error: { code: "invalid", message: '_sim: cannot draw state diagram: format must be svg or mermaid; got "png"' } });
    const post = await fetch(`${server.url}/_sim/diagrams/runs`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(post.status).toBe(405);
    expect(doubles.sim.version).toBe(before);
  });

  it("follows the control API's rules: another Host (DNS rebinding) or a cross-site page is refused 403", async () => {
    const { server } = await start();
    const url = new URL(`${server.url}/_sim/diagrams/runs`);
    const status = (headers: Record<string, string>): Promise<number> =>
      new Promise((resolve, reject) => {
        const req = request(url, { method: "GET", headers, setHost: headers.host === undefined }, (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        });
        req.on("error", reject);
        req.end();
      });
    expect(await status({ host: `localhost:${url.port}` })).toBe(200);
    expect(await status({ host: "evil.example" })).toBe(403);
    expect(await status({ host: `localhost:${url.port}`, origin: "https://evil.example", "sec-fetch-site": "cross-site" })).toBe(403);
  });
});
