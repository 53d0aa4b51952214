/**
 * `infra-doubles soak --for 30d [--speed 10000] [--contracts ...] -- <command>`: the dev server's
 * world on a compressed clock (simulated time runs `speed` times wall time), a long-lived client
 * run against it, and the temporal contracts checked on each request as the journal records it.
 * The first violation stops the run (exit 1) with its simulated time; the period's end stops it
 * with a summary (exit 0). The client is stopped either way.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createContract, formatViolation, humanDuration, type Contract, type Violation } from "../scenarios/temporal-matchers.js";
import { createDoubles } from "../scenarios/doubles.js";
import type { JournalEntry, JournalRecord } from "../interceptors/journal.js";
import { AdvanceableClock, ScaledClock, SystemClock } from "../simulator/kernel/clock.js";
import { isoMillis } from "../simulator/kernel/time.js";
import { startDevServer, type DevServer } from "./serve.js";
import type { SoakCommand } from "./soak-args.js";

/** Exit status of `soak` when a contract was broken. */
export const EXIT_SOAK_VIOLATION = 1;
/** Exit status of `soak` when the client exited (or could not start) before the period ended. */
export const EXIT_SOAK_CLIENT_ENDED = 3;

/**
 * The environment a client run by `soak` gets: the server's URL per service in the variables real
 * clients read (`VAULT_ADDR`/`VAULT_TOKEN`, `CONSUL_HTTP_ADDR`/`CONSUL_HTTP_TOKEN`,
 * `TFE_ADDRESS`/`TFE_TOKEN`, as scripts/clients/run.mjs sets them for `serve`), `INFRA_DOUBLES_URL`
 * (the origin, for `/_sim/`), and the clock: `INFRA_DOUBLES_SPEED` (simulated ms per wall ms: a
 * client that sleeps divides its waits by it) and `INFRA_DOUBLES_START` (ISO).
 * @example serverEnvironment(dev, { speed: 10000, start: 0 }).VAULT_ADDR // "http://127.0.0.1:53100"
 */
export function serverEnvironment(dev: Pick<DevServer, "url" | "urls" | "services" | "controlToken">, clock: { readonly speed: number; readonly start: number }): Record<string, string> {
  const origin = (key: string): string => dev.urls?.[key] ?? dev.url;
  const text = (service: string, name: string): string | undefined => {
    const value = dev.services[service]?.[name];
    return typeof value === "string" ? value : undefined;
  };
  const env: Record<string, string> = {
    INFRA_DOUBLES_URL: dev.url,
    INFRA_DOUBLES_SPEED: String(clock.speed),
    INFRA_DOUBLES_START: isoMillis(clock.start),
    VAULT_ADDR: origin("secrets"),
    CONSUL_HTTP_ADDR: origin("accessControl"),
    TFE_ADDRESS: origin("runs"),
  };
  const tokens: [string, string | undefined][] = [
    ["VAULT_TOKEN", text("secrets", "rootToken")],
    ["CONSUL_HTTP_TOKEN", text("accessControl", "bootstrapSecretId")],
    ["TFE_TOKEN", text("runs", "userToken")],
    ["INFRA_DOUBLES_CONTROL_TOKEN", dev.controlToken],
  ];
  for (const [name, value] of tokens) if (value !== undefined) env[name] = value;
  return env;
}

/** Where `soak` writes. */
export interface SoakIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
}

/** What a soak run ended with (also returned to tests). */
export interface SoakResult {
  readonly exitCode: number;
  /** The first violation, when one stopped the run. */
  readonly violation?: Violation;
  /** Requests checked. */
  readonly checked: number;
  /** Simulated time covered, ms. */
  readonly simulatedMs: number;
  /** Wall time the run took, ms. */
  readonly wallMs: number;
}

/** Wall time for the report (the CLI's own measure, not the simulator's), ms. */
const wallClock = new SystemClock();
function wallNow(): number {
  return wallClock.now();
}

/**
 * Runs a soak: starts the world, the client, checks the contracts on every journalled request.
 * @returns the result; `exitCode` 0 (the period ended, no violation), 1 (a violation), 3 (the
 *   client ended or could not start before the period ended).
 * @throws the server's start error (e.g. the port in use).
 * @example
 * const result = await runSoak(parseSoakCommand(["--for", "30d", "--", "node", "renewer.mjs"]) as SoakCommand, process);
 */
export async function runSoak(command: SoakCommand, io: SoakIo): Promise<SoakResult> {
  const wallStart = wallNow();
  // Time stands still at --start while the world is built, the server starts and the client
  // starts up (a Node start is half a simulated hour at 10000x), then runs from its first request.
  const scaled = new ScaledClock(command.speed, { paused: true });
  const clock = new AdvanceableClock(scaled, command.start);
  const doubles = createDoubles({ clock, seed: command.seed });
  const contracts: Contract[] = command.contracts.map(createContract);
  let checked = 0;
  let origin: number | undefined;
  let first: Violation | undefined;
  let finish: (code: number) => void = () => undefined;
  const done = new Promise<number>((resolve) => {
    finish = resolve;
  });
  // Streamed: each entry is checked when the journal records it, so a journal of 1,000 entries
  // never drops one unchecked. The journal itself is not changed: this instance's `record` is
  // wrapped for the run.
  const journal = doubles.journal;
  const record = journal.record.bind(journal);
  let seen = 0;
  journal.record = (entry: JournalRecord): void => {
    record(entry);
    scaled.run(); // time starts with the client's first request (answered at --start)
    const last: JournalEntry | undefined = journal.size === 0 ? undefined : journal.last();
    if (last === undefined || last.seq === seen) return;
    seen = last.seq;
    checked++;
    origin ??= last.at - last.durationMs;
    if (first !== undefined) return;
    for (const contract of contracts) {
      const [violation] = contract.observe(last);
      if (violation !== undefined && first === undefined) {
        first = violation;
        finish(EXIT_SOAK_VIOLATION);
      }
    }
  };
  const dev = await startDevServer({ doubles, port: command.port, seed: command.seed });
  const startedAt = clock.now();
  // A client that sends nothing for 5 s of wall time still gets its period run out.
  const cancelRun = wallClock.wakeAt(wallClock.now() + 5000, () => scaled.run());
  const endAt = startedAt + command.forMs;
  // A wake-up is a hint (a paused clock wakes every second): look at the time, sleep again if early.
  let cancelEnd = (): void => undefined;
  const armEnd = (): void => {
    cancelEnd = clock.wakeAt(endAt, () => (clock.now() >= endAt ? finish(0) : armEnd()));
  };
  armEnd();
  const env = serverEnvironment(dev, { speed: command.speed, start: startedAt });
  io.stderr.write(
    `infra-doubles soak: ${humanDuration(command.forMs)} simulated at ${command.speed}x (about ${(command.forMs / command.speed / 1000).toFixed(1)} s wall) from ${isoMillis(startedAt)}; ` +
      `server ${dev.url}; contracts ${contracts.map((c) => c.name).join(", ")}\n`,
  );
  let exited: { code: number | null; signal: string | null } | undefined;
  const [program = "", ...args] = command.client;
  const child = spawn(program, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout?.on("data", (chunk: Buffer) => io.stdout.write(chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => io.stderr.write(chunk.toString()));
  child.on("error", (error) => {
    exited = { code: null, signal: null };
    io.stderr.write(`infra-doubles soak: cannot start ${program}: ${error.message}\n`);
    finish(EXIT_SOAK_CLIENT_ENDED);
  });
  child.on("exit", (code, signal) => {
    exited ??= { code, signal };
    finish(EXIT_SOAK_CLIENT_ENDED);
  });
  const exitCode = await done;
  cancelEnd();
  cancelRun();
  const simulatedAt = clock.now();
  await stop(child, () => exited !== undefined);
  await dev.close();
  await doubles.close();
  const wallMs = wallNow() - wallStart;
  const elapsed = Math.min(simulatedAt, endAt) - startedAt;
  const wall = `${(wallMs / 1000).toFixed(1)} s wall`;
  if (exitCode === EXIT_SOAK_VIOLATION && first !== undefined) {
    io.stdout.write(
      `infra-doubles soak: contract broken at ${isoMillis(first.at)} (+${humanDuration(first.at - startedAt)} simulated, ${wall}, ${checked} requests checked)\n\n${formatViolation(first, origin ?? startedAt)}\n`,
    );
    return { exitCode, violation: first, checked, simulatedMs: first.at - startedAt, wallMs };
  }
  if (exitCode === EXIT_SOAK_CLIENT_ENDED) {
    const how = exited?.signal ? `signal ${exited.signal}` : `code ${String(exited?.code ?? "?")}`;
    io.stdout.write(`infra-doubles soak: the client ended (${how}) after ${humanDuration(elapsed)} of the ${humanDuration(command.forMs)} simulated (${wall}, ${checked} requests checked, no contract broken)\n`);
    return { exitCode, checked, simulatedMs: elapsed, wallMs };
  }
  io.stdout.write(`infra-doubles soak: ${humanDuration(command.forMs)} simulated in ${wall}: ${checked} requests checked, every contract kept (${contracts.map((c) => c.name).join(", ")})\n`);
  return { exitCode: 0, checked, simulatedMs: command.forMs, wallMs };
}

/** Stops the client: SIGTERM, then SIGKILL after 2 s. */
async function stop(child: ChildProcess, gone: () => boolean): Promise<void> {
  if (gone() || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  // Wall time, through the clocks' own timer (the library's one place for timers).
  const cancel = wallClock.wakeAt(wallClock.now() + 2000, () => child.kill("SIGKILL"));
  await exited;
  cancel();
}
