/**
 * The dev server's default access-control scenario: the bootstrap token, policies `acl-read` and
 * `acl-write`, and an auth method `dev-method` (Kubernetes-like service accounts) that accepts the
 * bearer token `dev-bearer-token` as service account `web` in namespace `default`, with one binding
 * rule binding `${serviceaccount.name}` as a service identity. So
 * `POST /v1/acl/login {"AuthMethod":"dev-method","BearerToken":"dev-bearer-token"}` works at once
 * and returns a token with service identity `web`.
 */
import type { AccessControlScenario } from "./scenario.js";

/** The auth method of the dev scenario. */
export const DEV_AUTH_METHOD = "dev-method";
/** The bearer token `dev-method` accepts. */
export const DEV_BEARER_TOKEN = "dev-bearer-token";

/** What the dev server banner prints for the access-control service. */
export interface DevScenarioInfo {
  readonly baseUrl: string;
  readonly bootstrapSecretId: string;
  readonly bootstrapAccessorId: string;
  readonly loginAuthMethod: string;
  readonly loginBearerToken: string;
  /** The identity `loginBearerToken` stands for. */
  readonly loginIdentity: string;
  [key: string]: unknown;
}

/**
 * Builds the dev scenario on `controls` and returns the banner entry.
 * @param baseUrl - the service's base URL on the server (`<origin>/v1`).
 * @example buildDevScenario(doubles.accessControl, "http://127.0.0.1:4010/v1").loginBearerToken // "dev-bearer-token"
 */
export function buildDevScenario(controls: AccessControlScenario, baseUrl: string): DevScenarioInfo {
  controls.createPolicy({ name: "acl-read", description: "Read the ACL system", rules: 'acl = "read"' });
  controls.createPolicy({ name: "acl-write", description: "Manage the ACL system", rules: 'acl = "write"' });
  controls.createAuthMethod({ name: DEV_AUTH_METHOD, type: "kubernetes", displayName: "Dev service accounts", maxTokenTtl: "1h" });
  controls.registerBearerToken(DEV_AUTH_METHOD, DEV_BEARER_TOKEN, { name: "web", namespace: "default", uid: "dev-web-uid" });
  controls.createBindingRule({
    authMethod: DEV_AUTH_METHOD,
    description: "Every service account of namespace default logs in as its service",
    selector: "serviceaccount.namespace==default",
    bindType: "service",
    bindName: "${serviceaccount.name}",
  });
  const bootstrap = controls.bootstrapToken;
  return {
    baseUrl,
    bootstrapSecretId: bootstrap.secretId,
    bootstrapAccessorId: bootstrap.accessorId,
    loginAuthMethod: DEV_AUTH_METHOD,
    loginBearerToken: DEV_BEARER_TOKEN,
    loginIdentity: "service account web in namespace default",
  };
}
