/**
 * How `infra-doubles mutate` runs the test command: once per mutant (and once faithful), in a
 * process group of its own so a timeout or an interrupt stops the runner and every worker it
 * started (SIGTERM, then SIGKILL), and with only the test files that reached the mutated rule
 * when the command is a test runner that takes files.
 */
import { spawn } from "node:child_process";
import { basename } from "node:path";
import { SystemClock } from "../simulator/kernel/clock.js";
import { shellWord } from "../scenarios/mutants/snippet.js";

/** The placeholder a test command may carry for the selected test files (`{files}`). */
export const FILES_PLACEHOLDER = "{files}";

/** How the test files a mutant needs are given to a test command. */
export type FileArguments =
  /** The command holds `{files}`: replaced by the files (an argument of its own: one argument per file; inside a longer argument: shell words joined by spaces). */
  | "placeholder"
  /** vitest: the files appended as filters (a path is a substring of the file's path). */
  | "vitest"
  /** Jest: the files appended as patterns (regular expressions, escaped). */
  | "jest"
  /** `node --test`: the files given instead of the command's own paths. */
  | "node-test";

/**
 * How `command` takes test files, or `undefined` when it does not (the whole command runs for every mutant).
 * @example fileArgumentsOf(["npx", "vitest", "run"]) // "vitest"
 */
export function fileArgumentsOf(command: readonly string[]): FileArguments | undefined {
  if (command.some((arg) => arg.includes(FILES_PLACEHOLDER))) return "placeholder";
  const name = (arg: string): string => basename(arg).replace(/\.(c|m)?js$|\.cmd$/, "");
  // The runner is the first word that names one (after npx, pnpm exec, node, ...), before any `--`.
  for (const arg of command) {
    if (arg === "--") break;
    if (name(arg) === "vitest") return "vitest";
    if (name(arg) === "jest") return "jest";
  }
  const [program = "", ...args] = command;
  if (/^node(\.exe)?$/.test(basename(program)) || program === process.execPath) {
    // `node --test ...`: --test among node's own options (before the first script or file).
    for (const arg of args) {
      if (arg === "--test") return "node-test";
      if (!arg.startsWith("-")) break;
    }
  }
  return undefined;
}

/** A string as a regular expression matching it literally. */
function literalPattern(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * The command that runs only `files` (paths relative to the project's root, as coverage names
 * them), or the whole command when `files` is `undefined` (`{files}` removed).
 * @example commandWithFiles(["npx", "vitest", "run"], ["test/a.test.ts"]) // ["npx", "vitest", "run", "test/a.test.ts"]
 */
export function commandWithFiles(command: readonly string[], files: readonly string[] | undefined): string[] {
  const kind = fileArgumentsOf(command);
  if (kind === "placeholder") {
    const out: string[] = [];
    for (const arg of command) {
      if (arg === FILES_PLACEHOLDER) out.push(...(files ?? []));
      else if (arg.includes(FILES_PLACEHOLDER)) out.push(arg.split(FILES_PLACEHOLDER).join((files ?? []).map(shellWord).join(" ")).trim());
      else out.push(arg);
    }
    return out;
  }
  if (files === undefined || kind === undefined) return [...command];
  if (kind === "jest") return [...command, ...files.map(literalPattern).filter((pattern) => !command.includes(pattern))];
  if (kind === "node-test") return [...withoutNodeTestFiles(command), ...files];
  // A file the command already names is not named twice (vitest runs it once either way).
  return [...command, ...files.filter((file) => !command.includes(file))];
}

/** node's options that take their value as the next argument (the ones a `node --test` line may carry). */
const NODE_VALUE_OPTIONS = new Set([
  "--test-reporter",
  "--test-reporter-destination",
  "--test-name-pattern",
  "--test-skip-pattern",
  "--test-concurrency",
  "--test-timeout",
  "--test-shard",
  "--test-coverage-include",
  "--test-coverage-exclude",
  "--import",
  "--require",
  "-r",
  "--loader",
  "--experimental-loader",
  "--conditions",
  "-C",
  "--env-file",
  "--input-type",
  "--stack-size",
  "--title",
  "--watch-path",
]);

/**
 * A `node --test` command without its file and directory arguments (so the files given instead
 * are the only ones run: node runs every path it is given).
 */
function withoutNodeTestFiles(command: readonly string[]): string[] {
  const [program = "", ...args] = command;
  const out = [program];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--") break;
    if (!arg.startsWith("-")) continue;
    out.push(arg);
    if (!arg.includes("=") && NODE_VALUE_OPTIONS.has(arg) && i + 1 < args.length) out.push(args[++i] as string);
  }
  return out;
}

/** How one run of the test command ended. */
export interface CommandOutcome {
  /** The exit code, or `null` when it was ended by a signal or never started. */
  readonly exitCode: number | null;
  /** The signal that ended it, when one did. */
  readonly signal: string | null;
  /** It ran past the timeout (and was stopped). */
  readonly timedOut: boolean;
  /** It was stopped by {@link RunningCommand.stop} (an interrupt). */
  readonly stopped: boolean;
  /** The program could not be started (its error message). */
  readonly startError?: string;
  /** Wall time, ms. */
  readonly wallMs: number;
  /** The last 8 KiB of its stdout and stderr, interleaved (when `keepOutput`). */
  readonly output: string;
}

/** Options of {@link startCommand}. */
export interface StartOptions {
  /** The whole environment of the command (not added to `process.env`). */
  readonly env: NodeJS.ProcessEnv;
  /** Stop it after this many wall ms (absent: never). */
  readonly timeoutMs?: number;
  /** Ms between SIGTERM and SIGKILL when it is stopped (default 2000). */
  readonly graceMs?: number;
  /** Keep the tail of its output (else it goes to /dev/null). */
  readonly keepOutput?: boolean;
  /** Its working directory (default this process's). */
  readonly cwd?: string;
}

/** A run under way: its end, and how to stop it early. */
export interface RunningCommand {
  readonly done: Promise<CommandOutcome>;
  /** Stops the whole process group (SIGTERM, then SIGKILL after the grace). */
  stop(): void;
}

/** Wall time (the CLI's own measure, not a simulator's), ms, and its timers. */
const wallClock = new SystemClock();

/** The wall clock's reading, ms (for the progress lines and the default timeout). */
export function wallNow(): number {
  return wallClock.now();
}

const OUTPUT_TAIL = 8192;

/** Sends `signal` to the process group `pid` leads; false when none is left. */
function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts `command` (no shell) in a process group of its own. On the timeout or {@link
 * RunningCommand.stop} the group gets SIGTERM, then SIGKILL after `graceMs`; when the command
 * exits, whatever it left running in its group (a worker, a server) gets SIGKILL, so no run
 * leaves orphans behind.
 * @example const outcome = await startCommand(["node", "--test"], { env: process.env, timeoutMs: 60_000 }).done;
 */
export function startCommand(command: readonly string[], options: StartOptions): RunningCommand {
  const started = wallNow();
  const [program = "", ...args] = command;
  let output = "";
  let timedOut = false;
  let stopped = false;
  let cancelTimeout = (): void => undefined;
  let cancelKill = (): void => undefined;
  const child = spawn(program, args, {
    env: options.env,
    detached: true,
    stdio: ["ignore", options.keepOutput === true ? "pipe" : "ignore", options.keepOutput === true ? "pipe" : "ignore"],
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  });
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString()).slice(-OUTPUT_TAIL);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const terminate = (): void => {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    signalGroup(child.pid, "SIGTERM");
    cancelKill = wallClock.wakeAt(wallNow() + (options.graceMs ?? 2000), () => {
      if (child.pid !== undefined) signalGroup(child.pid, "SIGKILL");
    });
  };
  const done = new Promise<CommandOutcome>((resolve) => {
    let startError: string | undefined;
    child.once("error", (error) => {
      startError = error.message;
      cancelTimeout();
      resolve({ exitCode: null, signal: null, timedOut: false, stopped, startError, wallMs: wallNow() - started, output });
    });
    child.once("exit", (code, signal) => {
      cancelTimeout();
      cancelKill();
      // Whatever the command left behind in its group (a worker that outlived its runner).
      if (child.pid !== undefined) signalGroup(child.pid, "SIGKILL");
      const wallMs = wallNow() - started;
      const finish = (): void => resolve({ exitCode: code, signal, timedOut, stopped, wallMs, output });
      // Let the pipes drain (they close once every holder of them is gone).
      if (options.keepOutput === true) child.once("close", finish);
      else finish();
    });
  });
  if (options.timeoutMs !== undefined) {
    cancelTimeout = wallClock.wakeAt(started + options.timeoutMs, () => {
      timedOut = true;
      terminate();
    });
  }
  return {
    done,
    stop: () => {
      stopped = true;
      terminate();
    },
  };
}
