/**
 * Where coverage goes when a test run collects it: when the environment variable
 * {@link COVERAGE_DIR_ENV} names a directory (the vitest global setup sets it for its workers),
 * each module instance of infra-doubles keeps the merged coverage of the doubles it saw and
 * rewrites one file of its own in that directory when a doubles closes (and at process exit for
 * doubles never closed). The global teardown merges every file.
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

/** This module instance's file name (vitest may load the module once per test file in a worker). */
const FILE = `coverage-${process.pid}-${randomBytes(6).toString("hex")}.json`;
let merged: CoverageReport | undefined;
const open = new Set<CoverageCollector>();
let exitHooked = false;

function write(dir: string): void {
  if (merged === undefined) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, FILE), `${JSON.stringify(merged)}\n`);
}

/**
 * Registers a collector whose coverage is written out when {@link COVERAGE_DIR_ENV} is set
 * (nothing happens otherwise).
 */
export function registerCoverage(collector: CoverageCollector): void {
  if (!process.env[COVERAGE_DIR_ENV]) return;
  open.add(collector);
  if (!exitHooked) {
    exitHooked = true;
    process.once("exit", () => {
      for (const pending of [...open]) flushCoverage(pending);
    });
  }
}

/**
 * Adds a collector's coverage to this module's file (once: it is then forgotten). Called when a
 * doubles closes.
 */
export function flushCoverage(collector: CoverageCollector): void {
  if (!open.delete(collector)) return;
  const dir = process.env[COVERAGE_DIR_ENV];
  if (!dir) return;
  const report = collector.report();
  merged = merged === undefined ? report : mergeCoverage([merged, report]);
  write(dir);
}
