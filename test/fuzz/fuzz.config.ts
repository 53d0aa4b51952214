/**
 * The fuzz's configuration: how many requests each CI file sends, and the allow-list of known
 * issue-8 defects whose inputs are not generated until their fix lands. Each entry names the
 * defect it waits on; remove the entry when the fix is on main (the fuzz must then stay green).
 */
import type { FuzzRequest } from "./harness/generate.js";

/** A transport of the fuzz. */
export type FuzzTransport =
  | "handler"
  | "server-handler"
  | "nock-fetch"
  | "nock-http"
  | "interceptors-fetch"
  | "interceptors-http"
  | "msw-fetch"
  | "msw-http"
  | "server-socket";

/** One known defect: requests it matches are skipped (and counted) until its fix lands. */
export interface KnownDefect {
  /** Short name, shown in reports. */
  readonly id: string;
  /** The issue-8 defect it waits on, and who fixes it. */
  readonly waitsOn: string;
  /** Whether a request is one this defect would turn into a finding. */
  readonly matches: (request: FuzzRequest, transport: FuzzTransport) => boolean;
}

/**
 * Known defects being fixed on other branches: requests they match are skipped until the fix lands
 * on main. Empty: every issue-8 defect is fixed. A new finding whose fix is under way gets an entry
 * here (with `waitsOn`), and loses it when the fix lands.
 */
export const KNOWN_DEFECTS: readonly KnownDefect[] = [];

/**
 * Requests sent per CI run (`npm run test:fuzz`, its own step of .ci/run; `npm test` runs only the
 * smoke), by file (known-defect skips do not count). The handler files send
 * 4 x 25,000 = 100,000 from indexes 0, 40,000, 80,000 and 120,000; each transport 5,000.
 */
export const CI_COUNTS = {
  handlerFiles: 4,
  perHandlerFile: 25_000,
  handlerSliceStride: 40_000,
  nockFetch: 5_000,
  nockHttp: 5_000,
  /** The @mswjs/interceptors transport: half through fetch, half through node:http (5,000 in all). */
  interceptorsFetch: 2_500,
  interceptorsHttp: 2_500,
  /** msw handlers (`infra-doubles/msw`) under msw's `setupServer`: half through fetch, half through node:http. */
  mswFetch: 1_000,
  mswHttp: 1_000,
  serverSocket: 5_000,
} as const;

/**
 * Requests per transport in `npm test`'s fuzz smoke (test/fuzz/smoke.test.ts): the first ones of
 * each CI file's slice (two episodes), so a smoke failure replays in `npm run test:fuzz` too.
 */
export const SMOKE_COUNT = 128;

/** The seed CI uses (the long run takes `--seed`). */
export const CI_SEED = 8;

/** Requests per episode: each episode starts again from the world's initial state. */
export const EPISODE = 64;

/** A request taking longer than this is a hang (ms). */
export const HANG_MS = 2_000;
