/**
 * Where coverage goes when a test run collects it: when the environment variable
 * {@link COVERAGE_DIR_ENV} names a directory (the vitest global setup sets it for its workers),
 * each process keeps the merged coverage of the doubles it saw and rewrites one file of its own
 * in that directory when a doubles closes (and at process exit for doubles never closed). The
 * global teardown merges every file. The state is kept on `globalThis`, so module instances
 * loaded afresh for each test file of a worker share one file and one exit listener.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";
import type { CoverageCollector } from "./collector.js";
import { mergeCoverage, type CoverageReport } from "./report.js";

/**
 * The environment variable naming the directory coverage files are written to.
 * @example INFRA_DOUBLES_COVERAGE_DIR=/tmp/cov npx vitest run
 */
export const COVERAGE_DIR_ENV = "INFRA_DOUBLES_COVERAGE_DIR";

/**
 * The environment variable that makes the sink write a process's coverage file soon after each
 * count (coalesced to one write per turn of the event loop), not only when a doubles closes or the
 * process exits: a test runner's worker killed at the end of a run (vitest 4's fork pool) never
 * runs exit handlers, so the coverage of doubles a suite never closed would be lost.
 * `infra-doubles mutate` sets it for its faithful run, whose coverage picks the tests each mutant
 * needs; it costs a write of the file per turn in which something was counted.
 * @example INFRA_DOUBLES_COVERAGE_DIR=/tmp/cov INFRA_DOUBLES_COVERAGE_EAGER=1 npx vitest run
 */
export const COVERAGE_EAGER_ENV = "INFRA_DOUBLES_COVERAGE_EAGER";

/** What a process keeps for its coverage file. */
interface SinkState {
  /** This process's file name. */
  readonly file: string;
  merged: CoverageReport | undefined;
  /** Collectors not yet handed over (written at exit). */
  readonly open: Set<CoverageCollector>;
  exitHooked: boolean;
  /** Eager mode: a write of the file is scheduled. */
  writeScheduled?: boolean;
}

const KEY = Symbol.for("infra-doubles.coverage-sink");

function state(): SinkState {
  const holder = globalThis as { [KEY]?: SinkState };
  holder[KEY] ??= { file: `coverage-${process.pid}-${randomBytes(6).toString("hex")}.json`, merged: undefined, open: new Set(), exitHooked: false };
  return holder[KEY];
}

/** The part of vitest's per-worker state read here (`globalThis.__vitest_worker__`, vitest 3 and 4). */
interface VitestWorkerState {
  /** The test file the worker is running (absolute). */
  readonly filepath?: string;
  readonly config?: { readonly root?: string };
}

/** The part of Jest's matcher state read here (`expect.getState()`). */
interface JestMatchersHolder {
  readonly state?: { readonly testPath?: string };
}

/**
 * Where the test file path comes from in this process: vitest's worker state, else Jest's matcher
 * state, else the script of a `node --test` child process (node runs each test file in a process
 * of its own, marked by `NODE_TEST_CONTEXT`), else nowhere (`undefined`: not in a test runner).
 */
function testPathSource(): (() => string | undefined) | undefined {
  const holder = globalThis as { __vitest_worker__?: VitestWorkerState; [key: symbol]: unknown };
  if (holder.__vitest_worker__ !== undefined) return () => (globalThis as { __vitest_worker__?: VitestWorkerState }).__vitest_worker__?.filepath;
  const jest = holder[Symbol.for("$$jest-matchers-object")] as JestMatchersHolder | undefined;
  if (jest !== undefined) return () => jest.state?.testPath;
  const script = process.argv[1];
  if (process.env.NODE_TEST_CONTEXT?.startsWith("child") === true && script !== undefined && script !== "") return () => script;
  return undefined;
}

/**
 * The current test file, relative to the project's root (vitest's `root`, else the working
 * directory) with `/` separators, for a collector's `testFile` option: a property read per call
 * (the relative path is made once per test file). `undefined` when coverage is not being
 * collected for a run ({@link COVERAGE_DIR_ENV} unset) or when no test runner is known.
 * @example new CoverageCollector(sim, plugins, { testFile: currentTestFileSource() })
 */
export function currentTestFileSource(): (() => string | undefined) | undefined {
  if (!process.env[COVERAGE_DIR_ENV]) return undefined;
  const source = testPathSource();
  if (source === undefined) return undefined;
  let lastPath: string | undefined;
  let lastRelative: string | undefined;
  return () => {
    const path = source();
    if (path !== lastPath) {
      lastPath = path;
      const root = (globalThis as { __vitest_worker__?: VitestWorkerState }).__vitest_worker__?.config?.root ?? process.cwd();
      lastRelative = path === undefined || path === "" ? undefined : isAbsolute(path) ? relative(root, path).split(sep).join("/") : path;
    }
    return lastRelative;
  };
}

/**
 * Registers a collector whose coverage is written out when {@link COVERAGE_DIR_ENV} is set
 * (nothing happens otherwise).
 */
export function registerCoverage(collector: CoverageCollector): void {
  if (!process.env[COVERAGE_DIR_ENV]) return;
  const sink = state();
  sink.open.add(collector);
  if (process.env[COVERAGE_EAGER_ENV] === "1") {
    collector.onCount = () => {
      if (sink.writeScheduled === true) return;
      sink.writeScheduled = true;
      setImmediate(() => {
        sink.writeScheduled = false;
        writeEagerly(sink);
      });
    };
  }
  if (!sink.exitHooked) {
    sink.exitHooked = true;
    process.once("exit", () => {
      for (const pending of [...sink.open]) flushCoverage(pending);
    });
  }
}

/** Eager mode: writes the file with the closed collectors' coverage and the open ones' so far. */
function writeEagerly(sink: SinkState): void {
  const dir = process.env[COVERAGE_DIR_ENV];
  if (!dir || sink.open.size === 0) return;
  const reports = [...(sink.merged === undefined ? [] : [sink.merged]), ...[...sink.open].map((open) => open.report())];
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, sink.file), `${JSON.stringify(mergeCoverage(reports))}\n`);
}

/**
 * Adds a collector's coverage to this process's file (once: it is then forgotten). Called when a
 * doubles closes.
 */
export function flushCoverage(collector: CoverageCollector): void {
  const sink = state();
  if (!sink.open.delete(collector)) return;
  const dir = process.env[COVERAGE_DIR_ENV];
  if (!dir) return;
  const report = collector.report();
  sink.merged = sink.merged === undefined ? report : mergeCoverage([sink.merged, report]);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, sink.file), `${JSON.stringify(sink.merged)}\n`);
}
