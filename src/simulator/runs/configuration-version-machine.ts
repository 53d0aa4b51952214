/**
 * The configuration version state machine as a frozen transition table (spec:
 * run-orchestration.md, "Configuration version states"). The spec shows the archive transitions;
 * upload completion, VCS fetch and processing errors are the fake's (docs/decisions/runs.md).
 */
import { defineMachine, type Machine } from "../kernel/machine.js";

/**
 * Every configuration version state of the spec.
 * @example
 * CONFIGURATION_VERSION_STATUSES.includes("archived") // true
 */
export const CONFIGURATION_VERSION_STATUSES = Object.freeze(["pending", "fetching", "uploaded", "archived", "errored"] as const);

/** A configuration version state (`data.attributes.status`). */
export type ConfigurationVersionStatus = (typeof CONFIGURATION_VERSION_STATUSES)[number];

/** Events of the configuration version machine. */
export type ConfigurationVersionEvent = "upload" | "upload-error" | "fetch-done" | "fetch-error" | "archive" | "auto-archive";

/**
 * The configuration version machine. `pending` (API-created, waiting for the upload) and
 * `fetching` (VCS-created) are the initial states; `errored` is final; `archived` is final for
 * API-created versions (VCS-created ones stay usable while archived).
 *
 * @example
 * transition(configurationVersionMachine, "uploaded", "archive"); // "archived"
 */
export const configurationVersionMachine: Machine<ConfigurationVersionStatus, ConfigurationVersionEvent> = defineMachine<
  ConfigurationVersionStatus,
  ConfigurationVersionEvent
>({
  name: "configuration version",
  service: "runs",
  initial: "pending",
  // Spec "Configuration versions": the routes of the user actions that take an event of this table.
  actions: {
    upload: "PUT /v1/object/:token",
    archive: "POST /configuration-versions/:id/actions/archive",
  },
  states: {
    pending: {
      on: {
        upload: { target: "uploaded", guard: "archive bytes PUT to the upload URL and processed" },
        "upload-error": { target: "errored", guard: "the archive could not be processed" },
      },
    },
    fetching: {
      on: {
        "fetch-done": { target: "uploaded", guard: "files fetched from the VCS repository" },
        "fetch-error": { target: "errored", guard: "the VCS fetch failed" },
      },
    },
    uploaded: {
      on: {
        archive: { target: "archived", guard: "created via API or CLI, no runs in progress" },
        "auto-archive": { target: "archived", guard: "VCS-created, every associated run completed" },
      },
    },
    archived: { final: true },
    errored: { final: true },
  },
});
