/**
 * The labels of invalid requests: the error a service answers (status, message, and for the run
 * orchestration service the JSON:API `source.pointer`), and a reader that takes the same three
 * out of a real response, so a test compares the two with one `toEqual`.
 */

import type { ServiceKey } from "../interceptors/vocabulary.js";

/** The three services, by their `doubles.baseUrls()` keys (the one vocabulary's {@link ServiceKey}). */
export type { ServiceKey };

/**
 * An error a service answers.
 * - runs: `status` (422, 404, ...), `message` the JSON:API `detail` (or `title` when there is no
 *   detail, e.g. `not found`), `pointer` the `source.pointer` when the service sends one;
 * - accessControl: `message` the plain-text body;
 * - secrets: `message` the `errors` list joined with `\n` (`""` for an empty list).
 */
export interface ExpectedError {
  readonly status: number;
  readonly message: string;
  readonly pointer?: string;
}

/**
 * A request body the service refuses, with the error it answers and why (a short phrase for
 * counterexamples, e.g. `is-destroy is a number`).
 */
export interface InvalidBody<B = unknown> {
  readonly body: B;
  readonly expected: ExpectedError;
  readonly why: string;
}

/**
 * Reads a service's error answer into an {@link ExpectedError} (consumes the body).
 * @param service - which service answered (its error format differs).
 * @param response - a fetch `Response`.
 * @example
 * const response = await fetch(`${doubles.baseUrls().runs.api}/runs`, { method: "POST", ... });
 * expect(await readServiceError("runs", response)).toEqual(invalid.expected);
 */
export async function readServiceError(service: ServiceKey, response: Response): Promise<ExpectedError> {
  const text = await response.text();
  const status = response.status;
  if (service === "accessControl") return { status, message: text };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { status, message: text };
  }
  const errors = (parsed as { errors?: unknown } | null)?.errors;
  if (!Array.isArray(errors)) return { status, message: text };
  if (service === "secrets") return { status, message: errors.map(String).join("\n") };
  const first = (errors[0] ?? {}) as { detail?: string; title?: string; source?: { pointer?: string } };
  const pointer = first.source?.pointer;
  return { status, message: first.detail ?? first.title ?? "", ...(pointer !== undefined ? { pointer } : {}) };
}
