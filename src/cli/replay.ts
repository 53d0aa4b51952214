/**
 * `infra-doubles replay BUNDLE`: replays a bundle on a fresh world and reports the first answer
 * that differs; `--diff N` prints the state change request N made; `--until N` serves the world
 * as it was before request N (serve's flags) until SIGINT/SIGTERM.
 */
import { BundleError, readBundle } from "../scenarios/bundles/bundle.js";
import { formatChanges } from "../scenarios/bundles/diff.js";
import { describeRequest, replayBundle } from "../scenarios/bundles/replay.js";
import type { ReplayCommand } from "./args.js";
import { devServerWarning } from "./serve.js";

/** Exit status of `replay` when an answer differs from the recorded one. */
export const EXIT_REPLAY_DIFFERS = 1;
/** Exit status of `replay` for a bundle that cannot be read, or a request number it does not have. */
export const EXIT_BAD_BUNDLE = 2;

/** Where `replay` writes, and where `--until`'s stop signals come from. */
export interface ReplayIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  readonly signals: {
    once(event: "SIGINT" | "SIGTERM", listener: () => void): unknown;
    off(event: "SIGINT" | "SIGTERM", listener: () => void): unknown;
  };
}

/**
 * Runs `infra-doubles replay`.
 * @returns 0 when every replayed answer is byte-identical to the recorded one (with `--until`:
 *   after the stop signal), 1 when one differs (the difference on stdout), 2 for an unreadable
 *   bundle or a request number it does not have.
 * @example await runReplay({ command: "replay", file: "b.json", port: 8080, host: "127.0.0.1", json: false, allowedHosts: [] }, io) // 0
 */
export async function runReplay(command: ReplayCommand, io: ReplayIo): Promise<number> {
  let bundle;
  try {
    bundle = readBundle(command.file);
  } catch (error) {
    if (!(error instanceof BundleError)) throw error;
    io.stderr.write(`infra-doubles: ${error.message}\n`);
    return EXIT_BAD_BUNDLE;
  }
  let result;
  try {
    result = await replayBundle(bundle, { ...(command.until === undefined ? {} : { until: command.until }), ...(command.diff === undefined ? {} : { diff: command.diff }) });
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    io.stderr.write(`infra-doubles: ${command.file}: ${error.message}\n`);
    return EXIT_BAD_BUNDLE;
  }
  const { doubles } = result;
  try {
    for (const warning of result.warnings) io.stderr.write(`infra-doubles: warning: ${warning}\n`);
    const about = bundle.test === undefined ? "" : ` (test "${bundle.test.name}" in ${bundle.test.file})`;
    const out: string[] = [`infra-doubles replay ${command.file}${about}: seed ${String(bundle.seed)}, start ${bundle.start}, ${result.requests} request${result.requests === 1 ? "" : "s"}`];
    if (result.mismatch !== undefined) out.push(result.mismatch.report);
    else if (command.until === undefined) out.push(`replayed ${result.replayed} request${result.replayed === 1 ? "" : "s"}: every answer identical, byte for byte`);
    else out.push(`replayed requests 1 to ${command.until - 1}: every answer identical, byte for byte`);
    if (result.diff !== undefined) {
      const lines = formatChanges(result.diff.changes);
      out.push(`state change of request ${describeRequest(result.diff.request)}: ${lines.length} change${lines.length === 1 ? "" : "s"}`, ...lines.map((line) => `  ${line}`));
    }
    io.stdout.write(`${out.join("\n")}\n`);
    if (command.until === undefined) return result.mismatch === undefined ? 0 : EXIT_REPLAY_DIFFERS;
    const server = await doubles.listen({
      port: command.port,
      host: command.host,
      allowedHosts: command.allowedHosts,
      ...(command.controlToken === undefined ? {} : { controlToken: command.controlToken }),
    });
    const warning = devServerWarning({ host: command.host });
    if (warning !== undefined) io.stderr.write(warning);
    const next = result.stoppedBefore;
    const path = next === undefined ? "" : new URL(next.url).pathname + new URL(next.url).search;
    if (command.json) {
      io.stdout.write(`${JSON.stringify({ url: server.url, ...(server.controlToken === undefined ? {} : { controlToken: server.controlToken }), before: next === undefined ? null : { n: next.n, method: next.method, url: `${server.url}${path}`, at: next.at } })}\n`);
    } else {
      io.stdout.write(
        [
          `the world before request ${next === undefined ? "" : describeRequest(next)} is served on ${server.url} (clock stopped at ${new Date(doubles.now()).toISOString()})`,
          ...(next === undefined ? [] : [`  that request here: curl -X ${next.method} '${server.url}${path}'`]),
          `  control API: ${server.url}/_sim/ (POST /_sim/reset goes back to this world)`,
          "Press Ctrl+C to stop.",
          "",
        ].join("\n"),
      );
    }
    await new Promise<void>((resolve) => {
      const stop = (): void => {
        io.signals.off("SIGINT", stop);
        io.signals.off("SIGTERM", stop);
        resolve();
      };
      io.signals.once("SIGINT", stop);
      io.signals.once("SIGTERM", stop);
    });
    return result.mismatch === undefined ? 0 : EXIT_REPLAY_DIFFERS;
  } finally {
    await doubles.close();
  }
}
