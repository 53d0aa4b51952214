/**
 * Seeded fuzz through nock + node:https request() (issue 8): every oracle must stay silent, and the same slice through the
 * transport-free handler must give the same transcript (status, headers, body bytes).
 */
import { expect, it } from "vitest";
import { CI_COUNTS, CI_SEED } from "./fuzz.config.js";
import { formatFindings } from "./harness/run.js";
import { fuzzSession, summary, transcriptDiff } from "./harness/session.js";

it("answers seeded requests through nock-http without a finding, as the handler answers them", async () => {
  const result = await fuzzSession({ transport: "nock-http", seed: CI_SEED + 1, start: 0, count: CI_COUNTS.nockHttp, twin: true });
  console.log(summary("nock-http", result));
  expect(formatFindings(result.findings)).toBe("");
  expect(formatFindings(result.twin?.findings ?? [])).toBe("");
  expect(result.sent).toBe(CI_COUNTS.nockHttp);
  expect(transcriptDiff(result.transcript, result.twin?.transcript ?? [])).toEqual([]);
}, 600_000);
