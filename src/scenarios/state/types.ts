/**
 * The state document's shape (issue 26 item 2; docs/decisions/state-files.md), apart from the
 * code that writes and reads it (document.ts) so the world checks (check.ts) can name it.
 */
import type { FaultsDocument } from "../faults/fault-set.js";

/** The `format` of every state document. */
export const STATE_FORMAT = "infra-doubles/state";

/** The version of the state documents this infra-doubles writes (and reads, after migration). */
export const STATE_VERSION = 1;

/** A scheduled timed move, as a state document holds it. */
export interface StateMove {
  /** The move's id (records name it: a run's `pendingMove`, a lease's `moveId`). */
  readonly id: number;
  /** When it fires, ms since the epoch. */
  readonly due: number;
  /** The service's key: `runs`, `accessControl`, `secrets`. */
  readonly service: string;
  /** The move's kind (`run-step`, `lease.expire`, ...). */
  readonly kind: string;
  readonly payload: unknown;
}

/**
 * A state document, version 1. Keys in this order; inside `services`, every collection keeps the
 * world's own order (the order lists answer in), so loading a document and saving it again gives
 * the same bytes. Times are ms since the epoch; byte arrays are `{"$bytes": "<base64>"}`.
 * JSON Schema: `infra-doubles/state.schema.json`.
 */
export interface StateDocument {
  readonly format: typeof STATE_FORMAT;
  readonly version: typeof STATE_VERSION;
  /** The seed the world was created with (ids go on from `ids`, not from the seed). */
  readonly seed: number | string;
  /** Simulator time of the world. */
  readonly clock: { readonly now: string; readonly epochMs: number };
  /** The id source's state. */
  readonly ids: readonly number[];
  /** Timed moves still to fire, in firing order, and the next move id. */
  readonly schedule: { readonly nextId: number; readonly moves: readonly StateMove[] };
  /** Stored bytes (configuration archives) by key, base64, and the last key number used. */
  readonly blobs: { readonly seq: number; readonly bytes: Readonly<Record<string, string>> };
  /** The faults (`doubles.faults`), with their counts. */
  readonly faults: FaultsDocument;
  /** Each service's state by service key (`runs`, `accessControl`, `secrets`). */
  readonly services: Readonly<Record<string, unknown>>;
  /**
   * The request journal (`GET /_sim/journal`'s entries, credentials as sent), only when asked
   * for (`?journal=true`, `{ journal: true }`). Loading a document never changes the journal.
   */
  readonly journal?: readonly unknown[];
}

/** Options of {@link exportState}. */
export interface ExportStateOptions {
  /** Include the request journal (default false). */
  readonly journal?: boolean;
}
