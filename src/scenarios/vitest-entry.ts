/**
 * `infra-doubles/vitest`: the journal matchers registered on Vitest's `expect` (importing this
 * entry is enough), and `useDoubles()`, which gives each test its own doubles. Vitest is an
 * optional peer dependency, loaded only by this entry.
 *
 * @example
 * import { expect, it } from "vitest";
 * import { useDoubles } from "infra-doubles/vitest";
 *
 * const doubles = useDoubles({ seed: 1 });
 * it("applies once", async () => {
 *   // ... the code under test, against doubles().baseUrls() ...
 *   expect(doubles()).toHaveReceivedTimes("POST /runs/:run_id/actions/apply", 1);
 * });
 *
 * @packageDocumentation
 * @module infra-doubles/vitest
 */
import { afterEach, beforeEach, expect, type TestContext } from "vitest";
import type { UnhandledRequestStrategy } from "../interceptors/transports/unhandled.js";
import { UsageError } from "../simulator/kernel/errors.js";
import { createDoubles, type Doubles, type DoublesOptions } from "./doubles.js";
import { assertNoUnexpectedRequests, journalMatchers, type JournalMatchers } from "./journal-matchers.js";
import { temporalMatchers, type TemporalMatchers } from "./temporal-matchers.js";

expect.extend(journalMatchers);
expect.extend(temporalMatchers);

declare module "vitest" {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  interface Matchers<T = any> extends JournalMatchers<T>, TemporalMatchers<T> {}
  interface TestContext {
    /** The test's own doubles, when the file calls `useDoubles()`. */
    doubles: Doubles;
  }
}

/** Options of {@link useDoubles}: `createDoubles()`'s, plus how to intercept and check. */
export interface UseDoublesOptions extends DoublesOptions {
  /** `"nock"` (default) or `"interceptors"`. */
  readonly transport?: "nock" | "interceptors";
  /** What happens to requests to hosts no doubles own (default `"warn"`); see `intercept()`. */
  readonly onUnhandledRequest?: UnhandledRequestStrategy;
  /**
   * After each test, fail it when a request matched no endpoint or went unhandled (default true;
   * see `assertNoUnexpectedRequests`).
   */
  readonly checkUnexpectedRequests?: boolean;
  /**
   * Where a failing test's replay bundle goes (see `doubles.bundle()`): a directory, default
   * `$INFRA_DOUBLES_BUNDLE_DIR` or `.infra-doubles/bundles` (relative to the working directory),
   * one file per test, `<test file>-<test name>.json` (the file relative to the project's root,
 * anything but letters, digits, `.`, `_`, `-` as `_`), named in the failure; `false` writes none.
   */
  readonly bundleDir?: string | false;
}

/**
 * Gives each test of the file (or `describe` block) its own doubles: created and intercepting
 * before each test, stopped after it, then checked for unexpected requests (a request no endpoint
 * serves, one to a host no doubles own; the test fails naming them). Each test gets its doubles in
 * its context (`({ doubles }) => ...`), which `test.concurrent` needs; with
 * `uniqueOrigins: true` concurrent tests in one worker get hosts of their own
 * (`doubles.baseUrls()`), so they share nothing. Without it, two live doubles on the same origins
 * are refused, as ever. When a test fails, its replay bundle is written (`bundleDir`, default
 * `.infra-doubles/bundles/<test file>-<test name>.json`) and named in the failure; replay it with
 * `npx infra-doubles replay PATH` (docs/guides/replay-a-failing-test.md).
 * @param options - `createDoubles()` options, plus `transport`, `onUnhandledRequest`,
 *   `checkUnexpectedRequests`, `bundleDir`.
 * @returns a function giving the running test's doubles (outside `test.concurrent`).
 * @throws {UsageError} from the returned function outside a test, or while several tests run at
 *   once (take them from the test context then).
 * @example
 * const doubles = useDoubles({ seed: 1, uniqueOrigins: true });
 * it.concurrent("reads a secret", async ({ doubles, expect }) => {
 *   const client = makeClient(doubles.baseUrls().secrets.api);
 *   // ...
 *   expect(doubles).toHaveReceived("GET /sys/health");
 * });
 * it("one at a time", () => {
 *   doubles().advance("10m");
 * });
 */
export function useDoubles(options: UseDoublesOptions = {}): () => Doubles {
  const { transport = "nock", onUnhandledRequest, checkUnexpectedRequests = true, bundleDir, ...doublesOptions } = options;
  const live = new Map<string, Doubles>();
  beforeEach((context) => {
    const doubles = createDoubles(doublesOptions);
    doubles.intercept({ transport, ...(onUnhandledRequest === undefined ? {} : { onUnhandledRequest }) });
    live.set(context.task.id, doubles);
    context.doubles = doubles;
  });
  afterEach(async (context) => {
    const doubles = live.get(context.task.id);
    live.delete(context.task.id);
    if (doubles === undefined) return;
    await doubles.close();
    if (context.task.result?.state === "fail") {
      const line = failureBundle(doubles, context, bundleDir);
      const first = context.task.result.errors?.[0];
      if (line !== undefined && first !== undefined) first.message = `${first.message ?? ""}\n\n${line}`;
      else if (line !== undefined) process.stderr.write(`${line}\n`);
      return;
    }
    if (!checkUnexpectedRequests) return;
    try {
      assertNoUnexpectedRequests(doubles);
    } catch (error) {
      const written = failureBundle(doubles, context, bundleDir);
      if (written !== undefined && error instanceof Error) error.message += `\n\n${written}`;
      throw error;
    }
  });
  return () => {
    const [only, ...others] = live.values();
    if (only === undefined) throw new UsageError("useDoubles(): no test is running (call the returned function inside a test)");
    if (others.length > 0) {
      throw new UsageError("useDoubles(): several tests run at once (test.concurrent); take each test's doubles from its context: it.concurrent(\"...\", async ({ doubles }) => ...)");
    }
    return only;
  };
}

/** The default directory of failing tests' bundles (relative to the working directory). */
export const DEFAULT_BUNDLE_DIR = ".infra-doubles/bundles";

/**
 * Writes the failing test's bundle.
 * @returns the line naming it (or saying why none was written), or undefined with `bundleDir: false`.
 */
function failureBundle(doubles: Doubles, context: TestContext, bundleDir: string | false | undefined): string | undefined {
  if (bundleDir === false) return undefined;
  const dir = bundleDir ?? (process.env.INFRA_DOUBLES_BUNDLE_DIR || DEFAULT_BUNDLE_DIR);
  const task = context.task;
  // The file as vitest names it: relative to the project's root.
  const file = task.file.name;
  const names: string[] = [];
  for (let suite: { name: string; suite?: unknown } | undefined = task; suite !== undefined && suite !== task.file; suite = suite.suite as typeof suite) {
    if (suite.name !== "") names.unshift(suite.name);
  }
  const name = names.join(" > ");
  const errors = (task.result?.errors ?? []).map((e) => String(e.message ?? "")).slice(0, 5);
  let line: string;
  try {
    const path = doubles.bundle(`${dir.replace(/[/\\]+$/, "")}/${safeName(file.replace(/\.[cm]?[jt]sx?$/, ""))}-${safeName(name)}.json`, { file, name, errors });
    line = `infra-doubles: replay bundle written to ${path}\n  replay it: npx infra-doubles replay ${path}`;
  } catch (error) {
    line = `infra-doubles: no replay bundle: ${(error as Error).message}`;
  }
  return line;
}

/** A file-name piece: letters, digits, `.`, `_` and `-` kept, runs of anything else as one `_`, at most 100 characters. */
function safeName(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]+/g, "_").replace(/^[_.]+|_+$/g, "").slice(0, 100) || "test";
}

// The journal matchers, whole (the main entry exports the same module).
export * from "./journal-matchers.js";
export * from "./temporal-matchers.js";
