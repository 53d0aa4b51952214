/**
 * `serve --state FILE` (issue 26 item 2): the built binary, killed with SIGTERM while runs are in
 * flight, a lease and an expiring ACL token live, writes the world; started again on the file it
 * answers the same run statuses, lease and token at the same simulated time, and serves the file's
 * bytes; `POST /_sim/state/save` writes it atomically; a hand-broken file is refused with its
 * pointer before any port is bound.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- documents edited by hand, of any shape */
import { execSync, spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configurationArchive } from "../../src/scenarios/runs/archive.js";
import { launch } from "./launch.js";

const root = resolve(import.meta.dirname, "../..");
const cli = resolve(root, "dist/cli.cjs");
const json = { "content-type": "application/json" };
let dir: string;

beforeAll(() => {
  // `npm test` builds before vitest runs; a lone `vitest run` builds here instead of skipping.
  if (!existsSync(cli)) execSync("npx tsup", { cwd: root, stdio: "ignore" });
  dir = mkdtempSync(join(tmpdir(), "infra-doubles-serve-state-"));
}, 180_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Served {
  readonly child: ChildProcessWithoutNullStreams;
  readonly start: Promise<Record<string, any> & { url: string }>;
  readonly exit: Promise<{ code: number | null; stderr: string }>;
}

function serve(args: string[]): Served {
  const child = spawn(process.execPath, [cli, "serve", "--port", "0", "--json", "--clock", "manual", ...args], { cwd: root });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const start = new Promise<Record<string, any> & { url: string }>((resolveLine, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const newline = stdout.indexOf("\n");
      if (newline !== -1) resolveLine(JSON.parse(stdout.slice(0, newline)) as Record<string, any> & { url: string });
    });
    child.on("exit", () => reject(new Error(`the CLI exited before printing a line; stderr: ${stderr}`)));
  });
  const exit = new Promise<{ code: number | null; stderr: string }>((done) => child.on("close", (code) => done({ code, stderr })));
  return { child, start, exit };
}

const post = (url: string, body: unknown): Promise<Response> => fetch(url, { method: "POST", headers: json, body: JSON.stringify(body) });

describe("serve --state FILE", () => {
  it("killed with SIGTERM mid-run and started again answers the same runs, lease and token at the same simulated time", async () => {
    const file = join(dir, "world.json");
    const first = serve(["--state", file]);
    const started = await first.start;
    const { url } = started;
    const loaded = await post(`${url}/_sim/scenario`, {
      runs: { organizations: [{ name: "acme" }], workspaces: [{ name: "prod", organization: "acme" }], users: [{ username: "alice", permissions: { prod: "admin" } }], tokens: [{ name: "t", user: "alice" }] },
    });
    expect(loaded.status).toBe(201);
    const names = ((await loaded.json()) as { names: { runs: { workspaces: Record<string, string>; tokens: Record<string, string> } } }).names.runs;
    const workspace = names.workspaces["acme/prod"] ?? "";
    const runsAuth = { ...json, authorization: `Bearer ${names.tokens.t ?? ""}` };
    // Two runs, queued as a client would: a configuration version, then runs on it.
    const version = await fetch(`${url}/api/v2/workspaces/${workspace}/configuration-versions`, { method: "POST", headers: { ...runsAuth, "content-type": "application/vnd.api+json" }, body: JSON.stringify({ data: { type: "configuration-versions", attributes: { "auto-queue-runs": false } } }) });
    expect(version.status).toBe(201);
    const versionBody = (await version.json()) as { data: { id: string; attributes: { "upload-url": string } } };
    const upload = await fetch(versionBody.data.attributes["upload-url"], { method: "PUT", headers: { "content-type": "application/octet-stream" }, body: configurationArchive() });
    expect(upload.status).toBe(200);
    const runIds: string[] = [];
    for (let i = 0; i < 2; i++) {
      const run = await fetch(`${url}/api/v2/runs`, {
        method: "POST",
        headers: { ...runsAuth, "content-type": "application/vnd.api+json" },
        body: JSON.stringify({ data: { type: "runs", attributes: { message: `run ${i}` }, relationships: { workspace: { data: { type: "workspaces", id: workspace } }, "configuration-version": { data: { type: "configuration-versions", id: versionBody.data.id } } } } }),
      });
      expect(run.status).toBe(201);
      runIds.push(((await run.json()) as { data: { id: string } }).data.id);
    }
    const rootToken = started.secrets.rootToken as string;
    const creds = await fetch(`${url}/v1/ssh/creds/otp-role`, { method: "POST", headers: { ...json, "x-secrets-token": rootToken }, body: JSON.stringify({ ip: "10.0.0.5", username: "web" }) });
    const leaseId = ((await creds.json()) as { lease_id: string }).lease_id;
    const bootstrap = started.accessControl.bootstrapSecretId as string;
    const token = await fetch(`${url}/v1/acl/token`, { method: "PUT", headers: { ...json, "x-consul-token": bootstrap }, body: JSON.stringify({ Description: "short", ExpirationTTL: "1h" }) });
    const accessor = ((await token.json()) as { AccessorID: string }).AccessorID;
    for (let i = 0; i < 120; i++) {
      const status = await runStatus(url, runIds[0] ?? "", runsAuth);
      if (status === "planning") break;
      await post(`${url}/_sim/clock/advance`, { by: "1s" });
    }

    const observe = async (origin: string): Promise<unknown> => {
      const statuses = await Promise.all(runIds.map((id) => runStatus(origin, id, runsAuth)));
      const lease = await fetch(`${origin}/v1/sys/leases/lookup`, { method: "PUT", headers: { ...json, "x-secrets-token": rootToken }, body: JSON.stringify({ lease_id: leaseId }) });
      const acl = await fetch(`${origin}/v1/acl/token/${accessor}`, { headers: { "x-consul-token": bootstrap } });
      const clock = ((await (await fetch(`${origin}/_sim/clock`)).json()) as { epochMs: number }).epochMs;
      // Error answers are text on both services (`Requested lease not found`, `ACL not found`).
      const leaseText = await lease.text();
      // Each answer's request_id is a fresh id: compare the lease itself.
      return { statuses, lease: [lease.status, lease.status === 200 ? (JSON.parse(leaseText) as { data: unknown }).data : leaseText], acl: [acl.status, await acl.text()], clock };
    };
    const before = await observe(url);
    expect((before as { statuses: string[] }).statuses).toContain("planning");
    expect((before as { lease: [number] }).lease[0]).toBe(200);
    expect((before as { acl: [number] }).acl[0]).toBe(200);

    first.child.kill("SIGTERM");
    expect((await first.exit).code).toBe(0);
    const saved = readFileSync(file, "utf8");
    expect(readdirSync(dir).filter((name) => name.endsWith(".tmp"))).toEqual([]);

    const second = serve(["--state", file]);
    const again = (await second.start).url;
    // Before any request (a request draws ids, counts writes): the file's bytes.
    expect(await (await fetch(`${again}/_sim/state`)).text()).toBe(saved);
    expect(await observe(again)).toEqual(before);

    // The world goes on from there: the plans finish, the lease and the token expire.
    await post(`${again}/_sim/clock/advance`, { by: "2h" });
    const later = (await observe(again)) as { statuses: string[]; lease: [number]; acl: [number] };
    expect(later.statuses).not.toContain("planning");
    expect([later.lease[0], later.acl[0]]).not.toEqual([200, 200]);
    const save = await post(`${again}/_sim/state/save`, {});
    expect(save.status).toBe(200);
    expect(await save.json()).toMatchObject({ saved: file });
    expect(readFileSync(file, "utf8")).toBe(await (await fetch(`${again}/_sim/state`)).text());
    second.child.kill("SIGTERM");
    expect((await second.exit).code).toBe(0);
  }, 120_000);

  it("refuses a hand-broken file with its pointer before binding a port (exit 2), and leaves the file as it was", async () => {
    const file = join(dir, "broken.json");
    const first = serve(["--state", file]);
    await first.start;
    first.child.kill("SIGTERM");
    expect(await first.exit).toMatchObject({ code: 0, stderr: "" });
    const doc = JSON.parse(readFileSync(file, "utf8")) as { services: { accessControl: { tokens: Record<string, { createTime: number }> } }; clock: { epochMs: number } };
    const [accessor, record] = Object.entries(doc.services.accessControl.tokens)[0] ?? ["", { createTime: 0 }];
    record.createTime = doc.clock.epochMs + 60_000;
    const broken = `${JSON.stringify(doc, null, 2)}\n`;
    writeFileSync(file, broken);
    const run = launch(["serve", "--port", "0", "--json", "--state", file]);
    expect(await run.exit).toBe(2);
    expect(run.out).toEqual([]);
    expect(run.err.join("")).toContain(`${file}: /services/accessControl/tokens/${accessor}/createTime: `);
    expect(run.err.join("")).toContain("after the document's clock");
    expect(readFileSync(file, "utf8")).toBe(broken);
  }, 60_000);

  it("answers 409 to POST /_sim/state/save without --state", async () => {
    const run = launch(["serve", "--port", "0", "--json"]);
    const { url } = await run.started();
    const response = await post(`${url}/_sim/state/save`, {});
    expect(response.status).toBe(409);
    expect(await response.json()).toMatchObject({ error: { status: 409, code: "conflict" } });
    run.signals.emit("SIGTERM");
    expect(await run.exit).toBe(0);
  });
});

async function runStatus(origin: string, id: string, headers: Record<string, string>): Promise<string> {
  const response = await fetch(`${origin}/api/v2/runs/${id}`, { headers });
  return ((await response.json()) as { data: { attributes: { status: string } } }).data.attributes.status;
}
