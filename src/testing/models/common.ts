/**
 * What every model command needs: the doubles, how to send requests (global `fetch` through the
 * test's transport, or {@link handlerFetch}), the base URLs clients use, and the user's own
 * client hook. Also the story formatting of durations (`10m`, `1h30m`).
 */
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
