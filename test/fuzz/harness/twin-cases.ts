/**
 * Registers one vitest test per in-process transport case: a seeded fuzz slice through the
 * transport and the same slice through the transport-free handler (the twin). Every oracle must
 * stay silent on both, and both must give the same transcript (status, headers, body bytes).
 */
import { expect, it } from "vitest";
import { formatFindings } from "./run.js";
import { fuzzSession, summary, transcriptDiff, type SessionOptions } from "./session.js";

/** A transport, how many requests it sends, and where in the seeded stream its slice starts. */
export type TwinCase = readonly [transport: SessionOptions["transport"], count: number, start: number];

/** Declares the twin fuzz tests of `cases`, drawing from seed `seed`. */
export function twinFuzzTests(cases: readonly TwinCase[], seed: number): void {
  for (const [transport, count, start] of cases) {
    it(`answers seeded requests through ${transport} without a finding, as the handler answers them`, async () => {
      const result = await fuzzSession({ transport, seed, start, count, twin: true });
      console.log(summary(transport, result));
      expect(formatFindings(result.findings)).toBe("");
      expect(formatFindings(result.twin?.findings ?? [])).toBe("");
      expect(result.sent).toBe(count);
      expect(transcriptDiff(result.transcript, result.twin?.transcript ?? [])).toEqual([]);
    }, 600_000);
  }
}
