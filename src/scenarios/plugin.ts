/**
 * The contract each simulated service fulfils to join {@link Doubles}: its simulator definition,
 * its HTTP face, where it lives by default, the scenario controls it gives tests, and what it adds
 * to the dev server.
 */
import type { Route } from "../interceptors/http.js";
import type { HttpService } from "../interceptors/http.js";
import type { StoredTable } from "../interceptors/control.js";
import type { ServiceDefinition, Simulator } from "../simulator/kernel/simulator.js";

/** A simulated service, ready to be mounted. */
export interface ServicePlugin<Controls> {
  /** Key of the service in `Doubles`, in `baseUrls` options and in the dev server banner (`runs`, `accessControl`, `secrets`). */
  readonly key: string;
  // The kernel holds services of different state types.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly definition: ServiceDefinition<any>;
  readonly http: HttpService;
  /** Base URLs the nock transport intercepts when the user gives none (`api` is the API base). */
  readonly defaultBases: Readonly<Record<string, string>>;
  /** Base URLs on the dev server's one origin (e.g. `{ api: origin + "/api/v2" }`). */
  serverBases(origin: string): Record<string, string>;
  /** The scenario controls handed to tests (fixtures, outcomes, progression). */
  controls(sim: Simulator): Controls;
  /**
   * Builds the dev server's embedded default scenario for this service and returns what the
   * banner prints under {@link ServicePlugin.key} (base URL, tokens, ...).
   * @param bases - this service's bases on the server origin.
   */
  defaultScenario?(controls: Controls, bases: Record<string, string>): Record<string, unknown>;
  /** Extra routes of the `/_sim/` control API, mounted under `/_sim/<key>/`. */
  controlRoutes?(controls: Controls): readonly Route[];
  /**
   * What the service stores, as read-only tables paged on the server: `GET /_sim/tables/<key>/<name>`
   * and the dashboard (`GET /_sim/ui`) show them.
   */
  tables?(sim: Simulator): readonly StoredTable[];
}
