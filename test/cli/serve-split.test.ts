/**
 * `infra-doubles serve --split` (and the per-service port flags): each service on its own port,
 * named in the banner and the JSON line; a path the service of a port does not own gets that
 * service's answer (the consul client's `GET /v1/kv/x` on the access-control port: 404), where
 * the shared origin hands `/v1` paths access control does not own to the secrets service (403).
 */
import { describe, expect, it } from "vitest";
import { parseCommand } from "../../src/cli/args.js";
import { launch } from "./launch.js";


interface SplitStart {
  url: string;
  urls: { runs: string; accessControl: string; secrets: string };
  runs: { baseUrl: string };
  accessControl: { baseUrl: string; bootstrapSecretId: string };
  secrets: { baseUrl: string; rootToken: string };
}

describe("infra-doubles serve --split", () => {
  it("puts each service on its own port, names each in the JSON line, and answers a path as that port's service", async () => {
    const run = launch(["serve", "--port", "0", "--split", "--json"]);
    const start = JSON.parse(await run.firstLine()) as SplitStart;
    const { runs, accessControl, secrets } = start.urls;
    expect(new Set([runs, accessControl, secrets]).size).toBe(3);
    expect(start.url).toBe(runs);
    expect(start.runs.baseUrl.startsWith(`${runs}/`)).toBe(true);
    expect(start.accessControl.baseUrl).toBe(`${accessControl}/v1`);
    expect(start.secrets.baseUrl).toBe(`${secrets}/v1`);
    const health = await fetch(`${start.secrets.baseUrl}/sys/health`);
    expect(health.status).toBe(200);
    // the consul client's KV read, pointed at the access-control address (CONSUL_HTTP_ADDR)
    const kv = await fetch(`${accessControl}/v1/kv/x`, { headers: { "x-consul-token": start.accessControl.bootstrapSecretId } });
    expect(kv.status).toBe(404);
    expect(await kv.text()).toBe("404 page not found\n");
    const self = await fetch(`${start.accessControl.baseUrl}/acl/token/self`, { headers: { "x-consul-token": start.accessControl.bootstrapSecretId } });
    expect(self.status).toBe(200);
    for (const origin of [runs, accessControl, secrets]) expect((await fetch(`${origin}/_sim/clock`)).status).toBe(200);
    run.signals.emit("SIGTERM");
    expect(await run.exit).toBe(0);
    for (const origin of [runs, accessControl, secrets]) await expect(fetch(`${origin}/_sim/clock`)).rejects.toThrow();
    expect(run.err).toEqual([]);
  });

  it("on the shared origin, the same KV read falls to the secrets service's /v1 catch-all (403)", async () => {
    const run = launch(["serve", "--port", "0", "--json"]);
    const start = JSON.parse(await run.firstLine()) as Omit<SplitStart, "urls">;
    expect(start).not.toHaveProperty("urls");
    const kv = await fetch(`${start.url}/v1/kv/x`, { headers: { "x-consul-token": start.accessControl.bootstrapSecretId } });
    expect(kv.status).toBe(403);
    run.signals.emit("SIGTERM");
    expect(await run.exit).toBe(0);
  });

  it("prints a banner naming each address; a per-service port flag implies --split", async () => {
    const probe = launch(["serve", "--port", "0", "--split", "--json"]);
    const free = new URL((JSON.parse(await probe.firstLine()) as SplitStart).urls.secrets).port;
    probe.signals.emit("SIGTERM");
    await probe.exit;
    const run = launch(["serve", "--port", "0", "--secrets-port", free]);
    const banner = await run.firstLine();
    expect(banner).toContain("infra-doubles dev server, one port per service\n");
    const named = Object.fromEntries([...banner.matchAll(/^ {2}(\w+) +listening on (http:\/\/\S+)$/gm)].map((m) => [m[1], m[2]]));
    expect(Object.keys(named)).toEqual(["runs", "accessControl", "secrets"]);
    expect(named.secrets).toBe(`http://127.0.0.1:${free}`);
    expect(banner).toMatch(new RegExp(`^ {2}baseUrl +${named.secrets ?? ""}/v1$`, "m"));
    expect(banner).toContain("Control API (on every port;");
    run.signals.emit("SIGINT");
    expect(await run.exit).toBe(0);
  });

  it("parses the flags: --split, per-service ports, bad values", () => {
    expect(parseCommand(["serve", "--split"])).toMatchObject({ split: true, ports: {} });
    expect(parseCommand(["serve", "--runs-port", "9000", "--access-control-port", "8500", "--secrets-port", "8200"])).toMatchObject({
      split: true,
      ports: { runs: 9000, accessControl: 8500, secrets: 8200 },
    });
    expect(parseCommand(["serve"])).not.toHaveProperty("split");
    expect(parseCommand(["serve", "--secrets-port", "70000"])).toMatchObject({ command: "usage", problem: expect.stringContaining("--secrets-port") });
    expect(parseCommand(["serve", "--runs-port", "8200", "--secrets-port", "8200"])).toMatchObject({ command: "usage", problem: "each service needs its own port" });
  });
});
