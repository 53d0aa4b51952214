/**
 * `/_sim/state`: the world as a state document over HTTP (the server only).
 *
 * | Route | Body | Answer |
 * | --- | --- | --- |
 * | `GET /_sim/state` | `?journal=true` adds the request journal | 200 the state document (the bytes `serve --state` writes) |
 * | `PUT /_sim/state` | a state document | 200 `{"loaded": true, "now", "epochMs", "advanceable"}`; 400 `{"error": {"status": 400, "code": "invalid", "message", "pointer"}}`, nothing changed |
 * | `POST /_sim/state/save` | | 200 `{"saved": file, "bytes", "now", "epochMs"}` (atomic write of the `--state` file); 409 without one |
 */
import type { Route, SimResponse } from "../../interceptors/http.js";
import { bodyText, json } from "../../interceptors/http.js";
import { clockView } from "../../interceptors/control.js";
import { DomainError } from "../../simulator/kernel/errors.js";
import type { DoublesCore } from "../doubles-core.js";
import { exportState, importState, parseStateText, stateText } from "./document.js";
import { StateDocumentError } from "./errors.js";
import { writeStateFile } from "./file.js";

/** The state file of each doubles (`serve --state FILE`, `createDoubles({ state: path })`). */
const stateFiles = new WeakMap<DoublesCore, string>();

/**
 * Names the file `POST /_sim/state/save` writes for `doubles`.
 * @example useStateFile(doubles, "world.json");
 */
export function useStateFile(doubles: DoublesCore, path: string): void {
  stateFiles.set(doubles, path);
}

/**
 * The file `POST /_sim/state/save` writes for `doubles`, if any.
 * @example stateFileOf(dev.doubles) // "world.json" under serve --state world.json
 */
export function stateFileOf(doubles: DoublesCore): string | undefined {
  return stateFiles.get(doubles);
}

function refusal(error: StateDocumentError): SimResponse {
  return json(400, { error: { status: 400, code: "invalid", message: error.message, pointer: error.pointer } });
}

/**
 * The routes of `/_sim/state` for `doubles`.
 * @example controlMounts(origin, { ..., plugins: [{ key: "state", routes: stateControlRoutes(doubles) }] })
 */
export function stateControlRoutes(doubles: DoublesCore): Route[] {
  return [
    {
      method: "GET",
      path: "/",
      doc: { answer: '200 the state document {"format": "infra-doubles/state", "version": 1, ...} (?journal=true adds the request journal)' },
      handler: ({ query }) => ({
        status: 200,
        headers: { "content-type": "application/json" },
        body: stateText(exportState(doubles, { journal: query.get("journal")?.toLowerCase() === "true" })),
      }),
    },
    {
      method: "PUT",
      path: "/",
      doc: { body: "a state document (GET /_sim/state's answer)", answer: '200 {"loaded": true, "now", "epochMs", "advanceable"}; 400 {"error": {..., "pointer"}}: the JSON pointer of the first problem, nothing changed' },
      handler: ({ request }) => {
        try {
          importState(doubles, parseStateText(bodyText(request)));
        } catch (error) {
          if (error instanceof StateDocumentError) return refusal(error);
          throw error;
        }
        return json(200, { loaded: true, ...clockView(doubles.sim) });
      },
    },
    {
      method: "POST",
      path: "/save",
      doc: { answer: '200 {"saved": file, "bytes", "now", "epochMs"}: the world written to the --state file (atomic); 409 without --state' },
      handler: () => {
        const file = stateFiles.get(doubles);
        if (file === undefined) {
          throw new DomainError({ code: "conflict", service: "_sim", operation: "save state", message: "this server was started without a state file (serve --state FILE); GET /_sim/state downloads the world instead" });
        }
        const bytes = writeStateFile(file, doubles);
        const { now, epochMs } = clockView(doubles.sim);
        return json(200, { saved: file, bytes, now, epochMs });
      },
    },
  ];
}
