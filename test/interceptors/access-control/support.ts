/** Helpers for the access-control contract suites: start the service on a transport and call it like a client. */
import { createAccessControlPlugin } from "../../../src/scenarios/access-control/plugin.js";
import type { AccessControlScenario } from "../../../src/scenarios/access-control/scenario.js";
import type { AccessControlSettings } from "../../../src/simulator/access-control/state.js";
import type { DoublesCore } from "../../../src/scenarios/doubles-core.js";
import type { TransportHarness } from "../../support/transports.js";

/** One answer, read fully. */
export interface Answer {
  readonly status: number;
  readonly text: string;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly json: any;
  readonly headers: Headers;
}

/** Options of one call. */
export interface CallOptions {
  /** Secret sent as `X-Acl-Token`; default the bootstrap token; `null` sends none. */
  readonly token?: string | null;
  /** A JSON body (serialised). */
  readonly body?: unknown;
  /** A body sent as is. */
  readonly rawBody?: string;
  readonly headers?: Record<string, string>;
  readonly signal?: AbortSignal;
}

/** A started access-control service. */
export interface AclHarness {
  readonly doubles: DoublesCore;
  readonly acl: AccessControlScenario;
  readonly base: string;
  /** The bootstrap token's SecretID. */
  readonly root: string;
  call(method: string, path: string, options?: CallOptions): Promise<Answer>;
}

/** Starts the access-control service alone on the harness's transport. */
export async function startAcl(
  t: TransportHarness,
  options: { settings?: Partial<AccessControlSettings>; seed?: number | string } = {},
): Promise<AclHarness> {
  const started = await t.start([createAccessControlPlugin(options.settings ?? {})], { seed: options.seed ?? 1 });
  const acl = started.doubles.controlsOf<AccessControlScenario>("accessControl");
  const base = started.base("accessControl");
  const root = acl.bootstrapToken.secretId;
  const call = async (method: string, path: string, callOptions: CallOptions = {}): Promise<Answer> => {
    const headers: Record<string, string> = { ...(callOptions.headers ?? {}) };
    const token = callOptions.token === undefined ? root : callOptions.token;
    if (token !== null) headers["X-Acl-Token"] = token;
    let body: string | undefined;
    if (callOptions.rawBody !== undefined) body = callOptions.rawBody;
    else if (callOptions.body !== undefined) body = JSON.stringify(callOptions.body);
    if (body !== undefined) headers["content-type"] ??= "application/json";
    const response = await fetch(`${base}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body } : {}),
      ...(callOptions.signal ? { signal: callOptions.signal } : {}),
    });
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, text, json, headers: response.headers };
  };
  return { doubles: started.doubles, acl, base, root, call };
}

/** A UUID that is not reserved, for tests that supply ids. */
export function uuid(n: number): string {
  return `11111111-2222-4333-8444-${n.toString(16).padStart(12, "0")}`;
}
