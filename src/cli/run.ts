/**
 * `infra-doubles run FILE`: loads a scenario document on a fresh simulator (manual clock), plays
 * its timeline and prints the transcript. Everything printed comes from the file, the seed and
 * simulator time, so the same file and seed print the same bytes.
 */
import { readFileSync } from "node:fs";
import { ScenarioDocumentError } from "../scenarios/document/errors.js";
import { formatOf, parseScenarioText } from "../scenarios/document/parse.js";
import { describeNames } from "../scenarios/document/timeline.js";
import type { ScenarioDocument } from "../scenarios/document/types.js";
import { createDoubles } from "../scenarios/doubles.js";
import { isoMillis } from "../simulator/kernel/time.js";

/** Exit status of `run` when an `expect` step failed. */
export const EXIT_EXPECTATION_FAILED = 1;
/** Exit status of `run` for a document that cannot be read, parsed, validated or played. */
export const EXIT_INVALID_DOCUMENT = 2;

/**
 * Plays the scenario document at `file` and writes the transcript to `out`.
 * @param options.seed - seed of ids and secrets (default 1).
 * @param options.start - the manual clock's start, ms since the epoch (default 2024-01-01T00:00:00Z).
 * @returns 0 when every `expect` step passed, 1 when one failed (its step and actual value are in
 *   the transcript), 2 when the document is unreadable or invalid (the reason on `err`).
 * @example runScenarioFile("examples/scenarios/runs.yaml", { seed: 1 }, process.stdout, process.stderr) // 0
 */
export function runScenarioFile(
  file: string,
  options: { readonly seed?: number | string; readonly start?: number },
  out: { write(text: string): unknown },
  err: { write(text: string): unknown },
): number {
  const seed = options.seed ?? 1;
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    err.write(`infra-doubles: cannot read ${file}: ${(error as Error).message}\n`);
    return EXIT_INVALID_DOCUMENT;
  }
  const doubles = createDoubles({ seed, clock: "manual", ...(options.start === undefined ? {} : { start: options.start }) });
  const lines = [`infra-doubles run ${file} (seed ${String(seed)})`];
  try {
    const loaded = doubles.load(parseScenarioText(text, formatOf(file, text), file) as ScenarioDocument);
    if (loaded.document.description !== undefined) lines.push(`# ${loaded.document.description.trim().replace(/\n/g, "\n# ")}`);
    lines.push(`loaded at ${isoMillis(loaded.loadedAt)}`);
    for (const line of describeNames(loaded.names)) lines.push(`  ${line}`);
    out.write(`${lines.join("\n")}\n`);
    lines.length = 0;
    const transcript = loaded.play();
    // Written as they are, not spread into a call: a timeline of any length has as many lines.
    if (transcript.lines.length > 0) out.write(`${transcript.lines.join("\n")}\n`);
    out.write(`${transcript.passed} expectation${transcript.passed === 1 ? "" : "s"} passed, ${transcript.failed} failed\n`);
    return transcript.ok ? 0 : EXIT_EXPECTATION_FAILED;
  } catch (error) {
    if (lines.length > 0) out.write(`${lines.join("\n")}\n`);
    if (error instanceof ScenarioDocumentError) {
      err.write(`${error.message}\n`);
      return EXIT_INVALID_DOCUMENT;
    }
    throw error;
  }
}
