/**
 * The access-control service plugin: simulator definition, HTTP face, default base
 * (`https://access-control.test/v1`), the server base (`<origin>/v1`, routes under `/acl/`), the
 * scenario controls, and the dev server's default scenario.
 */
import { accessControlHttp } from "../../interceptors/access-control/service.js";
import { accessControlDefinition } from "../../simulator/access-control/definition.js";
import type { AccessControlSettings } from "../../simulator/access-control/state.js";
import type { ServicePlugin } from "../plugin.js";
import { buildDevScenario } from "./dev-scenario.js";
import { AccessControlScenario } from "./scenario.js";
import { accessControlTables } from "./tables.js";

/** Key of the service in `createDoubles()`, `baseUrls` options and the dev server banner. */
export const ACCESS_CONTROL_KEY = "accessControl";

/** Where nock intercepts the service unless told otherwise. */
export const ACCESS_CONTROL_DEFAULT_BASE = "https://access-control.test/v1";

/**
 * Builds the access-control plugin with initial settings (e.g. the enterprise edition's
 * namespaces). `createDoubles()` uses {@link accessControlPlugin}; settings can also be changed
 * later with `doubles.accessControl.configure(...)`.
 * @example new DoublesCore([createAccessControlPlugin({ namespaces: true })])
 */
export function createAccessControlPlugin(settings: Partial<AccessControlSettings> = {}): ServicePlugin<AccessControlScenario> {
  return {
    key: ACCESS_CONTROL_KEY,
    definition: accessControlDefinition(settings),
    http: accessControlHttp,
    defaultBases: { api: ACCESS_CONTROL_DEFAULT_BASE },
    serverBases: (origin) => ({ api: `${origin}/v1` }),
    controls: (sim) => new AccessControlScenario(sim),
    tables: (sim) => accessControlTables(sim),
    defaultScenario: (controls, bases) => buildDevScenario(controls, bases.api ?? ""),
  };
}

/** The access-control plugin with default settings (no namespaces, datacenter `dc1`, default policy `deny`). */
export const accessControlPlugin: ServicePlugin<AccessControlScenario> = createAccessControlPlugin();
