/**
 * The vitest coverage helper: merging coverage files (deterministic, whatever the order), the
 * summary, the JSON and HTML written, and one real vitest run of a tiny fixture project whose two
 * test files (two workers) are merged by the global setup.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createDoubles } from "../../src/scenarios/doubles.js";
import { machineTransitions } from "../../src/simulator/kernel/machine.js";
import { runMachine } from "../../src/simulator/runs/run-machine.js";
import { COVERAGE_DIR_ENV, coverageGlobalSetup, coverageHtml, formatCoverageSummary, mergeCoverage, readCoverageDir, writeCoverageReport, type CoverageReport } from "../../src/vitest/coverage.js";

const temps: string[] = [];
const temp = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "coverage-test-"));
  temps.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Two reports from doubles that exercised different things. */
async function twoReports(): Promise<[CoverageReport, CoverageReport]> {
  const a = createDoubles();
  const b = createDoubles({ baseUrls: { secrets: "https://other-secrets.test/v1" } });
  await a.handler.handle({ method: "GET", url: new URL(`${a.baseUrls().secrets.api}/sys/health`), headers: {}, body: new Uint8Array() });
  b.secrets.setNodeState("standby");
  await b.handler.handle({ method: "GET", url: new URL(`${b.baseUrls().secrets.api}/sys/health`), headers: {}, body: new Uint8Array() });
  await b.handler.handle({ method: "GET", url: new URL(`${b.baseUrls().secrets.api}/sys/health`), headers: {}, body: new Uint8Array() });
  return [a.coverage(), b.coverage()];
}

describe("merging coverage", () => {
  it("adds counts up and lists never-reached items sorted, whatever the order of the files", async () => {
    const [a, b] = await twoReports();
    const merged = mergeCoverage([a, b]);
    expect(JSON.stringify(mergeCoverage([b, a]))).toBe(JSON.stringify(merged));
    expect(merged.services.secrets!.events["health code"]!.reached).toEqual({ activecode: 1, standbycode: 2 });
    expect(merged.services.secrets!.endpoints.statuses["GET /sys/health"]).toEqual({ "200": 1, "429": 2 });
    const never = merged.services.secrets!.events["node state"]!.never;
    expect(never).toEqual([...never].sort());
    expect(merged.services.secrets!.events["node state"]!.exercised + never.length).toBe(7);

    const dir = temp();
    writeFileSync(join(dir, "z.json"), JSON.stringify(a));
    writeFileSync(join(dir, "a.json"), JSON.stringify(b));
    writeFileSync(join(dir, "cut-short.json"), '{"format":"infra-');
    writeFileSync(join(dir, "other.json"), "{}");
    expect(readCoverageDir(dir)).toEqual(merged);
    expect(readCoverageDir(join(dir, "missing"))).toBeUndefined();
    expect(() => mergeCoverage([{} as CoverageReport])).toThrow("not a coverage report");
  });

  it("writes coverage.json and a self-contained HTML page with never-reached rows highlighted", async () => {
    const merged = mergeCoverage(await twoReports());
    const out = join(temp(), "report");
    const written = writeCoverageReport(merged, out);
    expect(JSON.parse(readFileSync(written.json, "utf8"))).toEqual(merged);
    const html = readFileSync(written.html, "utf8");
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/<script|<link|src=|href=/);
    expect(html).toContain('<tr class="never"><td>sealedcode</td><td class="n">0</td></tr>');
    expect(html).toContain("<tr><td>GET /sys/health</td><td class=\"n\">3</td><td>200 x1, 429 x2</td></tr>");
    expect(html).toContain("<caption>run transitions: 0/");
  });

  it("puts the summary first (numbers as in the report), then what was never reached, then every row", async () => {
    // Regression (issue 22, item 13): the page began with the first service's tables, no summary.
    const merged = mergeCoverage(await twoReports());
    const html = coverageHtml(merged);
    const summaryAt = html.indexOf('<h2 id="summary">Summary</h2>');
    const neverAt = html.indexOf('<h2 id="never">Never reached</h2>');
    const detailsAt = html.indexOf('<h2 id="details">');
    expect(summaryAt).toBeGreaterThan(0);
    expect(html.indexOf("<table")).toBeGreaterThan(summaryAt);
    expect(neverAt).toBeGreaterThan(summaryAt);
    expect(detailsAt).toBeGreaterThan(neverAt);
    expect(html.indexOf("<h2>runs</h2>")).toBeGreaterThan(detailsAt);

    // Every summary row, read back from the page, against the report.
    const summary = html.slice(summaryAt, neverAt);
    const read = [...summary.matchAll(/<tr(?: class="total")?><td>([^<]*)<\/td><td>([^<]*)<\/td><td class="n">(\d+)<\/td><td class="n">(\d+)<\/td><td class="n">([^<]*)<\/td><\/tr>/g)].map((m) => m.slice(1));
    const expected: string[][] = [];
    for (const [key, service] of Object.entries(merged.services)) {
      const dims: [string, { exercised: number; total: number }][] = [["endpoints", service.endpoints]];
      for (const [name, machine] of Object.entries(service.machines)) dims.push([`${name} states`, machine.states], [`${name} transitions`, machine.transitions]);
      for (const [subject, events] of Object.entries(service.events)) dims.push([`${subject} events`, events]);
      for (const [name, t] of dims) expected.push([key, name, String(t.exercised), String(t.total), `${Math.floor((t.exercised * 100) / t.total)}%`]);
      const reached = dims.reduce((n, [, t]) => n + t.exercised, 0);
      const total = dims.reduce((n, [, t]) => n + t.total, 0);
      expected.push([key, "all", String(reached), String(total), `${Math.floor((reached * 100) / total)}%`]);
    }
    expect(read).toEqual(expected);
    expect(read).toContainEqual(["secrets", "health code events", "2", "6", "33%"]);

    // The never-reached list names every never-reached item once, under its service and dimension.
    const diagramsAt = html.indexOf('<h2 id="diagrams">');
    expect(diagramsAt).toBeGreaterThan(neverAt);
    expect(detailsAt).toBeGreaterThan(diagramsAt);
    const never = html.slice(neverAt, diagramsAt);
    expect(never).toContain("<h3>secrets</h3>");
    expect(never).toContain("<li>health code events (4 of 6): <code>drsecondarycode</code>, <code>performancestandbycode</code>, <code>sealedcode</code>, <code>uninitcode</code></li>");
    const neverCount = Object.values(merged.services).reduce(
      (n, s) => n + [s.endpoints, ...Object.values(s.events), ...Object.values(s.machines).flatMap((m) => [m.states, m.transitions])].reduce((k, t) => k + t.never.length, 0),
      0,
    );
    expect([...never.matchAll(/<code>/g)].length).toBe(neverCount);
    // No test files recorded outside a coverage run: no such column.
    expect(html).not.toContain("test files");
  });

  it("names the test file that reached each row while a run collects coverage (vitest's worker state)", async () => {
    const saved = process.env[COVERAGE_DIR_ENV];
    process.env[COVERAGE_DIR_ENV] = temp();
    try {
      await using doubles = createDoubles();
      await doubles.handler.handle({ method: "GET", url: new URL(`${doubles.baseUrls().secrets.api}/sys/health`), headers: {}, body: new Uint8Array() });
      doubles.runs.addWorkspace(doubles.runs.addOrganization("acme"), { name: "prod" });
      const report = doubles.coverage();
      const self = "test/vitest/coverage-run.test.ts";
      expect(report.services.secrets!.endpoints.by).toEqual({ "GET /sys/health": [self] });
      expect(report.services.secrets!.events["health code"]!.by).toEqual({ activecode: [self] });
      expect(report.services.runs!.endpoints.by).toBeUndefined();
      // Merging unions the files, sorted.
      const other = JSON.parse(JSON.stringify(report).replaceAll(self, "test/other.test.ts")) as CoverageReport;
      expect(mergeCoverage([report, other]).services.secrets!.endpoints.by).toEqual({ "GET /sys/health": ["test/other.test.ts", self] });
      expect(coverageHtml(report)).toContain(`<tr><td>GET /sys/health</td><td class="n">1</td><td>200 x1</td><td>${self}</td></tr>`);
    } finally {
      if (saved === undefined) delete process.env[COVERAGE_DIR_ENV];
      else process.env[COVERAGE_DIR_ENV] = saved;
    }
    // Outside a coverage run, no files are recorded.
    const plain = createDoubles();
    await plain.handler.handle({ method: "GET", url: new URL(`${plain.baseUrls().secrets.api}/sys/health`), headers: {}, body: new Uint8Array() });
    expect(plain.coverage().services.secrets!.endpoints.by).toBeUndefined();
  });

  it("summarises each service in a line, then what it never reached", async () => {
    const merged = mergeCoverage(await twoReports());
    const summary = formatCoverageSummary(merged, { maxNever: 2 });
    // Everything never reached, of every dimension, minus the two named.
    const more = (key: string): number => {
      const service = merged.services[key]!;
      const tallies = [service.endpoints, ...Object.values(service.events), ...Object.values(service.machines).flatMap((m) => [m.states, m.transitions])];
      return tallies.reduce((n, t) => n + t.never.length, 0) - 2;
    };
    expect(summary.split("\n")).toEqual([
      "accessControl: endpoints 0/29; token 0/8",
      `  never reached: token: cloned, token: created, and ${more("accessControl")} more`,
      `runs: endpoints 0/40; configuration version 0/5 states, 0/6 transitions; run 0/27 states, 0/${machineTransitions(runMachine).length} transitions`,
      `  never reached: configuration version: fetching -> errored, configuration version: fetching -> uploaded, and ${more("runs")} more`,
      "secrets: endpoints 1/79; health code 2/6; lease 0/4; node state 2/7; token 0/2",
      `  never reached: health code: drsecondarycode, health code: performancestandbycode, and ${more("secrets")} more`,
    ]);
  });

  it("as a global setup, gives the workers a directory and merges it at teardown", async () => {
    const [a] = await twoReports();
    const out = join(temp(), "out");
    const logged: string[] = [];
    const saved = process.env[COVERAGE_DIR_ENV];
    delete process.env[COVERAGE_DIR_ENV];
    try {
      const teardown = coverageGlobalSetup({ outDir: out, log: (text) => logged.push(text) })();
      const dir = process.env[COVERAGE_DIR_ENV] ?? "";
      writeFileSync(join(dir, "coverage-1.json"), JSON.stringify(a));
      teardown();
      expect(existsSync(dir)).toBe(false);
    } finally {
      if (saved === undefined) delete process.env[COVERAGE_DIR_ENV];
      else process.env[COVERAGE_DIR_ENV] = saved;
    }
    expect(JSON.parse(readFileSync(join(out, "coverage.json"), "utf8"))).toEqual(a);
    expect(logged[0]).toContain("secrets: endpoints 1/79; health code 1/6");
  });
});

describe("a real vitest run", () => {
  it("merges the coverage of every test file's doubles, prints the summary and writes the report", { timeout: 180_000 }, () => {
    const out = temp();
    const env: Record<string, string | undefined> = { ...process.env, INFRA_DOUBLES_COVERAGE_OUT: out, FORCE_COLOR: "0", NO_COLOR: "1" };
    delete env[COVERAGE_DIR_ENV];
    delete env.VITEST;
    delete env.VITEST_WORKER_ID;
    delete env.VITEST_POOL_ID;
    const result = spawnSync("npx", ["vitest", "run", "--config", "test/fixtures/coverage-project/vitest.config.ts"], { env, encoding: "utf8", timeout: 170_000 });
    expect(result.status, result.stdout + result.stderr).toBe(0);
    const transitions = machineTransitions(runMachine).length;
    expect(result.stdout).toContain(`runs: endpoints 4/40; configuration version 2/5 states, 1/6 transitions; run 2/27 states, 1/${transitions} transitions`);
    expect(result.stdout).toContain("secrets: endpoints 1/79; health code 2/6; lease 0/4; node state 2/7; token 0/2");
    const report = JSON.parse(readFileSync(join(out, "coverage.json"), "utf8")) as CoverageReport;
    expect(report.services.runs!.machines.run!.transitions.reached).toEqual({ "pending -> discarded": 1 });
    expect(report.services.secrets!.events["health code"]!.reached).toEqual({ activecode: 1, sealedcode: 1 });
    const html = readFileSync(join(out, "index.html"), "utf8");
    expect(html).toContain("<h2>secrets</h2>");
    // Each row names the fixture test file that reached it (paths relative to the project's root).
    expect(report.services.runs!.machines.run!.transitions.by).toEqual({ "pending -> discarded": ["runs.fixture.ts"] });
    expect(report.services.secrets!.endpoints.by).toEqual({ "GET /sys/health": ["secrets.fixture.ts"] });
    expect(report.services.secrets!.events["health code"]!.by).toEqual({ activecode: ["secrets.fixture.ts"], sealedcode: ["secrets.fixture.ts"] });
    expect(html).toContain('<tr><td>GET /sys/health</td><td class="n">2</td><td>200 x1, 503 x1</td><td>secrets.fixture.ts</td></tr>');
    expect(html).toContain('<tr><td>pending -&#62; discarded</td><td class="n">1</td><td>runs.fixture.ts</td></tr>');
    expect(html.indexOf('<h2 id="summary">')).toBeLessThan(html.indexOf("<h2>runs</h2>"));
  });
});
