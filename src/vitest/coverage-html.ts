/**
 * The coverage report as one self-contained HTML page: a table per service (endpoints with the
 * statuses answered, each machine's states and transitions, each event subject), never-reached
 * rows highlighted. No scripts, no external assets.
 */
import type { CoverageReport, CoverageTally, EndpointTally } from "../scenarios/coverage/report.js";

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}
h1{font-size:1.4em}h2{font-size:1.2em;margin-top:2em}
table{border-collapse:collapse;margin:.5em 0 1.5em;min-width:40em}
th,td{border:1px solid #ccc;padding:.2em .6em;text-align:left;vertical-align:top}
th{background:#f3f3f3}td.n{text-align:right}
tr.never td{background:#fde2e2;color:#8a1c1c}
caption{text-align:left;font-weight:600;padding:.3em 0}`;

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function rows(tally: CoverageTally, detail?: (label: string) => string): string {
  const reached = Object.entries(tally.reached).map(
    ([label, count]) => `<tr><td>${escape(label)}</td><td class="n">${count}</td>${detail ? `<td>${escape(detail(label))}</td>` : ""}</tr>`,
  );
  const never = tally.never.map((label) => `<tr class="never"><td>${escape(label)}</td><td class="n">0</td>${detail ? "<td>never reached</td>" : ""}</tr>`);
  return [...reached, ...never].join("\n");
}

function table(caption: string, tally: CoverageTally, detail?: (label: string) => string): string {
  const head = `<tr><th>item</th><th>times</th>${detail ? "<th>statuses</th>" : ""}</tr>`;
  return `<table><caption>${escape(caption)}: ${tally.exercised}/${tally.total}</caption>\n${head}\n${rows(tally, detail)}\n</table>`;
}

function statusesOf(endpoints: EndpointTally): (label: string) => string {
  return (label) =>
    Object.entries(endpoints.statuses[label] ?? {})
      .map(([status, count]) => `${status} x${count}`)
      .join(", ");
}

/**
 * The page for `report`.
 * @example writeFileSync("coverage.html", coverageHtml(mergeCoverage(reports)));
 */
export function coverageHtml(report: CoverageReport): string {
  const sections: string[] = [];
  for (const [key, service] of Object.entries(report.services)) {
    const parts = [`<h2>${escape(key)}</h2>`, table("endpoints", service.endpoints, statusesOf(service.endpoints))];
    const unmatched = Object.entries(service.unmatched);
    if (unmatched.length > 0) parts.push(`<p>Answers that reached no endpoint: ${escape(unmatched.map(([status, count]) => `${status} x${count}`).join(", "))}</p>`);
    for (const [name, machine] of Object.entries(service.machines)) {
      parts.push(table(`${name} states`, machine.states), table(`${name} transitions`, machine.transitions));
    }
    for (const [subject, events] of Object.entries(service.events)) parts.push(table(subject, events));
    sections.push(parts.join("\n"));
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>infra-doubles coverage</title><style>${STYLE}</style></head>
<body><h1>infra-doubles coverage</h1>
<p>What the tests exercised in each simulated service, against the fake's own route and transition tables. Rows never reached are highlighted.</p>
${sections.join("\n")}
</body></html>
`;
}
