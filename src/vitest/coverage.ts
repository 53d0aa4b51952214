/**
 * `infra-doubles/coverage`: coverage of a whole vitest run. It is a vitest global setup (listed
 * under `globalSetup`, not `reporters`): it gives the workers a directory (environment variable
 * `INFRA_DOUBLES_COVERAGE_DIR`) where every doubles leaves its coverage when it closes, each row
 * naming the test files that reached it; the teardown merges the files (deterministically,
 * sorted), prints a short summary and writes `coverage.json` and a self-contained `index.html`
 * (summary first, then what was never reached, then every row with its test files).
 *
 * ```ts
 * // vitest.config.ts
 * export default defineConfig({ test: { globalSetup: ["infra-doubles/coverage"] } });
 * ```
 *
 * See docs/guides/see-what-your-tests-never-exercised.md.
 *
 * @packageDocumentation
 * @module infra-doubles/coverage
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { compare, COVERAGE_FORMAT, formatCoverageSummary, mergeCoverage, type CoverageReport } from "../scenarios/coverage/report.js";
import { COVERAGE_DIR_ENV } from "../scenarios/coverage/sink.js";
import { coverageHtml } from "./coverage-html.js";

export { coverageHtml } from "./coverage-html.js";
export { COVERAGE_DIR_ENV } from "../scenarios/coverage/sink.js";
export { COVERAGE_FORMAT, formatCoverageSummary, mergeCoverage, type CoverageReport, type CoverageTally } from "../scenarios/coverage/report.js";
export type { EndpointTally, MachineCoverage, ServiceCoverage, SummaryOptions } from "../scenarios/coverage/report.js";

/**
 * The environment variable naming the directory the merged report is written to (default
 * `infra-doubles-coverage`, relative to the working directory).
 * @example INFRA_DOUBLES_COVERAGE_OUT=reports/doubles npx vitest run
 */
export const COVERAGE_OUT_ENV = "INFRA_DOUBLES_COVERAGE_OUT";

/** The default output directory of the merged report. */
export const DEFAULT_COVERAGE_OUT = "infra-doubles-coverage";

/** Options of {@link coverageGlobalSetup}. */
export interface CoverageSetupOptions {
  /**
   * Where `coverage.json` and `index.html` go (default: `$INFRA_DOUBLES_COVERAGE_OUT`, else
   * `infra-doubles-coverage`), relative to the working directory.
   */
  readonly outDir?: string;
  /** Where the summary goes (default `console.log`); `false` prints nothing. */
  readonly log?: ((text: string) => void) | false;
  /** At most this many never-reached items named per service in the summary (default 8). */
  readonly maxNever?: number;
}

/**
 * Reads and merges every coverage file (`*.json`) of `dir`, in file-name order (the merge does
 * not depend on it). Files that are not coverage reports are skipped.
 * @returns the merged report, or `undefined` when `dir` holds none (no doubles closed).
 * @example const report = readCoverageDir(process.env.INFRA_DOUBLES_COVERAGE_DIR!);
 */
export function readCoverageDir(dir: string): CoverageReport | undefined {
  if (!existsSync(dir)) return undefined;
  const reports: CoverageReport[] = [];
  for (const name of readdirSync(dir).filter((f) => f.endsWith(".json")).sort(compare)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(join(dir, name), "utf8"));
    } catch {
      continue; // a file cut short by a worker that died while writing
    }
    if (parsed !== null && typeof parsed === "object" && (parsed as { format?: unknown }).format === COVERAGE_FORMAT) reports.push(parsed as CoverageReport);
  }
  return reports.length === 0 ? undefined : mergeCoverage(reports);
}

/**
 * Writes `coverage.json` (the report, 2-space JSON) and `index.html` (the summary, the
 * never-reached items, then a table per service; see {@link coverageHtml}) into `outDir`, creating it.
 * @returns the paths written.
 * @example writeCoverageReport(report, "infra-doubles-coverage") // { json: ".../coverage.json", html: ".../index.html" }
 */
export function writeCoverageReport(report: CoverageReport, outDir: string): { json: string; html: string } {
  const dir = resolve(outDir);
  mkdirSync(dir, { recursive: true });
  const json = join(dir, "coverage.json");
  const html = join(dir, "index.html");
  writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(html, coverageHtml(report));
  return { json, html };
}

/**
 * A vitest global setup (not a reporter) collecting the coverage of every doubles of the run: sets
 * `INFRA_DOUBLES_COVERAGE_DIR` for the workers (a fresh temporary directory, unless already set),
 * while which each doubles records the test file behind every row it counts (`CoverageTally.by`),
 * and returns the teardown that merges, prints the summary and writes the report.
 * Doubles hand over their coverage when they close (`await doubles.close()`, `await using`), or
 * when their worker process exits.
 * @example
 * // coverage-setup.ts, named in vitest.config.ts as globalSetup: ["./coverage-setup.ts"]
 * import { coverageGlobalSetup } from "infra-doubles/coverage";
 * export default coverageGlobalSetup({ outDir: "reports/doubles", maxNever: 20 });
 */
export function coverageGlobalSetup(options: CoverageSetupOptions = {}): () => () => void {
  return () => {
    const given = process.env[COVERAGE_DIR_ENV];
    const dir = given !== undefined && given !== "" ? given : mkdtempSync(join(tmpdir(), "infra-doubles-coverage-"));
    process.env[COVERAGE_DIR_ENV] = dir;
    return () => {
      const report = readCoverageDir(dir);
      if (given === undefined || given === "") rmSync(dir, { recursive: true, force: true });
      const log = options.log === undefined ? (text: string) => console.log(text) : options.log;
      if (report === undefined) {
        if (log) log("infra-doubles coverage: no doubles reported coverage (were they closed?)");
        return;
      }
      const outDir = options.outDir ?? process.env[COVERAGE_OUT_ENV] ?? DEFAULT_COVERAGE_OUT;
      const written = writeCoverageReport(report, outDir);
      if (log) {
        const summary = formatCoverageSummary(report, options.maxNever === undefined ? {} : { maxNever: options.maxNever });
        log(`infra-doubles coverage (${written.html})\n${summary}`);
      }
    };
  };
}

/**
 * The default global setup: `globalSetup: ["infra-doubles/coverage"]` in `vitest.config.ts`
 * (report in `infra-doubles-coverage/`, or `$INFRA_DOUBLES_COVERAGE_OUT`).
 */
const setup: () => () => void = coverageGlobalSetup();
export default setup;

