/**
 * JSON:API resource objects of organizations, workspaces and the caller's account, shaped as the
 * real API shapes them (the spec is silent on them; docs/decisions/runs.md, "Organizations,
 * workspaces and the account"). Attributes the fake has no fixture for take the real service's
 * defaults for a new organization or workspace (`execution-mode: "remote"`, `environment:
 * "default"`, ...); the engine version is `terraform-version`, the name real clients read.
 */
import { isoMillis } from "../../simulator/kernel/time.js";
import { lockHolder, organizationRole, workspacePermissions, type Account } from "../../simulator/runs/workspaces.js";
import type { Organization, RunsState, Workspace } from "../../simulator/runs/state.js";
import type { ResourceObject } from "./json-api.js";
import { serializeUser, type SerializeContext } from "./serializers.js";

/**
 * An `organizations` resource (its id is its name). `permissions` are the caller's: owners (an
 * organization-wide admin, an owners' team, the organization's token) may manage it, members may
 * traverse it.
 * @example
 * serializeOrganization(out, org).attributes["cost-estimation-enabled"] // false
 */
export function serializeOrganization(ctx: SerializeContext, organization: Organization): ResourceObject {
  const owner = organizationRole(ctx.state as RunsState, ctx.caller, organization.name) === "owner";
  return {
    id: organization.name,
    type: "organizations",
    attributes: {
      name: organization.name,
      email: organization.email,
      "created-at": isoMillis(organization.createdAt),
      "cost-estimation-enabled": organization.costEstimationEnabled,
      "collaborator-auth-policy": "password",
      "session-timeout": null,
      "session-remember": null,
      "saml-enabled": false,
      "owners-team-saml-role-id": null,
      "two-factor-conformant": false,
      "default-execution-mode": "remote",
      permissions: {
        "can-create-team": owner,
        "can-create-workspace": owner,
        "can-create-workspace-migration": owner,
        "can-destroy": owner,
        "can-traverse": true,
        "can-update": owner,
        "can-update-api-token": owner,
        "can-update-oauth": owner,
        "can-update-sentinel": owner,
      },
    },
    relationships: {},
    links: { self: ctx.link(`/organizations/${encodeURIComponent(organization.name)}`) },
  };
}

/**
 * A `workspaces` resource: `locked` and the `locked-by` relationship (the run holding the
 * workspace, or the user or team that locked it; `{"data": null}` when unlocked), `current-run`,
 * `organization`, and the caller's `permissions`.
 * @example
 * serializeWorkspace(out, ws).relationships["locked-by"] // { data: { type: "runs", id: "run-..." } } while a run holds it
 */
export function serializeWorkspace(ctx: SerializeContext, workspace: Workspace): ResourceObject {
  const state = ctx.state as RunsState;
  const holder = lockHolder(state, workspace);
  const p = workspacePermissions(state, ctx.caller, workspace);
  const repo = workspace.vcsRepo;
  const currentRun = workspace.currentRunId === null ? undefined : state.runs[workspace.currentRunId];
  return {
    id: workspace.id,
    type: "workspaces",
    attributes: {
      actions: { "is-destroyable": true },
      "allow-destroy-plan": true,
      "auto-apply": workspace.autoApply,
      "can-queue-destroy-plan": false,
      "created-at": isoMillis(workspace.createdAt),
      environment: "default",
      "execution-mode": "remote",
      "file-triggers-enabled": true,
      locked: holder !== null,
      "locked-reason": holder !== null && holder.type !== "runs" ? (workspace.lock?.reason ?? null) : null,
      name: workspace.name,
      operations: true,
      permissions: {
        "can-update": p.canAdmin,
        "can-destroy": p.canAdmin,
        "can-queue-run": p.canQueueRuns,
        "can-read-run": p.canReadRuns,
        "can-read-variable": p.canReadRuns,
        "can-update-variable": p.canApplyRuns,
        "can-read-state-versions": p.canReadRuns,
        "can-create-state-versions": p.canApplyRuns,
        "can-queue-apply": p.canApplyRuns,
        "can-queue-destroy": p.canApplyRuns,
        "can-lock": p.canApplyRuns,
        "can-unlock": p.canApplyRuns,
        "can-force-unlock": p.canAdmin,
        "can-read-settings": p.canReadRuns,
      },
      "queue-all-runs": false,
      "speculative-enabled": true,
      "terraform-version": workspace.engineVersion,
      "trigger-prefixes": [],
      "vcs-repo":
        repo === null
          ? null
          : { identifier: repo.identifier, "display-identifier": repo.identifier, branch: repo.branch, "ingress-submodules": false, "repository-http-url": repo.htmlUrl },
      "vcs-repo-identifier": repo === null ? null : repo.identifier,
      "working-directory": "",
    },
    relationships: {
      organization: { data: { type: "organizations", id: workspace.organization } },
      "current-run": { data: currentRun === undefined ? null : { type: "runs", id: currentRun.id } },
      "locked-by": { data: holder === null ? null : { type: holder.type, id: holder.id } },
    },
    links: { self: ctx.link(`/workspaces/${workspace.id}`) },
  };
}

/**
 * The `users` document of `GET /account/details`: the user's own fields with `email`,
 * `unconfirmed-email` and `two-factor` (the caller's own account). An organization token's service
 * user is not stored: its id comes from the token's (`user-<token id without "at-">`) and its
 * username is `api-org-<organization>`.
 * @example
 * serializeAccount(out, currentAccount(state, caller)).attributes.username // "alice"
 */
export function serializeAccount(ctx: SerializeContext, account: Account): ResourceObject {
  if (account.kind === "organization") {
    return {
      id: `user-${account.tokenId.replace(/^at-/, "")}`,
      type: "users",
      attributes: {
        username: `api-org-${account.organization}`,
        "is-service-account": true,
        "avatar-url": "https://www.gravatar.com/avatar/00000000000000000000000000000000?s=100&d=mm",
        "v2-only": true,
        "is-site-admin": false,
        email: null,
        "unconfirmed-email": null,
        "two-factor": { enabled: false, verified: false },
      },
      links: { self: ctx.link("/account/details") },
    };
  }
  const base = serializeUser(ctx, account.user);
  return {
    ...base,
    attributes: {
      ...base.attributes,
      email: account.user.email,
      "unconfirmed-email": null,
      "two-factor": { enabled: false, verified: false },
    },
    links: { self: ctx.link("/account/details") },
  };
}
