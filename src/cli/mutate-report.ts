/**
 * The reports of `infra-doubles mutate`: the JSON report (stable key order, mutants in catalogue
 * order, nothing that depends on the machine or the finishing order: the same mutant set, seed
 * and suite give the same bytes), the terminal summary, and a self-contained HTML page.
 */
import { mutantCommandLine, mutantSnippet } from "../scenarios/mutants/snippet.js";
import { MUTANT_OPERATORS, type Mutant } from "../scenarios/mutants/types.js";

/** The `format` of the JSON report. */
export const MUTATE_REPORT_FORMAT = "infra-doubles-mutate/1";

/** What became of one mutant. */
export type MutantOutcome =
  /** The suite failed (exited non-zero) against it. */
  | "killed"
  /** The suite passed against it: a behaviour the suite does not notice. */
  | "survived"
  /** The suite ran past `--timeout` against it (counted as noticed: a client that hangs was affected). */
  | "timed-out"
  /** No test reached the mutated rule in the faithful run: not run (it cannot change what any test sees). */
  | "not-reached";

/** Every outcome, in report order. */
export const MUTANT_OUTCOMES: readonly MutantOutcome[] = Object.freeze(["killed", "timed-out", "survived", "not-reached"]);

/** One mutant's result, as the report takes it. */
export interface MutantResult {
  readonly mutant: Mutant;
  readonly outcome: MutantOutcome;
  /** The test files its run was limited to; `null` when the whole command ran (or none did). */
  readonly files: readonly string[] | null;
  /** The command it ran with (files included); absent when not reached. */
  readonly command?: readonly string[];
}

/** Counts per outcome. */
export interface OutcomeCounts {
  readonly killed: number;
  readonly timedOut: number;
  readonly survived: number;
  readonly notReached: number;
}

/** The JSON report's summary. */
export interface MutateSummary extends OutcomeCounts {
  readonly mutants: number;
  /** (killed + timed out) / mutants, percent (2 decimals); `null` with no mutant. */
  readonly score: number | null;
  /** (killed + timed out) / reached mutants, percent (2 decimals); `null` when none was reached. */
  readonly reachedScore: number | null;
}

/** One mutant in the JSON report. */
export interface MutantReportEntry {
  readonly id: string;
  readonly service: string;
  readonly operator: string;
  readonly description: string;
  readonly outcome: MutantOutcome;
  /** `files`: only the test files that reached the rule ran; `all`: the whole command; `none`: not reached. */
  readonly ran: "files" | "all" | "none";
  readonly files: readonly string[];
  /** The shell line that runs the suite (as run here) against this mutant; `null` when not reached. */
  readonly commandLine: string | null;
  /** For a survivor: the scenario-document snippet that reproduces it; else `null`. */
  readonly snippet: string | null;
}

/** The JSON report (`--json FILE`). */
export interface MutateReport {
  readonly format: typeof MUTATE_REPORT_FORMAT;
  readonly command: readonly string[];
  /** How the mutants were chosen (the options given; `null` when not given). */
  readonly selection: {
    readonly services: readonly string[] | null;
    readonly operators: readonly string[] | null;
    readonly maxMutants: number | null;
    readonly seed: number | string;
  };
  readonly summary: MutateSummary;
  /** Per operator that has mutants, in {@link MUTANT_OPERATORS} order. */
  readonly byOperator: Readonly<Record<string, OutcomeCounts>>;
  /** Per service that has mutants, in catalogue order. */
  readonly byService: Readonly<Record<string, OutcomeCounts>>;
  /** Every mutant, in catalogue order. */
  readonly mutants: readonly MutantReportEntry[];
}

function count(results: readonly MutantResult[]): OutcomeCounts {
  const of = (outcome: MutantOutcome): number => results.filter((r) => r.outcome === outcome).length;
  return { killed: of("killed"), timedOut: of("timed-out"), survived: of("survived"), notReached: of("not-reached") };
}

function percent(part: number, whole: number): number | null {
  return whole === 0 ? null : Math.round((part / whole) * 10_000) / 100;
}

/**
 * The JSON report of `results` (given in catalogue order).
 * @example JSON.stringify(mutateReport(results, { command: ["npx", "vitest", "run"], seed: 1 }), null, 2)
 */
export function mutateReport(
  results: readonly MutantResult[],
  options: { readonly command: readonly string[]; readonly services?: readonly string[]; readonly operators?: readonly string[]; readonly maxMutants?: number; readonly seed: number | string },
): MutateReport {
  const counts = count(results);
  const noticed = counts.killed + counts.timedOut;
  const byOperator: Record<string, OutcomeCounts> = {};
  for (const operator of MUTANT_OPERATORS) {
    const of = results.filter((r) => r.mutant.operator === operator);
    if (of.length > 0) byOperator[operator] = count(of);
  }
  for (const r of results) if (byOperator[r.mutant.operator] === undefined) byOperator[r.mutant.operator] = count(results.filter((o) => o.mutant.operator === r.mutant.operator));
  const byService: Record<string, OutcomeCounts> = {};
  for (const r of results) if (byService[r.mutant.service] === undefined) byService[r.mutant.service] = count(results.filter((o) => o.mutant.service === r.mutant.service));
  return {
    format: MUTATE_REPORT_FORMAT,
    command: [...options.command],
    selection: { services: options.services ?? null, operators: options.operators ?? null, maxMutants: options.maxMutants ?? null, seed: options.seed },
    summary: { mutants: results.length, ...counts, score: percent(noticed, results.length), reachedScore: percent(noticed, results.length - counts.notReached) },
    byOperator,
    byService,
    mutants: results.map((r) => ({
      id: r.mutant.id,
      service: r.mutant.service,
      operator: r.mutant.operator,
      description: r.mutant.description,
      outcome: r.outcome,
      ran: r.outcome === "not-reached" ? "none" : r.files === null ? "all" : "files",
      files: r.files ?? [],
      commandLine: r.command === undefined ? null : mutantCommandLine(r.mutant, r.command),
      snippet: r.outcome === "survived" ? mutantSnippet(r.mutant) : null,
    })),
  };
}

/** A score as text: `75.5% (151/200)`, or `n/a` with nothing to count. */
function scoreText(score: number | null, part: number, whole: number): string {
  return score === null ? "n/a" : `${score.toFixed(1)}% (${part}/${whole})`;
}

/** The table rows of a per-operator or per-service record. */
function table(title: string, rows: Readonly<Record<string, OutcomeCounts>>): string[] {
  const names = Object.keys(rows);
  const width = Math.max(title.length, ...names.map((n) => n.length));
  const head = `${title.padEnd(width)}  killed  timed out  survived  not reached`;
  const lines = [head];
  for (const name of names) {
    const c = rows[name] as OutcomeCounts;
    lines.push(`${name.padEnd(width)}  ${String(c.killed).padStart(6)}  ${String(c.timedOut).padStart(9)}  ${String(c.survived).padStart(8)}  ${String(c.notReached).padStart(11)}`);
  }
  return lines;
}

/**
 * The terminal report: the counts and the two scores, a table per operator and per service, then
 * each survivor in words with its snippet and the line that runs the suite against it, and the
 * mutants no test reached.
 * @example io.stdout.write(formatMutateReport(report));
 */
export function formatMutateReport(report: MutateReport): string {
  const s = report.summary;
  const noticed = s.killed + s.timedOut;
  const lines = [
    `infra-doubles mutate: ${s.mutants} mutants: ${s.killed} killed, ${s.timedOut} timed out, ${s.survived} survived, ${s.notReached} not reached`,
    `mutation score ${scoreText(s.score, noticed, s.mutants)}; among the mutants a test reached ${scoreText(s.reachedScore, noticed, s.mutants - s.notReached)}`,
    "",
    ...table("operator", report.byOperator),
    "",
    ...table("service", report.byService),
  ];
  const survivors = report.mutants.filter((m) => m.outcome === "survived");
  if (survivors.length > 0) {
    lines.push("", `${survivors.length} survivor${survivors.length === 1 ? "" : "s"}:`);
    for (const m of survivors) {
      lines.push(
        "",
        `${m.id}`,
        `  your suite passes when ${m.description}`,
        "  the scenario document that reproduces it (createDoubles({ scenario }), serve --scenario):",
        ...(m.snippet ?? "").trimEnd().split("\n").map((line) => `    ${line}`),
        "  the suite against it:",
        `    $ ${m.commandLine ?? ""}`,
      );
    }
  }
  const notReached = report.mutants.filter((m) => m.outcome === "not-reached");
  if (notReached.length > 0) {
    lines.push("", `${notReached.length} mutant${notReached.length === 1 ? "" : "s"} no test reached (not run: no test exercises the rule):`);
    const shown = notReached.slice(0, 20);
    for (const m of shown) lines.push(`  ${m.id}`);
    if (notReached.length > shown.length) lines.push(`  ... and ${notReached.length - shown.length} more (--json or --html lists them all)`);
  }
  return `${lines.join("\n")}\n`;
}

/** Text as HTML (every character that could open markup or an attribute escaped). */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function htmlTable(title: string, rows: Readonly<Record<string, OutcomeCounts>>): string {
  const body = Object.entries(rows)
    .map(([name, c]) => `<tr><td>${escapeHtml(name)}</td><td class="n">${c.killed}</td><td class="n">${c.timedOut}</td><td class="n">${c.survived}</td><td class="n">${c.notReached}</td></tr>`)
    .join("\n");
  return `<table><thead><tr><th>${escapeHtml(title)}</th><th>killed</th><th>timed out</th><th>survived</th><th>not reached</th></tr></thead>\n<tbody>\n${body}\n</tbody></table>`;
}

/**
 * The HTML report (`--html FILE`): one self-contained page (no script, no external resource),
 * with the summary, the tables, the survivors (snippet and command line) and every mutant; every
 * value from the command, the catalogue or the coverage is escaped.
 * @example writeFileSync("mutants.html", mutateHtml(report));
 */
export function mutateHtml(report: MutateReport): string {
  const s = report.summary;
  const noticed = s.killed + s.timedOut;
  const survivors = report.mutants.filter((m) => m.outcome === "survived");
  const survivorHtml = survivors
    .map(
      (m) =>
        `<section class="survivor"><h3>${escapeHtml(m.id)}</h3><p>Your suite passes when ${escapeHtml(m.description)}</p>\n<pre>${escapeHtml(m.snippet ?? "")}</pre>\n<pre>$ ${escapeHtml(m.commandLine ?? "")}</pre></section>`,
    )
    .join("\n");
  const rows = report.mutants
    .map((m) => `<tr class="${m.outcome}"><td>${escapeHtml(m.id)}</td><td>${escapeHtml(m.operator)}</td><td>${escapeHtml(m.service)}</td><td>${m.outcome}</td><td>${escapeHtml(m.description)}</td><td>${m.ran === "files" ? m.files.map(escapeHtml).join("<br>") : m.ran}</td></tr>`)
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>infra-doubles mutate</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em;max-width:80em}table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}
td.n{text-align:right}pre{background:#f6f6f6;padding:.5em;overflow-x:auto}tr.survived td{background:#fde8e8}tr.not-reached td{color:#777}.survivor{border-left:4px solid #c33;padding-left:1em;margin:1em 0}
</style></head><body>
<h1>infra-doubles mutate</h1>
<p><code>${escapeHtml(report.command.join(" "))}</code></p>
<h2 id="summary">Summary</h2>
<p>${s.mutants} mutants: ${s.killed} killed, ${s.timedOut} timed out, ${s.survived} survived, ${s.notReached} not reached.</p>
<p>Mutation score ${escapeHtml(scoreText(s.score, noticed, s.mutants))}; among the mutants a test reached ${escapeHtml(scoreText(s.reachedScore, noticed, s.mutants - s.notReached))}.</p>
${htmlTable("operator", report.byOperator)}
${htmlTable("service", report.byService)}
<h2 id="survivors">Survivors (${survivors.length})</h2>
${survivorHtml || "<p>None: the suite noticed every mutant it reached.</p>"}
<h2 id="mutants">Every mutant</h2>
<table><thead><tr><th>id</th><th>operator</th><th>service</th><th>outcome</th><th>behaviour</th><th>ran</th></tr></thead>
<tbody>
${rows}
</tbody></table>
</body></html>
`;
}
