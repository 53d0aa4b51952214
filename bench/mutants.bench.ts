/**
 * `infra-doubles mutate` (issue 27 item 1; `npm run bench -- mutants`, see bench/README.md): a
 * mutation run of examples/deploy, every mutant of the run orchestration service, 2 jobs; the
 * figure is the mutants the suite reached per minute of the whole run's wall time (its faithful
 * run included). Mutants no test reached are not run and cost nothing, so they are left out of the
 * figure (the label says how many were reached; the target counts 100 or more).
 * Target: >= 100 mutants within 10 minutes on a 2-core machine, so >= 10 a minute. Anchor: one
 * faithful run of the same suite (`npx vitest run examples/deploy/deploy-client.test.ts`, its runs
 * per minute), measured in the same process: the ratio is how many mutants the run gets through in
 * the time one faithful run takes. Wall time (child processes), one round, no warm-up: a round is
 * minutes, and nothing in this process warms up.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { builtDist } from "./fixtures.js";
import { row } from "./table.js";

/** The repository (npm run bench runs each row with it as the working directory). */
const root = process.cwd();
const suite = ["npx", "vitest", "run", "examples/deploy/deploy-client.test.ts"];
/** The least number of mutants for the target. */
const LEAST = 100;


interface Report {
  readonly summary: { readonly mutants: number; readonly killed: number; readonly timedOut: number; readonly survived: number; readonly notReached: number };
}

row({
  name: "mutate examples/deploy, every runs mutant, 2 jobs (mutants reached per minute)",
  kind: "value",
  unit: "/min",
  target: ">= 10/min",
  rounds: 1,
  warmup: false,
  setup: () => {
    builtDist(root, ["dist/cli.cjs"]);
    const work = mkdtempSync(join(tmpdir(), "infra-doubles-mutate-bench-"));
    let reached: Report["summary"] | undefined;
    return {
      figure: {
        get label() {
          const s = reached;
          return s === undefined
            ? "mutate --only runs --jobs 2"
            : `mutate --only runs --jobs 2: ${s.mutants - s.notReached} reached of ${s.mutants} (${s.killed} killed, ${s.survived} survived, ${s.timedOut} timed out)`;
        },
        value: () => {
          const json = join(work, "report.json");
          const args = ["mutate", "--only", "runs", "--jobs", "2", "--fresh", "--state", join(work, "state.jsonl"), "--json", json, "--", ...suite];
          const started = performance.now();
          const result = spawnSync(process.execPath, [join(root, "dist/cli.cjs"), ...args], { cwd: root, stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
          const minutes = (performance.now() - started) / 60_000;
          if (result.status !== 0) throw new Error(`bench: mutate exited ${result.status ?? result.signal}: ${result.stderr}`);
          const summary = (JSON.parse(readFileSync(json, "utf8")) as Report).summary;
          reached = summary;
          const count = summary.mutants - summary.notReached;
          if (count < LEAST) throw new Error(`bench: the suite reached ${count} runs mutants, fewer than the ${LEAST} the target counts`);
          return count / minutes;
        },
      },
      anchor: {
        label: "one faithful run of the suite (runs per minute)",
        value: () => {
          const started = performance.now();
          const [command, ...rest] = suite as [string, ...string[]];
          const result = spawnSync(command, rest, { cwd: root, stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
          if (result.status !== 0) throw new Error(`bench: the faithful run failed: ${result.stderr}`);
          return 1 / ((performance.now() - started) / 60_000);
        },
      },
      teardown: () => rmSync(work, { recursive: true, force: true }),
    };
  },
});
