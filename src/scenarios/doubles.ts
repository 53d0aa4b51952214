/**
 * `createDoubles()`: every simulated service on one simulator and one clock, with typed scenario
 * controls per service.
 */
import { DoublesCore, type DoublesCoreOptions } from "./doubles-core.js";
import type { ServicePlugin } from "./plugin.js";
import { runsPlugin } from "./runs/plugin.js";
import type { RunsScenario } from "./runs/runs-scenario.js";
import { ACCESS_CONTROL_KEY, accessControlPlugin } from "./access-control/plugin.js";
import type { AccessControlScenario } from "./access-control/scenario.js";
import { SECRETS_KEY, secretsPlugin } from "./secrets/plugin.js";
import type { SecretsScenario } from "./secrets/secrets-scenario.js";
import type { PluginControlRoutes } from "../interceptors/control.js";
import { documentControlRoutes, scenarioControlRoutes } from "./document/control-routes.js";
import { loadScenario, type LoadedScenario } from "./document/load.js";
import { formatOf, parseScenarioText, readScenarioFile, type ScenarioFormat } from "./document/parse.js";
import type { ScenarioDocument } from "./document/types.js";
import type { UserRoutes } from "./user-routes.js";
import { importState, type ExportStateOptions, type StateDocument } from "./state/document.js";
import { loadStateFile, writeStateFile } from "./state/file.js";
import { stateControlRoutes, useStateFile } from "./state/control-routes.js";
import { mutantControlRoutes } from "./mutants/control-routes.js";

/** Whether a `scenario` string is a file path (one line ending in `.yaml`, `.yml` or `.json`), not a document's text. */
function isScenarioPath(text: string): boolean {
  return !/[\r\n]/.test(text) && /\.(ya?ml|json)\s*$/i.test(text) && !text.trimStart().startsWith("{");
}

/** A `scenario` option as a document not yet checked (a path is read, a text parsed). */
function readScenario(scenario: ScenarioDocument | string): unknown {
  return typeof scenario !== "string" ? scenario : isScenarioPath(scenario) ? readScenarioFile(scenario) : parseScenarioText(scenario, formatOf(undefined, scenario));
}

/** The `mutant` a document names, when it names one as a string (the schema checks the rest at load). */
function documentMutant(document: unknown): string | undefined {
  const mutant = typeof document === "object" && document !== null ? (document as { mutant?: unknown }).mutant : undefined;
  return typeof mutant === "string" ? mutant : undefined;
}

/** Where each service answers through nock: `api` bases, and the run orchestration archive host. */
export type DoublesBaseUrls = Record<string, Record<string, string>> & {
  /** `api` ends in `/api/v2`; `archive` is the upload and download host. */
  runs: { api: string; archive: string };
  /** `api` ends in `/v1`. */
  accessControl: { api: string };
  /** `api` ends in `/v1`. */
  secrets: { api: string };
};

/** Options of {@link createDoubles}. */
export interface DoublesOptions extends DoublesCoreOptions {
  /**
   * A scenario document to load at creation: an object (e.g. from `loadScenario(path)`), the path
   * of its file (one line ending in `.yaml`, `.yml` or `.json`, relative to the working
   * directory), or its JSON or YAML text; `reset()` goes back to the state right after it. Its
   * timeline is played by `doubles.scenario.play()`. Errors name the file, line and column.
   */
  readonly scenario?: ScenarioDocument | string;
  /**
   * A world to start from (after `scenario`, replacing it): a state document's file path (it must
   * exist; `POST /_sim/state/save` on a server of these doubles writes it again) or the document
   * itself (`exportState(other)`, `GET /_sim/state`'s answer). `reset()` goes back to it. See
   * docs/guides/save-and-load-a-world.md.
   * @example createDoubles({ state: "world.json" })
   */
  readonly state?: string | StateDocument;
}

/**
 * Every service plugin, in mount order. Each service adds its plugin here and a typed getter to
 * {@link Doubles}.
 */
export const ALL_PLUGINS: readonly ServicePlugin<unknown>[] = [
  // service plugins are listed here
  runsPlugin, // runs: /api/v2 and the archive host
  accessControlPlugin, // access-control: keep before secrets (both live under /v1 on the server)
  secretsPlugin, // secrets: its catch-all /v1/* routes must come after access-control's /v1/acl/*
];

/**
 * The three simulated services with one clock, one id source and both transports.
 *
 * @example
 * const doubles = createDoubles({ seed: 1 });
 * using _nock = doubles.intercept();
 * doubles.advance("10m");
 */
export class Doubles extends DoublesCore {
  /** The document given as `createDoubles({ scenario })`, loaded; undefined without one. */
  readonly scenario: LoadedScenario | undefined;

  constructor(options: DoublesOptions = {}) {
    // A document's `mutant` is read before the simulator is built (the mutant is part of the build).
    // (`options` may be anything a plain JavaScript caller passes: the base class refuses it by name.)
    const given = typeof options === "object" && options !== null ? options : undefined;
    const document = given?.scenario === undefined ? undefined : readScenario(given.scenario);
    super(ALL_PLUGINS, given !== undefined && given.mutant === undefined && documentMutant(document) !== undefined ? { ...given, mutant: documentMutant(document) } : options);
    if (options.scenario !== undefined) {
      this.scenario = this.load(document as ScenarioDocument);
      this.markResetPoint();
    }
    // What creation did is the bundle's seed, start and scenario: the log starts here. A state
    // document loaded at creation is the log's first event (a replay loads it again).
    this.restartRecording();
    if (options.state !== undefined) {
      if (typeof options.state === "string") {
        loadStateFile(options.state, this);
        useStateFile(this, options.state);
      } else importState(this, options.state);
      this.markResetPoint();
    }
  }

  /**
   * Writes the whole world (every service's state, the clock, the timed moves, the id source, the
   * faults) to `path` as a state document, atomically (a temporary file, then a rename);
   * `createDoubles({ state: path })`, `serve --state path` and `PUT /_sim/state` load it again.
   * @param options.journal - include the request journal (default false).
   * @returns the number of bytes written.
   * @throws the file system's error.
   * @example doubles.saveState("world.json");
   */
  saveState(path: string, options: ExportStateOptions = {}): number {
    return writeStateFile(path, this, options);
  }

  /** The document loaded at creation, for replay bundles. */
  protected override bundleScenario(): unknown {
    return this.scenario?.document;
  }

  /** The scenario document routes: every fixture under `/_sim/<service>/`, and `POST /_sim/scenario`. */
  protected override moreControlRoutes(): readonly PluginControlRoutes[] {
    return [
      { key: "runs", routes: documentControlRoutes(this, "runs") },
      { key: ACCESS_CONTROL_KEY, routes: documentControlRoutes(this, "accessControl") },
      { key: SECRETS_KEY, routes: documentControlRoutes(this, "secrets") },
      { key: "scenario", routes: scenarioControlRoutes(this) },
      { key: "state", routes: stateControlRoutes(this) },
      { key: "mutants", routes: mutantControlRoutes(this) },
    ];
  }

  /**
   * Loads a scenario document: its fixtures now, its timeline ready to `play()`. All or nothing.
   * @param document - the document, the path of its file (one line ending in `.yaml`, `.yml` or
   *   `.json`), or its JSON or YAML text.
   * @param options.format - the text's format (default: JSON when it starts with `{`, else YAML).
   * @returns the names its fixtures resolved to (ids, tokens) and `play()`.
   * @throws {ScenarioDocumentError} with the JSON pointer and what was expected, for a document that
   *   is not JSON/YAML, does not fit the schema, names something unknown, or asks for a fixture the
   *   service refuses; with the file, line and column when it was read from a file or text
   *   (`world.yaml:12:5: /runs/workspaces/0/organisation: unknown property (did you mean "organization"?); ...`).
   * @example
   * const loaded = doubles.load("runs:\n  organizations: [{ name: acme }]\n  workspaces: [{ name: prod, organization: acme }]\n");
   * loaded.names.runs.workspaces["acme/prod"] // "ws-..."
   */
  load(document: ScenarioDocument | string, options: { readonly format?: ScenarioFormat } = {}): LoadedScenario {
    const parsed: unknown =
      typeof document !== "string" ? document : isScenarioPath(document) ? readScenarioFile(document) : parseScenarioText(document, options.format ?? formatOf(undefined, document));
    return this.recordedAction({ kind: "load", document: parsed }, () => loadScenario(this, parsed));
  }

  // typed service getters are listed here

  /**
   * The base URLs each service answers on through nock (defaults, or the `baseUrls` option).
   * @example doubles.baseUrls().runs.api // "https://app.run-orchestration.test/api/v2"
   */
  override baseUrls(): DoublesBaseUrls {
    return super.baseUrls() as DoublesBaseUrls;
  }

  /** The run orchestration service's scenario controls (organizations, workspaces, tokens, outcomes, progression, commits). */
  get runs(): RunsScenario & UserRoutes {
    return this.controlsOf<RunsScenario & UserRoutes>("runs");
  }

  /** The secrets service's scenario controls (tokens, policies, mounts, node state, key backends, MFA fixtures, leases). */
  get secrets(): SecretsScenario & UserRoutes {
    return this.controlsOf<SecretsScenario & UserRoutes>(SECRETS_KEY);
  }

  /** The access-control service's scenario controls (tokens, policies, roles, auth methods, login). */
  get accessControl(): AccessControlScenario & UserRoutes {
    return this.controlsOf<AccessControlScenario & UserRoutes>(ACCESS_CONTROL_KEY);
  }
}

/**
 * Creates the doubles: a simulator (manual clock at 2024-01-01T00:00:00Z unless told otherwise)
 * with every service, ready to `intercept()` with nock or `listen()` as a server.
 * @throws {UsageError} for an unknown option key at any level (naming the nearest valid key, e.g.
 *   `unknown option "sed" (did you mean "seed"?)`) or a value of the wrong type.
 * @example
 * const doubles = createDoubles({ seed: 42, clock: "manual", start: "2024-05-01T00:00:00Z" });
 */
export function createDoubles(options: DoublesOptions = {}): Doubles {
  return new Doubles(options);
}
