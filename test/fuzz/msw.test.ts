/**
 * Seeded fuzz through msw handlers (`infra-doubles/msw` under msw's `setupServer`), with fetch and
 * with node:http: every oracle must stay silent, and the same slice through the transport-free
 * handler must give the same transcript (status, headers, body bytes).
 */
import { CI_COUNTS, CI_SEED } from "./fuzz.config.js";
import { twinFuzzTests } from "./harness/twin-cases.js";

twinFuzzTests(
  [
    ["msw-fetch", CI_COUNTS.mswFetch, 20_000],
    ["msw-http", CI_COUNTS.mswHttp, 30_000],
  ],
  CI_SEED + 3,
);
