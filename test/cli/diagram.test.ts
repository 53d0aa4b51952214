/**
 * `infra-doubles diagram`: a table as Mermaid (default) or SVG on stdout, marked from a coverage
 * file; `--list`; an unknown table or a bad option exits 2 naming what is allowed.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCommand } from "../../src/cli/args.js";
import { createDoubles } from "../../src/scenarios/doubles.js";
import { STATE_TABLES, stateDiagram } from "../../src/scenarios/diagrams/index.js";
import { parseXml } from "../support/xml.js";
import { runToEnd } from "./launch.js";

describe("infra-doubles diagram", () => {
  it("prints a table's Mermaid stateDiagram-v2 by default, the SVG with --format svg", async () => {
    const mermaid = await runToEnd(["diagram", "runs"]);
    expect(mermaid).toMatchObject({ code: 0, stderr: "" });
    expect(mermaid.stdout).toBe(stateDiagram("runs"));
    expect(mermaid.stdout).toContain("stateDiagram-v2\n");
    expect(mermaid.stdout).toContain("  pending --> fetching : start\n");
    const svg = await runToEnd(["diagram", "configuration-versions", "--format", "svg"]);
    expect(svg.code).toBe(0);
    expect(parseXml(svg.stdout).name).toBe("svg");
    expect(svg.stdout).toBe(stateDiagram("configuration-versions", { format: "svg" }));
  });

  it("lists the tables with --list", async () => {
    const { code, stdout } = await runToEnd(["diagram", "--list"]);
    expect(code).toBe(0);
    expect(stdout.split("\n").filter(Boolean).map((line) => line.split(" ")[0])).toEqual(STATE_TABLES.map((t) => t.name));
    expect(stdout).toMatch(/^leases +lease \(secrets\): 3 states, 4 transitions$/m);
    // As the guide shows it.
    const guide = readFileSync(new URL("../../docs/guides/see-what-your-tests-never-exercised.md", import.meta.url), "utf8");
    expect(guide).toContain(`<!-- not-runnable: what infra-doubles diagram --list prints -->\n\`\`\`\n${stdout}\`\`\``);
  });

  it("marks what a coverage file reached, with counts", async () => {
    const doubles = createDoubles({ seed: 2 });
    const org = doubles.runs.addOrganization("acme");
    const ws = doubles.runs.addWorkspace(org, { name: "prod" });
    const alice = doubles.runs.addUser({ username: "alice", permissions: { [ws.id]: "admin" } });
    doubles.runs.uploadConfiguration(ws.id, { as: alice.id, autoQueueRuns: false });
    const file = join(mkdtempSync(join(tmpdir(), "diagram-")), "coverage.json");
    writeFileSync(file, JSON.stringify(doubles.coverage()));
    const { code, stdout } = await runToEnd(["diagram", "configuration-versions", "--coverage", file]);
    expect(code).toBe(0);
    expect(stdout).toContain("  pending --> uploaded : upload (1)\n");
    expect(stdout).toContain("  uploaded --> archived : archive (never)\n");
    expect(stdout).toContain("  pending : reached 1\n");
  });

  it("exits 2 for an unknown table, naming the tables, and for a file that is not a coverage report", async () => {
    const unknown = await runToEnd(["diagram", "run"]);
    expect(unknown).toEqual({ code: 2, stdout: "", stderr: `infra-doubles: unknown state table "run"; the tables are ${STATE_TABLES.map((t) => t.name).join(", ")}\n` });
    const file = join(mkdtempSync(join(tmpdir(), "diagram-")), "not-coverage.json");
    writeFileSync(file, '{"format": "something-else"}');
    const bad = await runToEnd(["diagram", "runs", "--coverage", file]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("not a coverage report");
    const missing = await runToEnd(["diagram", "runs", "--coverage", join(tmpdir(), "no-such-dir-x", "c.json")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("ENOENT");
  });

  it("refuses bad arguments with the usage text", async () => {
    const cases: [string[], string][] = [
      [["diagram"], "diagram needs a table: infra-doubles diagram TABLE (infra-doubles diagram --list names them)"],
      [["diagram", "runs", "--format", "png"], '--format must be one of mermaid, svg, got "png"'],
      [["diagram", "runs", "--list"], "diagram takes a TABLE or --list, not both"],
      [["diagram", "runs", "--port", "1"], "--port is not an option of diagram"],
      [["diagram", "runs", "leases"], 'unexpected argument "leases"'],
      [["serve", "--format", "svg"], "--format is an option of diagram, not serve"],
    ];
    for (const [argv, problem] of cases) {
      expect(parseCommand(argv)).toEqual({ command: "usage", problem });
      const { code, stderr } = await runToEnd(argv);
      expect(code).toBe(2);
      expect(stderr).toContain(`infra-doubles: ${problem}\n`);
      expect(stderr).toContain("infra-doubles diagram TABLE");
    }
  });
});
