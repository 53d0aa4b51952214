/**
 * The run orchestration service's routes of the dev server's control API, under `/_sim/runs/`,
 * for clients outside the test's Node process (curl, Go, Python):
 *
 * | Route | Body | Answer |
 * | --- | --- | --- |
 * | `POST /_sim/runs/organizations` | `{"name": "acme", "email"?, "costEstimationEnabled"?: boolean}` | `{"name"}` |
 * | `POST /_sim/runs/organizations/:organization/cost-estimation` | `{"enabled": boolean}` | `{"ok": true}` |
 * | `POST /_sim/runs/workspaces` | `{"organization", "name"?, "autoApply"?, "vcsRepo"?: {"identifier", "branch"?, "provider"?, "htmlUrl"?}}` | `{"id", "name", "organization"}` |
 * | `POST /_sim/runs/users` | `{"username"?, "siteAdmin"?, "permissions"?: {"acme/prod" or "ws-...": "admin"}}` | `{"id", "username", "token"}` |
 * | `POST /_sim/runs/outcomes` | an outcome script plus `"workspaceId"` (an id or `"acme/prod"`), `"runId"` or `"next": true` (with a workspace) | `{"ok": true}` |
 * | `POST /_sim/runs/cool-off` | `{"duration": "30s"}` | `{"ok": true}` |
 * | `POST /_sim/runs/workspaces/:workspace_id/commits` | commit options (`files` as a path -> content map) | `{"configurationVersionId", "ingressAttributesId"}` |
 * | `POST /_sim/runs/runs/:run_id/step` | | `{"status"}` (also `cv-...` ids: completes a VCS fetch) |
 * | `GET /_sim/runs/runs/:run_id` | | the run as `runs.run(id)` reads it |
 *
 * Bad input answers 400 (`UsageError`); a property the route does not know is refused as the
 * document routes refuse it, naming the nearest valid one (`/organisation: unknown property (did
 * you mean "organization"?); allowed here: ...`). A workspace is named by its id,
 * `organization/name`, or its name when unique, wherever the routes take one.
 */
import { bodyText, json, type Route } from "../../interceptors/http.js";
import { UsageError } from "../../simulator/kernel/errors.js";
import { nearest } from "../options.js";
import type { PermissionLevel } from "../../simulator/runs/state.js";
import type { CommitOptions, OutcomeScript, RunsScenario } from "./runs-scenario.js";

type Json = Record<string, unknown>;

function body(text: string): Json {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text === "" ? "{}" : text);
  } catch (error) {
    throw new UsageError(`runs: the body must be a JSON object: ${(error as Error).message}`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new UsageError("runs: the body must be a JSON object");
  return parsed as Json;
}

/** The properties of an outcome script (`OutcomeScript`). */
const OUTCOME_KEYS = ["plan", "costEstimation", "policyCheck", "apply", "prePlanTasks", "postPlanTasks", "interrupt", "resources", "progression", "durations"];

/**
 * Refuses a property not in `allowed` (at `prefix`), as the scenario document routes word it.
 * @throws {UsageError} `/organisation: unknown property (did you mean "organization"?); allowed here: ...`
 */
function only(body: Json, allowed: readonly string[], prefix = ""): void {
  const problems = Object.keys(body)
    .filter((key) => !allowed.includes(key))
    .map((key) => {
      const guess = nearest(key, allowed);
      return `${prefix}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}: unknown property${guess === undefined ? "" : ` (did you mean "${guess}"?)`}; allowed here: ${allowed.join(", ")}`;
    });
  if (problems.length > 0) throw new UsageError(problems.join("; "));
}

function str(value: unknown, name: string, optional = true): string | undefined {
  if (value === undefined && optional) return undefined;
  if (typeof value !== "string") throw new UsageError(`runs: "${name}" must be a string`);
  return value;
}

function bool(value: unknown, name: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "boolean") throw new UsageError(`runs: "${name}" must be a boolean`);
  return value;
}

function levels(value: unknown, name: string): Record<string, PermissionLevel> | undefined {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new UsageError(`runs: "${name}" must be an object of permission levels`);
  return value as Record<string, PermissionLevel>;
}

function vcsRepo(repo: Json): { identifier: string; branch?: string; provider?: string; htmlUrl?: string } {
  const branch = str(repo.branch, "vcsRepo.branch");
  const provider = str(repo.provider, "vcsRepo.provider");
  const htmlUrl = str(repo.htmlUrl, "vcsRepo.htmlUrl");
  return {
    identifier: str(repo.identifier, "vcsRepo.identifier", false) ?? "",
    ...(branch !== undefined ? { branch } : {}),
    ...(provider !== undefined ? { provider } : {}),
    ...(htmlUrl !== undefined ? { htmlUrl } : {}),
  };
}

/**
 * Builds the control routes over the scenario controls.
 * @example
 * // curl -X POST $ORIGIN/_sim/runs/runs/run-abc/step  ->  {"status":"fetching"}
 * const routes = runsControlRoutes(doubles.runs);
 */
export function runsControlRoutes(controls: RunsScenario): readonly Route[] {
  return [
    {
      method: "POST",
      path: "/organizations",
      doc: { body: '{"name"?: string (default "acme"), "email"?: string, "costEstimationEnabled"?: boolean}', answer: '201 {"name"}' },
      handler: ({ request }) => {
        const b = body(bodyText(request));
        only(b, ["name", "email", "costEstimationEnabled"]);
        const email = str(b.email, "email");
        const costEstimationEnabled = bool(b.costEstimationEnabled, "costEstimationEnabled");
        return json(201, {
          name: controls.addOrganization(str(b.name, "name") ?? "acme", {
            ...(email === undefined ? {} : { email }),
            ...(costEstimationEnabled === undefined ? {} : { costEstimationEnabled }),
          }),
        });
      },
    },
    {
      method: "POST",
      path: "/organizations/:organization/cost-estimation",
      doc: { body: '{"enabled": boolean}', answer: '200 {"ok": true}' },
      handler: ({ request, params }) => {
        const b = body(bodyText(request));
        only(b, ["enabled"]);
        const enabled = bool(b.enabled, "enabled");
        if (enabled === undefined) throw new UsageError('runs: "enabled" is required');
        controls.setCostEstimation(params.organization ?? "", enabled);
        return json(200, { ok: true });
      },
    },
    {
      method: "POST",
      path: "/workspaces",
      doc: { body: '{"organization": string, "name"?, "autoApply"?: boolean, "vcsRepo"?: {"identifier", "branch"?, "provider"?, "htmlUrl"?}}', answer: '201 {"id", "name", "organization"}' },
      handler: ({ request }) => {
        const b = body(bodyText(request));
        only(b, ["organization", "name", "autoApply", "vcsRepo"]);
        const organization = str(b.organization, "organization", false) ?? "";
        const repo = b.vcsRepo;
        if (repo !== undefined && (repo === null || typeof repo !== "object" || Array.isArray(repo))) {
          throw new UsageError('runs: "vcsRepo" must be an object like {"identifier": "owner/repo"}');
        }
        if (repo !== undefined) only(repo as Json, ["identifier", "branch", "provider", "htmlUrl"], "/vcsRepo");
        const name = str(b.name, "name");
        const autoApply = bool(b.autoApply, "autoApply");
        const workspace = controls.addWorkspace(organization, {
          ...(name !== undefined ? { name } : {}),
          ...(autoApply !== undefined ? { autoApply } : {}),
          ...(repo !== undefined ? { vcsRepo: vcsRepo(repo as Json) } : {}),
        });
        return json(201, workspace);
      },
    },
    {
      method: "POST",
      path: "/users",
      doc: { body: '{"username"?, "siteAdmin"?: boolean, "permissions"?: {"acme/prod" | "ws-...": "read" | "plan" | "write" | "admin"}, "organizationAccess"?: {"<organization>": level}}', answer: '201 {"id", "username", "token"}' },
      handler: ({ request }) => {
        const b = body(bodyText(request));
        only(b, ["username", "siteAdmin", "permissions", "organizationAccess"]);
        const username = str(b.username, "username");
        const siteAdmin = bool(b.siteAdmin, "siteAdmin");
        const given = levels(b.permissions, "permissions");
        const permissions = given === undefined ? undefined : Object.fromEntries(Object.entries(given).map(([ref, level]) => [controls.workspaceId(ref), level]));
        const organizationAccess = levels(b.organizationAccess, "organizationAccess");
        const user = controls.addUser({
          ...(username !== undefined ? { username } : {}),
          ...(siteAdmin !== undefined ? { siteAdmin } : {}),
          ...(permissions !== undefined ? { permissions } : {}),
          ...(organizationAccess !== undefined ? { organizationAccess } : {}),
        });
        return json(201, { ...user, token: controls.issueUserToken(user.id) });
      },
    },
    {
      method: "POST",
      path: "/outcomes",
      doc: { body: 'an outcome script {"plan"?, "apply"?, "policyCheck"?, "costEstimation"?, "progression"?, "durations"?, ...} plus "workspaceId"? (an id or "organization/name"), "runId"? or "next": true (with a workspace)', answer: '200 {"ok": true}' },
      handler: ({ request }) => {
        const all = body(bodyText(request));
        only(all, ["workspaceId", "runId", "next", ...OUTCOME_KEYS]);
        const { workspaceId, runId, next, ...script } = all;
        const named = str(workspaceId, "workspaceId");
        const ws = named === undefined ? undefined : controls.workspaceId(named);
        const run = str(runId, "runId");
        if (run !== undefined) controls.setRunOutcome(run, script as OutcomeScript);
        else if (ws !== undefined && bool(next, "next")) controls.nextRun(ws, script as OutcomeScript);
        else if (ws !== undefined) controls.setWorkspaceOutcome(ws, script as OutcomeScript);
        else controls.setOutcome(script as OutcomeScript);
        return json(200, { ok: true });
      },
    },
    {
      method: "POST",
      path: "/cool-off",
      doc: { body: '{"duration": "30s" | ms}', answer: '200 {"ok": true}' },
      handler: ({ request }) => {
        const all = body(bodyText(request));
        only(all, ["duration"]);
        const { duration } = all;
        if (typeof duration !== "string" && typeof duration !== "number") throw new UsageError('runs: "duration" must be a duration string or milliseconds');
        controls.setCoolOff(duration);
        return json(200, { ok: true });
      },
    },
    {
      method: "POST",
      path: "/workspaces/:workspace_id/commits",
      doc: { body: '{"message"?, "branch"?, "sha"?, "senderUsername"?, "tag"?, "pullRequest"?: {"number", "title"?, "body"?}, "files"?: {"path": "content"}, "fetch"?: "succeeds" | "errors"}', answer: '201 {"configurationVersionId", "ingressAttributesId"}' },
      handler: ({ request, params }) => {
        const b = body(bodyText(request)) as CommitOptions & Json;
        only(b, ["message", "branch", "sha", "senderUsername", "tag", "pullRequest", "files", "fetch"]);
        if (b.files !== undefined && (b.files === null || typeof b.files !== "object" || Array.isArray(b.files))) {
          throw new UsageError('runs: "files" must be an object of path -> content');
        }
        return json(201, controls.pushCommit(controls.workspaceId(params.workspace_id ?? ""), b));
      },
    },
    {
      method: "POST",
      path: "/runs/:run_id/step",
      doc: { answer: '200 {"status"} (a cv-... id completes a VCS fetch)' },
      handler: ({ params }) => json(200, { status: controls.step(params.run_id ?? "") }),
    },
    {
      method: "GET",
      path: "/runs/:run_id",
      doc: { answer: '200 the run as runs.run(id) reads it' },
      handler: ({ params }) => json(200, controls.run(params.run_id ?? "")),
    },
  ];
}
