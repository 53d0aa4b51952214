/**
 * Worlds of the dev server (issue 26 item 1), through HTTP against `infra-doubles serve` run in
 * process: `POST /_sim/worlds` makes an isolated world on a port of its own, `GET` lists them,
 * `DELETE` closes one (its port freed), `--world-idle` expires idle ones, `--max-worlds` refuses one
 * too many in the control API's error shape. 50 worlds driven at once by 50 clients see nothing of
 * each other; 1,000 create/delete cycles leave the heap and the open handles flat.
 */
import { get } from "node:http";
import { createConnection } from "node:net";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launch } from "./launch.js";

const TOKEN = "x-infra-doubles-control-token";
const JSON_TYPE = { "content-type": "application/json" };

interface World {
  id: string;
  url: string;
  port: number;
  controlToken: string;
  created: string;
  runs: { baseUrl: string; userToken: string; organization: string };
  secrets: { baseUrl: string; rootToken: string };
  accessControl: { baseUrl: string; bootstrapSecretId: string };
}

type Run = ReturnType<typeof launch>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- control answers are read field by field, each checked
type Json = any;

async function start(argv: string[] = []): Promise<{ run: Run; url: string; line: Record<string, unknown> }> {
  const run = launch(["serve", "--port", "0", "--json", "--seed", "3", ...argv]);
  const line = await run.started();
  return { run, url: line.url, line };
}

async function stop(run: Run): Promise<void> {
  run.signals.emit("SIGTERM");
  expect(await run.exit).toBe(0);
}

async function createWorld(server: string, body: unknown = {}): Promise<World> {
  const response = await fetch(`${server}/_sim/worlds`, { method: "POST", headers: JSON_TYPE, body: JSON.stringify(body) });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`POST /_sim/worlds: ${response.status} ${text}`);
  return JSON.parse(text) as World;
}

/** A world's own control API, with its token. */
function control(world: World) {
  return async (method: string, path: string, body?: unknown): Promise<{ status: number; json: Json }> => {
    const response = await fetch(`${world.url}/_sim${path}`, {
      method,
      headers: { [TOKEN]: world.controlToken, ...(body === undefined ? {} : JSON_TYPE) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, json: text === "" ? undefined : JSON.parse(text) };
  };
}

/** A GET's status through node:http, on a connection of its own. */
function getStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = get(url, { agent: false, headers }, (response) => {
      response.resume();
      response.once("end", () => resolve(response.statusCode ?? 0));
    });
    request.once("error", reject);
  });
}

/** Whether a TCP connection to the port is refused (nothing listens there any more). */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: "127.0.0.1" });
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(true));
  });
}

describe("POST /_sim/worlds", () => {
  let run: Run;
  let server: string;
  beforeAll(async () => {
    ({ run, url: server } = await start());
  });
  afterAll(async () => {
    await stop(run);
  });

  it("answers the world's start line on a port of its own, with a control token its /_sim/ needs", async () => {
    const world = await createWorld(server, { seed: 3 });
    expect(world.id).toMatch(/^world-\d+$/);
    expect(world.url).toBe(`http://127.0.0.1:${world.port}`);
    expect(world.port).not.toBe(Number(new URL(server).port));
    expect(world.controlToken).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(Date.parse(world.created)).toBeGreaterThan(0);
    // serve --json's line for the world: same seed, same tokens as the default world, its own origin.
    expect(world.runs.baseUrl).toBe(`${world.url}/api/v2`);
    expect(world.secrets.baseUrl).toBe(`${world.url}/v1`);
    expect(world.secrets.rootToken).toBe((await start().then(async (other) => {
      await stop(other.run);
      return (other.line.secrets as { rootToken: string }).rootToken;
    })));
    expect((await fetch(`${world.url}/_sim/clock`)).status).toBe(401);
    expect((await fetch(`${world.url}/_sim/clock`, { headers: { [TOKEN]: "wrong" } })).status).toBe(401);
    expect((await control(world)("GET", "/clock")).status).toBe(200);
    // Host and Origin checks as on the server: a rebinding name or a cross-site page is refused.
    expect(await getStatus(`${world.url}/_sim/clock`, { [TOKEN]: world.controlToken, host: "evil.example" })).toBe(403);
    expect((await fetch(`${world.url}/_sim/clock`, { headers: { [TOKEN]: world.controlToken, origin: "http://evil.example" } })).status).toBe(403);
    const health = await fetch(`${world.secrets.baseUrl}/sys/health`);
    expect(health.status).toBe(200);
    const listed = (await (await fetch(`${server}/_sim/worlds`)).json()) as { worlds: { id: string; port: number; requests: number; lastUsed: string; created: string }[]; maxWorlds: number };
    expect(listed.maxWorlds).toBe(200);
    const row = listed.worlds.find((w) => w.id === world.id);
    expect(row).toMatchObject({ id: world.id, url: world.url, port: world.port, created: world.created, requests: 6 });
    expect(Date.parse(row?.lastUsed ?? "")).toBeGreaterThanOrEqual(Date.parse(world.created));
    expect((await fetch(`${server}/_sim/worlds/${world.id}`)).status).toBe(200);
    expect((await (await fetch(`${server}/_sim`)).json()).routes.map((r: { route: string }) => r.route)).toEqual(
      expect.arrayContaining(["POST /_sim/worlds", "GET /_sim/worlds", "GET /_sim/worlds/:id", "DELETE /_sim/worlds/:id"]),
    );
    expect((await fetch(`${server}/_sim/worlds/${world.id}`, { method: "DELETE" })).status).toBe(204);
    expect(await refused(world.port)).toBe(true);
    const again = await fetch(`${server}/_sim/worlds/${world.id}`, { method: "DELETE" });
    expect(again.status).toBe(404);
    expect(await again.json()).toEqual({ error: { status: 404, code: "not_found", message: expect.stringContaining(`no world "${world.id}"`) } });
  });

  it("reads seed, clock and start as serve reads its flags, and a scenario document or name", async () => {
    const manual = await createWorld(server, { clock: "manual", start: "2030-05-01T00:00:00Z", seed: "abc" });
    expect((await control(manual)("GET", "/clock")).json).toEqual({ now: "2030-05-01T00:00:00.000Z", epochMs: Date.UTC(2030, 4, 1), advanceable: true, mode: "manual" });
    const byMs = await createWorld(server, { clock: "manual", start: Date.UTC(2031, 0, 1) });
    expect((await control(byMs)("GET", "/clock")).json.epochMs).toBe(Date.UTC(2031, 0, 1));
    const documented = await createWorld(server, {
      scenario: { secrets: { policies: [{ name: "ssh-user", rules: { "ssh/creds/*": ["update"] } }], tokens: [{ name: "deployer", policies: ["ssh-user"], ttl: "1h" }] } },
    });
    expect(documented).toMatchObject({ scenario: { secrets: { tokens: { deployer: expect.stringMatching(/^s\./) } } }, secrets: { baseUrl: `${documented.url}/v1` } });
    const deployer = (documented as unknown as { scenario: { secrets: { tokens: { deployer: string } } } }).scenario.secrets.tokens.deployer;
    expect((await fetch(`${documented.secrets.baseUrl}/auth/token/lookup-self`, { headers: { "x-vault-token": deployer } })).status).toBe(200);
    expect(documented.secrets.rootToken).toBeUndefined();
    const named = await createWorld(server, { scenario: "default" });
    expect(named.secrets.rootToken).toEqual(expect.any(String));
    for (const world of [manual, byMs, documented, named]) await fetch(`${server}/_sim/worlds/${world.id}`, { method: "DELETE" });
  });

  it("refuses a bad body with the control API's 400 and makes no world", async () => {
    const before = ((await (await fetch(`${server}/_sim/worlds`)).json()) as { worlds: unknown[] }).worlds.length;
    const cases: [unknown, RegExp][] = [
      [{ clock: "sundial" }, /"clock" must be one of advanceable, manual, system, got "sundial"/],
      [{ start: "yesterday", clock: "manual" }, /"start" must be an RFC 3339 time/],
      [{ start: "2024-01-01T00:00:00Z", clock: "system" }, /"start" needs "clock" manual or advanceable/],
      [{ seed: 1.5 }, /"seed" must be a whole number or a string/],
      [{ seeds: 1 }, /unknown field "seeds"/],
      [{ scenario: "nope" }, /"scenario" must be a scenario document .* "server", "default"/],
      [{ scenario: { runs: { organizations: [{ nom: "x" }] } } }, /\/runs\/organizations\/0/],
      [[1], /the body must be a JSON object/],
    ];
    for (const [body, message] of cases) {
      const response = await fetch(`${server}/_sim/worlds`, { method: "POST", headers: JSON_TYPE, body: JSON.stringify(body) });
      const answer = (await response.json()) as { error: { status: number; code: string; message: string } };
      expect({ status: response.status, code: answer.error.code }).toEqual({ status: 400, code: "invalid" });
      expect(answer.error.message).toMatch(message);
    }
    const text = await fetch(`${server}/_sim/worlds`, { method: "POST", headers: { "content-type": "text/plain" }, body: "{}" });
    expect(text.status).toBe(415);
    expect(((await (await fetch(`${server}/_sim/worlds`)).json()) as { worlds: unknown[] }).worlds).toHaveLength(before);
  });

  it("50 worlds driven at once by 50 clients see nothing of each other: state, clock, journal, faults, coverage", { timeout: 60_000 }, async () => {
    const count = 50;
    const t0 = Date.UTC(2024, 0, 1);
    const worlds = await Promise.all(Array.from({ length: count }, () => createWorld(server, { clock: "manual", start: "2024-01-01T00:00:00Z" })));
    expect(new Set(worlds.map((w) => w.port)).size).toBe(count);
    const vault = (world: World, method: string, path: string, body?: unknown) =>
      fetch(`${world.secrets.baseUrl}${path}`, { method, headers: { "x-vault-token": world.secrets.rootToken, ...(body === undefined ? {} : JSON_TYPE) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const reads = (i: number) => (i % 4) + 1;
    await Promise.all(
      worlds.map(async (world, i) => {
        const sim = control(world);
        expect((await vault(world, "POST", `/sys/mounts/kv-${i}`, { type: "ssh" })).status).toBe(204);
        expect((await sim("POST", "/faults", { service: "secrets", route: "GET /sys/health", answer: "sealed", id: `fault-of-${i}` })).status).toBe(201);
        expect((await sim("POST", "/clock/advance", { by: `${i + 1}m` })).status).toBe(200);
        for (let r = 0; r < reads(i); r++) expect((await vault(world, "GET", "/sys/mounts")).status).toBe(200);
      }),
    );
    await Promise.all(
      worlds.map(async (world, i) => {
        const sim = control(world);
        const mounts = (await (await vault(world, "GET", "/sys/mounts")).json()) as { data: Record<string, unknown> };
        expect(Object.keys(mounts.data).filter((path) => path.startsWith("kv-"))).toEqual([`kv-${i}/`]);
        expect((await sim("GET", "/clock")).json.epochMs).toBe(t0 + (i + 1) * 60_000);
        expect((await sim("GET", "/faults")).json.faults.map((f: { id: string }) => f.id)).toEqual([`fault-of-${i}`]);
        const journal = (await sim("GET", "/journal")).json.entries as { url: string; method: string }[];
        expect(journal).toHaveLength(1 + reads(i) + 1);
        expect(journal.every((entry) => entry.url.startsWith(world.url))).toBe(true);
        expect(journal.filter((entry) => entry.url.endsWith(`/sys/mounts/kv-${i}`))).toHaveLength(1);
        const coverage = (await sim("GET", "/coverage")).json as { services: { secrets: { endpoints: { reached: Record<string, number> } } } };
        expect(coverage.services.secrets.endpoints.reached["GET /sys/mounts"]).toBe(reads(i) + 1);
        expect(await (await fetch(`${world.secrets.baseUrl}/sys/health`)).json()).toMatchObject({ sealed: true });
      }),
    );
    // The default world saw none of it.
    const own = (path: string) => fetch(`${server}/_sim${path}`).then((r) => r.json());
    expect((await own("/journal")).entries).toEqual([]);
    expect((await own("/faults")).faults).toEqual([]);
    expect(Object.values((await own("/coverage")).services.secrets.endpoints.reached).every((n) => n === 0)).toBe(true);
    const line = (await start().then(async (s) => {
      await stop(s.run);
      return s.line;
    })) as { secrets: { rootToken: string } };
    const defaultMounts = (await (await fetch(`${server}/v1/sys/mounts`, { headers: { "x-vault-token": line.secrets.rootToken } })).json()) as { data: Record<string, unknown> };
    expect(Object.keys(defaultMounts.data).filter((path) => path.startsWith("kv-"))).toEqual([]);
    await Promise.all(worlds.map((world) => fetch(`${server}/_sim/worlds/${world.id}`, { method: "DELETE" })));
    expect((await Promise.all(worlds.map((world) => refused(world.port)))).every(Boolean)).toBe(true);
  });
});

describe("beyond loopback", () => {
  it("binds each world where the server is bound; /_sim/worlds needs the server's token, a world's /_sim/ its own", async () => {
    const run = launch(["serve", "--port", "0", "--json", "--host", "0.0.0.0", "--seed", "3", "--allowed-host", "dev.internal"]);
    const line = (await run.started()) as { url: string; controlToken: string };
    const server = `http://127.0.0.1:${new URL(line.url).port}`;
    expect((await fetch(`${server}/_sim/worlds`, { method: "POST", headers: JSON_TYPE, body: "{}" })).status).toBe(401);
    const response = await fetch(`${server}/_sim/worlds`, { method: "POST", headers: { ...JSON_TYPE, [TOKEN]: line.controlToken }, body: "{}" });
    expect(response.status).toBe(201);
    const world = (await response.json()) as World;
    expect(world.url).toBe(`${new URL(line.url).protocol}//${new URL(line.url).hostname}:${world.port}`);
    const local = `http://127.0.0.1:${world.port}`;
    expect(world.controlToken).not.toBe(line.controlToken);
    expect(await getStatus(`${local}/_sim/clock`, { [TOKEN]: line.controlToken })).toBe(401);
    expect(await getStatus(`${local}/_sim/clock`, { [TOKEN]: world.controlToken })).toBe(200);
    expect(await getStatus(`${local}/_sim/clock`, { [TOKEN]: world.controlToken, host: "dev.internal" })).toBe(200);
    expect(await getStatus(`${local}/_sim/clock`, { [TOKEN]: world.controlToken, host: "evil.example" })).toBe(403);
    await stop(run);
    expect(await refused(world.port)).toBe(true);
  });
});

describe("serve --max-worlds and --world-idle", () => {
  it("refuses a world beyond the cap with 409 in the control API's shape, and takes one again once one closed", async () => {
    const { run, url } = await start(["--max-worlds", "2"]);
    const first = await createWorld(url);
    await createWorld(url);
    const refusal = await fetch(`${url}/_sim/worlds`, { method: "POST", headers: JSON_TYPE, body: "{}" });
    expect(refusal.status).toBe(409);
    expect(await refusal.json()).toEqual({
      error: { status: 409, code: "conflict", message: expect.stringMatching(/holds 2 worlds, its cap \(serve --max-worlds 2\): close one with DELETE \/_sim\/worlds\/:id/) },
    });
    await fetch(`${url}/_sim/worlds/${first.id}`, { method: "DELETE" });
    expect((await createWorld(url)).id).toBe("world-3");
    await stop(run);
  });

  it("closes a world no request reached for --world-idle (wall time), and keeps one in use", { timeout: 20_000 }, async () => {
    const { run, url } = await start(["--world-idle", "1s"]);
    const idle = await createWorld(url);
    const busy = await createWorld(url);
    const list = async () => ((await (await fetch(`${url}/_sim/worlds`)).json()) as { worlds: { id: string }[]; idleMs: number }).worlds.map((w) => w.id);
    const until = Date.now() + 2500;
    while (Date.now() < until) {
      expect((await fetch(`${busy.secrets.baseUrl}/sys/health`)).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await list()).toEqual([busy.id]);
    expect(await refused(idle.port)).toBe(true);
    expect(((await (await fetch(`${url}/_sim/worlds`)).json()) as { idleMs: number }).idleMs).toBe(1000);
    await stop(run);
  });

  it("refuses bad --world-idle and --max-worlds values", async () => {
    for (const argv of [["--world-idle", "600"], ["--world-idle", "0s"], ["--world-idle", "soon"], ["--max-worlds", "1.5"], ["--max-worlds", "many"]]) {
      const run = launch(["serve", "--port", "0", ...argv]);
      expect(await run.exit).toBe(2);
      expect(run.err.join("")).toMatch(new RegExp(`${argv[0]} must be`));
    }
  });

  it("closes every world when the server stops", async () => {
    const { run, url } = await start();
    const world = await createWorld(url);
    await stop(run);
    expect(await refused(world.port)).toBe(true);
  });
});

describe("leaks", () => {
  it("1,000 create/delete cycles leave the heap and the open handles flat", { timeout: 180_000 }, async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const { run, url } = await start();
    const cycle = async (): Promise<void> => {
      const world = await createWorld(url);
      // node:http without keep-alive: fetch's pool keeps about 24 KB per origin it has seen (a
      // client-side cost of 1,000 origins, measured, not the server's).
      expect(await getStatus(`${world.secrets.baseUrl}/sys/health`)).toBe(200);
      expect((await fetch(`${url}/_sim/worlds/${world.id}`, { method: "DELETE" })).status).toBe(204);
    };
    const settle = async (): Promise<{ heap: number; handles: number }> => {
      for (let i = 0; i < 3; i++) {
        await new Promise((resolve) => setImmediate(resolve));
        gc();
      }
      return { heap: process.memoryUsage().heapUsed, handles: process.getActiveResourcesInfo().filter((kind) => kind !== "Timeout").length };
    };
    for (let i = 0; i < 100; i++) await cycle(); // warm up: code, pools, keep-alive sockets
    const before = await settle();
    for (let i = 0; i < 1000; i++) await cycle();
    const after = await settle();
    // A world holds about 1 MB (bench/worlds.bench.ts): a leak of any world would show as 1 GB.
    expect(after.heap - before.heap).toBeLessThan(8 * 1024 * 1024);
    expect(after.handles).toBeLessThanOrEqual(before.handles + 2);
    expect(((await (await fetch(`${url}/_sim/worlds`)).json()) as { worlds: unknown[] }).worlds).toEqual([]);
    await stop(run);
  });
});
