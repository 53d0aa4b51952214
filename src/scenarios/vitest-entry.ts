/**
 * `infra-doubles/vitest`: the journal matchers registered on Vitest's `expect` (importing this
 * entry is enough), and `useDoubles()`, which gives each test its own doubles. Vitest is an
 * optional peer dependency, loaded only by this entry.
 *
 * @example
 * import { expect, it } from "vitest";
 * import "infra-doubles/vitest";
 * it("applies once", async () => {
 *   // ...
 *   expect(doubles).toHaveReceivedTimes("POST /runs/:run_id/actions/apply", 1);
 * });
 */
import { expect } from "vitest";
import { journalMatchers, type JournalMatchers } from "./journal-matchers.js";

expect.extend(journalMatchers);

declare module "vitest" {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-explicit-any
  interface Matchers<T = any> extends JournalMatchers<T> {}
}

export { filterOf, journalMatchers, type ExpectedRequest, type JournalMatchers, type JournalSource, type MatcherContext, type MatcherResult, type UnhandledRequest } from "./journal-matchers.js";
