/**
 * A small deploy client, written the way a team would write it against the run orchestration
 * service with nothing but global `fetch`: upload a configuration, wait for its run, apply it when
 * it is confirmable, and two actions a release pipeline needs around that: discard a plan nobody
 * approved, and override a soft-failed policy check with the reviewer's reason.
 *
 * One design decision of the team matters for what its tests can miss: the run actions are
 * "idempotent". The service answers 409 to an action the run's state no longer allows, and the
 * pipeline retries jobs, and teammates act on runs from the UI; so the client reads a 409 on
 * discard or override as "someone already did it" and returns quietly.
 *
 * It knows nothing of infra-doubles: its tests point it at the fake.
 */

/** Where and as whom the client talks. */
export interface DeployTarget {
  /** API base, ending in `/api/v2`. */
  readonly baseUrl: string;
  readonly token: string;
  readonly workspaceId: string;
}

/** How the client waits. */
export interface PollOptions {
  /** Poll interval in ms (default 2000). */
  readonly pollIntervalMs?: number;
  /** Give up after this many polls (default 300). */
  readonly maxPolls?: number;
  /** How to wait between polls (default: real time). Tests pass a function that advances the fake's clock. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Called with every status the run goes through. */
  readonly onStatus?: (status: string) => void;
}

/** Options of {@link deploy}. */
export interface DeployOptions extends PollOptions {
  /** The `.tar.gz` archive of the configuration. */
  readonly archive: Uint8Array<ArrayBuffer>;
  /** Apply when the run pauses for confirmation (default true); false stops there (`planned`). */
  readonly apply?: boolean;
}

/** What happened to a run. */
export interface DeployOutcome {
  readonly runId: string;
  /** The run's last status, e.g. `applied`, `planned`, `policy_override`. */
  readonly status: string;
  readonly result: "applied" | "no-changes" | "planned" | "needs-policy-override" | "discarded" | "canceled" | "errored";
}

/** Thrown when the service answers with an error. */
export class DeployError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = "DeployError";
  }
}

/**
 * Uploads `archive` as a new configuration version of the workspace and drives its run: applies
 * it when it pauses for confirmation (unless `apply: false`), stops at a soft-failed policy check
 * (`needs-policy-override`, see {@link overridePolicy}).
 * @throws {DeployError} when the service answers with an error, or the run does not end in `maxPolls`.
 */
export async function deploy(target: DeployTarget, options: DeployOptions): Promise<DeployOutcome> {
  const api = new Api(target);
  const created = await api.json("POST", `/workspaces/${target.workspaceId}/configuration-versions`, {
    data: { type: "configuration-versions", attributes: { "auto-queue-runs": true } },
  });
  const cvId: string = created.data.id;
  const upload = await fetch(created.data.attributes["upload-url"], {
    method: "PUT",
    headers: { "content-type": "application/octet-stream" },
    body: options.archive,
  });
  if (!upload.ok) throw new DeployError(`upload failed with ${upload.status}`, upload.status);

  const runId = await poll(options, async () => {
    const runs = await api.json("GET", `/workspaces/${target.workspaceId}/runs`);
    const run = (runs.data as { id: string; relationships: { "configuration-version": { data: { id: string } | null } } }[]).find(
      (r) => r.relationships["configuration-version"].data?.id === cvId,
    );
    return run?.id;
  });
  let applied = false;
  return poll(options, async () => {
    const run = await readRun(api, runId, options);
    if (run.outcome !== undefined) return run.outcome;
    if (!run.confirmable || applied) return undefined;
    if (run.status === "policy_override") return { runId, status: run.status, result: "needs-policy-override" };
    if (options.apply === false) return { runId, status: run.status, result: "planned" };
    await api.send("POST", `/runs/${runId}/actions/apply`, { comment: "applied by the release pipeline" });
    applied = true;
    return undefined;
  });
}

/**
 * Waits until the run ends or pauses for someone (confirmation, policy override), acting on nothing.
 * @throws {DeployError} when the service answers with an error, or the run does not end in `maxPolls`.
 */
export async function waitForRun(target: DeployTarget, runId: string, options: PollOptions = {}): Promise<DeployOutcome> {
  const api = new Api(target);
  return poll(options, async () => {
    const run = await readRun(api, runId, options);
    if (run.outcome !== undefined) return run.outcome;
    if (!run.confirmable) return undefined;
    return { runId, status: run.status, result: run.status === "policy_override" ? "needs-policy-override" : "planned" };
  });
}

/**
 * Discards a plan nobody approved, so the workspace is free for the next run. A 409 means the run
 * has already moved on (a teammate applied or discarded it): nothing left to do.
 * @throws {DeployError} on any other error.
 */
export async function discardRun(target: DeployTarget, runId: string, comment = "not approved"): Promise<void> {
  await idempotent(new Api(target).send("POST", `/runs/${runId}/actions/discard`, { comment }));
}

/**
 * Overrides a soft-failed policy check and applies the run, recording the reviewer's reason as
 * the apply's comment; returns without waiting for the apply (see {@link waitForRun}). A 409 means
 * the run was already overridden (a teammate did it from the UI): nothing left to do.
 * @throws {DeployError} on any other error.
 */
export async function overridePolicy(target: DeployTarget, runId: string, reason: string): Promise<void> {
  await idempotent(new Api(target).send("POST", `/runs/${runId}/actions/apply`, { comment: reason }));
}

/** A run action whose 409 means "already done". */
async function idempotent(action: Promise<Response>): Promise<void> {
  try {
    await action;
  } catch (error) {
    if (error instanceof DeployError && error.status === 409) return;
    throw error;
  }
}

const FINAL: Readonly<Record<string, DeployOutcome["result"]>> = {
  applied: "applied",
  planned_and_finished: "no-changes",
  discarded: "discarded",
  canceled: "canceled",
  force_canceled: "canceled",
  errored: "errored",
  policy_soft_failed: "errored",
};

async function readRun(
  api: Api,
  runId: string,
  options: PollOptions,
): Promise<{ status: string; confirmable: boolean; outcome: DeployOutcome | undefined }> {
  const attributes = (await api.json("GET", `/runs/${runId}`)).data.attributes;
  const status: string = attributes.status;
  options.onStatus?.(status);
  const result = FINAL[status];
  return { status, confirmable: attributes.actions["is-confirmable"] === true, outcome: result === undefined ? undefined : { runId, status, result } };
}

/** Calls `step` until it returns a value, sleeping between calls. */
async function poll<T>(options: PollOptions, step: () => Promise<T | undefined>): Promise<T> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const maxPolls = options.maxPolls ?? 300;
  for (let i = 0; i < maxPolls; i++) {
    const value = await step();
    if (value !== undefined) return value;
    await sleep(options.pollIntervalMs ?? 2000);
  }
  throw new DeployError(`gave up after ${maxPolls} polls`, 0);
}

class Api {
  constructor(private readonly target: DeployTarget) {}

  async send(method: string, path: string, body?: unknown): Promise<Response> {
    const response = await fetch(`${this.target.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.target.token}`, "content-type": "application/vnd.api+json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!response.ok) throw new DeployError(`${method} ${path} failed with ${response.status}: ${await response.text()}`, response.status);
    return response;
  }

  // The client reads loosely typed JSON:API documents.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async json(method: string, path: string, body?: unknown): Promise<any> {
    return (await this.send(method, path, body)).json();
  }
}
