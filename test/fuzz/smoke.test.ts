/**
 * The fuzz's smoke in `npm test`: the first SMOKE_COUNT requests of each CI fuzz file's slice (same
 * seeds, same starts), through the handler and through every transport beside its handler twin.
 * Every oracle must stay silent and the transcripts agree. The full budget (100,000 requests through
 * the handler, 5,000 per transport) runs in `npm run test:fuzz`, its own step of .ci/run.
 */
import { expect, it } from "vitest";
import { CI_COUNTS, CI_SEED, SMOKE_COUNT } from "./fuzz.config.js";
import { formatFindings } from "./harness/run.js";
import { fuzzSession } from "./harness/session.js";
import { twinFuzzTests } from "./harness/twin-cases.js";

it("answers the first seeded requests of the handler files without a finding", async () => {
  const result = await fuzzSession({ transport: "handler", seed: CI_SEED, start: 0, count: SMOKE_COUNT });
  expect(formatFindings(result.findings)).toBe("");
  expect(result.sent).toBe(SMOKE_COUNT);
});

// The slices of nock-fetch.test.ts, nock-http.test.ts and server-socket.test.ts (seed CI_SEED + 1),
// interceptors.test.ts (CI_SEED + 2) and msw.test.ts (CI_SEED + 3).
twinFuzzTests(
  [
    ["nock-fetch", Math.min(SMOKE_COUNT, CI_COUNTS.nockFetch), 0],
    ["nock-http", Math.min(SMOKE_COUNT, CI_COUNTS.nockHttp), 0],
    ["server-socket", Math.min(SMOKE_COUNT, CI_COUNTS.serverSocket), 0],
  ],
  CI_SEED + 1,
);
twinFuzzTests(
  [
    ["interceptors-fetch", Math.min(SMOKE_COUNT, CI_COUNTS.interceptorsFetch), 0],
    ["interceptors-http", Math.min(SMOKE_COUNT, CI_COUNTS.interceptorsHttp), 10_000],
  ],
  CI_SEED + 2,
);
twinFuzzTests(
  [
    ["msw-fetch", Math.min(SMOKE_COUNT, CI_COUNTS.mswFetch), 20_000],
    ["msw-http", Math.min(SMOKE_COUNT, CI_COUNTS.mswHttp), 30_000],
  ],
  CI_SEED + 3,
);
