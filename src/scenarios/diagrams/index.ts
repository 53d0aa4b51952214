/**
 * State diagrams of the fake's transition tables (runs, configuration versions, access-control
 * tokens, secrets tokens, leases, node states), as Mermaid `stateDiagram-v2` text or as an SVG the
 * package draws itself, optionally marked with a coverage report's counts and the number of stored
 * items in each state now. Used by `infra-doubles diagram`, `GET /_sim/diagrams/:table` and the
 * coverage HTML page.
 *
 * See docs/guides/see-what-your-tests-never-exercised.md and docs/decisions/coverage.md.
 */
import type { Simulator } from "../../simulator/kernel/simulator.js";
import type { CoverageReport } from "../coverage/report.js";
import { stateDiagramMermaid } from "./mermaid.js";
import { stateDiagramSvg } from "./svg.js";
import { coverageMarks, STATE_TABLES, stateTable, type DiagramMarks, type StateTable } from "./tables.js";

export { mermaidId, stateDiagramMermaid } from "./mermaid.js";
export { stateDiagramSvg } from "./svg.js";
export { coverageMarks, START, STATE_TABLES, stateTable, tableSummary, type StateTableSummary, type CountedBy, type DiagramMarks, type DiagramTransition, type StateTable } from "./tables.js";

/** The formats a diagram is written in. */
export const DIAGRAM_FORMATS = ["mermaid", "svg"] as const;

/** One {@link DIAGRAM_FORMATS} entry. */
export type DiagramFormat = (typeof DIAGRAM_FORMATS)[number];

/** What {@link stateDiagram} marks on a table. */
export interface StateDiagramOptions {
  /** `mermaid` (default) or `svg`. */
  readonly format?: DiagramFormat;
  /** A coverage report (`doubles.coverage()`, a merged `coverage.json`): arrows taken and never taken, with counts. */
  readonly coverage?: CoverageReport;
  /** A simulator whose stored items are counted per state (the "now N" marks). */
  readonly sim?: Simulator;
}

/**
 * The diagram of the table called `name` (`runs`, `configuration-versions`, `acl-tokens`,
 * `secrets-tokens`, `leases`, `node-states`).
 * @throws {RangeError} for an unknown table, naming the known ones.
 * @example writeFileSync("runs.mmd", stateDiagram("runs", { coverage: doubles.coverage() }));
 */
export function stateDiagram(name: string, options: StateDiagramOptions = {}): string {
  const table = stateTable(name);
  if (table === undefined) throw new RangeError(`unknown state table "${name}"; the tables are ${STATE_TABLES.map((t) => t.name).join(", ")}`);
  const marks = diagramMarks(table, options);
  return (options.format ?? "mermaid") === "svg" ? stateDiagramSvg(table, marks) : stateDiagramMermaid(table, marks);
}

/**
 * The marks of `table` from a coverage report and a simulator (either may be absent).
 * @example diagramMarks(stateTable("leases")!, { sim: doubles.sim }).current?.get("live") // 2
 */
export function diagramMarks(table: StateTable, options: Pick<StateDiagramOptions, "coverage" | "sim">): DiagramMarks {
  return {
    ...(options.coverage === undefined ? {} : coverageMarks(table, options.coverage)),
    ...(options.sim === undefined ? {} : { current: table.current(options.sim) }),
  };
}
