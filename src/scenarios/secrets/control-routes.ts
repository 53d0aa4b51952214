/**
 * The secrets service's routes of the dev server's control API, under `/_sim/secrets/`:
 *
 * | Route | Body | Answer |
 * | --- | --- | --- |
 * | `GET /_sim/secrets/node-state` | | `{"state": "active"}` |
 * | `POST /_sim/secrets/node-state` | `{"state": "sealed"}` (plus optional `unstable`, `version`) | `{"state": "sealed"}`; 400 for an unknown state |
 * | `GET /_sim/secrets/root-token` | | `{"token": "s.xxx"}` |
 */
import { bodyText, json, type Route } from "../../interceptors/http.js";
import { UsageError } from "../../simulator/kernel/errors.js";
import type { NodeState } from "../../simulator/secrets/node-state.js";
import type { SecretsScenario } from "./secrets-scenario.js";

/**
 * Builds the control routes over the scenario controls (the table above).
 * @example secretsControlRoutes(doubles.secrets).map((r) => r.path) // ["/node-state", "/node-state", "/root-token"]
 */
export function secretsControlRoutes(controls: SecretsScenario): readonly Route[] {
  return [
    { method: "GET", path: "/node-state", doc: { answer: '200 {"state"}' }, handler: () => json(200, { state: controls.nodeState }) },
    {
      method: ["POST", "PUT"],
      path: "/node-state",
      doc: { body: '{"state": "active" | "standby" | "performance-standby" | "dr-secondary-active" | "dr-secondary-standby" | "not-initialized" | "sealed", "unstable"?: boolean, "version"?: string}', answer: '200 {"state"}; 400 an unknown state' },
      handler: ({ request }) => {
        let body: unknown;
        try {
          body = JSON.parse(bodyText(request) || "{}");
        } catch (error) {
          throw new UsageError(`the body must be JSON like {"state": "sealed"}: ${(error as Error).message}`);
        }
        if (body === null || typeof body !== "object" || Array.isArray(body)) throw new UsageError('the body must be a JSON object like {"state": "sealed"}');
        const { state, unstable, version } = body as { state?: unknown; unstable?: unknown; version?: unknown };
        if (unstable !== undefined && typeof unstable !== "boolean") throw new UsageError('"unstable" must be a boolean');
        if (version !== undefined && typeof version !== "string") throw new UsageError('"version" must be a string');
        controls.setNodeState(state as NodeState, {
          ...(unstable !== undefined ? { unstable } : {}),
          ...(version !== undefined ? { version } : {}),
        });
        return json(200, { state: controls.nodeState });
      },
    },
    { method: "GET", path: "/root-token", doc: { answer: '200 {"token"}' }, handler: () => json(200, { token: controls.rootToken }) },
  ];
}
