/**
 * The error of a state document that cannot be loaded: where (an RFC 6901 JSON pointer into the
 * document) and what was expected there.
 */
import { UsageError } from "../../simulator/kernel/errors.js";

/**
 * A state document refused by `importState()` (`PUT /_sim/state`, `serve --state`,
 * `createDoubles({ state })`): nothing of it was loaded.
 * @example
 * try { importState(doubles, doc); } catch (error) { if (error instanceof StateDocumentError) console.log(error.pointer); }
 */
export class StateDocumentError extends UsageError {
  /** RFC 6901 JSON pointer to the offending value (`/services/runs/runs/run-1/status`; `""` for the document). */
  readonly pointer: string;
  /** What was expected there. */
  readonly expected: string;

  /** The document's file, when it was read from one. */
  readonly file: string | undefined;

  constructor(pointer: string, expected: string, file?: string) {
    super(`${file === undefined ? "state document" : file}: ${pointer === "" ? "(document)" : pointer}: ${expected}`);
    this.name = "StateDocumentError";
    this.pointer = pointer;
    this.expected = expected;
    this.file = file;
  }
}

/**
 * The RFC 6901 pointer of a path (`~` written `~0`, `/` written `~1`).
 * @example statePointer(["services", "runs", "runs", "run-1", "status"]) // "/services/runs/runs/run-1/status"
 */
export function statePointer(path: readonly (string | number)[]): string {
  return path.map((s) => `/${String(s).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
}

/** Throws the {@link StateDocumentError} of `path`. */
export function refuse(path: readonly (string | number)[], expected: string): never {
  throw new StateDocumentError(statePointer(path), expected);
}
