/**
 * `infra-doubles mutate`: the faithful run, the classification of each mutant (killed, survived,
 * timed out, not reached), the coverage-guided choice of test files, the state file (resume),
 * the threshold, the reports (byte-identical JSON whatever --jobs, escaped HTML), with injected
 * mutants and small real test commands (test/fixtures/mutate/).
 */
import { execFileSync } from "node:child_process";
import { EventEmitter } from "node:events";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseMutateCommand, type MutateCommand } from "../../src/cli/mutate-args.js";
import { commandWithFiles, fileArgumentsOf } from "../../src/cli/mutate-process.js";
import { runMutate, selectMutants, type MutateIo } from "../../src/cli/mutate.js";
import type { MutateReport } from "../../src/cli/mutate-report.js";
import { ALL_PLUGINS } from "../../src/scenarios/doubles.js";
import { mutantsOf } from "../../src/scenarios/mutants/catalogue.js";
import type { Mutant, MutantOperator } from "../../src/scenarios/mutants/types.js";

const root = resolve(import.meta.dirname, "../..");
const fixtures = join(root, "test/fixtures/mutate");
const suite = join(fixtures, "suite.mjs");

const dirs: string[] = [];
function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), "mutate-test-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A mutant of the runs service reaching `endpoint` (or a run transition when `transition` is given). */
function mutant(detail: string, options: { endpoint?: string; transition?: string; operator?: MutantOperator; service?: string; description?: string } = {}): Mutant {
  const service = options.service ?? "runs";
  return {
    id: `${service}:${options.operator ?? "status-swapped"}:${detail}`,
    service,
    operator: options.operator ?? "status-swapped",
    description: options.description ?? `\`${options.endpoint ?? "GET /runs/:run_id"}\` answers 404 (${detail})`,
    reaches:
      options.transition !== undefined
        ? [{ kind: "transition", service, machine: "run", label: options.transition }]
        : [{ kind: "endpoint", service, label: options.endpoint ?? "GET /runs/:run_id" }],
    change: { layer: "wire", mutation: { kind: "refusal", service, route: "GET /runs/:run_id", status: 404 } } as unknown as Mutant["change"],
  };
}

/** An in-process run of `mutate ARGS` with these mutants and environment additions. */
async function mutate(args: string[], mutants: readonly Mutant[], env: Record<string, string> = {}, signals?: EventEmitter) {
  const out: string[] = [];
  const err: string[] = [];
  const parsed = parseMutateCommand(args);
  if (parsed.command !== "mutate") throw new Error(parsed.problem);
  const io: MutateIo = {
    stdout: { write: (text: string) => out.push(text) },
    stderr: {
      write: (text: string) => {
        err.push(text);
        signals?.emit("line", text);
      },
    },
    ...(signals === undefined ? {} : { signals: signals as unknown as NonNullable<MutateIo["signals"]> }),
  };
  const baseEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const name of ["INFRA_DOUBLES_COVERAGE_DIR", "INFRA_DOUBLES_MUTANT", "VITEST", "VITEST_WORKER_ID", "VITEST_POOL_ID", "NODE_TEST_CONTEXT"]) if (!(name in env)) delete baseEnv[name];
  const result = await runMutate(parsed as MutateCommand, io, { mutants, env: baseEnv, cwd: root, graceMs: 300 });
  return { ...result, stdout: out.join(""), stderr: err.join("") };
}

const reachedRuns = JSON.stringify({ runs: { endpoints: ["GET /runs/:run_id", "POST /runs"], transitions: { run: ["planned -> confirmed"] } } });

/** Whether `pid` runs (a zombie waiting for a reaper that never comes, in a container, counts as gone). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return true;
  }
}

describe("infra-doubles mutate", () => {
  it("runs every mutant with the whole command when no doubles reported coverage (a server started outside the command)", { timeout: 30_000 }, async () => {
    const dir = temp();
    const killed = mutant("killed");
    const survived = mutant("survived", { endpoint: "POST /runs" });
    // A command whose doubles live elsewhere: it writes no coverage file, and fails on one mutant.
    const script = `process.exit(process.env.INFRA_DOUBLES_MUTANT === ${JSON.stringify(killed.id)} ? 1 : 0)`;
    const run = await mutate(["--jobs", "2", "--state", join(dir, "state.jsonl"), "--json", join(dir, "report.json"), "--", process.execPath, "-e", script], [killed, survived]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/no doubles reported coverage .*every mutant runs the whole command/);
    const report = JSON.parse(readFileSync(join(dir, "report.json"), "utf8")) as MutateReport;
    expect(report.mutants.map((m) => [m.id, m.outcome, m.ran])).toEqual([
      [killed.id, "killed", "all"],
      [survived.id, "survived", "all"],
    ]);
  });

  it("classifies each mutant: killed, survived, timed out (its process group stopped, no orphan left), not reached (not run)", { timeout: 30_000 }, async () => {
    const dir = temp();
    const killed = mutant("killed");
    const survived = mutant("survived", { endpoint: "POST /runs", description: "`POST /runs` answers 409 while the workspace is locked" });
    const hangs = mutant("hangs", { transition: "planned -> confirmed", operator: "transition-removed" });
    const unreached = mutant("unreached", { endpoint: "DELETE /runs/:run_id" });
    const log = join(dir, "log");
    const pids = join(dir, "pids");
    const run = await mutate(["--jobs", "2", "--timeout", "1500ms", "--state", join(dir, "state.jsonl"), "--json", join(dir, "report.json"), "--", process.execPath, suite], [killed, survived, hangs, unreached], {
      MUTATE_REACHED: reachedRuns,
      MUTATE_KILLS: killed.id,
      MUTATE_HANGS: hangs.id,
      MUTATE_LOG: log,
      MUTATE_PIDS: pids,
    });
    expect(run.exitCode, run.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, "report.json"), "utf8")) as MutateReport;
    expect(report.mutants.map((m) => [m.id, m.outcome, m.ran])).toEqual([
      [killed.id, "killed", "all"],
      [survived.id, "survived", "all"],
      [hangs.id, "timed-out", "all"],
      [unreached.id, "not-reached", "none"],
    ]);
    expect(report.summary).toEqual({ mutants: 4, killed: 1, timedOut: 1, survived: 1, notReached: 1, score: 50, reachedScore: 66.67 });
    // The faithful run, then the three reached mutants; the unreached one never ran.
    expect(readFileSync(log, "utf8").split("\n").filter(Boolean).sort()).toEqual(["-", killed.id, hangs.id, survived.id].sort());
    // The hanging run's grandchild went with its process group.
    const [grandchild] = readFileSync(pids, "utf8").split("\n").filter(Boolean).map(Number);
    expect(grandchild).toBeGreaterThan(0);
    for (let i = 0; i < 50 && alive(grandchild!); i++) await new Promise((r) => setTimeout(r, 20));
    expect(alive(grandchild!)).toBe(false);
    // Progress lines, one per finished mutant.
    expect(run.stderr).toMatch(new RegExp(`\\[\\d/3\\] killed ${killed.id} \\(\\d+\\.\\d s\\)`));
    expect(run.stderr).toMatch(/\[\d\/3\] timed-out runs:transition-removed:hangs/);
    // The survivor in words, its snippet and the line that runs the suite against it.
    expect(run.stdout).toContain("mutation score 50.0% (2/4); among the mutants a test reached 66.7% (2/3)");
    expect(run.stdout).toContain(`your suite passes when \`POST /runs\` answers 409 while the workspace is locked`);
    expect(run.stdout).toContain(`mutant: "${survived.id}"`);
    expect(run.stdout).toContain(`$ INFRA_DOUBLES_MUTANT=${survived.id} ${process.execPath} ${suite}`);
    expect(run.stdout).toMatch(/status-swapped\s+1\s+0\s+1\s+1/);
    expect(run.stdout).toMatch(/transition-removed\s+0\s+1\s+0\s+0/);
    expect(run.stdout).toMatch(/runs\s+1\s+1\s+1\s+1/);
  });

  it("kills a run that ignores SIGTERM after the grace (SIGKILL to its group)", { timeout: 20_000 }, async () => {
    const dir = temp();
    const stubborn = mutant("stubborn");
    const started = performance.now();
    const run = await mutate(["--timeout", "500ms", "--state", join(dir, "s.jsonl"), "--", process.execPath, suite], [stubborn], { MUTATE_REACHED: reachedRuns, MUTATE_HANGS: stubborn.id, MUTATE_IGNORE_TERM: "1" });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.report?.mutants[0]?.outcome).toBe("timed-out");
    // 500 ms, then 300 ms of grace (the test's graceMs), then SIGKILL: well under the 10 s a hung run would take.
    expect(performance.now() - started).toBeLessThan(8_000);
  });

  it("collects coverage eagerly in the faithful run only; a mutant's run gets its id and no coverage directory", { timeout: 20_000 }, async () => {
    const dir = temp();
    const envLog = join(dir, "env");
    const one = mutant("env");
    const run = await mutate(["--state", join(dir, "s.jsonl"), "--", process.execPath, suite], [one], { MUTATE_REACHED: reachedRuns, MUTATE_ENV_LOG: envLog, INFRA_DOUBLES_MUTANT: "runs:stale-from-the-shell", INFRA_DOUBLES_COVERAGE_EAGER: "1" });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(readFileSync(envLog, "utf8")).toBe(`- coverage-dir eager\n${one.id} no-coverage-dir not-eager\n`);
  });

  it("stops with exit 2 and the suite's output when it fails against the faithful fake (no mutant runs)", async () => {
    const dir = temp();
    const log = join(dir, "log");
    const run = await mutate(["--state", join(dir, "s.jsonl"), "--", process.execPath, suite], [mutant("a"), mutant("b")], { MUTATE_FAIL: "1", MUTATE_LOG: log, MUTATE_REACHED: reachedRuns });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain("the suite fails against the faithful fake (exited with code 1); mutation testing needs a suite that passes first");
    expect(run.stderr).toContain("expected 202, got 409 (the faithful suite fails)");
    expect(readFileSync(log, "utf8")).toBe("-\n");
  });

  it("runs only the test files that reached the mutated rule under node --test", { timeout: 30_000 }, async () => {
    const dir = temp();
    const log = join(dir, "log");
    const onlyA = mutant("only-a");
    const onlyB = mutant("only-b", { transition: "planned -> confirmed" });
    const both = mutant("both", { endpoint: "POST /runs" });
    const run = await mutate(["--jobs", "2", "--state", join(dir, "s.jsonl"), "--json", join(dir, "r.json"), "--", process.execPath, "--test", "test/fixtures/mutate/node-test/"], [onlyA, onlyB, both], {
      MUTATE_LOG: log,
      MUTATE_REACHED_A: JSON.stringify({ runs: { endpoints: ["GET /runs/:run_id", "POST /runs"] } }),
      MUTATE_REACHED_B: JSON.stringify({ runs: { endpoints: ["POST /runs"], transitions: { run: ["planned -> confirmed"] } } }),
      MUTATE_KILLS_A: onlyA.id,
      MUTATE_KILLS_B: both.id,
    });
    expect(run.exitCode, run.stderr + run.stdout).toBe(0);
    const a = "test/fixtures/mutate/node-test/a.test.mjs";
    const b = "test/fixtures/mutate/node-test/b.test.mjs";
    const ranFiles = (id: string) =>
      readFileSync(log, "utf8")
        .split("\n")
        .filter((line) => line.endsWith(` ${id}`))
        .map((line) => line.split(" ")[0])
        .sort();
    expect(ranFiles("-")).toEqual([a, b]);
    expect(ranFiles(onlyA.id)).toEqual([a]);
    expect(ranFiles(onlyB.id)).toEqual([b]);
    expect(ranFiles(both.id)).toEqual([a, b]);
    const report = JSON.parse(readFileSync(join(dir, "r.json"), "utf8")) as MutateReport;
    expect(report.mutants.map((m) => [m.outcome, m.ran, m.files])).toEqual([
      ["killed", "files", [a]],
      ["survived", "files", [b]],
      ["killed", "files", [a, b]],
    ]);
    expect(report.mutants[1]!.commandLine).toBe(`INFRA_DOUBLES_MUTANT=${onlyB.id} ${process.execPath} --test ${b}`);
  });

  it("selects files from the coverage real doubles write under node --test (each test file names itself)", { timeout: 30_000 }, async () => {
    const dir = temp();
    const log = join(dir, "log");
    const runsMutant = mutant("test-only-runs");
    const secretsMutant = mutant("test-only-secrets", { service: "secrets", endpoint: "GET /sys/health" });
    const unreached = mutant("test-only-delete", { endpoint: "DELETE /runs/:run_id" });
    const quiet: Mutant = { ...mutant("test-only-quiet", { service: "accessControl" }), reaches: [{ kind: "service", service: "accessControl" }] };
    const run = await mutate(
      ["--jobs", "2", "--state", join(dir, "s.jsonl"), "--json", join(dir, "r.json"), "--", process.execPath, "--test", "test/fixtures/mutate/doubles-node-test/"],
      [runsMutant, secretsMutant, unreached, quiet],
      { MUTATE_LOG: log },
    );
    expect(run.exitCode, run.stderr + run.stdout).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, "r.json"), "utf8")) as MutateReport;
    // The doubles refuse an id they do not know (these are not in the catalogue): the file fails, the mutant is killed.
    expect(report.mutants.map((m) => [m.outcome, m.files])).toEqual([
      ["killed", ["test/fixtures/mutate/doubles-node-test/runs.test.mjs"]],
      ["killed", ["test/fixtures/mutate/doubles-node-test/secrets.test.mjs"]],
      ["not-reached", []],
      ["not-reached", []],
    ]);
    const lines = readFileSync(log, "utf8").split("\n").filter(Boolean).sort();
    expect(lines).toEqual(["runs -", `runs ${runsMutant.id}`, "secrets -", `secrets ${secretsMutant.id}`].sort());
  });

  it("resumes: an interrupted run keeps what finished, and the same command runs only the rest", { timeout: 40_000 }, async () => {
    const dir = temp();
    const log = join(dir, "log");
    const mutants = ["m1", "m2", "m3", "m4", "m5", "m6"].map((id) => mutant(id));
    const args = ["--jobs", "1", "--state", join(dir, "s.jsonl"), "--", process.execPath, suite];
    const env = { MUTATE_LOG: log, MUTATE_REACHED: reachedRuns, MUTATE_SLOW_MS: "150", MUTATE_KILLS: "runs:status-swapped:m2,runs:status-swapped:m5" };
    const signals = new EventEmitter();
    let finished = 0;
    signals.on("line", (text: string) => {
      if (/^\[\d+\/6\]/.test(text) && ++finished === 2) signals.emit("SIGINT");
    });
    const first = await mutate(args, mutants, env, signals);
    expect(first.exitCode).toBe(130);
    expect(first.stderr).toContain("interrupted with 2 of 6 mutants done");
    expect(first.ran).toEqual(["runs:status-swapped:m1", "runs:status-swapped:m2"]);
    const second = await mutate(args, mutants, env);
    expect(second.exitCode, second.stderr).toBe(0);
    expect(second.stderr).toContain("the faithful run is taken from");
    expect(second.stderr).toContain("4 to run");
    expect(second.stderr).toContain("2 already done in");
    expect(second.ran.slice().sort()).toEqual(["m3", "m4", "m5", "m6"].map((id) => `runs:status-swapped:${id}`));
    expect(second.report?.mutants.map((m) => m.outcome)).toEqual(["survived", "killed", "survived", "survived", "killed", "survived"]);
    // A third time: nothing left to run. --fresh starts over.
    const third = await mutate(args, mutants, env);
    expect(third.ran).toEqual([]);
    expect(third.stderr).toContain("0 to run");
    const lines = readFileSync(log, "utf8").split("\n").filter(Boolean);
    // One faithful run; m3 may have started when the interrupt came (stopped, so run again).
    expect(lines.filter((l) => l === "-")).toHaveLength(1);
    for (const id of ["m1", "m2", "m4", "m5", "m6"]) expect(lines.filter((l) => l === `runs:status-swapped:${id}`)).toHaveLength(1);
    const fresh = await mutate(["--fresh", ...args], mutants, env);
    expect(fresh.ran).toHaveLength(6);
    // The same --state FILE for another selection: its results do not apply.
    const other = await mutate(args, mutants.slice(0, 2), env);
    expect(other.stderr).toContain("holds the results of another command or mutant selection: starting it again");
    expect(other.ran).toHaveLength(2);
  });

  it("skips a state line cut short by a killed run, and keeps its state file under .infra-doubles/ by default", { timeout: 20_000 }, async () => {
    const dir = temp();
    const mutants = [mutant("x"), mutant("y")];
    const parsed = parseMutateCommand(["--", process.execPath, suite]) as MutateCommand;
    const io = { stdout: { write: () => true }, stderr: { write: () => true } };
    const env: NodeJS.ProcessEnv = { ...process.env, MUTATE_REACHED: reachedRuns, MUTATE_KILLS: mutants[0]!.id };
    delete env.INFRA_DOUBLES_COVERAGE_DIR;
    const first = await runMutate(parsed, io, { mutants, env, cwd: dir });
    expect(first.stateFile).toMatch(/\/\.infra-doubles\/mutate-[0-9a-f]{16}\.jsonl$/);
    expect(readdirSync(join(dir, ".infra-doubles"))).toHaveLength(1);
    const lines = readFileSync(first.stateFile!, "utf8").split("\n").filter(Boolean);
    expect(lines).toHaveLength(3);
    writeFileSync(first.stateFile!, `${lines.slice(0, 2).join("\n")}\n${lines[2]!.slice(0, 20)}`);
    const second = await runMutate(parsed, io, { mutants, env, cwd: dir });
    expect(second.ran).toEqual([JSON.parse(lines[2]!).id]);
    expect(second.report?.mutants.map((m) => m.outcome)).toEqual(["killed", "survived"]);
  });

  it("exits 1 when the score is below --threshold, 0 at or above it", { timeout: 20_000 }, async () => {
    const dir = temp();
    const mutants = [mutant("k"), mutant("s")];
    const env = { MUTATE_REACHED: reachedRuns, MUTATE_KILLS: mutants[0]!.id };
    const below = await mutate(["--threshold", "60", "--state", join(dir, "s.jsonl"), "--", process.execPath, suite], mutants, env);
    expect(below.exitCode).toBe(1);
    expect(below.stdout).toContain("the mutation score 50.0% is below --threshold 60%");
    const at = await mutate(["--threshold", "50%", "--state", join(dir, "s.jsonl"), "--", process.execPath, suite], mutants, env);
    expect(at.exitCode).toBe(0);
  });

  it("writes the same JSON report twice, with --jobs 1 and --jobs 3 (no timings, catalogue order)", { timeout: 40_000 }, async () => {
    const dir = temp();
    const mutants = Array.from({ length: 7 }, (_, i) => mutant(`d${i}`, { endpoint: i === 6 ? "DELETE /runs/:run_id" : "GET /runs/:run_id" }));
    const env = { MUTATE_REACHED: reachedRuns, MUTATE_KILLS: [1, 2, 5].map((i) => mutants[i]!.id).join(","), MUTATE_SLOW_MS: "0" };
    const reports: string[] = [];
    for (const jobs of ["1", "3", "3"]) {
      const file = join(dir, `r${jobs}-${reports.length}.json`);
      const run = await mutate(["--jobs", jobs, "--fresh", "--max-mutants", "6", "--seed", "4", "--state", join(dir, "s.jsonl"), "--json", file, "--", process.execPath, suite], mutants, env);
      expect(run.exitCode, run.stderr).toBe(0);
      reports.push(readFileSync(file, "utf8"));
    }
    expect(reports[1]).toBe(reports[0]);
    expect(reports[2]).toBe(reports[0]);
    const report = JSON.parse(reports[0]!) as MutateReport;
    expect(Object.keys(report)).toEqual(["format", "command", "selection", "summary", "byOperator", "byService", "mutants"]);
    expect(report.mutants).toHaveLength(6);
    expect(report.selection).toEqual({ services: null, operators: null, maxMutants: 6, seed: 4 });
    expect(reports[0]).not.toMatch(/wallMs|"ms"|timeout/i);
  });

  it("escapes everything user-controlled in the HTML report (self-contained: no script, no external resource)", { timeout: 20_000 }, async () => {
    const dir = temp();
    const evil = mutant("evil", { description: `\`GET /runs/:run_id\` answers <script>alert("x")</script> & 'more'` });
    const html = join(dir, "r.html");
    const run = await mutate(["--state", join(dir, "s.jsonl"), "--html", html, "--", process.execPath, suite, "<b>bold</b>"], [evil], { MUTATE_REACHED: reachedRuns });
    expect(run.exitCode).toBe(0);
    const page = readFileSync(html, "utf8");
    expect(page).toContain("answers &#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; &#38; &#39;more&#39;");
    expect(page).toContain("&#60;b&#62;bold&#60;/b&#62;");
    expect(page).not.toMatch(/<script|<b>|src=|href=|@import|https?:\/\//);
    expect(page).toContain("<h2 id=\"survivors\">Survivors (1)</h2>");
  });

  it("--list prints the catalogue (id, operator, service, description, tab-separated) after --only and --operator", async () => {
    const out: string[] = [];
    const io = { stdout: { write: (t: string) => out.push(t) }, stderr: { write: () => true } };
    const mutants = [mutant("one"), mutant("two", { service: "secrets", operator: "transition-removed" })];
    const result = await runMutate(parseMutateCommand(["--list", "--only", "secrets"]) as MutateCommand, io, { mutants });
    expect(result.exitCode).toBe(0);
    expect(out.join("")).toBe("secrets:transition-removed:two\ttransition-removed\tsecrets\t`GET /runs/:run_id` answers 404 (two)\n");
  });

  it("says so and exits 2 when no mutant is selected", async () => {
    const err: string[] = [];
    const io = { stdout: { write: () => true }, stderr: { write: (t: string) => err.push(t) } };
    const result = await runMutate(parseMutateCommand(["--only", "secrets", "--", "true"]) as MutateCommand, io, { mutants: [mutant("one")] });
    expect(result.exitCode).toBe(2);
    expect(err.join("")).toContain("no mutant to run matches --only / --operator");
  });
});

describe("mutant selection and file arguments", () => {
  it("--max-mutants draws the same seeded sample every time, kept in catalogue order", () => {
    const catalogue = Array.from({ length: 40 }, (_, i) => mutant(`s${String(i).padStart(2, "0")}`));
    const a = selectMutants(catalogue, { maxMutants: 10, seed: 1 });
    expect(a).toHaveLength(10);
    expect(selectMutants(catalogue, { maxMutants: 10, seed: 1 })).toEqual(a);
    expect(a.map((m) => catalogue.indexOf(m))).toEqual(a.map((m) => catalogue.indexOf(m)).sort((x, y) => x - y));
    expect(selectMutants(catalogue, { maxMutants: 10, seed: 2 }).map((m) => m.id)).not.toEqual(a.map((m) => m.id));
    // A mutant added to the catalogue does not move the others in or out unless it outranks them.
    const grown = selectMutants([...catalogue, mutant("zz")], { maxMutants: 10, seed: 1 }).map((m) => m.id);
    expect(grown.filter((id) => id !== "runs:status-swapped:zz").length).toBeGreaterThanOrEqual(9);
    expect(selectMutants(catalogue, { services: ["secrets"], seed: 1 })).toEqual([]);
  });

  it("gives the files to vitest, jest, node --test and a {files} placeholder, and runs anything else whole", () => {
    expect(fileArgumentsOf(["npx", "vitest", "run"])).toBe("vitest");
    expect(commandWithFiles(["npx", "vitest", "run"], ["test/a.test.ts"])).toEqual(["npx", "vitest", "run", "test/a.test.ts"]);
    // A file the command already names is not named twice (a survivor's reproduction line read it twice).
    expect(commandWithFiles(["npx", "vitest", "run", "test/a.test.ts"], ["test/a.test.ts", "test/b.test.ts"])).toEqual(["npx", "vitest", "run", "test/a.test.ts", "test/b.test.ts"]);
    expect(commandWithFiles(["npx", "jest", "--ci"], ["test/a+b.test.js"])).toEqual(["npx", "jest", "--ci", "test/a\\+b\\.test\\.js"]);
    expect(commandWithFiles(["node", "--test"], ["a.test.mjs"])).toEqual(["node", "--test", "a.test.mjs"]);
    expect(commandWithFiles(["node", "--test", "--test-reporter", "dot", "--import=tsx", "test/", "other/"], ["test/a.test.mjs"])).toEqual(["node", "--test", "--test-reporter", "dot", "--import=tsx", "test/a.test.mjs"]);
    expect(fileArgumentsOf(["node", "script.mjs", "--test"])).toBeUndefined();
    expect(commandWithFiles(["npm", "test"], ["a.test.ts"])).toEqual(["npm", "test"]);
    expect(commandWithFiles(["npm", "test", "--", "{files}"], ["a.test.ts", "b.test.ts"])).toEqual(["npm", "test", "--", "a.test.ts", "b.test.ts"]);
    expect(commandWithFiles(["npm", "test", "--", "{files}"], undefined)).toEqual(["npm", "test", "--"]);
    expect(commandWithFiles(["sh", "-c", "pytest {files}"], ["t/a b.py"])).toEqual(["sh", "-c", "pytest 't/a b.py'"]);
  });

  it("the real catalogue lists through the built binary (node dist/cli.cjs mutate --list), and bad options are usage errors", () => {
    const cli = join(root, "dist/cli.cjs");
    if (!existsSync(cli)) execFileSync("npx", ["tsup"], { cwd: root, stdio: "ignore" });
    const listed = execFileSync(process.execPath, [cli, "mutate", "--list"], { cwd: root, encoding: "utf8" });
    const catalogue = mutantsOf(ALL_PLUGINS);
    // Tab-separated (ids may hold spaces): id, operator, service, description.
    expect(listed.split("\n").filter(Boolean).map((line) => line.split("\t"))).toEqual(catalogue.map((m) => [m.id, m.operator, m.service, m.description]));
    let failure: { status: number; stderr: string } | undefined;
    try {
      execFileSync(process.execPath, [cli, "mutate", "--jobs", "0", "--", "true"], { cwd: root, encoding: "utf8", stdio: "pipe" });
    } catch (error) {
      failure = error as { status: number; stderr: string };
    }
    expect(failure?.status).toBe(2);
    expect(failure?.stderr).toContain("--jobs must be a whole number from 1");
  });
});
