/**
 * The `infra-doubles` command line as a function of its arguments and its process streams, so it
 * runs in-process in tests: parse, start, print, wait for SIGINT/SIGTERM, close, return the exit code.
 */
import { randomBytes } from "node:crypto";
import { ScenarioDocumentError } from "../scenarios/document/errors.js";
import { StateDocumentError } from "../scenarios/state/errors.js";
import { UsageError } from "../simulator/kernel/errors.js";
import { parseCommand, USAGE } from "./args.js";
import { runDiagram } from "./diagram.js";
import { runMutate } from "./mutate.js";
import type { Mutant } from "../scenarios/mutants/types.js";
import { runReplay } from "./replay.js";
import { runScenarioFile } from "./run.js";
import { runSoak } from "./soak.js";
import { Worlds, worldDefaults } from "./worlds.js";
import { devServerBanner, devServerJson, devServerWarning, startDevServer, type DevServerOptions } from "./serve.js";

/** Where the CLI writes, and where stop signals come from (`process` in the real binary). */
export interface CliIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  /** Emits `SIGINT` / `SIGTERM`. */
  readonly signals: {
    once(event: "SIGINT" | "SIGTERM", listener: () => void): unknown;
    off(event: "SIGINT" | "SIGTERM", listener: () => void): unknown;
  };
}

/** Exit code for bad usage (unknown flags, bad values). `--help` exits 0. */
export const EXIT_USAGE = 2;

/**
 * Runs `infra-doubles <argv>`.
 * @param argv - the arguments after the script path, e.g. `["serve", "--port", "0", "--json"]`.
 * @param extra - for tests: the services or doubles to serve instead of the registered ones, and
 *   the mutants `mutate` draws from instead of `mutantsOf(ALL_PLUGINS)`.
 * @returns the exit code: 0 after a clean stop on SIGINT/SIGTERM, 1 when the server cannot start,
 *   0 for `--help` (usage on stdout), 2 for bad arguments (usage on stderr); for `run`: 0 when
 *   every expect step passed, 1 when one failed, 2 for an invalid document; for `diagram`: 0, or 2
 *   for an unknown table or an unreadable `--coverage` file; for `replay`: 0 when every answer is
 *   identical, 1 when one differs, 2 for an unreadable bundle; for `soak`: 0 when
 *   the simulated period passed with every contract kept, 1 at the first broken one, 3 when the
 *   client ended first; for `mutate`: 0 when done (score at or above `--threshold`), 1 below it,
 *   2 when no mutant is selected or the suite fails against the faithful fake, 130 when interrupted.
 * @example
 * process.exitCode = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, signals: process });
 */
export async function runCli(argv: readonly string[], io: CliIo, extra: Pick<DevServerOptions, "plugins" | "doubles"> & { readonly mutants?: readonly Mutant[] } = {}): Promise<number> {
  const command = parseCommand(argv);
  if (command.command === "usage") {
    if (command.problem === undefined) {
      io.stdout.write(USAGE);
      return 0;
    }
    io.stderr.write(`infra-doubles: ${command.problem}\n\n`);
    io.stderr.write(USAGE);
    return EXIT_USAGE;
  }
  if (command.command === "diagram") return runDiagram(command, io.stdout, io.stderr);
  if (command.command === "soak") {
    return (await runSoak(command, io)).exitCode;
  }
  if (command.command === "mutate") {
    return (await runMutate(command, io, extra.mutants === undefined ? {} : { mutants: extra.mutants })).exitCode;
  }
  if (command.command === "run") {
    return runScenarioFile(command.file, { seed: command.seed, ...(command.start === undefined ? {} : { start: command.start }) }, io.stdout, io.stderr);
  }
  if (command.command === "replay") return runReplay(command, io);
  // Bound beyond loopback without --seed: a random seed (128 bits, as hex), so the default
  // scenario's tokens are not the same well-known ones on every machine. Drawn here, in the CLI
  // only: the library stays deterministic (same seed, same bytes).
  const seed = command.drawSeed === true ? randomBytes(16).toString("hex") : command.seed;
  let dev;
  let worlds: Worlds;
  try {
    worlds = new Worlds(worldDefaults(command, seed));
    dev = await startDevServer({
      controlRoutes: [worlds.routes],
      port: command.port,
      host: command.host,
      seed,
      allowedHosts: command.allowedHosts,
      ...(command.controlToken === undefined ? {} : { controlToken: command.controlToken }),
      ...(command.split ? { split: true, ports: command.ports ?? {} } : {}),
      clock: command.clock,
      ...(command.start === undefined ? {} : { start: command.start }),
      ...(command.scenario === undefined ? {} : { scenario: command.scenario }),
      ...(command.withDefault === true ? { withDefault: true } : {}),
      ...(command.passthrough === undefined ? {} : { passthrough: command.passthrough }),
      ...(command.state === undefined ? {} : { state: command.state }),
      ...(command.mutant === undefined ? {} : { mutant: command.mutant }),
      ...extra,
    });
  } catch (error) {
    if (error instanceof StateDocumentError) {
      io.stderr.write(`infra-doubles: --state ${error.message.replace(/^infra-doubles: /, "")}\n`);
      return EXIT_USAGE;
    }
    if (error instanceof ScenarioDocumentError) {
      const where = error.file === undefined ? `--scenario ${command.scenario ?? ""}: ` : "";
      io.stderr.write(`infra-doubles: ${where}${error.message.replace(/^infra-doubles: /, "")}\n`);
      return EXIT_USAGE;
    }
    if (error instanceof UsageError && /^(infra-doubles: )?mutants: /.test(error.message)) {
      io.stderr.write(`infra-doubles: ${error.message.replace(/^infra-doubles: /, "")}\n`);
      return EXIT_USAGE;
    }
    io.stderr.write(`infra-doubles: cannot start the server on ${command.host}:${command.port}: ${(error as Error).message}\n`);
    return 1;
  }
  const warning = devServerWarning(dev);
  if (warning !== undefined) io.stderr.write(warning);
  if (command.drawSeed === true) {
    io.stderr.write(`infra-doubles: no --seed given on ${command.host}: drew the random seed ${String(seed)} (the services' ids and tokens follow from it; --seed ${String(seed)} gives the same ones again)\n`);
  }
  // Listening for the stop signals before the start line: a client may stop the server as soon as it reads it.
  const stopped = new Promise<void>((resolve) => {
    const stop = (): void => {
      io.signals.off("SIGINT", stop);
      io.signals.off("SIGTERM", stop);
      resolve();
    };
    io.signals.once("SIGINT", stop);
    io.signals.once("SIGTERM", stop);
  });
  io.stdout.write(command.json ? `${devServerJson(dev)}\n` : devServerBanner(dev));
  await stopped;
  await worlds.close();
  try {
    await dev.close();
  } catch (error) {
    io.stderr.write(`infra-doubles: cannot write the state file: ${(error as Error).message}\n`);
    return 1;
  }
  return 0;
}
