/**
 * State documents on disk: written atomically (a temporary file beside the target, then a rename,
 * so a reader or a crash never sees half a document), read with the file named in errors.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import type { DoublesCore } from "../doubles-core.js";
import { exportState, importState, parseStateText, stateText, type ExportStateOptions } from "./document.js";
import { StateDocumentError } from "./errors.js";

/** Temporary files written so far in this process (their names stay unique). */
let written = 0;

/**
 * Writes the world of `doubles` to `path` as a state document: to `<path>.<pid>.<n>.tmp` first,
 * then renamed over `path` (atomic on one file system).
 * @returns the number of bytes written.
 * @throws the file system's error (the temporary file removed).
 * @example writeStateFile("world.json", doubles) // 48213
 */
export function writeStateFile(path: string, doubles: DoublesCore, options: ExportStateOptions = {}): number {
  const text = stateText(exportState(doubles, options));
  const temporary = `${path}.${process.pid}.${++written}.tmp`;
  try {
    writeFileSync(temporary, text);
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  return Buffer.byteLength(text);
}

/**
 * Reads the state document at `path` (parsed, not checked).
 * @throws {StateDocumentError} naming the file when it is not JSON; the file system's error when
 *   it cannot be read.
 * @example const doc = readStateFile("world.json"); // then importState(doubles, doc)
 */
export function readStateFile(path: string): unknown {
  const text = readFileSync(path, "utf8");
  try {
    return parseStateText(text);
  } catch (error) {
    if (error instanceof StateDocumentError) throw new StateDocumentError(error.pointer, error.expected, path);
    throw error;
  }
}

/**
 * Loads the state document at `path` into `doubles` (see {@link importState}).
 * @throws {StateDocumentError} naming the file and the JSON pointer of the first problem.
 * @example loadStateFile("world.json", doubles);
 */
export function loadStateFile(path: string, doubles: DoublesCore): void {
  const document = readStateFile(path);
  try {
    importState(doubles, document);
  } catch (error) {
    if (error instanceof StateDocumentError) throw new StateDocumentError(error.pointer, error.expected, path);
    throw error;
  }
}

/**
 * Whether a state file exists at `path` (`serve --state` loads it only then).
 * @example if (stateFileExists("world.json")) loadStateFile("world.json", doubles);
 */
export function stateFileExists(path: string): boolean {
  return existsSync(path);
}
