/**
 * `infra-doubles serve --scenario FILE --clock manual|advanceable|system --start TIME`: the
 * document's fixtures are served beside the default scenario, the start line names what they
 * resolved to, the clock is the one asked for, and an invalid document never binds a port.
 */
import { EventEmitter } from "node:events";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, type CliIo } from "../../src/cli/main.js";
import { createDoubles } from "../../src/scenarios/doubles.js";
import type { ScenarioNames } from "../../src/scenarios/document/load.js";
import { describeNames } from "../../src/scenarios/document/timeline.js";
import { launch } from "./launch.js";

const root = resolve(import.meta.dirname, "../..");
const work = mkdtempSync(join(tmpdir(), "infra-doubles-serve-"));

/** The first YAML block of the yaml guide, as a file. */
function guideDocument(): string {
  const guide = readFileSync(join(root, "docs/guides/script-a-world-in-yaml.md"), "utf8");
  const path = join(work, "guide-world.yaml");
  writeFileSync(path, /```yaml\n([\s\S]*?)```/.exec(guide)?.[1] ?? "");
  return path;
}

async function runOnce(argv: string[]): Promise<string> {
  const out: string[] = [];
  const io: CliIo = { stdout: { write: (text: string) => out.push(text) }, stderr: { write: (text: string) => out.push(text) }, signals: new EventEmitter() as unknown as CliIo["signals"] };
  await runCli(argv, io);
  return out.join("");
}


describe("infra-doubles serve --scenario, --clock, --start", () => {
  it("serves the document's fixtures on a manual clock at --start, and reset goes back to them with the clock at its start", async () => {
    const run = launch(["serve", "--port", "0", "--json", "--clock", "manual", "--start", "2030-05-01T00:00:00Z", "--scenario", join(root, "examples/scenarios/secrets.yaml")]);
    const start = (await run.started()) as { url: string; scenario: { secrets: { tokens: Record<string, string>; rootToken: string } }; secrets: Record<string, unknown> };
    try {
      const deployer = start.scenario.secrets.tokens.deployer ?? "";
      expect(deployer).toMatch(/^s\./);
      const clock = (await (await fetch(`${start.url}/_sim/clock`)).json()) as { now: string; advanceable: boolean };
      expect(clock).toMatchObject({ now: "2030-05-01T00:00:00.000Z", advanceable: true });
      // The manual clock does not move on its own.
      await new Promise((r) => setTimeout(r, 20));
      expect(((await (await fetch(`${start.url}/_sim/clock`)).json()) as { now: string }).now).toBe("2030-05-01T00:00:00.000Z");
      const otp = await fetch(`${start.url}/v1/ssh/creds/otp-role`, { method: "POST", headers: { "x-vault-token": deployer }, body: JSON.stringify({ ip: "10.1.2.3" }) });
      expect(otp.status).toBe(200);
      expect(((await otp.json()) as { data: { username: string } }).data.username).toBe("deploy");
      // The default scenario is not: only the document's world, with the root token among its names.
      expect(start.secrets).toEqual({ baseUrl: `${start.url}/v1` });
      const rootToken = start.scenario.secrets.rootToken;
      expect(rootToken).toMatch(/^s\./);
      // The document's cloud static role and MFA login enforcement, through the API.
      const rootHeaders = { "x-vault-token": rootToken };
      const staticCreds = await fetch(`${start.url}/v1/cloud/static-creds/app`, { headers: rootHeaders });
      expect(((await staticCreds.json()) as { data: { access_key: string } }).data.access_key).toMatch(/^AKIA/);
      const enforcement = await fetch(`${start.url}/v1/identity/mfa/login-enforcement/everyone`, { headers: rootHeaders });
      expect(((await enforcement.json()) as { data: { auth_method_types: string[]; mfa_method_ids: string[] } }).data.mfa_method_ids).toHaveLength(1);
      const json = { "content-type": "application/json" };
      await fetch(`${start.url}/_sim/clock/advance`, { method: "POST", headers: json, body: '{"by":"2h"}' });
      expect((await fetch(`${start.url}/v1/auth/token/lookup-self`, { headers: { "x-vault-token": deployer } })).status).toBe(403);
      const reset = (await (await fetch(`${start.url}/_sim/reset`, { method: "POST", headers: json, body: "{}" })).json()) as { now: string };
      // The clock is back at the document's start, so its one-hour token works again.
      expect(reset.now).toBe("2030-05-01T00:00:00.000Z");
      const again = await fetch(`${start.url}/v1/ssh/creds/otp-role`, { method: "POST", headers: { "x-vault-token": deployer }, body: JSON.stringify({ ip: "10.1.2.3" }) });
      expect(again.status).toBe(200);
      expect((await fetch(`${start.url}/v1/ssh/roles/otp-role`, { headers: rootHeaders })).status).toBe(200);
    } finally {
      run.signals.emit("SIGTERM");
      expect(await run.exit).toBe(0);
    }
  });

  it("serves the yaml guide's example instead of the default scenario, with the ids run and createDoubles give", async () => {
    const path = guideDocument();
    const run = launch(["serve", "--port", "0", "--json", "--clock", "manual", "--seed", "5", "--scenario", path]);
    const start = (await run.started()) as { url: string; runs: Record<string, unknown>; scenario: Record<string, unknown> & { runs: { tokens: Record<string, string> } } };
    try {
      expect(start.runs).toEqual({ baseUrl: `${start.url}/api/v2` });
      const workspace = (start.scenario.runs as unknown as { workspaces: Record<string, string> }).workspaces["acme/prod"] ?? "";
      const alice = { authorization: `Bearer ${start.scenario.runs.tokens["alice-token"] ?? ""}` };
      expect((await fetch(`${start.url}/api/v2/workspaces/${workspace}/runs`, { headers: alice })).status).toBe(200);
      // The default scenario's organization is not there.
      const json = { "content-type": "application/json" };
      const demo = await fetch(`${start.url}/_sim/runs/workspaces`, { method: "POST", headers: json, body: '{"organization":"demo-org","name":"x"}' });
      expect(demo.status).toBe(400);
      const inProcess = createDoubles({ seed: 5, scenario: readFileSync(path, "utf8") });
      expect(start.scenario).toEqual(JSON.parse(JSON.stringify(inProcess.scenario?.names)));
      const played = await runOnce(["run", path, "--seed", "5"]);
      const lines = describeNames(start.scenario as unknown as ScenarioNames);
      expect(lines.length).toBeGreaterThan(5);
      for (const line of lines) expect(played).toContain(`  ${line}\n`);
    } finally {
      run.signals.emit("SIGTERM");
      expect(await run.exit).toBe(0);
    }
  });

  it("loads the document on top of the default scenario with --with-default, and says so when they clash", async () => {
    const onTop = launch(["serve", "--port", "0", "--json", "--with-default", "--scenario", join(root, "examples/scenarios/secrets.yaml")]);
    const start = (await onTop.started()) as unknown as { runs: { organization: string }; scenario: { secrets: { tokens: Record<string, string> } } };
    try {
      expect(start.runs.organization).toBe("demo-org");
      expect(start.scenario.secrets.tokens.deployer).toMatch(/^s\./);
    } finally {
      onTop.signals.emit("SIGTERM");
      expect(await onTop.exit).toBe(0);
    }
    const clash = launch(["serve", "--port", "0", "--with-default", "--scenario", guideDocument()]);
    expect(await clash.exit).toBe(2);
    expect(clash.err.join("")).toContain('/accessControl/policies/0: access-control: cannot create policy: Invalid Policy: A Policy with Name "acl-read" already exists (loaded on top of the default scenario, as --with-default asks: drop it to serve the document alone)');
    const alone = launch(["serve", "--port", "0", "--with-default"]);
    expect(await alone.exit).toBe(2);
    expect(alone.err.join("")).toContain("--with-default needs --scenario FILE");
  });

  it("runs on a system clock that cannot be advanced when asked", async () => {
    const run = launch(["serve", "--port", "0", "--json", "--clock", "system"]);
    const start = await run.started();
    try {
      const clock = (await (await fetch(`${start.url}/_sim/clock`)).json()) as { advanceable: boolean };
      expect(clock.advanceable).toBe(false);
      const moved = await fetch(`${start.url}/_sim/clock/advance`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"by":"1m"}' });
      expect(moved.status).toBe(409);
    } finally {
      run.signals.emit("SIGTERM");
      await run.exit;
    }
  });

  it("exits 2 without binding a port for an invalid document, naming where and what", async () => {
    const path = join(work, "bad.yaml");
    writeFileSync(path, "secrets:\n  nodeState: asleep\n");
    const run = launch(["serve", "--port", "0", "--scenario", path]);
    expect(await run.exit).toBe(2);
    expect(run.err.join("")).toContain("/secrets/nodeState");
  });
});
