import { expect, it } from "vitest";
import { describeEachTransport } from "../../support/transports.js";
import type { SecretsScenario } from "../../../src/scenarios/secrets/secrets-scenario.js";
import { NODE_STATES, type NodeState } from "../../../src/simulator/secrets/node-state.js";
import { itemsPlugin } from "./test-engine.js";

const DEFAULT_CODES: Record<NodeState, number> = {
  active: 200,
  standby: 429,
  "dr-secondary-active": 472,
  "dr-secondary-standby": 472,
  "performance-standby": 473,
  "not-initialized": 501,
  sealed: 503,
};

describeEachTransport("secrets: health", (t) => {
  const start = async () => {
    const started = await t.start([itemsPlugin()], { start: "2024-01-01T00:00:00Z" });
    const base = started.base("secrets");
    const controls = started.doubles.controlsOf<SecretsScenario>("secrets");
    const health = (query = "", init: RequestInit = {}) => fetch(`${base}/sys/health${query}`, init);
    return { ...started, base, controls, health };
  };

  it("answers every node state with its default code, on GET and HEAD, without a token", async () => {
    const { controls, health } = await start();
    for (const state of NODE_STATES) {
      controls.setNodeState(state);
      const get = await health();
      expect(get.status, state).toBe(DEFAULT_CODES[state]);
      expect(get.headers.get("content-type")).toContain("application/json");
      const body = await get.json();
      expect(body.initialized, state).toBe(state !== "not-initialized");
      const head = await health("", { method: "HEAD" });
      expect(head.status, state).toBe(DEFAULT_CODES[state]);
      expect(await head.text()).toBe("");
    }
  });

  it("reports the body fields of an active node from the simulator clock", async () => {
    const { health, doubles, base } = await start();
    const body = await (await health()).json();
    expect(body).toEqual({
      initialized: true,
      sealed: false,
      standby: false,
      performance_standby: false,
      replication_performance_mode: "disabled",
      replication_dr_mode: "disabled",
      server_time_utc: 1704067200,
      version: "1.15.6+ent",
      cluster_name: expect.stringMatching(/^vault-cluster-[0-9a-f]{8}$/),
      cluster_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      license: { state: "autoloaded", expiry_time: "2024-12-31T00:00:00Z", terminated: false },
    });
    doubles.advance("90s");
    expect((await (await health()).json()).server_time_utc).toBe(1704067290);
    await fetch(`${base}/items/items/a`, { method: "POST", headers: { "x-secrets-token": "root-token" }, body: '{"value":"v"}' });
    expect((await (await health()).json()).last_wal).toBe(1);
  });

  it("leaves out cluster name and id while sealed or uninitialized and reports replication modes unknown", async () => {
    const { controls, health } = await start();
    for (const state of ["sealed", "not-initialized"] as const) {
      controls.setNodeState(state);
      const body = await (await health()).json();
      expect(body).not.toHaveProperty("cluster_name");
      expect(body).not.toHaveProperty("cluster_id");
      expect(body).not.toHaveProperty("last_wal");
      expect(body).toMatchObject({ sealed: true, standby: true, replication_performance_mode: "unknown", replication_dr_mode: "unknown" });
    }
    controls.setNodeState("dr-secondary-standby");
    expect(await (await health()).json()).toMatchObject({ standby: true, replication_dr_mode: "secondary" });
    controls.setNodeState("performance-standby");
    expect(await (await health()).json()).toMatchObject({ standby: true, performance_standby: true });
  });

  it("applies standbyok, perfstandbyok and every code parameter by precedence", async () => {
    const { controls, health } = await start();
    controls.setNodeState("standby");
    expect((await health("?standbyok=true")).status).toBe(200);
    expect((await health("?standbyok=true&activecode=204")).status).toBe(204);
    expect((await health("?standbycode=299")).status).toBe(299);
    expect((await health("?perfstandbyok=true")).status).toBe(429);
    controls.setNodeState("performance-standby");
    expect((await health("?standbyok=true")).status).toBe(473);
    expect((await health("?perfstandbyok=1")).status).toBe(200);
    expect((await health("?performancestandbycode=298")).status).toBe(298);
    controls.setNodeState("dr-secondary-active");
    expect((await health("?standbyok=true&perfstandbyok=true")).status).toBe(472);
    expect((await health("?drsecondarycode=297")).status).toBe(297);
    controls.setNodeState("sealed");
    expect((await health("?sealedcode=296&standbyok=true")).status).toBe(296);
    controls.setNodeState("not-initialized");
    expect((await health("?uninitcode=295&sealedcode=296")).status).toBe(295);
    controls.setNodeState("active");
    expect((await health("?activecode=%2B201&standbycode=500")).status).toBe(201);
    // "+" in a query is a space, which Go's Atoi refuses
    expect((await health("?activecode=+201")).status).toBe(400);
  });

  it("lets an unstable DR secondary or performance standby answer like a standby", async () => {
    const { controls, health } = await start();
    controls.setNodeState("performance-standby", { unstable: true });
    expect((await health()).status).toBe(429);
    expect((await health("?standbyok=true")).status).toBe(200);
    controls.setNodeState("dr-secondary-active");
    expect((await health()).status).toBe(429);
  });

  it("refuses bad parameter values with 400: an empty errors list on GET, no body on HEAD", async () => {
    const { health } = await start();
    for (const query of ["?standbyok=yes", "?perfstandbyok=", "?standbyok", "?activecode=abc", "?sealedcode=2.5", "?uninitcode=99", "?standbycode=600", "?drsecondarycode=", "?performancestandbycode=0x1F"]) {
      const get = await health(query);
      expect(get.status, query).toBe(400);
      expect(await get.json()).toEqual({ errors: [] });
      const head = await health(query, { method: "HEAD" });
      expect(head.status, query).toBe(400);
      expect(await head.text()).toBe("");
    }
  });

  it("sends no body with a 204 code and answers other methods with 405", async () => {
    const { health } = await start();
    const noContent = await health("?activecode=204");
    expect(noContent.status).toBe(204);
    expect(await noContent.text()).toBe("");
    const post = await health("", { method: "POST" });
    expect(post.status).toBe(405);
    expect(await post.json()).toEqual({ errors: [] });
  });

  it("is refused outside the root namespace (header or path prefix)", async () => {
    const { controls, health, base } = await start();
    controls.createNamespace("ns1");
    const viaHeader = await health("", { headers: { "x-secrets-namespace": "ns1" } });
    expect(viaHeader.status).toBe(404);
    expect(await viaHeader.json()).toEqual({ errors: ["unsupported path"] });
    expect((await fetch(`${base}/ns1/sys/health`)).status).toBe(404);
    expect((await fetch(`${base}/ns1/sys/health`, { method: "HEAD" })).status).toBe(404);
    expect((await health("", { headers: { "x-secrets-namespace": "root" } })).status).toBe(200);
  });

  it("answers other endpoints 503 while sealed or uninitialized, 400 on a DR secondary, normally on standbys", async () => {
    const { controls, base } = await start();
    const write = () => fetch(`${base}/items/items/a`, { method: "POST", headers: { "x-secrets-token": "root-token" }, body: '{"value":"v"}' });
    for (const state of ["sealed", "not-initialized"] as const) {
      controls.setNodeState(state);
      const response = await write();
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({ errors: ["Vault is sealed"] });
      // sealed before authentication: no token needed to learn it
      expect((await fetch(`${base}/items/items/a`)).status).toBe(503);
    }
    controls.setNodeState("dr-secondary-active");
    const dr = await write();
    expect(dr.status).toBe(400);
    expect(await dr.json()).toEqual({ errors: ["path disabled in replication DR secondary mode"] });
    for (const state of ["standby", "performance-standby", "active"] as const) {
      controls.setNodeState(state);
      expect((await write()).status).toBe(204);
    }
  });
});
