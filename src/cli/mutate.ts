/**
 * `infra-doubles mutate [options] -- <test command>`: runs the user's suite once against the
 * faithful fake (collecting which test files reached which rule), then once per service mutant
 * (`INFRA_DOUBLES_MUTANT=<id>`), with only the test files that reached the mutated rule when the
 * command takes files, in parallel (`--jobs`), each bounded by `--timeout`; results are appended
 * to a state file as they come, so an interrupted run resumes. The report names each mutant the
 * suite did not notice. See docs/guides/find-what-your-tests-would-not-notice.md and
 * docs/decisions/mutants.md.
 */
import { createHash } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { compare, COVERAGE_FORMAT, mergeCoverage, type CoverageReport, type CoverageTally, type ServiceCoverage } from "../scenarios/coverage/report.js";
import { COVERAGE_DIR_ENV, COVERAGE_EAGER_ENV } from "../scenarios/coverage/sink.js";
import { COVERAGE_OUT_ENV } from "../vitest/coverage.js";
import { ALL_PLUGINS } from "../scenarios/doubles.js";
import { mutantsOf } from "../scenarios/mutants/catalogue.js";
import { shellWord } from "../scenarios/mutants/snippet.js";
import { MUTANT_ENV, type Mutant, type MutantReach } from "../scenarios/mutants/types.js";
import type { MutateCommand } from "./mutate-args.js";
import { formatMutateReport, mutateHtml, mutateReport, type MutantOutcome, type MutantResult, type MutateReport } from "./mutate-report.js";
import { commandWithFiles, fileArgumentsOf, startCommand, type CommandOutcome, type RunningCommand } from "./mutate-process.js";

/** Exit status of `mutate` when the score is below `--threshold`. */
export const EXIT_MUTATE_BELOW_THRESHOLD = 1;
/** Exit status of `mutate` for bad usage, a suite that fails without any mutant, or no mutant selected. */
export const EXIT_MUTATE_CANNOT_RUN = 2;
/** Exit status of `mutate` when interrupted (SIGINT/SIGTERM): the results so far are kept for a rerun. */
export const EXIT_MUTATE_INTERRUPTED = 130;



/** Where `mutate` writes, and where stop signals come from. */
export interface MutateIo {
  /** The report (terminal table, survivors). */
  readonly stdout: { write(text: string): unknown };
  /** Progress: the faithful run, one line per finished mutant, resumption and interruption. */
  readonly stderr: { write(text: string): unknown };
  /** Emits `SIGINT` / `SIGTERM` (stop the runs, keep the results); absent: not interruptible. */
  readonly signals?: {
    once(event: "SIGINT" | "SIGTERM", listener: () => void): unknown;
    off(event: "SIGINT" | "SIGTERM", listener: () => void): unknown;
  };
}

/** What `runMutate` can be given besides the command (tests inject their own mutants). */
export interface MutateOptions {
  /** The catalogue to draw from (default: `mutantsOf(ALL_PLUGINS)`). */
  readonly mutants?: readonly Mutant[];
  /** The environment the test command runs in (default `process.env`). */
  readonly env?: NodeJS.ProcessEnv;
  /** Where the test command runs and the default state file lives (default the working directory). */
  readonly cwd?: string;
  /** Ms between SIGTERM and SIGKILL when a run is stopped (default 2000). */
  readonly graceMs?: number;
}

/** What a mutation run ended with (also returned to tests). */
export interface MutateResult {
  readonly exitCode: number;
  /** The report, when the run got that far. */
  readonly report?: MutateReport;
  /** Mutant ids run by this invocation (not taken from the state file), in the order they finished. */
  readonly ran: readonly string[];
  /** The state file. */
  readonly stateFile?: string;
}

/** One line of the state file. */
type StateLine =
  | { readonly kind: "faithful"; readonly key: string; readonly wallMs: number; readonly coverage: CoverageReport | null }
  | { readonly kind: "mutant"; readonly id: string; readonly outcome: MutantOutcome; readonly wallMs: number };

/** The package's version (from its package.json, found above this module), for the state file's hash. */
export function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const file = join(dir, "package.json");
    if (existsSync(file)) {
      try {
        const parsed = JSON.parse(readFileSync(file, "utf8")) as { name?: string; version?: string };
        if (parsed.name === "infra-doubles" && typeof parsed.version === "string") return parsed.version;
      } catch {
        // not a readable package.json: look further up
      }
    }
    dir = dirname(dir);
  }
  return "unknown";
}

/** A stable 32-bit-ish rank of `id` under `seed` (a hash, so the sample does not move when the catalogue grows). */
function sampleRank(seed: number | string, id: string): string {
  return createHash("sha256").update(`${String(seed)}\u0000${id}`).digest("hex");
}

/**
 * The mutants a command runs: the catalogue filtered by `--only` and `--operator`, then, with
 * `--max-mutants N`, the N whose seeded hash ranks lowest (the same N for the same seed and ids),
 * in catalogue order.
 * @example selectMutants(mutantsOf(ALL_PLUGINS), { services: ["runs"], maxMutants: 20, seed: 1 })
 */
export function selectMutants(catalogue: readonly Mutant[], options: Pick<MutateCommand, "services" | "operators" | "maxMutants" | "seed">): Mutant[] {
  const kept = catalogue.filter(
    (m) => (options.services === undefined || options.services.includes(m.service)) && (options.operators === undefined || options.operators.includes(m.operator)),
  );
  if (options.maxMutants === undefined || kept.length <= options.maxMutants) return kept;
  const chosen = new Set(
    kept
      .map((m) => ({ id: m.id, rank: sampleRank(options.seed, m.id) }))
      .sort((a, b) => compare(a.rank, b.rank) || compare(a.id, b.id))
      .slice(0, options.maxMutants)
      .map((m) => m.id),
  );
  return kept.filter((m) => chosen.has(m.id));
}

/** Which test files reached a tally's item (`undefined`: reached, but no file named), or `null` when it was not reached. */
function filesOf(tally: CoverageTally | undefined, label: string): readonly string[] | undefined | null {
  if (tally === undefined || !((tally.reached[label] ?? 0) > 0)) return null;
  return tally.by?.[label];
}

/** The files that reached any item of a service (`undefined` when some reached item names none), or `null` when none was reached. */
function serviceFiles(service: ServiceCoverage | undefined): readonly string[] | undefined | null {
  if (service === undefined) return null;
  const endpoints = service.endpoints;
  const unmatched = Object.values(service.unmatched).some((n) => n > 0);
  if (endpoints.exercised === 0 && !unmatched) return null;
  if (unmatched) return undefined;
  const files = new Set<string>();
  for (const label of Object.keys(endpoints.reached)) {
    const by = endpoints.by?.[label];
    if (by === undefined) return undefined;
    for (const file of by) files.add(file);
  }
  return [...files];
}

/**
 * What the faithful run's coverage says of a mutant: `null` when no test reached any of its
 * items; else the test files that did, sorted (`undefined` when a reached item names no file, or
 * when no doubles reported coverage at all: the whole command must run).
 * @example mutantReach(mutant, coverage) // ["test/deploy.test.ts"]
 */
export function mutantReach(mutant: Mutant, coverage: CoverageReport | null): readonly string[] | undefined | null {
  // No coverage at all (a server started outside the command, a runner the sink cannot see): no
  // mutant can be ruled out, so each runs the whole command.
  if (coverage === null) return undefined;
  let reached = false;
  let unknown = false;
  const files = new Set<string>();
  for (const reach of mutant.reaches as readonly MutantReach[]) {
    const service = coverage.services[reach.service];
    const found =
      reach.kind === "transition"
        ? filesOf(service?.machines[reach.machine]?.transitions, reach.label)
        : reach.kind === "endpoint"
          ? filesOf(service?.endpoints, reach.label)
          : serviceFiles(service);
    if (found === null) continue;
    reached = true;
    if (found === undefined) unknown = true;
    else for (const file of found) files.add(file);
  }
  if (!reached) return null;
  return unknown ? undefined : [...files].sort(compare);
}

/** Reads the state file: the faithful run and the mutants done (a line cut short by a kill is skipped). */
function readState(file: string): { faithful?: Extract<StateLine, { kind: "faithful" }>; done: Map<string, Extract<StateLine, { kind: "mutant" }>> } {
  const done = new Map<string, Extract<StateLine, { kind: "mutant" }>>();
  let faithful: Extract<StateLine, { kind: "faithful" }> | undefined;
  if (!existsSync(file)) return { done };
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line.trim() === "") continue;
    let parsed: StateLine;
    try {
      parsed = JSON.parse(line) as StateLine;
    } catch {
      continue;
    }
    if (parsed.kind === "faithful") faithful = parsed;
    else if (parsed.kind === "mutant" && typeof parsed.id === "string") done.set(parsed.id, parsed);
  }
  return faithful === undefined ? { done } : { faithful, done };
}

/** Wall ms as `1.2 s`. */
function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** The default timeout of one mutant's run: 3 times the faithful run plus 5 s, at least 10 s. */
export function defaultTimeoutMs(faithfulMs: number): number {
  return Math.max(10_000, 3 * faithfulMs + 5_000);
}

/** Reads every coverage file a run left in `dir`. */
function readCoverage(dir: string): CoverageReport | null {
  const reports: CoverageReport[] = [];
  if (!existsSync(dir)) return null;
  for (const name of readdirSorted(dir)) {
    try {
      const parsed = JSON.parse(readFileSync(join(dir, name), "utf8")) as CoverageReport;
      if (parsed !== null && typeof parsed === "object" && parsed.format === COVERAGE_FORMAT) reports.push(parsed);
    } catch {
      // a file cut short by a process that died while writing
    }
  }
  return reports.length === 0 ? null : mergeCoverage(reports);
}

function readdirSorted(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith(".json"))
    .sort(compare);
}

/**
 * Runs a mutation run (or, with `--list`, prints the catalogue).
 * @returns the result: `exitCode` 0 (done, score at or above `--threshold`), 1 (below it), 2 (no
 *   mutant selected, or the suite fails against the faithful fake), 130 (interrupted: rerun to
 *   resume).
 * @example
 * const { exitCode } = await runMutate(parseMutateCommand(["--", "npx", "vitest", "run"]) as MutateCommand, process);
 */
export async function runMutate(command: MutateCommand, io: MutateIo, options: MutateOptions = {}): Promise<MutateResult> {
  const catalogue = options.mutants ?? mutantsOf(ALL_PLUGINS);
  const selected = selectMutants(catalogue, command);
  if (command.list) {
    // Tab-separated: ids hold spaces (`secrets:status-swapped:GET /sys/health/...`), so `cut -f1` reads them whole.
    for (const m of selected) io.stdout.write(`${m.id}\t${m.operator}\t${m.service}\t${m.description}\n`);
    io.stderr.write(`infra-doubles mutate: ${selected.length} mutant${selected.length === 1 ? "" : "s"}\n`);
    return { exitCode: 0, ran: [] };
  }
  if (selected.length === 0) {
    io.stderr.write(`infra-doubles mutate: no mutant to run${catalogue.length === 0 ? " (the catalogue is empty)" : " matches --only / --operator"} (infra-doubles mutate --list names them)\n`);
    return { exitCode: EXIT_MUTATE_CANNOT_RUN, ran: [] };
  }
  const cwd = options.cwd ?? process.cwd();
  const baseEnv = options.env ?? process.env;
  const hash = createHash("sha256")
    .update(JSON.stringify({ command: command.testCommand, mutants: selected.map((m) => m.id), version: packageVersion() }))
    .digest("hex")
    .slice(0, 16);
  const stateFile = resolve(cwd, command.state ?? join(".infra-doubles", `mutate-${hash}.jsonl`));
  mkdirSync(dirname(stateFile), { recursive: true });
  if (command.fresh) rmSync(stateFile, { force: true });
  let state = readState(stateFile);
  if (state.faithful !== undefined && state.faithful.key !== hash) {
    // A --state FILE written for another command, selection or version: its results do not apply.
    io.stderr.write(`infra-doubles mutate: ${stateFile} holds the results of another command or mutant selection: starting it again\n`);
    rmSync(stateFile, { force: true });
    state = { done: new Map() };
  }
  const append = (line: StateLine): void => appendFileSync(stateFile, `${JSON.stringify(line)}\n`);

  // Interrupts: stop launching, stop what runs, keep what is done.
  let interrupted = false;
  const running = new Set<RunningCommand>();
  const onSignal = (): void => {
    interrupted = true;
    for (const run of running) run.stop();
  };
  io.signals?.once("SIGINT", onSignal);
  io.signals?.once("SIGTERM", onSignal);
  const scratch = mkdtempSync(join(tmpdir(), "infra-doubles-mutate-"));
  try {
    // 1. The faithful run (or the one a previous invocation recorded).
    const faithfulCommand = commandWithFiles(command.testCommand, undefined);
    let faithful = state.faithful;
    if (faithful !== undefined) {
      io.stderr.write(`infra-doubles mutate: the faithful run is taken from ${stateFile} (${seconds(faithful.wallMs)}; --fresh runs it again)\n`);
    } else {
      io.stderr.write(`infra-doubles mutate: running the suite against the faithful fake: ${faithfulCommand.map(shellWord).join(" ")}\n`);
      const coverageDir = join(scratch, "coverage");
      const env: NodeJS.ProcessEnv = { ...baseEnv, [COVERAGE_DIR_ENV]: coverageDir, [COVERAGE_EAGER_ENV]: "1", [COVERAGE_OUT_ENV]: join(scratch, "coverage-out") };
      delete env[MUTANT_ENV];
      const run = startCommand(faithfulCommand, { env, keepOutput: true, cwd, ...(options.graceMs === undefined ? {} : { graceMs: options.graceMs }) });
      running.add(run);
      const outcome = await run.done;
      running.delete(run);
      if (interrupted) return interruptedResult(io, stateFile, 0, selected.length);
      if (outcome.exitCode !== 0) {
        const how = outcome.startError !== undefined ? `could not start: ${outcome.startError}` : outcome.signal !== null ? `ended by ${outcome.signal}` : `exited with code ${String(outcome.exitCode)}`;
        io.stderr.write(
          `infra-doubles mutate: the suite fails against the faithful fake (${how}); mutation testing needs a suite that passes first.\n` +
            (outcome.output.trim() === "" ? "" : `--- the end of its output ---\n${outcome.output.trimEnd()}\n`),
        );
        return { exitCode: EXIT_MUTATE_CANNOT_RUN, ran: [], stateFile };
      }
      faithful = { kind: "faithful", key: hash, wallMs: outcome.wallMs, coverage: readCoverage(coverageDir) };
      append(faithful);
      io.stderr.write(`infra-doubles mutate: the suite passed in ${seconds(outcome.wallMs)}${faithful.coverage === null ? "; no doubles reported coverage (a server started outside the command reports none; or does the suite use infra-doubles?): every mutant runs the whole command" : ""}\n`);
    }
    const timeoutMs = command.timeoutMs ?? defaultTimeoutMs(faithful.wallMs);

    // 2. Plan each mutant from the coverage.
    const takesFiles = fileArgumentsOf(command.testCommand) !== undefined;
    const plans = selected.map((mutant) => {
      const reach = mutantReach(mutant, faithful.coverage);
      if (reach === null) return { mutant, files: null, command: undefined };
      const files = reach !== undefined && takesFiles && reach.length > 0 ? reach : null;
      return { mutant, files, command: commandWithFiles(command.testCommand, files ?? undefined) };
    });
    const outcomes = new Map<string, MutantOutcome>();
    for (const plan of plans) {
      const done = state.done.get(plan.mutant.id);
      if (done !== undefined) outcomes.set(plan.mutant.id, done.outcome);
      else if (plan.command === undefined) outcomes.set(plan.mutant.id, "not-reached");
    }
    const toRun = plans.filter((plan) => !outcomes.has(plan.mutant.id));
    const resumed = state.done.size > 0 ? [...state.done.keys()].filter((id) => plans.some((p) => p.mutant.id === id)).length : 0;
    const notReached = plans.filter((p) => p.command === undefined).length;
    io.stderr.write(
      `infra-doubles mutate: ${selected.length} mutants: ${toRun.length} to run (--jobs ${command.jobs}, --timeout ${seconds(timeoutMs)}), ${notReached} not reached by any test` +
        (resumed > 0 ? `, ${resumed} already done in ${stateFile} (--fresh starts over)` : "") +
        "\n",
    );

    // 3. Run them, --jobs at a time; each result appended as it comes.
    const ran: string[] = [];
    let next = 0;
    let finished = 0;
    const worker = async (): Promise<void> => {
      while (!interrupted && next < toRun.length) {
        const plan = toRun[next++]!;
        const env: NodeJS.ProcessEnv = { ...baseEnv, [MUTANT_ENV]: plan.mutant.id, [COVERAGE_OUT_ENV]: join(scratch, `out-${plan.mutant.id.replace(/[^A-Za-z0-9_.-]/g, "_")}`) };
        delete env[COVERAGE_DIR_ENV];
        delete env[COVERAGE_EAGER_ENV];
        const run = startCommand(plan.command ?? [], { env, timeoutMs, cwd, ...(options.graceMs === undefined ? {} : { graceMs: options.graceMs }) });
        running.add(run);
        const outcome: CommandOutcome = await run.done;
        running.delete(run);
        if (outcome.stopped && !outcome.timedOut) return; // interrupted: not a result
        const result: MutantOutcome = outcome.timedOut ? "timed-out" : outcome.exitCode === 0 ? "survived" : "killed";
        outcomes.set(plan.mutant.id, result);
        append({ kind: "mutant", id: plan.mutant.id, outcome: result, wallMs: outcome.wallMs });
        ran.push(plan.mutant.id);
        finished++;
        io.stderr.write(`[${finished}/${toRun.length}] ${result} ${plan.mutant.id} (${seconds(outcome.wallMs)})\n`);
      }
    };
    await Promise.all(Array.from({ length: Math.min(command.jobs, Math.max(1, toRun.length)) }, () => worker()));
    if (interrupted) return { ...interruptedResult(io, stateFile, outcomes.size, selected.length), ran };

    // 4. Report, in catalogue order.
    const results: MutantResult[] = plans.map((plan) => ({
      mutant: plan.mutant,
      outcome: outcomes.get(plan.mutant.id) ?? "not-reached",
      files: plan.files,
      ...(plan.command === undefined ? {} : { command: plan.command }),
    }));
    const report = mutateReport(results, {
      command: command.testCommand,
      ...(command.services === undefined ? {} : { services: command.services }),
      ...(command.operators === undefined ? {} : { operators: command.operators }),
      ...(command.maxMutants === undefined ? {} : { maxMutants: command.maxMutants }),
      seed: command.seed,
    });
    io.stdout.write(formatMutateReport(report));
    if (command.json !== undefined) writeFileSync(resolve(cwd, command.json), `${JSON.stringify(report, null, 2)}\n`);
    if (command.html !== undefined) writeFileSync(resolve(cwd, command.html), mutateHtml(report));
    let exitCode = 0;
    if (command.threshold !== undefined) {
      const score = report.summary.score ?? 100;
      if (score < command.threshold) {
        io.stdout.write(`infra-doubles mutate: the mutation score ${score.toFixed(1)}% is below --threshold ${command.threshold}%\n`);
        exitCode = EXIT_MUTATE_BELOW_THRESHOLD;
      }
    }
    return { exitCode, report, ran, stateFile };
  } finally {
    io.signals?.off("SIGINT", onSignal);
    io.signals?.off("SIGTERM", onSignal);
    rmSync(scratch, { recursive: true, force: true });
  }
}

function interruptedResult(io: MutateIo, stateFile: string, done: number, total: number): MutateResult {
  io.stderr.write(`infra-doubles mutate: interrupted with ${done} of ${total} mutants done; they are kept in ${stateFile}: the same command again runs the rest\n`);
  return { exitCode: EXIT_MUTATE_INTERRUPTED, ran: [], stateFile };
}
