/**
 * Split mode: `doubles.listen({ split: true })` puts each service on its own port, as real clients
 * expect (one address per service: `VAULT_ADDR`, `CONSUL_HTTP_ADDR`). A path neither service owns
 * gets the answer of the service whose port it was sent to; on the shared origin it falls to the
 * secrets service's `/v1` catch-all.
 */
import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { UsageError } from "../../src/simulator/kernel/errors.js";
import { createDoubles, type Doubles } from "../../src/scenarios/doubles.js";

let doubles: Doubles | undefined;
afterEach(async () => {
  await doubles?.close();
  doubles = undefined;
});

function start(): Doubles {
  doubles = createDoubles({ seed: 1 });
  return doubles;
}

/** A port p such that p, p+1, p+2 were free a moment ago. */
async function freeRun(length: number): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const base = 20000 + Math.floor(((attempt * 7919 + process.pid) % 2000) * 20);
    const free = await Promise.all(
      Array.from({ length }, (_, i) =>
        new Promise<boolean>((resolve) => {
          const probe = createServer();
          probe.once("error", () => resolve(false));
          probe.listen(base + i, "127.0.0.1", () => probe.close(() => resolve(true)));
        }),
      ),
    );
    if (free.every(Boolean)) return base;
  }
  throw new Error("no run of free ports");
}

describe("doubles.listen({ split: true })", () => {
  it("serves each service on its own origin, with the control API on every port", async () => {
    const d = start();
    const split = await d.listen({ split: true });
    const { runs, accessControl, secrets } = split.urls as Record<string, string>;
    expect(new Set([runs, accessControl, secrets]).size).toBe(3);
    expect(Object.keys(split.servers)).toEqual(["runs", "accessControl", "secrets"]);
    const root = d.secrets.rootToken;
    expect((await fetch(`${secrets}/v1/sys/health`)).status).toBe(200);
    expect((await fetch(`${secrets}/v1/sys/mounts`, { headers: { "x-vault-token": root } })).status).toBe(200);
    // access control's own routes on its port; secrets' are not there
    const bootstrap = d.accessControl.bootstrapToken.secretId;
    const self = await fetch(`${accessControl}/v1/acl/token/self`, { headers: { "x-consul-token": bootstrap } });
    expect(self.status).toBe(200);
    expect((await fetch(`${accessControl}/v1/sys/health`)).status).toBe(404);
    // runs on its own port, with its archive base
    expect((await fetch(`${runs}/api/v2/runs/run-nope`)).status).toBe(401);
    const runsOnSecrets = await fetch(`${secrets}/api/v2/runs/run-nope`);
    expect(runsOnSecrets.status).toBe(404);
    expect(await runsOnSecrets.text()).toContain("no service is mounted");
    for (const origin of [runs, accessControl, secrets]) {
      expect((await fetch(`${origin}/_sim/clock`)).status).toBe(200);
    }
  });

  it("answers a path neither service owns as the service of that port: access control's 404 (shared origin: secrets' 403)", async () => {
    const d = start();
    const split = await d.listen({ split: true });
    const token = d.accessControl.bootstrapToken.secretId;
    const onAccessControl = await fetch(`${split.urls.accessControl}/v1/kv/x`, { headers: { "x-consul-token": token } });
    expect(onAccessControl.status).toBe(404);
    expect(await onAccessControl.text()).toBe("404 page not found\n");
    const shared = await d.listen();
    const onShared = await fetch(`${shared.url}/v1/kv/x`, { headers: { "x-consul-token": token } });
    expect(onShared.status).toBe(403);
    d.intercept();
    const underNock = await fetch(`${d.baseUrls().accessControl.api}/kv/x`, { headers: { "x-consul-token": token } });
    expect(underNock.status).toBe(404);
    expect(await underNock.text()).toBe("404 page not found\n");
  });

  it("keeps one journal and one state across ports; reset on any port returns to the state after setup", async () => {
    const d = start();
    let seen: Record<string, string> = {};
    const split = await d.listen({
      split: true,
      setup: (origins) => {
        seen = { ...origins };
        d.accessControl.createPolicy({ name: "made-in-setup", rules: 'acl = "read"' });
      },
    });
    expect(seen).toEqual(split.urls);
    const afterSetup = JSON.stringify(d.snapshot());
    expect(afterSetup).toContain("made-in-setup");
    d.accessControl.createPolicy({ name: "made-later", rules: 'acl = "read"' });
    const reset = await fetch(`${split.urls.secrets}/_sim/reset`, { method: "POST", headers: { "content-type": "application/json" } });
    expect(reset.status).toBe(200);
    expect(JSON.stringify(d.snapshot())).toBe(afterSetup);
    await fetch(`${split.urls.secrets}/v1/sys/health`);
    await fetch(`${split.urls.accessControl}/v1/acl/tokens`);
    expect(d.handler.journal.map((e) => new URL(e.url).origin)).toEqual([split.urls.secrets, split.urls.accessControl]);
    const journal = (await (await fetch(`${split.urls.runs}/_sim/journal`)).json()) as { entries: unknown[] };
    expect(journal.entries).toHaveLength(2);
  });

  it("gives consecutive ports from `port`, `ports` overriding one service", async () => {
    const d = start();
    const base = await freeRun(3);
    const split = await d.listen({ split: true, port: base });
    expect(Object.values(split.servers).map((s) => s.port)).toEqual([base, base + 1, base + 2]);
    await split.close();
    const other = await d.listen({ split: true, port: base, ports: { secrets: 0 } });
    expect(other.servers.runs?.port).toBe(base);
    expect(other.servers.accessControl?.port).toBe(base + 1);
    expect(other.servers.secrets?.port).not.toBe(base + 2);
  });

  it("refuses ports naming no service, and closes what it opened when a port is taken", async () => {
    const d = start();
    await expect(d.listen({ split: true, ports: { vault: 8200 } })).rejects.toThrow(UsageError);
    const first = await d.listen({ split: true });
    const taken = first.servers.secrets?.port ?? 0;
    await expect(d.listen({ split: true, ports: { secrets: taken } })).rejects.toThrow(/EADDRINUSE/);
    await first.close();
    // nothing of the failed call is left listening: the taken port is free again
    const again = await d.listen({ split: true, ports: { secrets: taken } });
    expect(again.servers.secrets?.port).toBe(taken);
  });
});
