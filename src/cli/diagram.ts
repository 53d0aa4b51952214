/**
 * `infra-doubles diagram TABLE [--format mermaid|svg] [--coverage FILE]` and `diagram --list`: a
 * state table drawn on stdout (docs/guides/see-what-your-tests-never-exercised.md).
 */
import { readFileSync } from "node:fs";
import { mergeCoverage, type CoverageReport } from "../scenarios/coverage/report.js";
import { STATE_TABLES, stateDiagram, tableSummary } from "../scenarios/diagrams/index.js";
import type { DiagramCommand } from "./args.js";

/** Where the command writes. */
interface Out {
  write(text: string): unknown;
}

/**
 * Runs a parsed `diagram` command.
 * @returns 0 when the diagram (or the list) was printed; 2 for an unknown table (the message
 *   names the tables) or a `--coverage` file that cannot be read or is not a coverage report.
 * @example runDiagram({ command: "diagram", table: "runs", list: false, format: "mermaid" }, process.stdout, process.stderr) // 0
 */
export function runDiagram(command: DiagramCommand, stdout: Out, stderr: Out): number {
  if (command.list) {
    const rows = STATE_TABLES.map(tableSummary);
    const width = Math.max(...rows.map((row) => row.name.length));
    for (const row of rows) stdout.write(`${row.name.padEnd(width)}  ${row.title} (${row.service}): ${row.states} states, ${row.transitions} transition${row.transitions === 1 ? "" : "s"}\n`);
    return 0;
  }
  const name = command.table ?? "";
  if (!STATE_TABLES.some((table) => table.name === name)) {
    stderr.write(`infra-doubles: unknown state table "${name}"; the tables are ${STATE_TABLES.map((table) => table.name).join(", ")}\n`);
    return 2;
  }
  let coverage: CoverageReport | undefined;
  if (command.coverage !== undefined) {
    try {
      coverage = mergeCoverage([JSON.parse(readFileSync(command.coverage, "utf8")) as CoverageReport]);
    } catch (error) {
      stderr.write(`infra-doubles: --coverage ${command.coverage}: ${(error as Error).message.replace(/^infra-doubles: /, "")}\n`);
      return 2;
    }
  }
  stdout.write(stateDiagram(name, { format: command.format, ...(coverage === undefined ? {} : { coverage }) }));
  return 0;
}
