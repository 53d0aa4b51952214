/**
 * What each run orchestration route answers, as run-orchestration.md documents it ("Endpoints" and
 * "Errors" tables) and, where it is silent, FIDELITY.md "Run orchestration" (404 for a resource that
 * is missing or hidden). Lists are newest first (FIDELITY.md), so no list's order is left open.
 * `nullFields`: the members the spec's resource tables give as "or null" (configuration versions'
 * `error` and `error-message`, runs' `canceled-at`, `target-addrs`, `replace-addrs`, engine
 * versions' `deprecated-reason` and `created-at`), else `true` for GET answers whose serializers
 * write `null` members the spec does not name (relationships without data, `prev-page` on a first
 * page, `session-timeout`, ...). Data for service mutants.
 */
import { answersRow as row, type RouteAnswersTable } from "../route-answers.js";
import type { RunsRoute } from "../route-names.js";

/** Answers with `null` members the spec does not name one by one (relationships, pagination, ...). */
const nulls = { nullFields: true } as const;
/** The members the spec's resource tables give as "null or value" / "or null", per resource. */
const versionNulls = { nullFields: ["error", "error-message"] } as const;
const runNulls = { nullFields: ["canceled-at", "target-addrs", "replace-addrs"] } as const;
const engineVersionNulls = { nullFields: ["deprecated-reason", "created-at"] } as const;

/** Every runs route's documented answers (a route missing here is a compile error). */
const ROUTES: Readonly<Record<RunsRoute, ReturnType<typeof row>>> = {
  "GET /workspaces/:workspace_id/configuration-versions": row(200, ["not_found"], versionNulls),
  "POST /workspaces/:workspace_id/configuration-versions": row(201, ["not_found", "invalid"]),
  "GET /configuration-versions/:id": row(200, ["not_found"], versionNulls),
  "GET /configuration-versions/:id/ingress-attributes": row(200, ["not_found"]),
  "GET /ingress-attributes/:id": row(200, ["not_found"]),
  "GET /ingress-attributes/:id/created-by": row(200, ["not_found"]),
  // Errors table: "Archive configuration version 202 / 409 / 404".
  "POST /configuration-versions/:id/actions/archive": row(202, ["conflict", "not_found"], { messages: { conflict: 'Configuration version is not "uploaded"; archive not allowed' } }),
  // "Download configuration files 302 / 404".
  "GET /configuration-versions/:id/download": row(302, ["not_found"]),
  "GET /runs/:run_id/configuration-version/download": row(302, ["not_found"]),
  // The archive host's one-shot URLs: the spec documents no status of its own.
  "PUT /v1/object/:token": row(200),
  "GET /v1/object/:token": row(200),
  "HEAD /v1/object/:token": row(200),
  // "Create run 201 / 404 / 422".
  "POST /runs": row(201, ["not_found", "invalid"]),
  "GET /workspaces/:workspace_id/runs": row(200, ["not_found"], runNulls),
  // "Get run 200 / 404".
  "GET /runs/:run_id": row(200, ["not_found"], runNulls),
  // "Apply 202 / 409", "Discard 202 / 409", "Cancel 202 / 409 / 404", "Force-cancel 202 / 409 / 404",
  // "Force-execute 202 / 403 / 409 / 404" (403: precondition_failed).
  "POST /runs/:run_id/actions/apply": row(202, ["conflict"], { messages: { conflict: "Run was not paused for confirmation; apply not allowed" } }),
  "POST /runs/:run_id/actions/discard": row(202, ["conflict"], { messages: { conflict: "Run was not paused for confirmation or priority; discard not allowed" } }),
  "POST /runs/:run_id/actions/cancel": row(202, ["conflict", "not_found"], { messages: { conflict: "Run was not planning or applying; cancel not allowed" } }),
  "POST /runs/:run_id/actions/force-cancel": row(202, ["conflict", "not_found"], { messages: { conflict: "Run was not planning or applying; force-cancel not allowed" } }),
  "POST /runs/:run_id/actions/force-execute": row(202, ["precondition_failed", "conflict", "not_found"], {
    messages: { precondition_failed: "Run is not pending; force-execute not allowed", conflict: "The run locking the workspace is not in a discardable state" },
  }),
  "GET /plans/:id": row(200, ["not_found"]),
  "GET /applies/:id": row(200, ["not_found"]),
  "GET /v1/log/:token": row(200),
  "HEAD /v1/log/:token": row(200),
  "GET /cost-estimates/:id": row(200, ["not_found"], nulls),
  "GET /users/:id": row(200, ["not_found"]),
  // "Engine versions list / show 404", "create 404 / 422", "update 404 / 422", "delete 204 / 404 / 422".
  "GET /admin/engine-versions": row(200, ["not_found"], engineVersionNulls),
  "POST /admin/engine-versions": row(201, ["not_found", "invalid"]),
  "GET /admin/engine-versions/:id": row(200, ["not_found"], engineVersionNulls),
  "PATCH /admin/engine-versions/:id": row(200, ["not_found", "invalid"]),
  "DELETE /admin/engine-versions/:id": row(204, ["not_found", "invalid"]),
  "GET /ping": row(204),
  "GET /account/details": row(200, [], nulls),
  "GET /organizations/:organization_name": row(200, ["not_found"], nulls),
  "GET /organizations/:organization_name/workspaces": row(200, ["not_found"], nulls),
  "GET /organizations/:organization_name/workspaces/:name": row(200, ["not_found"], nulls),
  "GET /workspaces/:workspace_id": row(200, ["not_found"], nulls),
  // The lock endpoints' 409 carries the title `conflict` and the real detail.
  "POST /workspaces/:workspace_id/actions/lock": row(200, ["conflict", "not_found"], { messages: { conflict: "Unable to lock workspace. The workspace is already locked." }, titles: { conflict: "conflict" } }),
  "POST /workspaces/:workspace_id/actions/unlock": row(200, ["conflict", "not_found"], { messages: { conflict: "Unable to unlock workspace. The workspace is not locked." }, titles: { conflict: "conflict" } }),
  "POST /workspaces/:workspace_id/actions/force-unlock": row(200, ["conflict", "not_found"], {
    messages: { conflict: "Unable to force-unlock workspace. The workspace is not locked." },
    titles: { conflict: "conflict" },
  }),
};

/**
 * The run orchestration service's answers table ({@link RouteAnswersTable}); the messages are the
 * `detail`s its error documents carry for each kind of refusal (404 and 401 carry none): the
 * simulator's own wording, per route where it has one (the actions, the lock endpoints).
 * @example RUNS_ANSWERS.routes["POST /runs/:run_id/actions/apply"]?.errors // ["conflict"]
 */
export const RUNS_ANSWERS: RouteAnswersTable = Object.freeze({
  routes: Object.freeze(ROUTES),
  messages: Object.freeze({
    conflict: "transition not allowed",
    precondition_failed: "Run is not pending, or its workspace is not locked",
    invalid: "invalid attribute",
    not_found: "not found",
  }),
});
