/**
 * fast-check as `npm run explore` sees it: vitest.config.ts aliases `fast-check` to this module when
 * `FC_NUM_RUNS_FACTOR` is set (never in `npm test`). Everything is fast-check's own, except that
 * `assert` and `check` multiply a property's own `numRuns` by the factor, so every property runs
 * longer, not only those on fast-check's default budget (test/support/fast-check-setup.ts scales
 * that one). A call that pins its own `seed` keeps its `numRuns`: it replays a chosen case.
 */
import * as real from "../../node_modules/fast-check/lib/fast-check.js";

const factor = Number(process.env.FC_NUM_RUNS_FACTOR ?? "1") || 1;

function scaled<P extends { numRuns?: number; seed?: number } | undefined>(params: P): P {
  if (params === undefined || params.numRuns === undefined || params.seed !== undefined) return params;
  return { ...params, numRuns: Math.max(1, Math.round(params.numRuns * factor)) };
}

export * from "../../node_modules/fast-check/lib/fast-check.js";

/** fast-check's `assert`, with the property's own `numRuns` multiplied by `FC_NUM_RUNS_FACTOR`. */
export const assert: typeof real.assert = ((property: Parameters<typeof real.assert>[0], params?: Parameters<typeof real.assert>[1]) =>
  real.assert(property, scaled(params))) as typeof real.assert;

/** fast-check's `check`, with the property's own `numRuns` multiplied by `FC_NUM_RUNS_FACTOR`. */
export const check: typeof real.check = ((property: Parameters<typeof real.check>[0], params?: Parameters<typeof real.check>[1]) =>
  real.check(property, scaled(params))) as typeof real.check;

export default { ...real.default, assert, check };
