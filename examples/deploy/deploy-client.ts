/**
 * A small deploy client, written the way a team would write it against the run orchestration
 * service with nothing but global `fetch`: create a configuration version, upload a `.tar.gz`,
 * wait for the run, apply it when it is confirmable, and report the outcome.
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

/** Options of {@link deploy}. */
export interface DeployOptions {
  /** The `.tar.gz` archive of the configuration. */
  readonly archive: Uint8Array<ArrayBuffer>;
  /** Apply when the run pauses for confirmation (default true). A soft-failed policy is overridden by the apply. */
  readonly apply?: boolean;
  /** Also apply runs whose policy check soft-failed (default false: report them instead). */
  readonly overridePolicies?: boolean;
  /** Poll interval in ms (default 1000). */
  readonly pollIntervalMs?: number;
  /** Give up after this many polls (default 600). */
  readonly maxPolls?: number;
  /** How to wait between polls (default: real time). Tests pass a function that advances the fake's clock. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Called with every status the run goes through. */
  readonly onStatus?: (status: string) => void;
}

/** What happened. */
export interface DeployOutcome {
  readonly runId: string;
  /** The run's last status, e.g. `applied`, `planned_and_finished`, `errored`, `policy_override`, `canceled`. */
  readonly status: string;
  readonly hasChanges: boolean;
  /** `applied`, `no-changes`, `needs-policy-override`, `errored`, `canceled`, `discarded` or `planned`. */
  readonly result: "applied" | "no-changes" | "needs-policy-override" | "errored" | "canceled" | "discarded" | "planned";
}

interface RunAttributes {
  status: string;
  "has-changes": boolean;
  actions: { "is-confirmable": boolean };
}

const FINAL = new Set(["applied", "planned_and_finished", "errored", "discarded", "canceled", "force_canceled", "policy_soft_failed"]);

/** Thrown when the service answers with an error document. */
export class DeployError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly body: string,
  ) {
    super(message);
    this.name = "DeployError";
  }
}

/**
 * Uploads `archive` as a new configuration version of the workspace and drives its run to the end.
 * @throws {DeployError} when the service answers with an error.
 */
export async function deploy(target: DeployTarget, options: DeployOptions): Promise<DeployOutcome> {
  const api = new Api(target);
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const interval = options.pollIntervalMs ?? 1000;
  const maxPolls = options.maxPolls ?? 600;

  const created = await api.json("POST", `/workspaces/${target.workspaceId}/configuration-versions`, {
    data: { type: "configuration-versions", attributes: { "auto-queue-runs": true } },
  });
  const cvId = created.data.id as string;
  const uploadUrl = created.data.attributes["upload-url"] as string;
  const upload = await fetch(uploadUrl, {
    method: "PUT",
    headers: { "content-type": "application/octet-stream" },
    body: options.archive,
  });
  if (!upload.ok) throw new DeployError(`upload failed with ${upload.status}`, upload.status, await upload.text());

  let runId: string | undefined;
  for (let poll = 0; poll < maxPolls && runId === undefined; poll++) {
    const cv = await api.json("GET", `/configuration-versions/${cvId}`);
    if (cv.data.attributes.status === "errored") throw new DeployError("configuration version errored", 200, JSON.stringify(cv));
    if (cv.data.attributes.status === "uploaded") {
      const runs = await api.json("GET", `/workspaces/${target.workspaceId}/runs`);
      const run = (runs.data as { id: string; relationships: { "configuration-version": { data: { id: string } | null } } }[]).find(
        (r) => r.relationships["configuration-version"].data?.id === cvId,
      );
      runId = run?.id;
    }
    if (runId === undefined) await sleep(interval);
  }
  if (runId === undefined) throw new DeployError("no run was queued for the configuration version", 0, "");

  return driveRun(api, runId, options);
}

/**
 * Applies a run paused for confirmation (overriding a soft-failed policy) and waits for its end.
 * @throws {DeployError} 409 when the run is not paused for confirmation.
 */
export async function applyAndWait(target: DeployTarget, runId: string, options: Omit<DeployOptions, "archive"> = {}): Promise<DeployOutcome> {
  const api = new Api(target);
  await api.send("POST", `/runs/${runId}/actions/apply`, { comment: "override approved" });
  return driveRun(api, runId, { ...options, overridePolicies: true }, true);
}

async function driveRun(api: Api, runId: string, options: Omit<DeployOptions, "archive">, alreadyApplied = false): Promise<DeployOutcome> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const interval = options.pollIntervalMs ?? 1000;
  const maxPolls = options.maxPolls ?? 600;
  let applied = alreadyApplied;
  for (let poll = 0; poll < maxPolls; poll++) {
    const attributes = (await api.json("GET", `/runs/${runId}`)).data.attributes as RunAttributes;
    options.onStatus?.(attributes.status);
    const wantsApply = options.apply ?? true;
    if (FINAL.has(attributes.status)) return outcome(runId, attributes);
    if (attributes.actions["is-confirmable"] && !applied) {
      if (!wantsApply) return { runId, status: attributes.status, hasChanges: attributes["has-changes"], result: "planned" };
      if (attributes.status === "policy_override" && !options.overridePolicies) {
        return { runId, status: attributes.status, hasChanges: attributes["has-changes"], result: "needs-policy-override" };
      }
      await api.send("POST", `/runs/${runId}/actions/apply`, { comment: "applied by deploy-client" });
      applied = true;
    }
    await sleep(interval);
  }
  throw new DeployError(`run ${runId} did not finish after ${maxPolls} polls`, 0, "");
}

/**
 * Cancels a run that is planning or applying.
 * @throws {DeployError} with status 409 when the run is not planning or applying.
 */
export async function cancelRun(target: DeployTarget, runId: string): Promise<void> {
  await new Api(target).send("POST", `/runs/${runId}/actions/cancel`, { comment: "canceled by deploy-client" });
}

function outcome(runId: string, attributes: RunAttributes): DeployOutcome {
  const base = { runId, status: attributes.status, hasChanges: attributes["has-changes"] };
  switch (attributes.status) {
    case "applied":
      return { ...base, result: "applied" };
    case "planned_and_finished":
      return { ...base, result: "no-changes" };
    case "discarded":
      return { ...base, result: "discarded" };
    case "canceled":
    case "force_canceled":
      return { ...base, result: "canceled" };
    default:
      return { ...base, result: "errored" };
  }
}

class Api {
  constructor(private readonly target: DeployTarget) {}

  async send(method: string, path: string, body?: unknown): Promise<Response> {
    const response = await fetch(`${this.target.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.target.token}`, "content-type": "application/vnd.api+json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!response.ok) {
      const text = await response.text();
      throw new DeployError(`${method} ${path} failed with ${response.status}: ${text}`, response.status, text);
    }
    return response;
  }

  // The client reads loosely typed JSON:API documents.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async json(method: string, path: string, body?: unknown): Promise<any> {
    return (await this.send(method, path, body)).json();
  }
}
