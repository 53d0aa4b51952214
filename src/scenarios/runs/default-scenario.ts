/**
 * The dev server's default run orchestration scenario: one organization, one workspace, a user
 * token with every permission on it, and a site administrator token.
 */
import type { RunsScenario } from "./runs-scenario.js";

/** What the dev server banner prints for the run orchestration service. */
export interface RunsDefaultScenario {
  /** The API base, ending with `/api/v2`. */
  readonly baseUrl: string;
  readonly organization: string;
  readonly workspaceId: string;
  /** Bearer token of a user with `admin` on the workspace. */
  readonly userToken: string;
  /** Bearer token of a site administrator (engine versions admin API). */
  readonly adminToken: string;
  [key: string]: unknown;
}

/**
 * Builds the default scenario.
 * @param bases - the service's bases on the server origin (`api`, `archive`).
 * @example
 * const info = runsDefaultScenario(doubles.runs, { api: "http://127.0.0.1:8080/api/v2" });
 * // curl -H "Authorization: Bearer $userToken" $baseUrl/workspaces/$workspaceId/runs
 */
export function runsDefaultScenario(controls: RunsScenario, bases: Record<string, string>): RunsDefaultScenario {
  const organization = controls.addOrganization("demo-org");
  const workspace = controls.addWorkspace(organization, { name: "demo-workspace" });
  const user = controls.addUser({ username: "demo-user", permissions: { [workspace.id]: "admin" } });
  const userToken = controls.issueUserToken(user.id);
  const adminToken = controls.issueSiteAdminToken({ username: "site-admin" });
  return { baseUrl: bases.api ?? "", organization, workspaceId: workspace.id, userToken, adminToken };
}
