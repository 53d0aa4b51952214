/**
 * What every model command needs: the doubles, how to send requests (global `fetch` through the
 * test's transport, or {@link handlerFetch}), the base URLs clients use, and the user's own
 * client hook. Also the story formatting of durations (`10m`, `1h30m`).
 */
import type { OperationName, RouteName, ServiceKey } from "../../interceptors/vocabulary.js";
import fc from "fast-check";
import type { Doubles } from "../../scenarios/doubles.js";
import type { FetchLike } from "../http.js";

/** Base URLs as `doubles.baseUrls()` (or a server's `serverBases`) give them. */
export interface ModelUrls {
  readonly runs: { readonly api: string; readonly archive: string };
  readonly accessControl: { readonly api: string };
  readonly secrets: { readonly api: string };
}

/** Where the commands send their requests. */
export interface ModelTarget {
  /** The doubles the commands run against (the clock moves through `doubles.advance`). */
  readonly doubles: Doubles;
  /** How requests are sent (default: the global `fetch`, through whichever transport the test started). */
  readonly send?: FetchLike;
  /** Base URLs (default `doubles.baseUrls()`; pass a server's URLs when the test listens). */
  readonly urls?: ModelUrls;
}

/**
 * Your own client, plugged in as a command: `act` is called with the world (ids, tokens, URLs, a
 * `send`, `advance`) and performs or observes something with your client; throw (or fail an
 * `expect`) when your client misbehaves. `name` is how the step reads in a story.
 */
export interface ClientHook<W> {
  readonly name: string;
  act(world: W): Promise<void> | void;
}

/** The resolved target. */
export interface ResolvedTarget {
  readonly doubles: Doubles;
  readonly send: FetchLike;
  readonly urls: ModelUrls;
}

/** Fills in the defaults of a {@link ModelTarget} (internal). */
export function resolveTarget(target: ModelTarget): ResolvedTarget {
  return {
    doubles: target.doubles,
    send: target.send ?? ((url, init) => fetch(url, init)),
    urls: target.urls ?? (target.doubles.baseUrls() as unknown as ModelUrls),
  };
}

/**
 * A duration as a story reads it: `45s`, `10m`, `1h30m`, `2d`.
 * @example storyDuration(5_400_000) // "1h30m"
 */
export function storyDuration(ms: number): string {
  if (ms % 86_400_000 === 0 && ms > 0) return `${ms / 86_400_000}d`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  const rest = ms % 1000;
  const text = `${h > 0 ? `${h}h` : ""}${m > 0 ? `${m}m` : ""}${s > 0 ? `${s}s` : ""}${rest > 0 ? `${rest}ms` : ""}`;
  return text === "" ? "0s" : text;
}

/** Reads a JSON answer, naming the request when it is not JSON. */
export async function jsonOf<T>(response: Response, what: string): Promise<T> {
  const text = await response.text();
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new Error(`testing: ${what} answered ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`);
  }
}

/**
 * Thrown by a model command when the service's answer disagrees with the model (an invariant
 * broken, or a status the model did not expect); its message names the command's resource, the
 * state and the answer. fast-check reports it as the counterexample's error.
 * @example
 * // Caused by: ModelMismatch: an OTP verifies at most once (and not after its lease ends): used OTP answered 200
 * error instanceof ModelMismatch // true: the fake (or the model) is wrong, not your client
 */
export class ModelMismatch extends Error {
  override readonly name = "ModelMismatch";
}

/** Throws {@link ModelMismatch} with `message` unless `condition`. */
export function expectModel(condition: boolean, message: string): asserts condition {
  if (!condition) throw new ModelMismatch(message);
}

/**
 * A fault a model command injects into its own request (`doubles.faults`, `times: 1`): one of the
 * service's own error answers or a dropped connection, before the request is handled (nothing
 * changes) or after it (`commit`: the change is kept, the client still sees the failure).
 */
export interface CommandFault {
  /** The service's own answer (`rate-limited`, `internal-error`, ...), or absent for a dropped connection. */
  readonly answer?: string;
  /** `reset` or `hang-up` when the connection drops instead. */
  readonly connection?: "reset" | "hang-up";
  /** Commit then fail: the request's change is kept. */
  readonly commit: boolean;
}

/**
 * Faults for a model command: one of `answers` or a dropped connection, committed or not.
 * @example fc.sample(commandFault(["rate-limited"]), 1) // [{ answer: "rate-limited", commit: false }]
 */
export function commandFault(answers: readonly string[]): fc.Arbitrary<CommandFault> {
  const effect = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...answers).map((answer): Pick<CommandFault, "answer"> => ({ answer })) },
    { weight: 1, arbitrary: fc.constantFrom("reset" as const, "hang-up" as const).map((connection): Pick<CommandFault, "connection"> => ({ connection })) },
  );
  return fc.tuple(effect, fc.boolean()).map(([e, commit]) => ({ ...e, commit }));
}

/** How a faulted command's story names its fault: `rate-limited`, `connection reset after commit`. */
export function describeFault(fault: CommandFault): string {
  const what = fault.answer ?? `connection ${fault.connection ?? "reset"}`;
  return fault.commit ? `${what} after commit` : what;
}

/** What the client saw of a faulted request: the answer, or `undefined` when the connection dropped. */
export interface FaultedAnswer {
  /** The answer (its body already read: see `body`). */
  readonly response: Response | undefined;
  readonly body?: string;
}

/**
 * Sends one request with `fault` applied to it (and only to it): adds the fault for `times: 1`,
 * sends, and removes it. Checks the fault was applied (the model's request reached the route)
 * and, for a dropped connection, that the client saw an error rather than an answer.
 * @param match - the fault's target: `service` with `operation` (runs, access control) or `route` (secrets).
 * @param expectedStatus - the status the fault's answer has (the model's own list).
 */
export async function sendFaulted(
  world: ResolvedTarget,
  match: { readonly service: ServiceKey; readonly operation?: OperationName; readonly route?: RouteName },
  fault: CommandFault,
  expectedStatus: number | undefined,
  send: () => Promise<Response>,
): Promise<FaultedAnswer> {
  const handle = world.doubles.faults.add({
    ...match,
    ...(fault.answer !== undefined ? { answer: fault.answer } : { connection: fault.connection ?? "reset" }),
    ...(fault.commit ? { commit: true } : {}),
    times: 1,
  });
  let response: Response | undefined;
  try {
    response = await send();
  } catch (error) {
    expectModel(fault.connection !== undefined, `a request faulted with ${describeFault(fault)} threw ${String(error)}`);
  } finally {
    handle.remove();
  }
  expectModel(handle.applied === 1, `the fault (${describeFault(fault)}) was applied ${handle.applied} time(s) to ${match.operation ?? match.route ?? "the request"}`);
  if (fault.connection !== undefined) expectModel(response === undefined, `a dropped connection (${fault.connection}) answered ${String(response?.status)}`);
  else expectModel(response?.status === expectedStatus, `a request faulted with ${describeFault(fault)} answered ${String(response?.status)}, the model expected ${String(expectedStatus)}`);
  // Read to the end (cancelling the body of an answer from msw handlers never settles).
  const body = await response?.text();
  return { response, ...(body === undefined ? {} : { body }) };
}
