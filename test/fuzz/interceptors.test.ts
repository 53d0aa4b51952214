/**
 * Seeded fuzz through the @mswjs/interceptors transport (`intercept({ transport: "interceptors" })`),
 * with fetch and with node:http: every oracle must stay silent, and the same slice through the
 * transport-free handler must give the same transcript (status, headers, body bytes).
 */
import { expect, it } from "vitest";
import { CI_COUNTS, CI_SEED } from "./fuzz.config.js";
import { formatFindings } from "./harness/run.js";
import { fuzzSession, summary, transcriptDiff } from "./harness/session.js";

const cases = [
  ["interceptors-fetch", CI_COUNTS.interceptorsFetch, 0],
  ["interceptors-http", CI_COUNTS.interceptorsHttp, 10_000],
] as const;

for (const [transport, count, start] of cases) {
  it(`answers seeded requests through ${transport} without a finding, as the handler answers them`, async () => {
    const result = await fuzzSession({ transport, seed: CI_SEED + 2, start, count, twin: true });
    console.log(summary(transport, result));
    expect(formatFindings(result.findings)).toBe("");
    expect(formatFindings(result.twin?.findings ?? [])).toBe("");
    expect(result.sent).toBe(count);
    expect(transcriptDiff(result.transcript, result.twin?.transcript ?? [])).toEqual([]);
  }, 600_000);
}
