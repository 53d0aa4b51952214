/**
 * `infra-doubles soak` argument parsing: the period, speed, contracts, the client after `--`, and
 * the problems (usage text, exit 2) for everything else.
 */
import { describe, expect, it } from "vitest";
import { parseCommand, USAGE } from "../../src/cli/args.js";

describe("infra-doubles soak arguments", () => {
  it("reads the period, speed, contracts and the client command after --", () => {
    expect(parseCommand(["soak", "--for", "30d", "--speed", "5000", "--contracts", "renew-before=lease:2/3,poll-no-faster-than=5s,back-off=2", "--seed", "7", "--", "node", "renewer.js", "--for", "x"])).toEqual({
      command: "soak",
      forMs: 30 * 86_400_000,
      speed: 5000,
      contracts: [
        { rule: "renew-before", kind: "lease", fraction: 2 / 3 },
        { rule: "poll-no-faster-than", intervalMs: 5000 },
        { rule: "back-off", factor: 2 },
      ],
      client: ["node", "renewer.js", "--for", "x"],
      seed: 7,
      start: Date.UTC(2024, 0, 1),
      port: 0,
    });
    const defaults = parseCommand(["soak", "--for", "12h", "--", "true"]);
    expect(defaults).toMatchObject({ speed: 10_000, forMs: 12 * 3_600_000 });
    expect(defaults.command === "soak" ? defaults.contracts.map((c) => c.rule) : []).toEqual(["renew-before", "renew-before", "never-use-expired", "honor-retry-after"]);
  });

  it("asks for the usage on --help, and names the problem otherwise", () => {
    expect(parseCommand(["soak", "--help"])).toEqual({ command: "usage", problem: undefined });
    for (const [argv, problem] of [
      [["soak", "--for", "30d"], /needs the client command after --/],
      [["soak", "--", "node"], /needs --for DURATION/],
      [["soak", "--for", "30", "--", "node"], /--for must be a duration with units/],
      [["soak", "--for", "1d", "--speed", "0.5", "--", "node"], /--speed must be a number from 1/],
      [["soak", "--for", "1d", "--contracts", "renew-before=lease:3/2", "--", "node"], /fraction must be above 0 and at most 1/],
      [["soak", "--for", "1d", "--contracts", "sleep-well", "--", "node"], /unknown contract/],
      [["soak", "--for", "1d", "--bogus", "--", "node"], /soak: Unknown option '--bogus'/],
    ] as const) {
      const parsed = parseCommand(argv);
      expect(parsed.command === "usage" ? parsed.problem : "", argv.join(" ")).toMatch(problem);
    }
    expect(USAGE).toContain("infra-doubles soak --for DURATION");
  });
});
