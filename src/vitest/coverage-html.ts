/**
 * The coverage report as one self-contained HTML page, read top-down: a summary first (reached /
 * total per service and per dimension), then everything never reached, then a table per service
 * (endpoints with the statuses answered, each machine's states and transitions, each event
 * subject) whose rows name the test files that reached them when the run recorded them, and the
 * state diagram of every transition table with the transitions reached (and how often) and never
 * reached drawn. No scripts, no external assets (the diagrams are inline SVG).
 */
import type { CoverageReport, CoverageTally, EndpointTally, ServiceCoverage } from "../scenarios/coverage/report.js";
import { coverageMarks, STATE_TABLES, stateDiagramSvg } from "../scenarios/diagrams/index.js";

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}
h1{font-size:1.4em}h2{font-size:1.2em;margin-top:2em}h3{font-size:1.05em}
table{border-collapse:collapse;margin:.5em 0 1.5em;min-width:40em}
th,td{border:1px solid #ccc;padding:.2em .6em;text-align:left;vertical-align:top}
th{background:#f3f3f3}td.n{text-align:right}tr.total td{font-weight:600}
tr.never td{background:#fde2e2;color:#8a1c1c}
caption{text-align:left;font-weight:600;padding:.3em 0}
ul.never li{margin:.3em 0}ul.never code{background:#fde2e2;color:#8a1c1c;padding:0 .2em}
figure.diagram{margin:1em 0 2em;overflow-x:auto}figure.diagram svg{max-width:100%;height:auto}
figcaption{font-weight:600;margin:.3em 0}`;

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** One dimension of a service: its name as the page shows it, and its tally. */
interface Dimension {
  readonly name: string;
  readonly tally: CoverageTally;
}

/** The dimensions of `service` in page order: endpoints, each machine's states and transitions, each event subject. */
function dimensionsOf(service: ServiceCoverage): Dimension[] {
  const out: Dimension[] = [{ name: "endpoints", tally: service.endpoints }];
  for (const [name, machine] of Object.entries(service.machines)) {
    out.push({ name: `${name} states`, tally: machine.states }, { name: `${name} transitions`, tally: machine.transitions });
  }
  for (const [subject, events] of Object.entries(service.events)) out.push({ name: `${subject} events`, tally: events });
  return out;
}

function percent(reached: number, total: number): string {
  return total === 0 ? "-" : `${Math.floor((reached * 100) / total)}%`;
}

function summaryRow(cells: readonly string[], reached: number, total: number, cls?: string): string {
  return `<tr${cls ? ` class="${cls}"` : ""}>${cells.map((c) => `<td>${escape(c)}</td>`).join("")}<td class="n">${reached}</td><td class="n">${total}</td><td class="n">${percent(reached, total)}</td></tr>`;
}

/** The summary table: a row per service and dimension, then the service's total. */
function summary(report: CoverageReport): string {
  const rows: string[] = [];
  for (const [key, service] of Object.entries(report.services)) {
    let reached = 0;
    let total = 0;
    for (const { name, tally } of dimensionsOf(service)) {
      rows.push(summaryRow([key, name], tally.exercised, tally.total));
      reached += tally.exercised;
      total += tally.total;
    }
    rows.push(summaryRow([key, "all"], reached, total, "total"));
  }
  return `<h2 id="summary">Summary</h2>
<table class="summary"><tr><th>service</th><th>dimension</th><th>reached</th><th>total</th><th>%</th></tr>
${rows.join("\n")}
</table>`;
}

/** Everything never reached, per service and dimension. */
function neverReached(report: CoverageReport): string {
  const parts: string[] = [];
  for (const [key, service] of Object.entries(report.services)) {
    const items = dimensionsOf(service)
      .filter(({ tally }) => tally.never.length > 0)
      .map(({ name, tally }) => `<li>${escape(name)} (${tally.never.length} of ${tally.total}): ${tally.never.map((label) => `<code>${escape(label)}</code>`).join(", ")}</li>`);
    parts.push(`<h3>${escape(key)}</h3>\n${items.length === 0 ? "<p>Everything was reached.</p>" : `<ul class="never">\n${items.join("\n")}\n</ul>`}`);
  }
  return `<h2 id="never">Never reached</h2>\n${parts.join("\n")}`;
}

function rows(tally: CoverageTally, withFiles: boolean, detail?: (label: string) => string): string {
  const reached = Object.entries(tally.reached).map(
    ([label, count]) =>
      `<tr><td>${escape(label)}</td><td class="n">${count}</td>${detail ? `<td>${escape(detail(label))}</td>` : ""}${withFiles ? `<td>${escape((tally.by?.[label] ?? []).join(", "))}</td>` : ""}</tr>`,
  );
  const never = tally.never.map(
    (label) => `<tr class="never"><td>${escape(label)}</td><td class="n">0</td>${detail ? "<td>never reached</td>" : ""}${withFiles ? "<td></td>" : ""}</tr>`,
  );
  return [...reached, ...never].join("\n");
}

function table(caption: string, tally: CoverageTally, withFiles: boolean, detail?: (label: string) => string): string {
  const head = `<tr><th>item</th><th>times</th>${detail ? "<th>statuses</th>" : ""}${withFiles ? "<th>test files</th>" : ""}</tr>`;
  return `<table><caption>${escape(caption)}: ${tally.exercised}/${tally.total}</caption>\n${head}\n${rows(tally, withFiles, detail)}\n</table>`;
}

function statusesOf(endpoints: EndpointTally): (label: string) => string {
  return (label) =>
    Object.entries(endpoints.statuses[label] ?? {})
      .map(([status, count]) => `${status} x${count}`)
      .join(", ");
}

/**
 * The state diagrams of the services in `report` (`<h2 id="diagrams">`): one inline SVG per
 * transition table, its arrows marked taken (with counts) or never taken.
 */
function diagrams(report: CoverageReport): string {
  const figures = STATE_TABLES.filter((table) => report.services[table.service] !== undefined).map((table) => {
    const marks = coverageMarks(table, report);
    const counted = marks.transitions?.filter((count) => count !== undefined) ?? [];
    const reached = counted.filter((count) => (count ?? 0) > 0).length;
    return `<figure class="diagram" id="diagram-${escape(table.name)}"><figcaption>${escape(`${table.title} (${table.service}): ${reached}/${counted.length} transitions reached`)}</figcaption>
${stateDiagramSvg(table, marks)}</figure>`;
  });
  if (figures.length === 0) return "";
  return `<h2 id="diagrams">State diagrams</h2>
<p>Each transition table drawn: green arrows were taken (with how often), red dashed ones never; grey ones coverage does not count. <code>infra-doubles diagram TABLE --coverage coverage.json</code> prints the same as Mermaid text.</p>
${figures.join("\n")}`;
}

/** Whether any row of `report` names the test files that reached it. */
function hasFiles(report: CoverageReport): boolean {
  return Object.values(report.services).some((service) => dimensionsOf(service).some(({ tally }) => tally.by !== undefined));
}

/**
 * The page for `report`: the summary table (`<h2 id="summary">`: reached, total and percentage per
 * service and dimension, and each service's total), then the never-reached items (`<h2
 * id="never">`), then the state diagrams (`<h2 id="diagrams">`, one `<figure id="diagram-runs">` per
 * transition table of the services in the report), then a table per service (`<h2>runs</h2>`, ...) with a "test files" column when
 * the report has `by` (collected under the vitest global setup).
 * @example writeFileSync("coverage.html", coverageHtml(mergeCoverage(reports)));
 */
export function coverageHtml(report: CoverageReport): string {
  const withFiles = hasFiles(report);
  const sections: string[] = [];
  for (const [key, service] of Object.entries(report.services)) {
    const parts = [`<h2>${escape(key)}</h2>`, table("endpoints", service.endpoints, withFiles, statusesOf(service.endpoints))];
    const unmatched = Object.entries(service.unmatched);
    if (unmatched.length > 0) parts.push(`<p>Answers that reached no endpoint: ${escape(unmatched.map(([status, count]) => `${status} x${count}`).join(", "))}</p>`);
    for (const [name, machine] of Object.entries(service.machines)) {
      parts.push(table(`${name} states`, machine.states, withFiles), table(`${name} transitions`, machine.transitions, withFiles));
    }
    for (const [subject, events] of Object.entries(service.events)) parts.push(table(subject, events, withFiles));
    sections.push(parts.join("\n"));
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>infra-doubles coverage</title><style>${STYLE}</style></head>
<body><h1>infra-doubles coverage</h1>
<p>What the tests exercised in each simulated service, against the fake's own route and transition tables: the summary, then what was never reached, then every row${withFiles ? " with the test files that reached it" : ""}.</p>
${summary(report)}
${neverReached(report)}
${diagrams(report)}
<h2 id="details">Every row</h2>
${sections.join("\n")}
</body></html>
`;
}
