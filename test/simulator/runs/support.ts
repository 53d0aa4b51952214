/** A bare simulator with the run orchestration service, a workspace and callers, for unit, property and model tests. */
import { ManualClock } from "../../../src/simulator/kernel/clock.js";
import { Simulator, type OperationContext } from "../../../src/simulator/kernel/simulator.js";
import { authenticate, type Caller } from "../../../src/simulator/runs/access.js";
import { createConfigurationVersion, uploadArchive } from "../../../src/simulator/runs/configuration-versions.js";
import { configurationArchive } from "../../../src/scenarios/runs/archive.js";
import { runsDefinition } from "../../../src/simulator/runs/definition.js";
import { createOrganization, createToken, createUser, createWorkspace } from "../../../src/simulator/runs/fixtures.js";
import type { OutcomeOverride } from "../../../src/simulator/runs/outcomes.js";
import { createRun, type CreateRunInput } from "../../../src/simulator/runs/runs.js";
import type { Run, RunsState } from "../../../src/simulator/runs/state.js";

/** A real configuration archive: uploads of anything else end errored. */
const ARCHIVE = configurationArchive();

export interface Bare {
  readonly sim: Simulator;
  readonly clock: ManualClock;
  readonly workspaceId: string;
  /** Workspace admin. */
  readonly admin: Caller;
  update<R>(fn: (ctx: OperationContext<RunsState>) => R): R;
  state(): RunsState;
  run(id: string): Run;
  /** Uploads a configuration version (auto-queue off) so runs can be created. */
  uploadVersion(): string;
  createRun(input?: Omit<CreateRunInput, "workspaceId">): string;
}

export function bare(options: { seed?: number; outcome?: OutcomeOverride; autoApply?: boolean } = {}): Bare {
  const clock = new ManualClock("2024-01-01T00:00:00Z");
  const sim = new Simulator({ clock, seed: options.seed ?? 1, services: [runsDefinition] });
  const update = <R>(fn: (ctx: OperationContext<RunsState>) => R): R => sim.update<RunsState, R>("runs", fn);
  const { workspaceId, admin } = update((ctx) => {
    createOrganization(ctx, { name: "acme" });
    const ws = createWorkspace(ctx, { organization: "acme", name: "prod", autoApply: options.autoApply ?? false, ...(options.outcome ? { outcome: options.outcome } : {}) });
    const user = createUser(ctx, { username: "alice", permissions: { [ws.id]: "admin" } });
    const token = createToken(ctx, { kind: "user", owner: user.id });
    return { workspaceId: ws.id, admin: authenticate(ctx.state, token.secret, "test") };
  });
  const state = (): RunsState => sim.read<RunsState, RunsState>("runs", (ctx) => ctx.state as RunsState);
  return {
    sim,
    clock,
    workspaceId,
    admin,
    update,
    state,
    run: (id) => {
      const run = state().runs[id];
      if (!run) throw new Error(`no run ${id}`);
      return run;
    },
    uploadVersion: () =>
      update((ctx) => {
        const version = createConfigurationVersion(ctx, admin, workspaceId, { autoQueueRuns: false });
        uploadArchive(ctx, version.uploadToken ?? "", ARCHIVE);
        return version.id;
      }),
    createRun: (input = {}) => update((ctx) => createRun(ctx, admin, { workspaceId, ...input }).id),
  };
}
