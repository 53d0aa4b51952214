/** Shared set-up of the cloud engine's HTTP contract tests: the secrets plugin, a root token, request helpers. */
import type { TransportHarness } from "../../../support/transports.js";
import { createSecretsPlugin } from "../../../../src/scenarios/secrets/plugin.js";
import type { SecretsScenario } from "../../../../src/scenarios/secrets/secrets-scenario.js";
import { CloudScenario } from "../../../../src/scenarios/secrets/cloud/cloud-scenario.js";

export const ROOT_TOKEN = "root-token";

/** A decoded response. */
export interface Reply {
  readonly status: number;
  // Response bodies are checked field by field in the tests.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly body: any;
  readonly text: string;
}

/** Starts the secrets service (SSH and cloud engines at `/ssh` and `/cloud`) on a transport. */
export async function startCloud(t: TransportHarness, seed = 1) {
  const started = await t.start([createSecretsPlugin({ rootToken: ROOT_TOKEN })], { seed });
  const base = started.base("secrets");
  const secrets = started.doubles.controlsOf<SecretsScenario>("secrets");
  const cloud = new CloudScenario(secrets);
  const call = async (method: string, path: string, options: { body?: unknown; token?: string | null } = {}): Promise<Reply> => {
    const headers: Record<string, string> = {};
    if (options.token !== null) headers["x-secrets-token"] = options.token ?? ROOT_TOKEN;
    if (options.body !== undefined) headers["content-type"] = "application/json";
    const response = await fetch(`${base}${path}`, {
      method,
      headers,
      ...(options.body === undefined ? {} : { body: typeof options.body === "string" ? options.body : JSON.stringify(options.body) }),
    });
    const text = await response.text();
    return { status: response.status, text, body: text === "" ? undefined : JSON.parse(text) };
  };
  /** Root configuration backed by a simulated IAM user, plus a role of each type. */
  const withRoles = async () => {
    const root = cloud.configureRoot();
    await call("POST", "/cloud/roles/deploy", { body: { credential_type: "iam_user", policy_arns: "arn:aws:iam::aws:policy/ReadOnlyAccess" } });
    await call("POST", "/cloud/roles/assume", { body: { credential_type: "assumed_role", role_arns: ["arn:aws:iam::123456789012:role/Deployer"] } });
    await call("POST", "/cloud/roles/federate", { body: { credential_type: "federation_token", policy_document: '{"Version":"2012-10-17","Statement":[]}' } });
    return root;
  };
  return { ...started, base, secrets, cloud, call, withRoles };
}

/** The `errors` of an error reply. */
export function errorsOf(reply: Reply): string[] {
  return reply.body?.errors ?? [];
}
