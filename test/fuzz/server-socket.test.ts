/**
 * Seeded fuzz through the local server over raw sockets (framing: pipelining, chunked bodies, split writes, bad Content-Length) (issue 8): every oracle must stay silent, and the same slice through the
 * transport-free handler must give the same transcript (status, headers, body bytes).
 */
import { expect, it } from "vitest";
import { CI_COUNTS, CI_SEED } from "./fuzz.config.js";
import { formatFindings } from "./harness/run.js";
import { fuzzSession, summary, transcriptDiff } from "./harness/session.js";

it("answers seeded requests through server-socket without a finding, as the handler answers them", async () => {
  const result = await fuzzSession({ transport: "server-socket", seed: CI_SEED + 1, start: 0, count: CI_COUNTS.serverSocket, twin: true });
  console.log(summary("server-socket", result));
  expect(formatFindings(result.findings)).toBe("");
  expect(formatFindings(result.twin?.findings ?? [])).toBe("");
  expect(result.sent).toBe(CI_COUNTS.serverSocket);
  expect(transcriptDiff(result.transcript, result.twin?.transcript ?? [])).toEqual([]);
}, 600_000);
