/**
 * Seeded fuzz through the transport-free handler, part 3 of ${CI_COUNTS.handlerFiles} (issue 8):
 * requests from every route table and their mutations; every oracle must stay silent.
 * Replay a finding alone with the command it prints (`npm run fuzz -- --seed S --index I`).
 */
import { expect, it } from "vitest";
import { CI_COUNTS, CI_SEED } from "./fuzz.config.js";
import { formatFindings } from "./harness/run.js";
import { fuzzSession, summary } from "./harness/session.js";

it("answers its share of the seeded requests through the handler without a finding (part 3)", async () => {
  const result = await fuzzSession({ transport: "handler", seed: CI_SEED, start: 2 * CI_COUNTS.handlerSliceStride, count: CI_COUNTS.perHandlerFile });
  console.log(summary("handler part 3", result));
  expect(formatFindings(result.findings)).toBe("");
  expect(result.sent).toBe(CI_COUNTS.perHandlerFile);
  expect(result.lastIndex).toBeLessThan(3 * CI_COUNTS.handlerSliceStride); // the slices do not overlap
}, 600_000);
