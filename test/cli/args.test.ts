import { describe, expect, it } from "vitest";
import { DEFAULT_HOST, DEFAULT_PORT, parseCommand } from "../../src/cli/args.js";

describe("infra-doubles command-line parsing", () => {
  it("reads serve with its defaults", () => {
    expect(parseCommand(["serve"])).toEqual({ command: "serve", port: DEFAULT_PORT, host: DEFAULT_HOST, seed: 1, json: false, allowedHosts: [], clock: "advanceable" });
    expect(DEFAULT_PORT).toBe(8080);
    expect(DEFAULT_HOST).toBe("127.0.0.1");
  });

  it("refuses an --allowed-host that is not a host name and a --control-token with spaces", () => {
    expect(parseCommand(["serve", "--allowed-host", "http://x/"])).toMatchObject({ command: "usage", problem: expect.stringMatching(/--allowed-host/) });
    expect(parseCommand(["serve", "--control-token", "a b"])).toMatchObject({ command: "usage", problem: expect.stringMatching(/--control-token/) });
    expect(parseCommand(["serve", "--control-token", ""])).toMatchObject({ command: "usage" });
  });

  it("reads every flag, in any order and in --flag=value form", () => {
    expect(parseCommand(["serve", "--json", "--port", "0", "--host", "0.0.0.0", "--seed", "42", "--allowed-host", "dev.lan", "--allowed-host=box:8443", "--control-token", "t0k"])).toEqual({
      command: "serve",
      port: 0,
      host: "0.0.0.0",
      seed: 42,
      json: true,
      allowedHosts: ["dev.lan", "box:8443"],
      controlToken: "t0k",
      clock: "advanceable",
    });
    expect(parseCommand(["--port=9000", "serve", "-p", "9001", "--seed=abc"])).toMatchObject({ port: 9001, seed: "abc" });
  });

  it("reads --scenario, --clock and --start, and refuses a start with the system clock", () => {
    expect(parseCommand(["serve", "--scenario", "world.yaml", "--clock", "manual", "--start", "2030-05-01T00:00:00Z"])).toMatchObject({
      scenario: "world.yaml",
      clock: "manual",
      start: Date.UTC(2030, 4, 1),
    });
    expect(parseCommand(["serve", "--start", "2030-05-01T02:00:00+02:00"])).toMatchObject({ clock: "advanceable", start: Date.UTC(2030, 4, 1) });
    expect(parseCommand(["serve", "--clock", "fake"])).toMatchObject({ command: "usage", problem: expect.stringMatching(/--clock must be one of advanceable, manual, system/) });
    expect(parseCommand(["serve", "--clock", "system", "--start", "2030-05-01T00:00:00Z"])).toMatchObject({ command: "usage", problem: expect.stringMatching(/--start needs --clock manual or advanceable/) });
    expect(parseCommand(["serve", "--start", "2030-05-01"])).toMatchObject({ command: "usage", problem: expect.stringMatching(/RFC 3339/) });
    expect(parseCommand(["run", "world.yaml", "--seed", "4"])).toEqual({ command: "run", file: "world.yaml", seed: 4 });
    expect(parseCommand(["replay", "b.json"])).toEqual({ command: "replay", file: "b.json", port: 8080, host: "127.0.0.1", json: false, allowedHosts: [] });
    expect(parseCommand(["replay", "b.json", "--until", "4", "--port", "0", "--json", "--diff", "2"])).toEqual({
      command: "replay",
      file: "b.json",
      until: 4,
      diff: 2,
      port: 0,
      host: "127.0.0.1",
      json: true,
      allowedHosts: [],
    });
  });

  it("asks for the usage text on --help, unknown flags, unknown commands and bad values", () => {
    expect(parseCommand(["--help"])).toEqual({ command: "usage", problem: undefined });
    expect(parseCommand(["serve", "-h"])).toEqual({ command: "usage", problem: undefined });
    const problems: [string[], RegExp][] = [
      [[], /no command/],
      [["start"], /unknown command "start"/],
      [["serve", "extra"], /unexpected argument "extra"/],
      [["serve", "--verbose"], /verbose/],
      [["serve", "--port"], /port/],
      [["serve", "--port", "http"], /--port must be a whole number/],
      [["serve", "--port", "65536"], /--port must be a whole number/],
      [["serve", "--port", "-1"], /--port must be a whole number|port/],
      [["serve", "--host", ""], /--host must not be empty/],
      [["serve", "--seed="], /--seed must not be empty/],
      [["serve", "--json=yes"], /json/],
      [["replay"], /replay needs a bundle/],
      [["replay", "b.json", "--until", "0"], /--until must be a request number from 1/],
      [["replay", "b.json", "--diff", "x"], /--diff must be a request number/],
      [["replay", "b.json", "--port", "0"], /--port serves the world of --until N: give --until/],
      [["replay", "b.json", "--seed", "2"], /--seed is not an option of replay/],
      [["serve", "--until", "3"], /--until is an option of replay, not serve/],
      [["run", "w.yaml", "--diff", "3"], /--diff is an option of replay, not run/],
    ];
    for (const [argv, problem] of problems) {
      const parsed = parseCommand(argv);
      expect(parsed.command, argv.join(" ")).toBe("usage");
      expect(parsed.command === "usage" ? parsed.problem : "", argv.join(" ")).toMatch(problem);
    }
  });
});
