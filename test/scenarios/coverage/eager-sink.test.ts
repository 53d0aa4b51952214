/**
 * The coverage sink's eager mode (INFRA_DOUBLES_COVERAGE_EAGER=1, set by `infra-doubles mutate`
 * for its faithful run): a process killed without running its exit handlers (a test runner's
 * worker at the end of a run) has still written the coverage of the doubles it never closed.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const dist = new URL("../../../dist/index.cjs", import.meta.url).pathname;
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Runs a process that uses doubles without closing them, then kills itself with SIGKILL. */
function killedProcess(env: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "eager-coverage-"));
  dirs.push(dir);
  const script = `
    const { createDoubles } = require(${JSON.stringify(dist)});
    const doubles = createDoubles();
    doubles.intercept({ transport: "interceptors" });
    const org = doubles.runs.addOrganization("acme");
    doubles.runs.addWorkspace(org, { name: "prod" });
    fetch(doubles.baseUrls().runs.api + "/ping").then(() => setTimeout(() => process.kill(process.pid, "SIGKILL"), 50));
  `;
  const result = spawnSync(process.execPath, ["-e", script], { env: { ...process.env, INFRA_DOUBLES_COVERAGE_DIR: dir, ...env }, encoding: "utf8", timeout: 30_000 });
  expect(result.signal).toBe("SIGKILL");
  return dir;
}

describe("the coverage sink's eager mode", () => {
  it("writes what a killed process's unclosed doubles reached", () => {
    const dir = killedProcess({ INFRA_DOUBLES_COVERAGE_EAGER: "1" });
    const files = readdirSync(dir);
    expect(files).toHaveLength(1);
    const report = JSON.parse(readFileSync(join(dir, files[0] ?? ""), "utf8")) as { services: { runs: { endpoints: { reached: Record<string, number> } } } };
    expect(report.services.runs.endpoints.reached["GET /ping"]).toBe(1);
  });

  it("without it, a killed process leaves nothing (what the eager mode is for)", () => {
    const dir = killedProcess({});
    expect(readdirSync(dir)).toEqual([]);
  });
});
