/**
 * An in-process CLI run for the CLI tests: captured output, a fake signal source (emit "SIGTERM"
 * to stop a server), and the exit code to come.
 */
import { EventEmitter } from "node:events";
import { runCli, type CliIo } from "../../src/cli/main.js";

export function launch(argv: string[], extra: Parameters<typeof runCli>[2] = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const signals = new EventEmitter();
  const io: CliIo = {
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text) },
    signals: signals as unknown as CliIo["signals"],
  };
  const exit = runCli(argv, io, extra);
  /** What the run printed, once it printed anything (a server's banner or JSON line); up to 10 s. */
  const firstLine = async (): Promise<string> => {
    for (let i = 0; i < 1000 && out.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    return out.join("");
  };
  /** The `--json` start line, parsed. */
  const started = async (): Promise<Record<string, unknown> & { url: string }> => JSON.parse(await firstLine()) as Record<string, unknown> & { url: string };
  return { out, err, signals, exit, firstLine, started };
}

/** A CLI run to its end (`run`, `--help`, a usage error): its exit code and what it printed. */
export async function runToEnd(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const run = launch(argv);
  const code = await run.exit;
  return { code, stdout: run.out.join(""), stderr: run.err.join("") };
}
