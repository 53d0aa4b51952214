/**
 * A state table as Mermaid `stateDiagram-v2` text: one line per arrow in table order (entries from
 * `[*]` first, then every row; final states lead to `[*]` last), so the same table and marks give
 * the same bytes. With coverage marks, each counted arrow's label ends with its count (`start (3)`,
 * `start (never)`) and states are classed `reached` or `never`; with current counts, a state shows
 * `now N` and is classed `current`.
 */
import { START, type DiagramMarks, type StateTable } from "./tables.js";

/** Words Mermaid's state diagram grammar reads as keywords, never used bare as a state id. */
const RESERVED = new Set(["state", "note", "class", "classDef", "direction", "end", "as", "left", "right", "of", "style", "click", "hide", "default"]);

/**
 * The Mermaid id of a state: the name itself when it is a plain word, else the name with every
 * other character turned into `_` (and a `s_` prefix when it starts with a digit or is a keyword).
 * @example mermaidId("not-initialized") // "not_initialized"
 */
export function mermaidId(state: string): string {
  if (/^[A-Za-z][A-Za-z0-9_]*$/.test(state) && !RESERVED.has(state)) return state;
  const word = state.replace(/[^A-Za-z0-9_]/g, "_");
  return /^[A-Za-z]/.test(word) && !RESERVED.has(word) ? word : `s_${word}`;
}

/** Text safe after a Mermaid `:` (a label runs to the end of the line; `;` and `#` are entity starts). */
function labelText(text: string): string {
  return text.replace(/[\r\n]+/g, " ").replace(/[;#]/g, " ").trim();
}

/** An arrow's label: its event, and its count when coverage marks are given. */
function arrowLabel(event: string | undefined, count: number | undefined, marked: boolean): string {
  const parts: string[] = [];
  if (event !== undefined) parts.push(event);
  if (marked && count !== undefined) parts.push(count > 0 ? `(${count})` : "(never)");
  return labelText(parts.join(" "));
}

/**
 * The Mermaid `stateDiagram-v2` text of `table` (ends with a newline).
 * @param marks - coverage counts and current-state counts to show (see {@link coverageMarks}).
 * @example
 * stateDiagramMermaid(stateTable("configuration-versions")!)
 * // "%% configuration version (runs): 5 states, 6 transitions\nstateDiagram-v2\n  direction TB\n  [*] --> pending\n ..."
 */
export function stateDiagramMermaid(table: StateTable, marks: DiagramMarks = {}): string {
  const counted = table.transitions.filter((row) => row.event !== undefined).length;
  const lines = [`%% ${table.title} (${table.service}): ${table.states.length} states, ${counted} transition${counted === 1 ? "" : "s"}`, "stateDiagram-v2", "  direction TB"];
  for (const state of table.states) {
    const id = mermaidId(state);
    if (id !== state) lines.push(`  state "${state}" as ${id}`);
  }
  const marked = marks.transitions !== undefined;
  table.transitions.forEach((row, index) => {
    const from = row.from === START ? "[*]" : mermaidId(row.from);
    const label = arrowLabel(row.event, marks.transitions?.[index], marked);
    lines.push(`  ${from} --> ${mermaidId(row.to)}${label === "" ? "" : ` : ${label}`}`);
  });
  for (const state of table.final) lines.push(`  ${mermaidId(state)} --> [*]`);
  for (const state of table.states) {
    const words: string[] = [];
    const reached = marks.states?.get(state);
    if (reached !== undefined) words.push(reached > 0 ? `reached ${reached}` : "never reached");
    const now = marks.current?.get(state);
    if (now !== undefined && now > 0) words.push(`now ${now}`);
    if (words.length > 0) lines.push(`  ${mermaidId(state)} : ${words.join(", ")}`);
  }
  if (table.note !== undefined) lines.push(`  note right of ${mermaidId(table.states[0] ?? "")} : ${labelText(table.note)}`);
  const classes: [string, string, string[]][] = [
    ["reached", "fill:#e8f5e9,stroke:#2e7d32,color:#1b5e20", table.states.filter((s) => (marks.states?.get(s) ?? 0) > 0)],
    ["never", "fill:#fde2e2,stroke:#c62828,color:#8a1c1c", marks.states === undefined ? [] : table.states.filter((s) => (marks.states?.get(s) ?? 0) === 0)],
    ["current", "stroke:#1565c0,stroke-width:3px", table.states.filter((s) => (marks.current?.get(s) ?? 0) > 0)],
  ];
  for (const [name, style, states] of classes) {
    if (states.length === 0) continue;
    lines.push(`  classDef ${name} ${style}`);
    lines.push(`  class ${states.map(mermaidId).join(",")} ${name}`);
  }
  return `${lines.join("\n")}\n`;
}
