/**
 * The secrets service plugin: simulator definition, HTTP face, default base
 * (`https://secrets.test/v1`), the server base (`<origin>/v1`), the scenario controls, the dev
 * server's default scenario and the control routes.
 *
 * On the dev server the secrets service shares `/v1` with the access-control service (`/v1/acl/...`):
 * its catch-all routes must come after the access-control plugin in `ALL_PLUGINS`.
 */
import { secretsHttp } from "../../interceptors/secrets/secrets-http.js";
import type { EngineHttpRegistry } from "../../interceptors/secrets/engines.js";
import type { DefaultMount, EngineRegistry } from "../../simulator/secrets/engines.js";
import { SECRETS_ENGINES } from "../../simulator/secrets/engines.js";
import { secretsDefinition } from "../../simulator/secrets/service.js";
import type { ServicePlugin } from "../plugin.js";
import { secretsControlRoutes } from "./control-routes.js";
import { buildSecretsDevScenario } from "./dev-scenario.js";
import { SecretsScenario } from "./secrets-scenario.js";
import { secretsTables } from "./tables.js";

/**
 * Key of the service in `createDoubles()`, `baseUrls` options and the dev server banner.
 * @example doubles.controlsOf<SecretsScenario>(SECRETS_KEY) // same as doubles.secrets
 */
export const SECRETS_KEY = "secrets";

/**
 * Where nock intercepts the service unless told otherwise (the spec's `{base_url}`, ending in `/v1`).
 * @example await fetch(`${SECRETS_DEFAULT_BASE}/sys/health`)
 */
export const SECRETS_DEFAULT_BASE = "https://secrets.test/v1";

/** Options of {@link createSecretsPlugin}. */
export interface SecretsPluginOptions {
  /** Engine types (default: SSH and cloud). */
  readonly engines?: EngineRegistry;
  /** Their HTTP faces (default: SSH and cloud). */
  readonly engineHttp?: EngineHttpRegistry;
  /** Mounts made at start (default: each engine at its own name, `ssh` and `cloud`). */
  readonly defaultMounts?: readonly DefaultMount[];
  /** A fixed root token (default: seeded, `s.` + 24 characters). */
  readonly rootToken?: string;
}

/**
 * Builds the secrets plugin.
 * @example new DoublesCore([createSecretsPlugin({ rootToken: "root" })])
 */
export function createSecretsPlugin(options: SecretsPluginOptions = {}): ServicePlugin<SecretsScenario> {
  const engines = options.engines ?? SECRETS_ENGINES;
  return {
    key: SECRETS_KEY,
    definition: secretsDefinition({
      engines,
      ...(options.defaultMounts ? { defaultMounts: options.defaultMounts } : {}),
      ...(options.rootToken !== undefined ? { rootToken: options.rootToken } : {}),
    }),
    http: secretsHttp({ engines, ...(options.engineHttp ? { engineHttp: options.engineHttp } : {}) }),
    defaultBases: { api: SECRETS_DEFAULT_BASE },
    serverBases: (origin) => ({ api: `${origin}/v1` }),
    controls: (sim) => new SecretsScenario(sim, engines),
    tables: (sim) => secretsTables(sim),
    defaultScenario: (controls, bases) => buildSecretsDevScenario(controls, bases.api ?? ""),
    controlRoutes: (controls) => secretsControlRoutes(controls),
  };
}

/**
 * The secrets plugin with the SSH and cloud engines at `/ssh` and `/cloud` and a seeded root token.
 * @example new DoublesCore([secretsPlugin], { seed: 1 })
 */
export const secretsPlugin: ServicePlugin<SecretsScenario> = createSecretsPlugin();
