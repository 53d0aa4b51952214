/**
 * Plays a scenario document's timeline: each step at its simulated time (`at`, counted from the
 * load), one action per step, and a transcript of what happened. The transcript is plain text
 * built only from the document, the seed and simulator time, so the same document and seed give
 * the same bytes.
 */
import { formatGoDuration, parseDuration, type Duration } from "../../simulator/kernel/duration.js";
import { isoMillis } from "../../simulator/kernel/time.js";
import { SECRETS } from "../../simulator/secrets/errors.js";
import type { SecretsState } from "../../simulator/secrets/state.js";
import { pointer, ScenarioDocumentError } from "./errors.js";
import { checkExpectation } from "./expect.js";
import { addFault, applyNodeState, at, type NameResolver, type ScenarioNames, type ScenarioTarget } from "./target.js";
import type { ScenarioDocument, TimelineStep } from "./types.js";

/** Options of `loaded.play()`. */
export interface PlayOptions {
  /** Play only the steps whose `at` is at most this long after the load (default: every step). */
  readonly until?: Duration;
  /**
   * Play at most this many steps (default: no limit); the next `play()` continues after them. A
   * call that plays no step means the timeline (up to `until`) is done. The dev server plays a
   * posted timeline this way, a slice at a time, answering other requests in between.
   */
  readonly maxSteps?: number;
}

/** One played step. */
export interface PlayedStep {
  /** 1-based, as the transcript numbers steps. */
  readonly number: number;
  /** Simulator time after the step, ISO 8601 with ms. */
  readonly time: string;
  /** What the step did, e.g. `nextRun {"workspace":"acme/prod","plan":"no-changes"}`. */
  readonly action: string;
  /** `ok`, or `failed` for an `expect` step whose check failed. */
  readonly result: "ok" | "failed";
  /** For `expect` steps: the path, what was wanted and the value found. */
  readonly expectation?: { readonly path: string; readonly wanted: string; readonly actual: unknown };
}

/** What `play()` returns. */
export interface ScenarioTranscript {
  /** False when an `expect` step failed. */
  readonly ok: boolean;
  readonly steps: readonly PlayedStep[];
  readonly passed: number;
  readonly failed: number;
  /** One line per step, e.g. `step 2 [+5m0s 2024-01-01T00:05:00.000Z] expect secrets.nodeState equals "sealed": ok`. */
  readonly lines: readonly string[];
}

const ACTIONS = ["advance", "nodeState", "nextRun", "outcome", "queueRun", "uploadConfiguration", "pushCommit", "step", "revoke", "expire", "grant", "fault", "clearFault", "expect"] as const;
type Action = (typeof ACTIONS)[number];

/** The action key of a step (exactly one). */
function actionOf(step: TimelineStep, where: readonly (string | number)[]): Action {
  const present = ACTIONS.filter((key) => step[key] !== undefined);
  if (present.length !== 1) {
    throw new ScenarioDocumentError("schema", [
      { path: pointer(where), expected: `must have exactly one action of ${ACTIONS.join(", ")} (got ${present.length === 0 ? "none" : present.join(", ")})` },
    ]);
  }
  return present[0] as Action;
}

/**
 * Checks a timeline before anything runs: one action per step, `at` a duration that never goes back.
 * @throws {ScenarioDocumentError} (`schema`) at the step's pointer.
 */
export function checkTimeline(timeline: readonly TimelineStep[]): void {
  let last = 0;
  for (const [i, step] of timeline.entries()) {
    actionOf(step, ["timeline", i]);
    if (step.at === undefined) continue;
    let ms: number;
    try {
      ms = parseDuration(step.at);
    } catch {
      throw new ScenarioDocumentError("schema", [{ path: pointer(["timeline", i, "at"]), expected: `a duration like "5m" or milliseconds (got ${JSON.stringify(step.at)})` }]);
    }
    if (ms < last) throw new ScenarioDocumentError("schema", [{ path: pointer(["timeline", i, "at"]), expected: `a time at or after the previous step's (${formatGoDuration(last)}); got ${formatGoDuration(ms)}` }]);
    last = ms;
  }
}

function advanceTo(target: ScenarioTarget, when: number, where: readonly (string | number)[]): void {
  const now = target.sim.now();
  if (when <= now) return;
  at(where, () => target.sim.advance(when - now));
}

/** Cursor of a loaded scenario: the next step to play. */
const cursors = new WeakMap<NameResolver, { next: number }>();

/**
 * Plays the steps of `doc.timeline` not played yet (up to `options.until`).
 * @throws {ScenarioDocumentError} for a step that names something unknown or that the service refuses.
 */
export function playTimeline(target: ScenarioTarget, doc: ScenarioDocument, resolve: NameResolver, loadedAt: number, options: PlayOptions): ScenarioTranscript {
  const timeline = doc.timeline ?? [];
  const cursor = cursors.get(resolve) ?? { next: 0 };
  cursors.set(resolve, cursor);
  const until = options.until === undefined ? Infinity : loadedAt + parseDuration(options.until);
  const steps: PlayedStep[] = [];
  const names = resolve.names;
  const maxSteps = options.maxSteps ?? Infinity;
  for (; cursor.next < timeline.length && steps.length < maxSteps; cursor.next++) {
    const index = cursor.next;
    const step = timeline[index] as TimelineStep;
    const where = ["timeline", index];
    const due = step.at === undefined ? undefined : loadedAt + parseDuration(step.at);
    if (due !== undefined && due > until) break;
    if (due !== undefined) advanceTo(target, due, [...where, "at"]);
    const action = actionOf(step, where);
    const path = [...where, action];
    let described = `${action} ${JSON.stringify(step[action])}`;
    let result: PlayedStep["result"] = "ok";
    let expectation: PlayedStep["expectation"];
    switch (action) {
      case "advance":
        at(path, () => target.sim.advance(step.advance ?? 0));
        break;
      case "nodeState":
        at(path, () => applyNodeState(target, step.nodeState ?? "active"));
        break;
      case "nextRun": {
        const { workspace, ...script } = step.nextRun ?? { workspace: "" };
        const id = resolve.workspace(workspace, [...path, "workspace"]);
        at(path, () => target.runs.nextRun(id, script));
        break;
      }
      case "outcome": {
        const { workspace, ...script } = step.outcome ?? {};
        const id = workspace === undefined ? undefined : resolve.workspace(workspace, [...path, "workspace"]);
        at(path, () => (id === undefined ? target.runs.setOutcome(script) : target.runs.setWorkspaceOutcome(id, script)));
        break;
      }
      case "queueRun": {
        const { workspace, as, name, ...input } = step.queueRun ?? { workspace: "", as: "" };
        const id = resolve.workspace(workspace, [...path, "workspace"]);
        const user = resolve.user(as, [...path, "as"]);
        const runId = at(path, () => target.runs.queueRun(id, { ...input, as: user }));
        if (name !== undefined) names.runs.runs[name] = runId;
        described += ` -> ${runId}`;
        break;
      }
      case "uploadConfiguration": {
        const { workspace, as, name, ...options } = step.uploadConfiguration ?? { workspace: "", as: "" };
        const id = resolve.workspace(workspace, [...path, "workspace"]);
        const user = resolve.user(as, [...path, "as"]);
        const made = at(path, () => target.runs.uploadConfiguration(id, { ...options, as: user }));
        if (name !== undefined && made.runId !== undefined) names.runs.runs[name] = made.runId;
        described += ` -> ${made.configurationVersionId}${made.runId === undefined ? "" : `, ${made.runId}`}`;
        break;
      }
      case "pushCommit": {
        const { workspace, ...commit } = step.pushCommit ?? { workspace: "" };
        const id = resolve.workspace(workspace, [...path, "workspace"]);
        const made = at(path, () => target.runs.pushCommit(id, commit));
        described += ` -> ${made.configurationVersionId}`;
        break;
      }
      case "step": {
        const id = resolve.run(step.step ?? "", path);
        described += ` -> ${at(path, () => target.runs.step(id))}`;
        break;
      }
      case "revoke":
      case "expire": {
        const ref = step[action] ?? {};
        const kinds = (["runs", "accessControl", "secrets"] as const).filter((k) => ref[k] !== undefined);
        if (kinds.length !== 1) throw new ScenarioDocumentError("schema", [{ path: pointer(path), expected: "must name exactly one token: runs, accessControl or secrets" }]);
        if (ref.runs !== undefined) {
          const bearer = resolve.runsToken(ref.runs, [...path, "runs"]);
          if (action === "expire") throw new ScenarioDocumentError("fixture", [{ path: pointer(path), expected: `a token with an expiry (runs tokens never expire: revoke "${ref.runs}" instead)` }]);
          at(path, () => target.runs.revokeToken(bearer));
        } else if (ref.accessControl !== undefined) {
          const token = resolve.aclToken(ref.accessControl, [...path, "accessControl"]);
          if (action === "revoke") at(path, () => target.accessControl.deleteToken(token.accessorId));
          else {
            const expiry = target.accessControl.token(token.accessorId)?.expirationTime;
            if (expiry === undefined || expiry === null) throw new ScenarioDocumentError("fixture", [{ path: pointer(path), expected: `a live token with an expiry ("${ref.accessControl}" ${expiry === null ? "never expires" : "is gone: expired or deleted"})` }]);
            advanceTo(target, expiry, path);
          }
        } else {
          const secret = resolve.secretsToken(ref.secrets ?? "", [...path, "secrets"]);
          if (action === "revoke") at(path, () => target.secrets.revokeToken(secret));
          else {
            const expiry = target.sim.read<SecretsState, number | null | undefined>(SECRETS, (ctx) => ctx.state.tokens[secret]?.expiresAt);
            if (expiry === undefined || expiry === null) throw new ScenarioDocumentError("fixture", [{ path: pointer(path), expected: `a live token with a ttl ("${ref.secrets ?? ""}" ${expiry === null ? "never expires" : "is gone: expired or deleted"})` }]);
            advanceTo(target, expiry, path);
          }
        }
        break;
      }
      case "grant": {
        const grant = step.grant ?? { workspace: "", level: null };
        const principals = (["user", "team"] as const).filter((k) => grant[k] !== undefined);
        if (principals.length !== 1) throw new ScenarioDocumentError("schema", [{ path: pointer(path), expected: "must name exactly one of user or team" }]);
        const workspaceId = resolve.workspace(grant.workspace, [...path, "workspace"]);
        const organization = target.runs.workspace(workspaceId).organization;
        const principal = grant.user !== undefined ? resolve.user(grant.user, [...path, "user"]) : resolve.team(grant.team ?? "", organization, [...path, "team"]);
        at(path, () => (grant.level === null ? target.runs.removeGrant(principal, workspaceId) : target.runs.grant(principal, workspaceId, grant.level)));
        break;
      }
      case "fault":
        described += ` -> ${addFault(target, step.fault ?? { service: "" }, path)}`;
        break;
      case "clearFault": {
        const id = step.clearFault ?? "";
        if (id === "*") target.faults.clear();
        else if (!target.faults.remove(id)) {
          throw new ScenarioDocumentError("reference", [{ path: pointer(path), expected: `the id of a fault (have: ${target.faults.list().map((f) => f.id).join(", ") || "none"}) or "*"` }]);
        }
        break;
      }
      case "expect": {
        const wanted = step.expect ?? { path: "" };
        const checked = checkExpectation(target, resolve, wanted, path);
        result = checked.ok ? "ok" : "failed";
        expectation = { path: wanted.path, wanted: checked.wanted, actual: checked.actual };
        described = `expect ${wanted.path} ${checked.wanted}`;
        break;
      }
    }
    const now = target.sim.now();
    steps.push({ number: index + 1, time: isoMillis(now), action: described, result, ...(expectation === undefined ? {} : { expectation }) });
    if (step.note !== undefined) steps[steps.length - 1] = { ...(steps[steps.length - 1] as PlayedStep), action: `${described} (${step.note})` };
  }
  const failed = steps.filter((s) => s.result === "failed").length;
  const lines = steps.map((s) => {
    const offset = formatGoDuration(Date.parse(s.time) - loadedAt);
    const tail = s.expectation === undefined ? "" : s.result === "ok" ? ": ok" : `: FAILED, actual ${s.expectation.actual === undefined ? "(absent)" : JSON.stringify(s.expectation.actual)}`;
    return `step ${s.number} [+${offset} ${s.time}] ${s.action}${tail}`;
  });
  return { ok: failed === 0, steps, passed: steps.filter((s) => s.expectation !== undefined).length - failed, failed, lines };
}

/**
 * The names a document resolved to, one per line (`runs.workspaces acme/prod = ws-...`), in the
 * document's order: what `infra-doubles run` prints after loading.
 * @example describeNames(loaded.names)[0] // "runs.workspaces acme/prod = ws-..."
 */
export function describeNames(names: ScenarioNames): string[] {
  const lines: string[] = [];
  const add = (prefix: string, record: Readonly<Record<string, unknown>>): void => {
    for (const [name, value] of Object.entries(record)) lines.push(`${prefix} ${name} = ${typeof value === "string" ? value : JSON.stringify(value)}`);
  };
  add("runs.workspaces", names.runs.workspaces);
  add("runs.users", names.runs.users);
  add("runs.teams", names.runs.teams);
  add("runs.tokens", names.runs.tokens);
  add("accessControl.policies", names.accessControl.policies);
  add("accessControl.roles", names.accessControl.roles);
  add("accessControl.tokens", names.accessControl.tokens);
  add("secrets.tokens", names.secrets.tokens);
  add("secrets.managedKeys", names.secrets.managedKeys);
  add("secrets.mfaMethods", names.secrets.mfaMethods);
  add("secrets.authMounts", names.secrets.authMounts);
  add("secrets.identityEntities", names.secrets.identityEntities);
  add("secrets.identityGroups", names.secrets.identityGroups);
  add("secrets.loginEnforcements", names.secrets.loginEnforcements);
  add("secrets.sshCaPublicKeys", Object.fromEntries(Object.entries(names.secrets.sshCaPublicKeys).map(([k, v]) => [k, v.trim()])));
  return lines;
}
