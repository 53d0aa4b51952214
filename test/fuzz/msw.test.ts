/**
 * Seeded fuzz through msw handlers (`infra-doubles/msw` under msw's `setupServer`), with fetch and
 * with node:http: every oracle must stay silent, and the same slice through the transport-free
 * handler must give the same transcript (status, headers, body bytes).
 */
import { expect, it } from "vitest";
import { CI_COUNTS, CI_SEED } from "./fuzz.config.js";
import { formatFindings } from "./harness/run.js";
import { fuzzSession, summary, transcriptDiff } from "./harness/session.js";

const cases = [
  ["msw-fetch", CI_COUNTS.mswFetch, 20_000],
  ["msw-http", CI_COUNTS.mswHttp, 30_000],
] as const;

for (const [transport, count, start] of cases) {
  it(`answers seeded requests through ${transport} without a finding, as the handler answers them`, async () => {
    const result = await fuzzSession({ transport, seed: CI_SEED + 3, start, count, twin: true });
    console.log(summary(transport, result));
    expect(formatFindings(result.findings)).toBe("");
    expect(formatFindings(result.twin?.findings ?? [])).toBe("");
    expect(result.sent).toBe(count);
    expect(transcriptDiff(result.transcript, result.twin?.transcript ?? [])).toEqual([]);
  }, 600_000);
}
