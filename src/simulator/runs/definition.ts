/**
 * The run orchestration service's simulator definition: its initial state (no organizations yet,
 * five official engine versions, default settings) and the handlers of its timed moves.
 */
import type { IdSource } from "../kernel/ids.js";
import type { ServiceDefinition } from "../kernel/simulator.js";
import { VCS_FETCH_MOVE, vcsFetchMove } from "./configuration-versions.js";
import { emptyIndexes } from "./indexes.js";
import { limitValue } from "../kernel/limits.js";
import { RUNS_ID_KINDS, RUNS_LIMITS, RUNS_LIMIT_TABLE, defaultOutcome } from "./limits.js";
import { RUN_STEP_MOVE, runStepMove } from "./progression.js";
import { RUNS } from "./errors.js";
import { configurationVersionMachine } from "./configuration-version-machine.js";
import { runMachine } from "./run-machine.js";
import type { EngineVersion, RunsState } from "./state.js";
import { dict } from "../kernel/dict.js";
import { logSigningKey } from "./logs.js";

/**
 * Engine versions every simulator starts with (official, enabled).
 * @example
 * SEEDED_ENGINE_VERSIONS.at(-1) // "1.9.8", the default of new workspaces
 */
export const SEEDED_ENGINE_VERSIONS: readonly string[] = Object.freeze(["1.5.7", "1.6.6", "1.7.5", "1.8.5", "1.9.8"]);

/**
 * The default force-cancel cool-off: 10 s (FIDELITY.md; a known clone uses 10 s).
 * @example
 * runs.setCoolOff(DEFAULT_COOL_OFF_MS * 3) // 30 s
 */
export const DEFAULT_COOL_OFF_MS = RUNS_LIMITS.coolOff.value;

/**
 * How long a download URL stays valid: 5 minutes.
 * @example
 * doubles.advance(DEFAULT_DOWNLOAD_LINK_TTL_MS) // download URLs issued before now answer 404
 */
export const DEFAULT_DOWNLOAD_LINK_TTL_MS = RUNS_LIMITS.downloadLinkTtl.value;

/**
 * A fresh state at simulator time `now`; `limits` is the context its settings' limits are read
 * through (`limitValue`: a mutant's simulator scales one; default: the table's values).
 * @example
 * const state = initialRunsState(Date.UTC(2024, 0, 1), new IdSource(1)); // five official engine versions, no organizations
 */
export function initialRunsState(now: number, ids: IdSource, limits: object = {}): RunsState {
  const engineVersions: Record<string, EngineVersion> = {};
  SEEDED_ENGINE_VERSIONS.forEach((version, index) => {
    const id = ids.prefixed("tool-");
    engineVersions[id] = {
      id,
      seq: index + 1,
      version,
      url: `https://releases.engine.example/engine/${version}/engine_${version}_linux_amd64.zip`,
      sha: ids.hex(64),
      deprecated: false,
      deprecatedReason: null,
      official: true,
      enabled: true,
      beta: false,
      createdAt: now,
    };
  });
  return {
    seq: SEEDED_ENGINE_VERSIONS.length,
    settings: {
      coolOffMs: limitValue(limits, RUNS_LIMITS.coolOff),
      downloadLinkTtlMs: limitValue(limits, RUNS_LIMITS.downloadLinkTtl),
      logSigningKey: logSigningKey(Object.values(engineVersions).map((v) => v.sha)),
      // A frozen value (runs without overrides share it; see mergeOutcome).
      outcome: defaultOutcome(limits),
      uploadOutcome: "succeeds",
    },
    organizations: dict(),
    workspaces: dict(),
    users: dict(),
    teams: dict(),
    tokens: dict(),
    configurationVersions: dict(),
    ingressAttributes: dict(),
    runs: dict(),
    plans: dict(),
    applies: dict(),
    costEstimates: dict(),
    policyChecks: dict(),
    engineVersions: dict(Object.entries(engineVersions)),
    downloadLinks: dict(),
    indexes: emptyIndexes(),
  };
}

/**
 * The run orchestration service for the {@link Simulator}.
 * @example const sim = new Simulator({ services: [runsDefinition] });
 */
export const runsDefinition: ServiceDefinition<RunsState> = {
  name: RUNS,
  initialState: (ctx) => initialRunsState(ctx.now, ctx.ids, ctx),
  // Built from `now` and the seeded ids alone: built once per process and copied (simulator.ts).
  cacheInitialState: true,
  moves: {
    [RUN_STEP_MOVE]: runStepMove,
    [VCS_FETCH_MOVE]: vcsFetchMove,
  },
  traced: { machines: [runMachine, configurationVersionMachine] },
  limits: RUNS_LIMIT_TABLE,
  idKinds: RUNS_ID_KINDS,
};
