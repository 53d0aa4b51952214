/**
 * Assertions on the request journal, as matchers for `expect.extend()` (Vitest and Jest share the
 * matcher protocol): received a route N times, with a body, in an order, nothing unmatched. A
 * failure prints the entries the journal holds near what was expected (the journal dump, with
 * credentials masked), not only a count.
 *
 * Framework-free: `infra-doubles/vitest` registers them on Vitest's `expect`; Jest users call
 * `expect.extend(journalMatchers)` (docs/guides/run-tests-concurrently.md).
 */
import { UsageError } from "../simulator/kernel/errors.js";
import { formatJournal, RequestJournal, type JournalEntry, type JournalFilter } from "../interceptors/journal.js";
import type { MountedRoute, OperationName, RouteName, RouteTemplate, UserRouteName } from "../interceptors/vocabulary.js";

/**
 * What a journal assertion names: a route as the specs write it (`"POST /runs/:run_id/actions/apply"`,
 * `"POST /ssh/creds/:name"`, no API prefix; or a template without its method, `"/runs/:run_id"`),
 * an operation name (`"apply run"`), or a {@link JournalFilter}. A route, service or operation the
 * doubles do not have is refused (a `UsageError` naming the nearest valid one), never counted 0.
 */
export type ExpectedRequest = RouteName | RouteTemplate | MountedRoute | UserRouteName | OperationName | JournalFilter;

/** A request to a host no doubles own that no one answered (see `onUnhandledRequest`). */
export interface UnhandledRequest {
  /** Simulator time when it was seen, ms since the epoch. */
  readonly at: number;
  readonly method: string;
  readonly url: string;
  /** What was done with it: sent to the network after a warning (`"warn"`) or failed (`"error"`). */
  readonly action: "error" | "warn";
}

/** What the matchers accept: the doubles (anything with a `journal`) or a journal. */
export type JournalSource = RequestJournal | { readonly journal: RequestJournal; readonly unhandledRequests?: readonly UnhandledRequest[] };

/** The part of a matcher's `this` that these matchers use (Vitest's and Jest's both have it). */
export interface MatcherContext {
  readonly isNot: boolean;
  equals(a: unknown, b: unknown): boolean;
  readonly utils?: { printExpected(value: unknown): string; printReceived(value: unknown): string };
}

/** A matcher's answer. */
export interface MatcherResult {
  readonly pass: boolean;
  readonly message: () => string;
}

/** The matchers, with the types they take (`R` is the framework's return type). */
export interface JournalMatchers<R = unknown> {
  /**
   * At least one request matched `expected` (once exactly when `times` is given).
   * @example expect(doubles).toHaveReceived("POST /runs/:run_id/actions/apply");
   */
  toHaveReceived(expected: ExpectedRequest): R;
  /**
   * Exactly `times` requests matched `expected`.
   * @example expect(doubles).toHaveReceivedTimes("GET /runs/:run_id", 3);
   */
  toHaveReceivedTimes(expected: ExpectedRequest, times: number): R;
  /**
   * Some request matching `expected` carried `body`: compared with the parsed JSON body (or the
   * text when it is not JSON) by the framework's equality, so asymmetric matchers work.
   * @example expect(doubles).toHaveReceivedWithBody("POST /runs", { data: expect.objectContaining({ type: "runs" }) });
   */
  toHaveReceivedWithBody(expected: ExpectedRequest, body: unknown): R;
  /**
   * Requests matching each of `sequence` came in this order (others may come between them).
   * @example expect(doubles).toHaveReceivedInOrder(["POST /runs", "POST /runs/:run_id/actions/apply"]);
   */
  toHaveReceivedInOrder(sequence: readonly ExpectedRequest[]): R;
  /**
   * Every request reached a real endpoint of a mounted service, and no request to a host the
   * doubles do not own went unanswered.
   * @example expect(doubles).toHaveNoUnmatchedRequests();
   */
  toHaveNoUnmatchedRequests(): R;
}

/** At most this many entries are printed in a failure message. */
const SHOWN = 10;

function journalOf(received: unknown): { journal: RequestJournal; unhandled: readonly UnhandledRequest[] } {
  if (received instanceof RequestJournal) return { journal: received, unhandled: [] };
  if (typeof received === "object" && received !== null && (received as { journal?: unknown }).journal instanceof RequestJournal) {
    const source = received as { journal: RequestJournal; unhandledRequests?: readonly UnhandledRequest[] };
    return { journal: source.journal, unhandled: source.unhandledRequests ?? [] };
  }
  throw new UsageError("journal matchers expect the doubles (createDoubles()) or doubles.journal");
}

/**
 * The filter an {@link ExpectedRequest} stands for.
 * @example filterOf("POST /runs") // { route: "POST /runs" }; filterOf("apply run") // { operation: "apply run" }
 */
export function filterOf(expected: ExpectedRequest): JournalFilter {
  if (typeof expected !== "string") return expected;
  return expected.startsWith("/") || /^\S+ \//.test(expected) ? { route: expected as JournalFilter["route"] } : { operation: expected as OperationName };
}

function describeExpected(expected: ExpectedRequest): string {
  return typeof expected === "string" ? expected : JSON.stringify(expected);
}

/** Entries near `filter`: the same route template or operation, else the same service, else the newest. */
function near(entries: readonly JournalEntry[], filter: JournalFilter): JournalEntry[] {
  const template = filter.route?.replace(/^\S+ (?=\/)/, "");
  const candidates: ((e: JournalEntry) => boolean)[] = [];
  if (template !== undefined) candidates.push((e) => e.route === template);
  if (filter.operation !== undefined) candidates.push((e) => e.operation === filter.operation);
  if (filter.service !== undefined) candidates.push((e) => e.service === filter.service);
  if (filter.method !== undefined) candidates.push((e) => e.method === filter.method);
  for (const candidate of candidates) {
    const found = entries.filter(candidate);
    if (found.length > 0) return found.slice(-SHOWN);
  }
  return entries.slice(-SHOWN);
}

function dump(title: string, entries: readonly JournalEntry[], total: number): string {
  if (total === 0) return `${title}: none (the journal is empty)`;
  const more = total > entries.length ? ` (${entries.length} of ${total} shown)` : "";
  return `${title}${more}:\n${formatJournal(entries, { headers: false, maxBodyChars: 300 })}`;
}

/** One line of an entry: `#3 POST /runs -> 201`. */
function brief(entry: JournalEntry): string {
  return `#${entry.seq} ${entry.method} ${entry.route ?? maskedPath(entry.url)} -> ${entry.status}`;
}

function maskedPath(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

function seqs(list: readonly JournalEntry[]): string {
  const shown = list.slice(0, SHOWN).map((e) => `#${e.seq}`).join(", ");
  return list.length > SHOWN ? `${shown}, ... (${list.length} in all)` : shown;
}

/**
 * Where each step of an in-order assertion was found: `1. POST /runs: #3 POST /runs -> 201`, then
 * for the first step not found after the previous one, `missing after #3`, and whether (and where)
 * it was received at all; the steps after it, where they were received.
 */
function inOrderSteps(sequence: readonly ExpectedRequest[], tests: readonly ((e: JournalEntry) => boolean)[], entries: readonly JournalEntry[], found: readonly JournalEntry[]): string {
  return sequence
    .map((expected, i) => {
      const head = `  ${i + 1}. ${describeExpected(expected)}: `;
      const hit = found[i];
      if (hit !== undefined) return `${head}${brief(hit)}`;
      const all = entries.filter(tests[i] ?? (() => false));
      const received = all.length === 0 ? "never received" : `received at ${seqs(all)}`;
      if (i === found.length) {
        const after = found[i - 1];
        return after === undefined ? `${head}missing (${received})` : `${head}missing after #${after.seq} (${received})`;
      }
      return `${head}not looked for, after the missing step ${found.length + 1} (${received})`;
    })
    .join("\n");
}

/**
 * The journal's requests that bear on an in-order failure, oldest first: those found in order, then
 * those matching the missing step (or, when nothing matches it, those of its route or operation),
 * then those matching the later and earlier steps; requests matching no step (polls of other
 * routes) are left out.
 */
function inOrderRelated(sequence: readonly ExpectedRequest[], tests: readonly ((e: JournalEntry) => boolean)[], entries: readonly JournalEntry[], found: readonly JournalEntry[]): string {
  if (entries.length === 0) return dump("Requests received", [], 0);
  const missing = found.length;
  const missingTest = tests[missing] ?? (() => false);
  let forMissing = entries.filter(missingTest);
  const step = sequence[missing];
  if (forMissing.length === 0 && step !== undefined) forMissing = near(entries, filterOf(step));
  const later = entries.filter((entry) => tests.some((test, i) => i > missing && test(entry)));
  const earlier = entries.filter((entry) => tests.some((test, i) => i < missing && test(entry)));
  const last = found.at(-1)?.seq ?? 0;
  const byDistance = (list: readonly JournalEntry[]) => [...list].sort((a, b) => Math.abs(a.seq - last) - Math.abs(b.seq - last) || a.seq - b.seq);
  const all = new Set<JournalEntry>([...found, ...forMissing, ...later, ...earlier]);
  const shown = new Set<JournalEntry>(found);
  for (const entry of [...byDistance(forMissing), ...byDistance(later), ...byDistance(earlier)]) {
    if (shown.size >= Math.max(SHOWN, found.length)) break;
    shown.add(entry);
  }
  return dump("Requests of these routes", [...shown].sort((a, b) => a.seq - b.seq), all.size);
}

function received(this: MatcherContext, source: unknown, expected: ExpectedRequest, times?: number): MatcherResult {
  const { journal } = journalOf(source);
  const filter = filterOf(expected);
  const matching = journal.filter(filter);
  const pass = times === undefined ? matching.length > 0 : matching.length === times;
  const want = times === undefined ? "at least once" : `${times} time${times === 1 ? "" : "s"}`;
  const entries = journal.entries;
  return {
    pass,
    message: () =>
      `expected ${this.isNot ? "not " : ""}to have received ${describeExpected(expected)} ${want}, but it was received ${matching.length} time${matching.length === 1 ? "" : "s"}\n\n` +
      (matching.length > 0 && this.isNot ? dump("Matching requests", matching.slice(-SHOWN), matching.length) : dump("Requests received", near(entries, filter), entries.length)),
  };
}

function bodyOf(entry: JournalEntry): unknown {
  const parsed = entry.requestBody.json();
  return parsed === undefined ? entry.requestBody.text() : parsed;
}

/**
 * The matchers, for `expect.extend(journalMatchers)`. See {@link JournalMatchers} for what each
 * asserts.
 * @example
 * import { journalMatchers } from "infra-doubles";
 * expect.extend(journalMatchers); // Jest; `infra-doubles/vitest` does this for Vitest
 * expect(doubles).toHaveReceivedTimes("POST /runs/:run_id/actions/apply", 1);
 */
export const journalMatchers = {
  toHaveReceived(this: MatcherContext, source: unknown, expected: ExpectedRequest): MatcherResult {
    return received.call(this, source, expected);
  },

  toHaveReceivedTimes(this: MatcherContext, source: unknown, expected: ExpectedRequest, times: number): MatcherResult {
    if (!Number.isSafeInteger(times) || times < 0) throw new UsageError(`toHaveReceivedTimes: times must be a whole number, not ${String(times)}`);
    return received.call(this, source, expected, times);
  },

  toHaveReceivedWithBody(this: MatcherContext, source: unknown, expected: ExpectedRequest, body: unknown): MatcherResult {
    const { journal } = journalOf(source);
    const matching = journal.filter(filterOf(expected));
    const hit = matching.find((entry) => this.equals(bodyOf(entry), body));
    const print = this.utils?.printExpected ?? ((value: unknown) => JSON.stringify(value));
    return {
      pass: hit !== undefined,
      message: () =>
        hit !== undefined
          ? `expected no ${describeExpected(expected)} with body ${print(body)}, but #${hit.seq} had it\n\n${dump("Matching request", [hit], 1)}`
          : `expected ${describeExpected(expected)} with body ${print(body)}, but ${matching.length === 0 ? "no such request was received" : `none of the ${matching.length} received had it`}\n\n` +
            (matching.length > 0 ? dump("Requests received", matching.slice(-SHOWN), matching.length) : dump("Requests received", near(journal.entries, filterOf(expected)), journal.size)),
    };
  },

  toHaveReceivedInOrder(this: MatcherContext, source: unknown, sequence: readonly ExpectedRequest[]): MatcherResult {
    if (!Array.isArray(sequence) || sequence.length === 0) throw new UsageError("toHaveReceivedInOrder: give a non-empty array of routes, operations or filters");
    const { journal } = journalOf(source);
    const entries = journal.entries;
    const tests = sequence.map((expected) => journal.matcher(filterOf(expected)));
    const found: JournalEntry[] = [];
    for (const entry of entries) {
      const test = tests[found.length];
      if (test !== undefined && test(entry)) found.push(entry);
      if (found.length === tests.length) break;
    }
    const pass = found.length === tests.length;
    return {
      pass,
      message: () =>
        pass
          ? `expected requests not to come in the order ${sequence.map(describeExpected).join(" -> ")}, but they did\n\n${inOrderSteps(sequence, tests, entries, found)}\n\n${dump("Requests received", found, found.length)}`
          : `expected requests in the order ${sequence.map(describeExpected).join(" -> ")}, but found only the first ${found.length} in order\n\n${inOrderSteps(sequence, tests, entries, found)}\n\n` +
            inOrderRelated(sequence, tests, entries, found),
    };
  },

  toHaveNoUnmatchedRequests(this: MatcherContext, source: unknown): MatcherResult {
    const { journal, unhandled } = journalOf(source);
    const unmatched = journal.unmatched();
    const pass = unmatched.length === 0 && unhandled.length === 0;
    const unhandledText = unhandled.map((request) => `  ${request.method} ${request.url} (${request.action === "error" ? "failed" : "sent to the network"})`).join("\n");
    return {
      pass,
      message: () =>
        pass
          ? "expected some unmatched request, but every request reached a real endpoint"
          : [
              unmatched.length > 0 ? dump(`${unmatched.length} request${unmatched.length === 1 ? "" : "s"} matched no endpoint of the services`, unmatched.slice(-SHOWN), unmatched.length) : "",
              unhandled.length > 0 ? `${unhandled.length} request${unhandled.length === 1 ? "" : "s"} to hosts no doubles own:\n${unhandledText}` : "",
            ]
              .filter(Boolean)
              .join("\n\n"),
    };
  },
};

/**
 * Throws when the doubles answered a request no endpoint serves, or an interception of theirs
 * failed or warned about a request to a host no doubles own: the check `useDoubles()` runs after
 * each test, for any framework's `afterEach`.
 * @throws {Error} naming each such request (the journal dump, credentials masked).
 * @example
 * afterEach(async () => {
 *   await doubles.close();
 *   assertNoUnexpectedRequests(doubles);
 * });
 */
export function assertNoUnexpectedRequests(doubles: JournalSource): void {
  const result = journalMatchers.toHaveNoUnmatchedRequests.call({ isNot: false, equals: () => false }, doubles);
  if (!result.pass) throw new Error(`infra-doubles: unexpected requests in this test\n\n${result.message()}`);
}
