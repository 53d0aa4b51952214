/**
 * `infra-doubles mutate -- npx vitest run`: a real vitest run of a tiny project with real doubles
 * (test/fixtures/mutate/vitest-project); the faithful run's coverage names each row's test file
 * (relative to the project's root) and each mutant's run gets only the files that reached it.
 * One test, about 30 s on a loaded 2-core machine (three vitest starts).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { expect, it } from "vitest";
import { parseMutateCommand, type MutateCommand } from "../../src/cli/mutate-args.js";
import { runMutate } from "../../src/cli/mutate.js";
import type { MutateReport } from "../../src/cli/mutate-report.js";
import type { Mutant } from "../../src/scenarios/mutants/types.js";

const root = resolve(import.meta.dirname, "../..");

function mutant(detail: string, reaches: Mutant["reaches"]): Mutant {
  return { id: `runs:status-swapped:${detail}`, service: "runs", operator: "status-swapped", description: detail, reaches, change: {} as Mutant["change"] };
}

it("runs each mutant with only the vitest files that reached it", { timeout: 180_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "mutate-vitest-"));
  try {
    const runsMutant = mutant("test-only-runs", [{ kind: "endpoint", service: "runs", label: "GET /runs/:run_id" }]);
    const healthMutant = mutant("test-only-health", [{ kind: "endpoint", service: "secrets", label: "GET /sys/health" }]);
    const unreached = mutant("test-only-unreached", [{ kind: "endpoint", service: "runs", label: "POST /runs" }]);
    const log = join(dir, "log");
    const env: NodeJS.ProcessEnv = { ...process.env, MUTATE_LOG: log, MUTATE_KILLS: runsMutant.id, FORCE_COLOR: "0", NO_COLOR: "1" };
    for (const name of ["VITEST", "VITEST_WORKER_ID", "VITEST_POOL_ID", "INFRA_DOUBLES_COVERAGE_DIR", "INFRA_DOUBLES_MUTANT"]) delete env[name];
    const err: string[] = [];
    const command = parseMutateCommand(["--jobs", "2", "--state", join(dir, "s.jsonl"), "--json", join(dir, "r.json"), "--", "npx", "vitest", "run", "--config", "test/fixtures/mutate/vitest-project/vitest.config.ts"]) as MutateCommand;
    const result = await runMutate(command, { stdout: { write: () => true }, stderr: { write: (t: string) => err.push(t) } }, { mutants: [runsMutant, healthMutant, unreached], env, cwd: root });
    expect(result.exitCode, err.join("")).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, "r.json"), "utf8")) as MutateReport;
    expect(report.mutants.map((m) => [m.id, m.outcome, m.files])).toEqual([
      [runsMutant.id, "killed", ["runs.fixture.ts"]],
      [healthMutant.id, "survived", ["secrets.fixture.ts"]],
      [unreached.id, "not-reached", []],
    ]);
    const lines = readFileSync(log, "utf8").split("\n").filter(Boolean).sort();
    expect(lines).toEqual(["runs -", `runs ${runsMutant.id}`, "secrets -", `secrets ${healthMutant.id}`].sort());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
