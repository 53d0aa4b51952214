/**
 * `createDoubles()`: every simulated service on one simulator and one clock, with typed scenario
 * controls per service.
 */
import { DoublesCore, type DoublesCoreOptions } from "./doubles-core.js";
import type { ServicePlugin } from "./plugin.js";

/** Options of {@link createDoubles}. */
export type DoublesOptions = DoublesCoreOptions;

/**
 * Every service plugin, in mount order. Each service adds its plugin here and a typed getter to
 * {@link Doubles}.
 */
export const ALL_PLUGINS: readonly ServicePlugin<unknown>[] = [
  // service plugins are listed here
];

/**
 * The three simulated services with one clock, one id source and both transports.
 *
 * @example
 * const doubles = createDoubles({ seed: 1 });
 * using _nock = doubles.intercept();
 * doubles.advance("10m");
 */
export class Doubles extends DoublesCore {
  constructor(options: DoublesOptions = {}) {
    super(ALL_PLUGINS, options);
  }

  // typed service getters are listed here
}

/**
 * Creates the doubles: a simulator (manual clock at 2024-01-01T00:00:00Z unless told otherwise)
 * with every service, ready to `intercept()` with nock or `listen()` as a server.
 * @example
 * const doubles = createDoubles({ seed: 42, clock: "manual", start: "2024-05-01T00:00:00Z" });
 */
export function createDoubles(options: DoublesOptions = {}): Doubles {
  return new Doubles(options);
}
