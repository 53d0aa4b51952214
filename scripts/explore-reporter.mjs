// Vitest reporter of `npm run explore` (scripts/explore.mjs): appends one JSON line per failed test
// to $EXPLORE_FINDINGS (seed, fast-check's path and counterexample, the test, what failed, and the
// command that replays it). Loaded with `--reporter=default --reporter=./scripts/explore-reporter.mjs`.
import { appendFileSync } from "node:fs";
import { relative } from "node:path";

/** fast-check's report: `{ seed: S, path: "P", endOnFailure: true }\nCounterexample: C\n`. */
const REPORT = /\{ seed: (-?\d+), path: "([^"]*)"[^}]*\}\r?\nCounterexample: (.*)\r?\n/;

/** The first line of an error message, and of each cause under it. */
function describe(error) {
  const lines = [];
  for (let e = error; e && lines.length < 5; e = e.cause) lines.push(`${e.name ?? "Error"}: ${String(e.message ?? "").split("\n")[0]}`);
  return lines;
}

/** Single-quotes a string for a POSIX shell. */
function quote(text) {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

export default class ExploreReporter {
  constructor() {
    this.out = process.env.EXPLORE_FINDINGS;
    this.seed = Number(process.env.FC_SEED);
    this.factor = Number(process.env.FC_NUM_RUNS_FACTOR ?? "1");
    this.root = process.cwd();
    this.count = 0;
  }

  write(finding) {
    this.count++;
    if (this.out) appendFileSync(this.out, `${JSON.stringify(finding)}\n`);
  }

  onTestCaseResult(testCase) {
    const result = testCase.result();
    if (result.state !== "failed") return;
    const file = relative(this.root, testCase.module.moduleId);
    for (const error of result.errors ?? []) {
      const match = REPORT.exec(String(error.message ?? ""));
      const seed = match ? Number(match[1]) : this.seed;
      this.write({
        at: new Date().toISOString(),
        file,
        test: testCase.fullName,
        seed,
        path: match ? match[2] : null,
        counterexample: match ? match[3] : null,
        numRunsFactor: this.factor,
        error: describe(error),
        replay: `FC_SEED=${seed} FC_NUM_RUNS_FACTOR=${this.factor} npx vitest run ${file} -t ${quote(testCase.name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))}`,
      });
    }
  }

  onTestRunEnd(_modules, unhandledErrors) {
    for (const error of unhandledErrors ?? []) {
      this.write({ at: new Date().toISOString(), file: null, test: null, seed: this.seed, path: null, counterexample: null, numRunsFactor: this.factor, error: describe(error), replay: null });
    }
  }
}
