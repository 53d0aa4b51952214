/**
 * Vitest global setup: the one fast-check seed and budget of the run. `npm test` uses a fixed seed
 * (DEFAULT_FC_SEED) and fast-check's fixed budget, so a run fails only on a change, never on a new
 * draw; `FC_SEED=<integer>` replays another seed (the one a failure printed), `FC_SEED=random` draws
 * one, and `FC_NUM_RUNS_FACTOR=<n>` multiplies every property's number of runs (`npm run explore`
 * sets both: scripts/explore.mjs). The seed is printed once, here; each test file's setup
 * (test/support/fast-check-setup.ts) reads it back with `inject("fastCheck")`.
 */
import type { TestProject } from "vitest/node";

/** The seed `npm test` runs every property with (issue 22: the suite never draws a new one). */
export const DEFAULT_FC_SEED = 22;

/** What every test file's fast-check runs with. */
export interface FastCheckRun {
  /** The seed of every `fc.assert`/`fc.check`/`fc.sample` that does not pin its own. */
  readonly seed: number;
  /** Multiplies each property's number of runs (1 in `npm test`). */
  readonly numRunsFactor: number;
}

declare module "vitest" {
  export interface ProvidedContext {
    fastCheck: FastCheckRun;
  }
}

/**
 * The run's seed and budget from `FC_SEED` and `FC_NUM_RUNS_FACTOR`.
 * @throws {Error} when either is set to something else than documented.
 * @example
 * fastCheckRun({ FC_SEED: "-57514018" }) // { seed: -57514018, numRunsFactor: 1 }
 */
export function fastCheckRun(env: NodeJS.ProcessEnv, draw: () => number = () => (Math.random() * 2 ** 32) | 0): FastCheckRun {
  const rawSeed = env.FC_SEED?.trim() ?? "";
  let seed = DEFAULT_FC_SEED;
  if (rawSeed === "random") seed = draw();
  else if (rawSeed !== "") {
    seed = Number(rawSeed);
    if (!Number.isSafeInteger(seed)) throw new Error(`FC_SEED must be an integer or "random", not ${JSON.stringify(rawSeed)}`);
  }
  const rawFactor = env.FC_NUM_RUNS_FACTOR?.trim() ?? "";
  const numRunsFactor = rawFactor === "" ? 1 : Number(rawFactor);
  if (!(numRunsFactor > 0) || !Number.isFinite(numRunsFactor)) {
    throw new Error(`FC_NUM_RUNS_FACTOR must be a positive number, not ${JSON.stringify(rawFactor)}`);
  }
  return { seed, numRunsFactor };
}

export default function setup(project: TestProject): void {
  const run = fastCheckRun(process.env);
  project.provide("fastCheck", run);
  const budget = run.numRunsFactor === 1 ? "" : `, ${run.numRunsFactor}x the runs`;
  const how = run.seed === DEFAULT_FC_SEED ? "the fixed default; FC_SEED=<n> replays another" : "from FC_SEED";
  console.log(`fast-check: seed ${run.seed} (${how})${budget}`);
}
