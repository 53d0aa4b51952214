/**
 * Same seed, same bytes (issue 8): a slice of the fuzz run twice, each time on a fresh world,
 * gives the same transcript line for line (status, headers, a hash of each body). The transport
 * files compare each transport's transcript with the handler's.
 */
import { expect, it } from "vitest";
import { CI_SEED } from "./fuzz.config.js";
import { fuzzSession, transcriptDiff } from "./harness/session.js";

it("gives byte-identical transcripts for the same seed, run twice", async () => {
  const slice = { transport: "handler" as const, seed: CI_SEED + 2, start: 0, count: 3_000 };
  const first = await fuzzSession(slice);
  const second = await fuzzSession(slice);
  expect(first.transcript).toHaveLength(3_000);
  expect(transcriptDiff(first.transcript, second.transcript)).toEqual([]);
  const other = await fuzzSession({ ...slice, seed: CI_SEED + 3, count: 200 });
  expect(transcriptDiff(first.transcript.slice(0, 200), other.transcript)).not.toEqual([]); // another seed, other requests
}, 600_000);
