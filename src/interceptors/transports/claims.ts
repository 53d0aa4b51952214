/**
 * Which in-process interception answers each origin, process-wide, whatever its transport (nock or
 * the `interceptors` transport). Two live interceptions of one origin would shadow each other
 * silently (the first one to match answers), so a second one is refused until the first stops.
 */
import { UsageError } from "../../simulator/kernel/errors.js";

interface Claim {
  readonly owner: symbol;
  /** Whether the claim still answers (nock's interceptors can be removed by `nock.cleanAll()`). */
  readonly live: () => boolean;
}

const claims = new Map<string, Claim>();

/**
 * Claims `origins` for one interception until the returned function is called.
 * @param origins - the origins, as the handler lists them.
 * @param live - whether the interception still answers; a claim that is no longer live is taken over.
 * @returns the release function (calling it twice is harmless).
 * @throws {UsageError} when a live interception holds one of the origins.
 * @example
 * const release = claimOrigins(handler.origins, () => true);
 * release();
 */
export function claimOrigins(origins: readonly string[], live: () => boolean): () => void {
  const taken = origins.filter((origin) => claims.get(origin)?.live() === true);
  if (taken.length > 0) {
    throw new UsageError(
      `${taken.join(", ")} ${taken.length === 1 ? "is" : "are"} already intercepted by another interception that was not stopped; ` +
        "stop it first (`using _interception = doubles.intercept()`, `interception.stop()` or `await doubles.close()` after each test), " +
        "or give each doubles hosts of their own for tests that run at once: createDoubles({ uniqueOrigins: true })",
    );
  }
  const owner = Symbol("interception");
  for (const origin of origins) claims.set(origin, { owner, live });
  return () => {
    for (const origin of origins) if (claims.get(origin)?.owner === owner) claims.delete(origin);
  };
}
