/**
 * State diagrams of every transition table: the Mermaid text parses as a stateDiagram-v2 (every
 * line one of the statements the package writes) and holds every transition of the table exactly
 * once; the SVG is well-formed XML with one arrow per transition and one box per state, and the
 * same table gives the same bytes; coverage and current-state marks come from a real doubles.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createDoubles } from "../../../src/scenarios/doubles.js";
import { coverageMarks, diagramMarks, mermaidId, START, STATE_TABLES, stateDiagram, stateDiagramMermaid, stateDiagramSvg, stateTable, type StateTable } from "../../../src/scenarios/diagrams/index.js";
import { ACL_TOKEN_EVENTS } from "../../../src/simulator/access-control/token-events.js";
import { machineTransitions, type Machine } from "../../../src/simulator/kernel/machine.js";
import { configurationVersionMachine } from "../../../src/simulator/runs/configuration-version-machine.js";
import { runMachine } from "../../../src/simulator/runs/run-machine.js";
import { LEASE_EVENTS, SECRETS_TOKEN_EVENTS } from "../../../src/simulator/secrets/lifecycle-events.js";
import { NODE_STATES } from "../../../src/simulator/secrets/node-state.js";
import { coverageHtml } from "../../../src/vitest/coverage-html.js";
import { findAll, parseXml, type XmlElement } from "../../support/xml.js";

/** A Mermaid state diagram as the tests read it back. */
interface ParsedMermaid {
  readonly aliases: Map<string, string>;
  /** `from`/`to` are state names (aliases resolved), `[*]` for the start and end. */
  readonly arrows: { from: string; to: string; label: string | undefined }[];
  readonly descriptions: Map<string, string>;
  readonly classes: Map<string, Set<string>>;
}

const ID = "[A-Za-z][A-Za-z0-9_]*";

/**
 * Parses the stateDiagram-v2 subset the package writes; throws on any other line, on an id used
 * before its alias, and on a class applied that was never defined.
 */
function parseMermaid(text: string): ParsedMermaid {
  const lines = text.split("\n");
  expect(lines.at(-1)).toBe("");
  const body = lines.slice(0, -1).filter((line) => !line.startsWith("%%"));
  expect(body[0]).toBe("stateDiagram-v2");
  const aliases = new Map<string, string>();
  const arrows: ParsedMermaid["arrows"] = [];
  const descriptions = new Map<string, string>();
  const defined = new Set<string>();
  const classes = new Map<string, Set<string>>();
  const name = (id: string): string => (id === "[*]" ? id : (aliases.get(id) ?? id));
  for (const line of body.slice(1)) {
    let m: RegExpExecArray | null;
    if (/^ {2}direction (TB|LR)$/.test(line)) continue;
    if ((m = new RegExp(`^ {2}state "([^"]+)" as (${ID})$`).exec(line))) {
      aliases.set(m[2] as string, m[1] as string);
      continue;
    }
    if ((m = new RegExp(`^ {2}(\\[\\*\\]|${ID}) --> (\\[\\*\\]|${ID})(?: : ([^;#\\n]+))?$`).exec(line))) {
      arrows.push({ from: name(m[1] as string), to: name(m[2] as string), label: m[3] });
      continue;
    }
    if (new RegExp(`^ {2}note right of (${ID}) : [^\\n]+$`).test(line)) continue;
    if ((m = /^ {2}classDef (\w+) [\w#:,.-]+$/.exec(line))) {
      defined.add(m[1] as string);
      continue;
    }
    if ((m = new RegExp(`^ {2}class (${ID}(?:,${ID})*) (\\w+)$`).exec(line))) {
      if (!defined.has(m[2] as string)) throw new Error(`class ${m[2]} applied before classDef: ${line}`);
      classes.set(m[2] as string, new Set((m[1] as string).split(",").map(name)));
      continue;
    }
    if ((m = new RegExp(`^ {2}(${ID}) : ([^\\n]+)$`).exec(line))) {
      descriptions.set(name(m[1] as string), m[2] as string);
      continue;
    }
    throw new Error(`not a stateDiagram-v2 statement: ${JSON.stringify(line)}`);
  }
  return { aliases, arrows, descriptions, classes };
}

/** The event of an arrow label (`start`, `start (3)`, `start (never)`). */
const eventOf = (label: string | undefined): string | undefined => label?.replace(/ \((\d+|never)\)$/, "");

/** The table's rows as `from|event|to` keys. */
const rowKeys = (table: StateTable): string[] => table.transitions.map((row) => `${row.from}|${row.event ?? ""}|${row.to}`);

describe("the state tables", () => {
  it("are the run and configuration version machines, row for row, and the lifecycles of every traced event", () => {
    expect(STATE_TABLES.map((t) => t.name)).toEqual(["runs", "configuration-versions", "acl-tokens", "secrets-tokens", "leases", "node-states"]);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const machines: [string, Machine<any, any>][] = [["runs", runMachine], ["configuration-versions", configurationVersionMachine]];
    for (const [name, machine] of machines) {
      const table = stateTable(name) as StateTable;
      const rows = (machineTransitions(machine) as { from: string; event: string; to: string }[]).map((row) => `${row.from}|${row.event}|${row.to}`);
      expect(rowKeys(table).filter((key) => !key.startsWith(START))).toEqual(rows);
      expect(table.states).toEqual(Object.keys(machine.states));
    }
    const events = (name: string): string[] => (stateTable(name) as StateTable).transitions.flatMap((row) => (row.counted !== undefined && "subject" in row.counted ? [row.counted.name] : []));
    expect(events("acl-tokens").sort()).toEqual([...ACL_TOKEN_EVENTS].sort());
    expect(events("secrets-tokens").sort()).toEqual([...SECRETS_TOKEN_EVENTS].sort());
    expect(events("leases").sort()).toEqual([...LEASE_EVENTS].sort());
    expect((stateTable("node-states") as StateTable).states).toEqual([...NODE_STATES]);
  });
});

describe("the Mermaid text", () => {
  for (const table of STATE_TABLES) {
    it(`of ${table.name} parses as stateDiagram-v2 and holds every transition exactly once`, () => {
      const text = stateDiagramMermaid(table);
      const parsed = parseMermaid(text);
      const drawn = parsed.arrows.filter((a) => a.to !== "[*]").map((a) => `${a.from}|${eventOf(a.label) ?? ""}|${a.to}`);
      expect(drawn.sort()).toEqual(rowKeys(table).sort());
      expect(new Set(drawn).size).toBe(drawn.length);
      // Every state id resolves to a state of the table, and the final states lead to [*].
      const states = new Set([...parsed.arrows.flatMap((a) => [a.from, a.to])].filter((s) => s !== "[*]"));
      for (const state of states) expect(table.states).toContain(state);
      expect(parsed.arrows.filter((a) => a.to === "[*]").map((a) => a.from)).toEqual(table.final);
      expect(stateDiagramMermaid(table)).toBe(text);
    });
  }

  it("gives a state whose name is not a plain word an alias", () => {
    expect(mermaidId("not-initialized")).toBe("not_initialized");
    expect(mermaidId("state")).toBe("s_state");
    expect(stateDiagram("node-states")).toContain('state "not-initialized" as not_initialized\n');
  });
});

/** The `<g class="transition ...">` and `<g class="state ...">` elements of an SVG. */
function svgParts(svg: string): { root: XmlElement; arrows: XmlElement[]; states: XmlElement[] } {
  const root = parseXml(svg);
  const classed = (word: string) => (e: XmlElement) => e.name === "g" && (e.attributes.class ?? "").split(" ").includes(word);
  return { root, arrows: findAll(root, classed("transition")), states: findAll(root, classed("state")) };
}

describe("the SVG", () => {
  for (const table of STATE_TABLES) {
    it(`of ${table.name} is well-formed, deterministic, with one arrow per transition and one box per state`, () => {
      const svg = stateDiagramSvg(table);
      const { root, arrows, states } = svgParts(svg);
      expect(root.name).toBe("svg");
      expect(root.attributes.xmlns).toBe("http://www.w3.org/2000/svg");
      expect(svg).not.toMatch(/NaN|Infinity|undefined|<script|href=/);
      expect(arrows.map((g) => `${g.attributes["data-from"]}|${g.attributes["data-event"] ?? ""}|${g.attributes["data-to"]}`).sort()).toEqual(rowKeys(table).sort());
      expect(states.map((g) => g.attributes["data-state"])).toEqual(table.states);
      for (const g of states) expect((g.attributes.class ?? "").includes("final")).toBe(table.final.includes(g.attributes["data-state"] as string));
      // Same bytes again, also after drawing the other tables with marks.
      for (const other of STATE_TABLES) stateDiagramSvg(other, { transitions: other.transitions.map(() => 1), states: new Map(), current: new Map([[other.states[0] as string, 2]]) });
      expect(stateDiagramSvg(table)).toBe(svg);
    });
  }
});

describe("marks from a doubles", () => {
  async function exercised() {
    const doubles = createDoubles({ seed: 3 });
    const runs = doubles.runs;
    const org = runs.addOrganization("acme");
    const ws = runs.addWorkspace(org, { name: "prod" });
    const alice = runs.addUser({ username: "alice", permissions: { [ws.id]: "admin" } });
    runs.setProgression("manual");
    runs.uploadConfiguration(ws.id, { as: alice.id, autoQueueRuns: false });
    const first = runs.queueRun(ws.id, { as: alice.id });
    runs.queueRun(ws.id, { as: alice.id });
    runs.step(first); // pending -> fetching
    return { doubles, first };
  }

  it("count the transitions taken and never taken, the states reached, and the runs stored in each state now", async () => {
    const { doubles } = await exercised();
    const runsTable = stateTable("runs") as StateTable;
    const marks = diagramMarks(runsTable, { coverage: doubles.coverage(), sim: doubles.sim });
    const text = stateDiagramMermaid(runsTable, marks);
    const parsed = parseMermaid(text);
    expect(parsed.arrows).toContainEqual({ from: "pending", to: "fetching", label: "start (1)" });
    expect(parsed.arrows).toContainEqual({ from: "fetching", to: "fetching_completed", label: "fetch-done (never)" });
    expect(parsed.descriptions.get("pending")).toBe("reached 2, now 1");
    expect(parsed.descriptions.get("fetching")).toBe("reached 1, now 1");
    expect(parsed.descriptions.get("applied")).toBe("never reached");
    expect(parsed.classes.get("current")).toEqual(new Set(["pending", "fetching"]));
    expect(parsed.classes.get("reached")).toEqual(new Set(["pending", "fetching"]));

    const { arrows, states } = svgParts(stateDiagramSvg(runsTable, marks));
    const start = arrows.find((g) => g.attributes["data-event"] === "start");
    expect(start?.attributes).toMatchObject({ class: "transition reached", "data-count": "1" });
    expect(arrows.find((g) => g.attributes["data-event"] === "apply-done")?.attributes).toMatchObject({ class: "transition never", "data-count": "0" });
    expect(states.find((g) => g.attributes["data-state"] === "pending")?.attributes).toMatchObject({ "data-reached": "2", "data-current": "1" });
    expect(states.find((g) => g.attributes["data-state"] === "applied")?.attributes).toMatchObject({ "data-reached": "0", "data-current": "0" });
  });

  it("mark the access-control token and node lifecycles from their traced events, untraced arrows grey", async () => {
    const { doubles } = await exercised();
    const report = doubles.coverage();
    const node = stateTable("node-states") as StateTable;
    const marks = coverageMarks(node, report);
    expect(marks.transitions).toEqual([undefined, undefined]);
    const { arrows } = svgParts(stateDiagramSvg(node, { ...marks, current: node.current(doubles.sim) }));
    expect(arrows.map((g) => g.attributes.class)).toEqual(["transition untraced", "transition untraced"]);
    expect(node.current(doubles.sim)).toEqual(new Map([["active", 1]]));
    const leases = stateTable("leases") as StateTable;
    expect(coverageMarks(leases, report).transitions).toEqual([0, 0, 0, 0]);
  });

  it("are drawn in the coverage HTML page, one figure per table of the services covered", async () => {
    const { doubles } = await exercised();
    const html = coverageHtml(doubles.coverage());
    for (const table of STATE_TABLES) expect(html).toContain(`<figure class="diagram" id="diagram-${table.name}">`);
    const runsFigure = /<figure class="diagram" id="diagram-runs">([\s\S]*?)<\/figure>/.exec(html)?.[1] ?? "";
    const rows = machineTransitions(runMachine).length;
    expect(runsFigure).toContain(`<figcaption>run (runs): 1/${rows} transitions reached</figcaption>`);
    const svg = runsFigure.slice(runsFigure.indexOf("<svg"));
    const { arrows } = svgParts(svg);
    expect(arrows.filter((g) => g.attributes.class === "transition reached").map((g) => g.attributes["data-event"])).toEqual(["start"]);
    expect(arrows.filter((g) => g.attributes.class === "transition never")).toHaveLength(rows - 1);
    // Only the services the report covers.
    const runsOnly = { ...doubles.coverage(), services: { runs: doubles.coverage().services.runs } } as ReturnType<typeof doubles.coverage>;
    expect(coverageHtml(runsOnly)).not.toContain('id="diagram-leases"');
  });
});

describe("the runs diagram in the docs", () => {
  const guide = fileURLToPath(new URL("../../../docs/guides/see-what-your-tests-never-exercised.md", import.meta.url));
  const image = fileURLToPath(new URL("../../../docs/guides/diagrams/runs.svg", import.meta.url));

  it("is what infra-doubles diagram runs prints (UPDATE_DIAGRAM_DOCS=1 rewrites it)", () => {
    const text = readFileSync(guide, "utf8");
    const block = /```mermaid\n([\s\S]*?)```/.exec(text);
    if (process.env.UPDATE_DIAGRAM_DOCS === "1") {
      writeFileSync(guide, text.replace(/```mermaid\n[\s\S]*?```/, `\`\`\`mermaid\n${stateDiagram("runs")}\`\`\``));
      writeFileSync(image, stateDiagram("runs", { format: "svg" }));
    }
    expect(block?.[1]).toBe(stateDiagram("runs"));
    expect(readFileSync(image, "utf8")).toBe(stateDiagram("runs", { format: "svg" }));
    expect(text).toContain("![The run state machine: 27 states, 59 transitions](diagrams/runs.svg)");
  });
});
