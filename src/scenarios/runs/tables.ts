/**
 * What the run orchestration service stores, as the read-only tables of `GET /_sim/tables/runs/...`
 * and the dashboard (`GET /_sim/ui`): organizations, workspaces with their queue and lock, runs and
 * configuration versions with their status and status timestamps. Newest first where items have a
 * creation order (runs, configuration versions); a page reads only its own rows.
 */
import { pageRows, type StoredTable, type StoredTableColumn, type StoredTableRow } from "../../interceptors/control.js";
import type { Simulator } from "../../simulator/kernel/simulator.js";
import { isoMillis } from "../../simulator/kernel/time.js";
import { RUNS } from "../../simulator/runs/errors.js";
import { needsWorkspace } from "../../simulator/runs/progression.js";
import type { ConfigurationVersion, Run, RunsState, Workspace } from "../../simulator/runs/state.js";

/** Most waiting run ids a workspace row lists (then `+N more`). */
const QUEUE_SHOWN = 10;

/** `status at` for each status a resource went through, oldest first. */
function timestamps(stamps: Readonly<Partial<Record<string, number>>>): string[] {
  return Object.entries(stamps)
    .filter((entry): entry is [string, number] => entry[1] !== undefined)
    .sort((a, b) => a[1] - b[1])
    .map(([status, at]) => `${status} ${isoMillis(at)}`);
}

function when(at: number | null | undefined): string | null {
  return at === null || at === undefined ? null : isoMillis(at);
}

/** The runs waiting for `workspace` (not holding it), oldest first: what `RunsScenario.workspaceQueue` lists. */
function waiting(state: Readonly<RunsState>, workspace: Workspace): string[] {
  const ids = state.indexes?.runsByWorkspace[workspace.id];
  const runs = ids === undefined ? Object.values(state.runs).filter((run) => run.workspaceId === workspace.id) : ids.map((id) => state.runs[id]);
  const queue: string[] = [];
  for (const run of runs) {
    if (run === undefined || run.id === workspace.lockedBy) continue;
    if ((run.status === "pending" && needsWorkspace(run)) || (run.status === "confirmed" && run.savePlan)) queue.push(run.id);
  }
  return queue;
}

function runCount(state: Readonly<RunsState>, workspace: Workspace): number {
  return state.indexes?.runsByWorkspace[workspace.id]?.length ?? Object.values(state.runs).filter((run) => run.workspaceId === workspace.id).length;
}

function workspaceName(state: Readonly<RunsState>, id: string): string {
  const workspace = state.workspaces[id];
  return workspace === undefined ? id : `${workspace.organization}/${workspace.name}`;
}

/** Items of a dict newest first (dicts keep insertion order, which is creation order here). */
function newestFirst<T>(items: Readonly<Record<string, T>>): T[] {
  return Object.values(items).reverse();
}

const ORGANIZATION_COLUMNS: readonly StoredTableColumn[] = [
  { key: "name", title: "Name" },
  { key: "email", title: "Email" },
  { key: "workspaces", title: "Workspaces" },
  { key: "costEstimationEnabled", title: "Cost estimation" },
  { key: "createdAt", title: "Created", kind: "time" },
];

const WORKSPACE_COLUMNS: readonly StoredTableColumn[] = [
  { key: "id", title: "Id" },
  { key: "name", title: "Name" },
  { key: "organization", title: "Organization" },
  { key: "autoApply", title: "Auto-apply" },
  { key: "lockedBy", title: "Held by run" },
  { key: "lock", title: "Lock" },
  { key: "queue", title: "Queue", kind: "list" },
  { key: "currentRun", title: "Current run" },
  { key: "runs", title: "Runs" },
  { key: "createdAt", title: "Created", kind: "time" },
];

const RUN_COLUMNS: readonly StoredTableColumn[] = [
  { key: "id", title: "Id" },
  { key: "workspace", title: "Workspace" },
  { key: "status", title: "Status", kind: "status" },
  { key: "since", title: "Since", kind: "time" },
  { key: "timestamps", title: "Status timestamps", kind: "list" },
  { key: "message", title: "Message" },
  { key: "source", title: "Source" },
  { key: "createdAt", title: "Created", kind: "time" },
];

const CONFIGURATION_VERSION_COLUMNS: readonly StoredTableColumn[] = [
  { key: "id", title: "Id" },
  { key: "workspace", title: "Workspace" },
  { key: "status", title: "Status", kind: "status" },
  { key: "timestamps", title: "Status timestamps", kind: "list" },
  { key: "source", title: "Source" },
  { key: "speculative", title: "Speculative" },
  { key: "createdAt", title: "Created", kind: "time" },
];

function runRow(state: Readonly<RunsState>, run: Run): StoredTableRow {
  return {
    id: run.id,
    workspace: workspaceName(state, run.workspaceId),
    status: run.status,
    since: when(run.statusTimestamps[run.status]),
    timestamps: timestamps(run.statusTimestamps),
    message: run.message,
    source: run.source,
    createdAt: isoMillis(run.createdAt),
  };
}

function versionRow(state: Readonly<RunsState>, version: ConfigurationVersion): StoredTableRow {
  return {
    id: version.id,
    workspace: workspaceName(state, version.workspaceId),
    status: version.status,
    timestamps: timestamps(version.statusTimestamps),
    source: version.source,
    speculative: version.speculative,
    createdAt: isoMillis(version.createdAt),
  };
}

function workspaceRow(state: Readonly<RunsState>, workspace: Workspace): StoredTableRow {
  const queue = waiting(state, workspace);
  const lock = workspace.lock;
  return {
    id: workspace.id,
    name: workspace.name,
    organization: workspace.organization,
    autoApply: workspace.autoApply,
    lockedBy: workspace.lockedBy,
    lock: lock === null ? null : `${lock.kind} ${lock.id} since ${isoMillis(lock.at)}${lock.reason === null ? "" : ` (${lock.reason})`}`,
    queue: queue.length <= QUEUE_SHOWN ? queue : [...queue.slice(0, QUEUE_SHOWN), `+${queue.length - QUEUE_SHOWN} more`],
    currentRun: workspace.currentRunId,
    runs: runCount(state, workspace),
    createdAt: isoMillis(workspace.createdAt),
  };
}

/**
 * The run orchestration service's tables over `sim`'s state: `organizations`, `workspaces` (with
 * the run holding each, its API lock and the runs waiting), `runs` and `configurationVersions`
 * (newest first, each status with the time it was reached).
 * @example runsTables(doubles.sim).map((t) => t.name) // ["organizations", "workspaces", "runs", "configurationVersions"]
 */
export function runsTables(sim: Simulator): readonly StoredTable[] {
  const read = <R>(fn: (state: Readonly<RunsState>) => R): R => sim.read<RunsState, R>(RUNS, (ctx) => fn(ctx.state));
  return [
    {
      name: "organizations",
      title: "Organizations",
      columns: ORGANIZATION_COLUMNS,
      page: (query) =>
        read((state) => {
          const counts = new Map<string, number>();
          for (const workspace of Object.values(state.workspaces)) counts.set(workspace.organization, (counts.get(workspace.organization) ?? 0) + 1);
          return pageRows(Object.values(state.organizations), ORGANIZATION_COLUMNS, query, (organization) => ({
            name: organization.name,
            email: organization.email,
            workspaces: counts.get(organization.name) ?? 0,
            costEstimationEnabled: organization.costEstimationEnabled,
            createdAt: isoMillis(organization.createdAt),
          }));
        }),
    },
    {
      name: "workspaces",
      title: "Workspaces",
      columns: WORKSPACE_COLUMNS,
      page: (query) => read((state) => pageRows(Object.values(state.workspaces), WORKSPACE_COLUMNS, query, (workspace) => workspaceRow(state, workspace))),
    },
    {
      name: "runs",
      title: "Runs",
      columns: RUN_COLUMNS,
      page: (query) => read((state) => pageRows(newestFirst(state.runs), RUN_COLUMNS, query, (run) => runRow(state, run))),
    },
    {
      name: "configurationVersions",
      title: "Configuration versions",
      columns: CONFIGURATION_VERSION_COLUMNS,
      page: (query) => read((state) => pageRows(newestFirst(state.configurationVersions), CONFIGURATION_VERSION_COLUMNS, query, (version) => versionRow(state, version))),
    },
  ];
}
