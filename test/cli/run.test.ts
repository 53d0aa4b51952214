/**
 * `infra-doubles run FILE [--seed N]`: plays a scenario document's timeline and prints a
 * deterministic transcript; exit 0 (every expect passed), 1 (one failed: step and actual value
 * printed), 2 (invalid document). The examples in examples/scenarios/ are played here, so CI
 * checks them.
 */
import { execFileSync, execSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runToEnd } from "./launch.js";

const root = resolve(import.meta.dirname, "../..");
const cli = resolve(root, "dist/cli.cjs");
const examples = readdirSync(join(root, "examples/scenarios")).filter((name) => /\.(ya?ml|json)$/.test(name));
const work = mkdtempSync(join(tmpdir(), "infra-doubles-run-"));

const run = runToEnd;

function file(name: string, text: string): string {
  const path = join(work, name);
  writeFileSync(path, text);
  return path;
}

describe("infra-doubles run, in process", () => {
  it("has one example scenario per service", () => {
    expect(examples.sort()).toEqual(["access-control.yaml", "runs.yaml", "secrets.yaml"]);
  });

  for (const example of examples) {
    it(`plays examples/scenarios/${example}: every expectation passes, and a second run prints the same bytes`, async () => {
      const path = `examples/scenarios/${example}`;
      const first = await run(["run", join(root, path)]);
      expect(first.stderr).toBe("");
      expect(first.stdout).toMatch(/\d+ expectations? passed, 0 failed\n$/);
      expect(first.code).toBe(0);
      const second = await run(["run", join(root, path)]);
      expect(second.stdout).toBe(first.stdout);
    });
  }

  it("plays the yaml guide's example exactly as the guide prints it: exit 0, the guide's transcript", async () => {
    const guide = readFileSync(join(root, "docs/guides/script-a-world-in-yaml.md"), "utf8");
    const document = /```yaml\n([\s\S]*?)```/.exec(guide)?.[1] ?? "";
    const printed = /```text\n(infra-doubles run world\.yaml[\s\S]*?)```/.exec(guide)?.[1] ?? "";
    expect(document).toContain("expire: { accessControl: ci }");
    const path = join(mkdtempSync(join(tmpdir(), "infra-doubles-guide-")), "world.yaml");
    writeFileSync(path, document);
    const result = await run(["run", path, "--seed", "1"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout.replace(path, "world.yaml")).toBe(printed);
  });

  it("gives other ids with another seed, the same with the same seed", async () => {
    const path = join(root, "examples/scenarios/runs.yaml");
    const seven = await run(["run", path, "--seed", "7"]);
    expect(seven.stdout).toContain("(seed 7)");
    expect((await run(["run", path, "--seed", "7"])).stdout).toBe(seven.stdout);
    expect(seven.stdout.replace("(seed 7)", "(seed 1)")).not.toBe((await run(["run", path])).stdout);
  });

  it("starts the clock at --start", async () => {
    const path = file("start.yaml", "timeline:\n  - at: 1h\n    expect: { path: clock.now, equals: '2030-05-01T01:00:00.000Z' }\n");
    const result = await run(["run", path, "--start", "2030-05-01T00:00:00Z"]);
    expect(result.stdout).toContain("loaded at 2030-05-01T00:00:00.000Z");
    expect(result.code).toBe(0);
  });

  it("exits 1 when an expect step fails, printing the step and the actual value", async () => {
    const path = file("fails.yaml", "timeline:\n  - nodeState: standby\n  - expect: { path: secrets.nodeState, equals: sealed }\n");
    const result = await run(["run", path]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('step 2 [+0s 2024-01-01T00:00:00.000Z] expect secrets.nodeState equals "sealed": FAILED, actual "standby"\n');
    expect(result.stdout).toMatch(/0 expectations passed, 1 failed\n$/);
  });

  it("exits 2 for a document that does not fit the schema, naming where and what was expected", async () => {
    const path = file("invalid.json", JSON.stringify({ runs: { workspaces: [{ name: "prod", organization: 42 }] } }));
    const result = await run(["run", path]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`infra-doubles: ${path}:1:39: /runs/workspaces/0/organization: must be string (got 42)\n`);
  });

  it("exits 2 for a timeline step naming an unknown workspace, after the steps played", async () => {
    const path = file("unknown.yaml", "timeline:\n  - nodeState: standby\n  - nextRun: { workspace: nowhere, plan: errors }\n");
    const result = await run(["run", path]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('/timeline/1/nextRun/workspace: no workspace "nowhere"');
  });

  it("exits 2 for a file it cannot read or parse, and for bad arguments", async () => {
    expect((await run(["run", join(work, "missing.yaml")])).code).toBe(2);
    const broken = await run(["run", file("broken.yaml", "runs: [\n")]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/broken\.yaml:2:\d+: \(document\): valid YAML: /);
    expect((await run(["run"])).stderr).toContain("run needs a scenario document");
    expect((await run(["run", "x.yaml", "--port", "1"])).stderr).toContain("--port is an option of serve, not run");
    expect((await run(["run", "x.yaml", "--start", "yesterday"])).stderr).toContain("--start must be an RFC 3339 time");
  });
});

describe("infra-doubles run, the built binary", () => {
  beforeAll(() => {
    // `npm test` builds before vitest runs; a lone `vitest run` builds here instead of skipping.
    if (!existsSync(cli)) execSync("npx tsup", { cwd: root, stdio: "ignore" });
  }, 300_000);

  it("prints the same bytes twice for the same file and seed, and exits 0", () => {
    const args = [cli, "run", "examples/scenarios/secrets.yaml", "--seed", "3"];
    const first = execFileSync(process.execPath, args, { cwd: root });
    const second = execFileSync(process.execPath, args, { cwd: root });
    expect(Buffer.compare(first, second)).toBe(0);
    expect(first.toString()).toMatch(/expectations passed, 0 failed\n$/);
  });

  it("exits 1 on a failed expectation and 2 on an invalid document", () => {
    const failing = spawnSync(process.execPath, [cli, "run", file("bin-fails.yaml", "timeline:\n  - expect: { path: secrets.nodeState, equals: sealed }\n")]);
    expect(failing.status).toBe(1);
    const invalid = spawnSync(process.execPath, [cli, "run", file("bin-invalid.yaml", "timeline: 3\n")]);
    expect(invalid.status).toBe(2);
    expect(invalid.stderr.toString()).toContain("/timeline: must be array (got 3)");
  });
});
