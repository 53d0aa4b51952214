/**
 * examples/scenarios/secrets.yaml served by `infra-doubles serve --scenario` and driven with curl,
 * as a user of another language would (docs/guides/drive-the-dev-server-from-any-language.md).
 */
import { execFile } from "node:child_process";
import { EventEmitter } from "node:events";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, type CliIo } from "../../src/cli/main.js";

const run = promisify(execFile);
const root = resolve(import.meta.dirname, "../..");
const signals = new EventEmitter();
let exit: Promise<number>;
let url = "";
let start: { scenario: { secrets: { tokens: Record<string, string> } } };

/** curl with the given arguments; resolves with the HTTP status and the body. */
async function curl(...args: string[]): Promise<{ status: number; body: string }> {
  const { stdout } = await run("curl", ["-sS", "-w", "\n%{http_code}", ...args]);
  const at = stdout.lastIndexOf("\n");
  return { status: Number(stdout.slice(at + 1)), body: stdout.slice(0, at) };
}

beforeAll(async () => {
  const out: string[] = [];
  const io: CliIo = { stdout: { write: (t: string) => out.push(t) }, stderr: { write: () => undefined }, signals: signals as unknown as CliIo["signals"] };
  exit = runCli(["serve", "--port", "0", "--json", "--clock", "manual", "--scenario", resolve(root, "examples/scenarios/secrets.yaml")], io);
  for (let i = 0; i < 1000 && out.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  start = JSON.parse(out.join("")) as typeof start & { url: string };
  url = (start as unknown as { url: string }).url;
});

afterAll(async () => {
  signals.emit("SIGTERM");
  await exit;
});

describe("the secrets example scenario, served and driven with curl", () => {
  it("serves the document's token, role and clock", async () => {
    const deployer = start.scenario.secrets.tokens.deployer ?? "";
    expect(JSON.parse((await curl(`${url}/_sim/clock`)).body)).toMatchObject({ now: "2024-01-01T00:00:00.000Z" });
    const otp = await curl("-H", `X-Vault-Token: ${deployer}`, "-d", '{"ip":"10.0.0.7"}', `${url}/v1/ssh/creds/otp-role`);
    expect(otp.status).toBe(200);
    expect(JSON.parse(otp.body)).toMatchObject({ data: { username: "deploy", ip: "10.0.0.7" } });
  });

  it("makes a secrets policy and token over /_sim/, moves the clock past the token's ttl, and loads more YAML", async () => {
    const json = ["-H", "Content-Type: application/json"];
    expect((await curl(...json, "-d", '{"name":"lister","rules":{"ssh/roles":["list"]}}', `${url}/_sim/secrets/policies`)).status).toBe(201);
    const made = await curl(...json, "-d", '{"policies":["lister"],"ttl":"10m"}', `${url}/_sim/secrets/tokens`);
    expect(made.status).toBe(201);
    const token = (JSON.parse(made.body) as { token: string }).token;
    expect((await curl("-H", `X-Vault-Token: ${token}`, "-X", "LIST", `${url}/v1/ssh/roles`)).status).toBe(200);
    expect((await curl(...json, "-d", '{"by":"11m"}', `${url}/_sim/clock/advance`)).status).toBe(200);
    expect((await curl("-H", `X-Vault-Token: ${token}`, "-X", "LIST", `${url}/v1/ssh/roles`)).status).toBe(403);
    const yaml = await curl("-H", "Content-Type: application/yaml", "--data-binary", "secrets:\n  nodeState: standby\n", `${url}/_sim/scenario`);
    expect(yaml.status).toBe(201);
    expect((await curl(`${url}/v1/sys/health`)).status).toBe(429);
    const listing = JSON.parse((await curl(`${url}/_sim/`)).body) as { routes: { route: string }[] };
    expect(listing.routes.map((r) => r.route)).toContain("POST /_sim/secrets/tokens");
    expect((await curl("-X", "POST", ...json, `${url}/_sim/reset`)).status).toBe(200);
    expect((await curl(`${url}/v1/sys/health`)).status).toBe(200);
  });
});
