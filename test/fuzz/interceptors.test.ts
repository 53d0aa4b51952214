/**
 * Seeded fuzz through the @mswjs/interceptors transport (`intercept({ transport: "interceptors" })`),
 * with fetch and with node:http: every oracle must stay silent, and the same slice through the
 * transport-free handler must give the same transcript (status, headers, body bytes).
 */
import { CI_COUNTS, CI_SEED } from "./fuzz.config.js";
import { twinFuzzTests } from "./harness/twin-cases.js";

twinFuzzTests(
  [
    ["interceptors-fetch", CI_COUNTS.interceptorsFetch, 0],
    ["interceptors-http", CI_COUNTS.interceptorsHttp, 10_000],
  ],
  CI_SEED + 2,
);
