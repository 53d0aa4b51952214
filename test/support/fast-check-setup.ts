/**
 * Vitest setup file (runs in each test file's worker before the file): every fast-check property,
 * check and sample that does not pin its own seed runs with the run's seed (printed once by
 * test/support/fast-check-seed.ts; `FC_SEED` overrides it) and fast-check's budget of 100 runs,
 * times `FC_NUM_RUNS_FACTOR` under `npm run explore`. A property that passes its own `numRuns`
 * keeps it in `npm test`; under explore test/support/fast-check-explore.ts multiplies it too.
 * A failure prints `{ seed, path }`: `FC_SEED=<seed> npx vitest run <file>` replays it.
 */
import fc from "fast-check";
import { inject } from "vitest";

const { seed, numRunsFactor } = inject("fastCheck");
fc.configureGlobal({ ...fc.readConfigureGlobal(), seed, numRuns: Math.max(1, Math.round(100 * numRunsFactor)) });
