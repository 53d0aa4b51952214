/**
 * Test helper: the secrets service with only the SSH engine (mounted at `ssh`), a fixed root
 * token, and a `call` shortcut, started on a transport of {@link describeEachTransport}.
 */
import { sshHttp } from "../../../../src/interceptors/secrets/ssh/ssh-http.js";
import { createSecretsPlugin } from "../../../../src/scenarios/secrets/plugin.js";
import type { SecretsScenario } from "../../../../src/scenarios/secrets/secrets-scenario.js";
import { sshScenario } from "../../../../src/scenarios/secrets/ssh/ssh-scenario.js";
import { sshEngine } from "../../../../src/simulator/secrets/ssh/ssh-engine.js";
import type { TransportHarness } from "../../../support/transports.js";

export const ROOT_TOKEN = "root-token";

/** The secrets plugin with the SSH engine alone. */
export function sshOnlyPlugin() {
  return createSecretsPlugin({ engines: { ssh: sshEngine }, engineHttp: { ssh: sshHttp }, rootToken: ROOT_TOKEN });
}

/** Options of one call. */
export interface CallOptions {
  readonly body?: unknown;
  /** Token to send; `null` sends none. Default: the root token. */
  readonly token?: string | null;
}

/** Starts the SSH-only secrets service on the harness's transport. */
export async function startSsh(t: TransportHarness, seed: number | string = 1) {
  const started = await t.start([sshOnlyPlugin()], { seed });
  const base = started.base("secrets");
  const secrets = started.doubles.controlsOf<SecretsScenario>("secrets");
  const call = (method: string, path: string, options: CallOptions = {}): Promise<Response> => {
    const headers: Record<string, string> = {};
    const token = options.token === undefined ? ROOT_TOKEN : options.token;
    if (token !== null) headers["x-secrets-token"] = token;
    if (options.body !== undefined) headers["content-type"] = "application/json";
    return fetch(`${base}${path}`, {
      method,
      headers,
      ...(options.body === undefined ? {} : { body: typeof options.body === "string" ? options.body : JSON.stringify(options.body) }),
    });
  };
  /** Calls and decodes the JSON answer with its status (`undefined` body for 204). */
  // Tests read arbitrary JSON answers field by field.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const send = async (method: string, path: string, options: CallOptions = {}): Promise<{ status: number; body: any }> => {
    const response = await call(method, path, options);
    const text = await response.text();
    return { status: response.status, body: text === "" ? undefined : JSON.parse(text) };
  };
  return { ...started, base, secrets, ssh: sshScenario(secrets), call, send };
}
