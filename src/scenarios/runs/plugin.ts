/**
 * The run orchestration service as a {@link ServicePlugin}: simulator definition, HTTP face, base
 * URLs (the API and the archive host that serves upload and download URLs), scenario controls and
 * the dev server's default scenario.
 */
import { runsHttp } from "../../interceptors/runs/service.js";
import { runsDefinition } from "../../simulator/runs/definition.js";
import type { ServicePlugin } from "../plugin.js";
import { runsControlRoutes } from "./control-routes.js";
import { runsDefaultScenario } from "./default-scenario.js";
import { RunsScenario } from "./runs-scenario.js";
import { runsTables } from "./tables.js";

/**
 * Where the run orchestration service answers through nock unless `baseUrls.runs` says otherwise.
 * @example
 * createDoubles({ baseUrls: { runs: { api: "https://tfe.example/api/v2", archive: "https://archive.example" } } })
 */
export const RUNS_DEFAULT_BASES: Readonly<Record<string, string>> = Object.freeze({
  api: "https://app.run-orchestration.test/api/v2",
  archive: "https://archivist.run-orchestration.test",
});

/**
 * The run orchestration plugin (`doubles.runs`).
 * @example
 * const core = new DoublesCore([runsPlugin]);
 * const runs = core.controlsOf<RunsScenario>("runs");
 */
export const runsPlugin: ServicePlugin<RunsScenario> = {
  key: "runs",
  definition: runsDefinition,
  http: runsHttp,
  defaultBases: RUNS_DEFAULT_BASES,
  serverBases: (origin) => ({ api: `${origin}/api/v2`, archive: `${origin}/_archivist` }),
  controls: (sim) => new RunsScenario(sim),
  tables: (sim) => runsTables(sim),
  defaultScenario: (controls, bases) => runsDefaultScenario(controls, bases),
  controlRoutes: (controls) => runsControlRoutes(controls),
};
