/**
 * State documents: the whole world of one doubles instance (every service's state, the clock, the
 * schedule of timed moves, the id source, stored bytes, the faults, optionally the request journal)
 * as one versioned JSON document, and back. `GET /_sim/state`, `PUT /_sim/state`,
 * `serve --state FILE`, `doubles.saveState(path)` and `createDoubles({ state })` all go through
 * {@link exportState} and {@link importState}.
 *
 * Issue 26 item 2; docs/decisions/state-files.md; docs/guides/save-and-load-a-world.md.
 */
import { journalWire } from "../../interceptors/journal.js";
import type { IdState } from "../../simulator/kernel/ids.js";
import type { SimulatorSnapshot } from "../../simulator/kernel/simulator.js";
import { isoMillis } from "../../simulator/kernel/time.js";
import type { DoublesCore } from "../doubles-core.js";
import { checkWorld } from "./check.js";
import { refuse, StateDocumentError } from "./errors.js";
import { migrateStateDocument } from "./migrate.js";
import { checkStateSchema } from "./schema.js";
import { decodeValue, encodeValue } from "./values.js";

export { STATE_FORMAT, STATE_VERSION, type ExportStateOptions, type StateDocument, type StateMove } from "./types.js";
import { STATE_FORMAT, STATE_VERSION, type ExportStateOptions, type StateDocument } from "./types.js";
import type { FaultsDocument } from "../faults/fault-set.js";

/** Parts of a service's state derived from the rest: left out of documents, rebuilt on load. */
const DERIVED: Readonly<Record<string, readonly string[]>> = { runs: ["indexes"] };

/** The seed of the document each doubles last loaded (written back by the next export). */
const loadedSeeds = new WeakMap<DoublesCore, number | string>();

/**
 * The whole world of `doubles` as a state document (plain JSON data). Fires due moves first.
 * @param options.journal - include the request journal (default false).
 * @returns the document; {@link stateText} writes it.
 * @example
 * const doc = exportState(doubles);
 * writeFileSync("world.json", stateText(doc));
 */
export function exportState(doubles: DoublesCore, options: ExportStateOptions = {}): StateDocument {
  const sim = doubles.sim;
  const now = sim.now();
  const snapshot = sim.snapshot();
  const keyOf = serviceKeys(doubles);
  const services: Record<string, unknown> = {};
  for (const plugin of doubles.registeredPlugins) {
    const state = { ...(snapshot.services[plugin.definition.name] as Record<string, unknown>) };
    for (const derived of DERIVED[plugin.key] ?? []) delete state[derived];
    services[plugin.key] = encodeValue(state, ["services", plugin.key]);
  }
  const bytes: Record<string, string> = {};
  for (const [key, value] of Object.entries(snapshot.blobs)) bytes[key] = Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64");
  return {
    format: STATE_FORMAT,
    version: STATE_VERSION,
    seed: loadedSeeds.get(doubles) ?? sim.seed,
    clock: { now: isoMillis(now), epochMs: now },
    ids: [...snapshot.ids],
    schedule: {
      nextId: snapshot.schedule.nextId,
      moves: snapshot.schedule.moves.map((move, index) => ({
        id: move.id,
        due: move.due,
        service: keyOf.get(move.service) ?? move.service,
        kind: move.kind,
        payload: encodeValue(move.payload, ["schedule", "moves", index, "payload"]),
      })),
    },
    blobs: { seq: snapshot.blobSeq, bytes },
    faults: encodeValue(doubles.faults.document(), ["faults"]) as FaultsDocument,
    services,
    ...(options.journal === true ? { journal: doubles.journal.entries.map((entry) => journalWire(entry, true)) } : {}),
  };
}

/**
 * The text of a state document: JSON, two-space indented, one final newline. The same world gives
 * the same bytes.
 * @example writeFileSync(path, stateText(exportState(doubles)));
 */
export function stateText(document: StateDocument): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

/**
 * Parses a state document's text.
 * @throws {StateDocumentError} at `""` when the text is not JSON.
 * @example importState(doubles, parseStateText(await (await fetch(`${url}/_sim/state`)).text()));
 */
export function parseStateText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new StateDocumentError("", `must be a JSON state document: ${(error as Error).message}`);
  }
}

/**
 * Loads a state document into `doubles`, replacing its whole world: every service's state, the
 * schedule, the id source, stored bytes, the faults, and simulator time (the clock is set to the
 * document's time when it can be set back or forward: a manual or advanceable clock the doubles
 * made; otherwise simulator time stays at least where it is). All or nothing: a refused document
 * changes nothing. An older version is migrated first; the request journal is left as it is.
 * @param document - the parsed document (see {@link parseStateText}).
 * @throws {StateDocumentError} with the JSON pointer of the first problem: not a state document,
 *   a version this infra-doubles cannot read (named), a value of the wrong shape (the JSON Schema),
 *   other services than these doubles run, or an inconsistent world (a status its machine cannot
 *   reach, a reference to a record the document does not hold, a timed move that is missing, a
 *   time after the document's clock).
 * @example
 * importState(doubles, parseStateText(readFileSync("world.json", "utf8")));
 */
export function importState(doubles: DoublesCore, document: unknown): void {
  doubles.recordedStateLoad(document, () => loadState(doubles, document));
}

function loadState(doubles: DoublesCore, document: unknown): void {
  const current = migrateStateDocument(document);
  checkStateSchema(current);
  const doc = current as unknown as StateDocument;
  const plugins = doubles.registeredPlugins;
  const keys = Object.keys(doc.services);
  for (const key of keys) if (!plugins.some((p) => p.key === key)) refuse(["services", key], `names no service of these doubles (services: ${plugins.map((p) => p.key).join(", ")})`);
  for (const plugin of plugins) if (!keys.includes(plugin.key)) refuse(["services"], `must hold the state of service "${plugin.key}"`);
  if (isoMillis(doc.clock.epochMs) !== doc.clock.now) refuse(["clock", "now"], `must be the time of "epochMs" (${isoMillis(doc.clock.epochMs)})`);
  const nameOf = new Map(plugins.map((p) => [p.key, p.definition.name]));
  const services: Record<string, unknown> = {};
  for (const plugin of plugins) services[plugin.definition.name] = decodeValue(doc.services[plugin.key], ["services", plugin.key]);
  const moves = doc.schedule.moves.map((move, index) => {
    const service = nameOf.get(move.service);
    if (service === undefined) refuse(["schedule", "moves", index, "service"], `names no service of these doubles (services: ${plugins.map((p) => p.key).join(", ")})`);
    return { id: move.id, due: move.due, service, kind: move.kind, payload: decodeValue(move.payload, ["schedule", "moves", index, "payload"]) as never };
  });
  const blobs: Record<string, Uint8Array> = {};
  for (const [key, text] of Object.entries(doc.blobs.bytes)) blobs[key] = decodeValue({ $bytes: text }, ["blobs", "bytes", key]) as Uint8Array;
  checkWorld({ doubles, doc, services, moves, blobs });
  let putFaults: () => void;
  try {
    putFaults = doubles.faults.prepareDocument(doc.faults);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    const { index, field } = error as TypeError & { index?: number; field?: string };
    refuse(["faults", "list", ...(index === undefined ? [] : [index]), ...(field === undefined ? [] : [field])], error.message.replace(/^infra-doubles: faults\.add: /, ""));
  }
  const snapshot: SimulatorSnapshot = {
    services,
    schedule: { nextId: doc.schedule.nextId, moves },
    ids: [...doc.ids] as IdState,
    blobs,
    lastNow: doc.clock.epochMs,
    blobSeq: doc.blobs.seq,
  };
  doubles.sim.restore(snapshot, { rewind: true });
  putFaults();
  loadedSeeds.set(doubles, doc.seed);
}

/** Simulator service name -> service key. */
function serviceKeys(doubles: DoublesCore): Map<string, string> {
  return new Map(doubles.registeredPlugins.map((p) => [p.definition.name, p.key]));
}
