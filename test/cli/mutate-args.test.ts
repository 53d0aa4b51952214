/**
 * `infra-doubles mutate` argument parsing: the options, their defaults, the test command after
 * `--`, and the problems (usage text, exit 2) for everything else.
 */
import { availableParallelism } from "node:os";
import { describe, expect, it } from "vitest";
import { parseCommand } from "../../src/cli/args.js";
import { runToEnd } from "./launch.js";

describe("infra-doubles mutate arguments", () => {
  it("reads every option and the test command after --", () => {
    expect(
      parseCommand([
        "mutate",
        "--jobs", "3",
        "--max-mutants", "50",
        "--seed", "7",
        "--only", "runs,secrets",
        "--operator", "transition-removed, action-refused",
        "--timeout", "2m",
        "--json", "m.json",
        "--html", "m.html",
        "--threshold", "80",
        "--state", "s.jsonl",
        "--fresh",
        "--", "npx", "vitest", "run", "--jobs", "9",
      ]),
    ).toEqual({
      command: "mutate",
      testCommand: ["npx", "vitest", "run", "--jobs", "9"],
      list: false,
      services: ["runs", "secrets"],
      operators: ["transition-removed", "action-refused"],
      maxMutants: 50,
      seed: 7,
      jobs: 3,
      timeoutMs: 120_000,
      json: "m.json",
      html: "m.html",
      threshold: 80,
      state: "s.jsonl",
      fresh: true,
    });
    expect(parseCommand(["mutate", "--", "node", "--test"])).toEqual({ command: "mutate", testCommand: ["node", "--test"], list: false, seed: 1, jobs: Math.max(1, availableParallelism()), fresh: false });
    expect(parseCommand(["mutate", "--list", "--only", "accessControl"])).toMatchObject({ command: "mutate", list: true, services: ["accessControl"], testCommand: [] });
    expect(parseCommand(["mutate", "--threshold", "72.5%", "--", "x"])).toMatchObject({ threshold: 72.5 });
    expect(parseCommand(["mutate", "--help"])).toEqual({ command: "usage", problem: undefined });
    expect(parseCommand(["mutate", "--", "npx", "jest", "--help"])).toMatchObject({ command: "mutate", testCommand: ["npx", "jest", "--help"] });
  });

  it("refuses bad options with the problem named", () => {
    for (const [argv, problem] of [
      [["mutate"], /needs the test command after --/],
      [["mutate", "--"], /needs the test command after --/],
      [["mutate", "--list", "--", "npx", "vitest"], /--list prints the catalogue and takes no test command/],
      [["mutate", "--list", "--jobs", "2"], /--jobs is an option of a mutation run, not of --list/],
      [["mutate", "--jobs", "0", "--", "x"], /--jobs must be a whole number from 1, got "0"/],
      [["mutate", "--jobs", "two", "--", "x"], /--jobs must be a whole number from 1/],
      [["mutate", "--max-mutants=-1", "--", "x"], /--max-mutants must be a whole number from 1, got "-1"/],
      [["mutate", "--only", "access-control", "--", "x"], /--only takes service keys \(runs, accessControl, secrets\)/],
      [["mutate", "--only", "", "--", "x"], /--only takes service keys/],
      [["mutate", "--operator", "flip-bits", "--", "x"], /--operator takes operators \(transition-removed, /],
      [["mutate", "--timeout", "90", "--", "x"], /--timeout must be a duration with units/],
      [["mutate", "--timeout", "0s", "--", "x"], /--timeout must be a duration with units above zero/],
      [["mutate", "--threshold", "101", "--", "x"], /--threshold must be a percentage from 0 to 100/],
      [["mutate", "--threshold", "high", "--", "x"], /--threshold must be a percentage/],
      [["mutate", "--json", " ", "--", "x"], /--json must name a file/],
      [["mutate", "--seed", "", "--", "x"], /--seed must not be empty/],
      [["mutate", "--bogus", "--", "x"], /mutate: Unknown option '--bogus'/],
    ] as const) {
      const parsed = parseCommand(argv);
      expect(parsed.command, argv.join(" ")).toBe("usage");
      expect(parsed.command === "usage" ? parsed.problem : "", argv.join(" ")).toMatch(problem);
    }
  });

  it("prints the usage and exits 2 on a bad option; --help prints it with exit 0", async () => {
    const bad = await runToEnd(["mutate", "--only", "vault", "--", "npx", "vitest", "run"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('infra-doubles: --only takes service keys (runs, accessControl, secrets), comma-separated, got "vault"');
    expect(bad.stderr).toContain("infra-doubles mutate [--jobs N]");
    const help = await runToEnd(["mutate", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("mutate: runs the test COMMAND once against the faithful fake");
  });
});
