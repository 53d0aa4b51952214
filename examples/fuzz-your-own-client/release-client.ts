/**
 * A small client of the run orchestration API, the kind a team writes for its release job:
 * `applyLatest` applies the workspace's newest run when it waits for confirmation, and reports
 * anything else as an outcome or a {@link ReleaseError} (a clear error the job can print).
 *
 * `checkConfirmable: false` plants a bug: the client applies the newest run without reading its
 * `actions` first, so a run that is not waiting for confirmation gets a 409 the client does not
 * expect (and reports as a bare `Error`). The example's property test finds and shrinks it.
 */

/** Where the client talks to, and how. */
export interface ReleaseTarget {
  /** The API base, e.g. `https://app.run-orchestration.test/api/v2`. */
  readonly baseUrl: string;
  readonly token: string;
  readonly workspaceId: string;
  /** How requests are sent (default the global `fetch`). */
  readonly fetch?: (url: string, init?: RequestInit) => Promise<Response>;
}

/** What `applyLatest` did. */
export type ReleaseOutcome =
  | { readonly kind: "applied"; readonly runId: string }
  | { readonly kind: "nothing-to-apply" }
  | { readonly kind: "not-ready"; readonly runId: string; readonly status: string };

/** A failure the release job reports as it is (the API refused, or answered something unexpected). */
export class ReleaseError extends Error {
  override readonly name = "ReleaseError";
}

interface RunResource {
  readonly id: string;
  readonly attributes: { readonly status: string; readonly actions: { readonly "is-confirmable": boolean } };
}

/**
 * Applies the newest run of the workspace when it waits for confirmation.
 * @param options.checkConfirmable - read the run's `actions` before applying (default true; false is the planted bug).
 * @throws {ReleaseError} when the API refuses or answers unexpectedly.
 */
export async function applyLatest(target: ReleaseTarget, options: { readonly checkConfirmable?: boolean } = {}): Promise<ReleaseOutcome> {
  const send = target.fetch ?? ((url: string, init?: RequestInit) => fetch(url, init));
  const headers = { authorization: `Bearer ${target.token}`, "content-type": "application/vnd.api+json" };
  const listed = await send(`${target.baseUrl}/workspaces/${target.workspaceId}/runs?page%5Bsize%5D=1`, { headers });
  if (listed.status !== 200) throw new ReleaseError(`listing runs of ${target.workspaceId} answered ${listed.status}`);
  const [newest] = ((await listed.json()) as { data: RunResource[] }).data;
  if (newest === undefined) return { kind: "nothing-to-apply" };
  if (options.checkConfirmable !== false && !newest.attributes.actions["is-confirmable"]) {
    return { kind: "not-ready", runId: newest.id, status: newest.attributes.status };
  }
  const applied = await send(`${target.baseUrl}/runs/${newest.id}/actions/apply`, { method: "POST", headers, body: JSON.stringify({ comment: "release job" }) });
  if (applied.status === 202) return { kind: "applied", runId: newest.id };
  if (options.checkConfirmable === false) throw new Error(`HTTP ${applied.status}`); // the planted bug: no clear error
  throw new ReleaseError(`applying ${newest.id} answered ${applied.status}`);
}
