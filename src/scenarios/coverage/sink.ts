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
import { join } from "node:path";
import type { CoverageCollector } from "./collector.js";
import { mergeCoverage, type CoverageReport } from "./report.js";

/**
 * The environment variable naming the directory coverage files are written to.
 * @example INFRA_DOUBLES_COVERAGE_DIR=/tmp/cov npx vitest run
 */
export const COVERAGE_DIR_ENV = "INFRA_DOUBLES_COVERAGE_DIR";

/** What a process keeps for its coverage file. */
interface SinkState {
  /** This process's file name. */
  readonly file: string;
  merged: CoverageReport | undefined;
  /** Collectors not yet handed over (written at exit). */
  readonly open: Set<CoverageCollector>;
  exitHooked: boolean;
}

const KEY = Symbol.for("infra-doubles.coverage-sink");

function state(): SinkState {
  const holder = globalThis as { [KEY]?: SinkState };
  holder[KEY] ??= { file: `coverage-${process.pid}-${randomBytes(6).toString("hex")}.json`, merged: undefined, open: new Set(), exitHooked: false };
  return holder[KEY];
}

/**
 * Registers a collector whose coverage is written out when {@link COVERAGE_DIR_ENV} is set
 * (nothing happens otherwise).
 */
export function registerCoverage(collector: CoverageCollector): void {
  if (!process.env[COVERAGE_DIR_ENV]) return;
  const sink = state();
  sink.open.add(collector);
  if (!sink.exitHooked) {
    sink.exitHooked = true;
    process.once("exit", () => {
      for (const pending of [...sink.open]) flushCoverage(pending);
    });
  }
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
