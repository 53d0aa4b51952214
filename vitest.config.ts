import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig, type ViteUserConfig } from "vitest/config";

/**
 * The full-budget fuzz files (issue 8): 100,000 requests through the handler and 5,000 through each
 * transport, about 170 s of a 2-core machine. `npm test` leaves them out and runs their first
 * requests instead (test/fuzz/smoke.test.ts); `npm run test:fuzz` (vitest.fuzz.config.ts) runs
 * them in full, as its own step of .ci/run. The fuzz's other files (oracles, determinism) stay here.
 */
export const FULL_FUZZ = [
  "test/fuzz/handler-*.test.ts",
  "test/fuzz/nock-fetch.test.ts",
  "test/fuzz/nock-http.test.ts",
  "test/fuzz/interceptors.test.ts",
  "test/fuzz/msw.test.ts",
  "test/fuzz/server-socket.test.ts",
];

/**
 * `npm run explore` (scripts/explore.mjs) sets FC_NUM_RUNS_FACTOR: then `fast-check` resolves to
 * test/support/fast-check-explore.ts, which multiplies each property's own `numRuns` too.
 */
const explore = (process.env.FC_NUM_RUNS_FACTOR ?? "") !== "";

/** What every run of the suite shares; `include`/`exclude` say which files. */
export const shared = {
  resolve: explore ? { alias: [{ find: /^fast-check$/, replacement: fileURLToPath(new URL("./test/support/fast-check-explore.ts", import.meta.url)) }] } : {},
  test: {
    testTimeout: 30_000,
    pool: "forks",
    // Vitest's default is one worker less than the cores: one at a time on a 2-core machine, while
    // its main process idles. One per core: test/interceptors (65 files) 222-245 s -> 156-159 s on a shared
    // 2-core machine (same CPU time; threads instead of forks: 154 s, kept forks).
    maxWorkers: availableParallelism(),
    // Builds dist/ when it is missing or older than src/ (the CLI and packaging tests run it); prints
    // the fast-check seed of the run (FC_SEED overrides it) and hands it to every file's setup.
    globalSetup: ["test/support/global-setup.ts", "test/support/fast-check-seed.ts"],
    setupFiles: ["test/support/fast-check-setup.ts"],
  },
} satisfies ViteUserConfig;

export default defineConfig({
  ...shared,
  test: {
    ...shared.test,
    include: ["test/**/*.test.ts", "examples/**/*.test.ts"],
    exclude: ["**/node_modules/**", ...FULL_FUZZ],
  },
});
