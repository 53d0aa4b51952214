/**
 * The contract each simulated service fulfils to join {@link Doubles}: its simulator definition,
 * its HTTP face, where it lives by default, and the scenario controls it gives tests.
 */
import type { HttpService } from "../interceptors/http.js";
import type { ServiceDefinition, Simulator } from "../simulator/kernel/simulator.js";

/** A simulated service, ready to be mounted. */
export interface ServicePlugin<Controls> {
  /** Key of the service in `Doubles` and in `baseUrls` options, e.g. `runs`. */
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
}
