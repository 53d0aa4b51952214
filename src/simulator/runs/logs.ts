/**
 * Plan and apply logs (the resources behind a plan's or an apply's `log-read-url`; the spec names
 * the attribute's owners, FIDELITY describes the archive host): the text the engine would print,
 * built from the phase's state on the simulator clock, framed by STX (0x02) and ETX (0x03) as the
 * real log stream is (go-tfe's `LogReader` reads until ETX and the phase is done), and the signed,
 * expiring tokens of the URLs that serve them (docs/decisions/runs.md, "Plan and apply logs").
 *
 * Everything here is a function of the state and the simulator's time: the same seed and calls give
 * the same URLs and byte-identical logs.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { ReadContext } from "../kernel/simulator.js";
import { notFound } from "./errors.js";
import type { ResourceCounts } from "./outcomes.js";
import type { Phase, Run, RunsState } from "./state.js";

/**
 * How long a `log-read-url` stays valid after the read that issued it: 24 hours (the archive
 * host's "short-term" links; every read of the plan or apply issues a fresh one).
 * @example
 * doubles.advance(DEFAULT_LOG_LINK_TTL_MS) // log URLs issued before now answer 404
 */
export const DEFAULT_LOG_LINK_TTL_MS = 86_400_000;

/** Which phase a log belongs to. */
export type LogKind = "plan" | "apply";

const STX = "\u0002";
const ETX = "\u0003";
const READ_LOG = "read log";

/**
 * The key log URLs are signed with: derived from the seeded engine versions' checksums when the
 * state is made (so it follows the seed and consumes no ids), kept in the settings.
 * @example
 * logSigningKey(["ab12...", "cd34..."]) // 64 hex digits
 */
export function logSigningKey(seedMaterial: readonly string[]): string {
  return createHash("sha256").update(`log-read-url\0${seedMaterial.join("\0")}`).digest("hex");
}

function keyOf(state: Readonly<RunsState>): string {
  return state.settings.logSigningKey ?? logSigningKey([]);
}

function signature(state: Readonly<RunsState>, payload: string): Buffer {
  return createHmac("sha256", keyOf(state)).update(payload).digest();
}

/**
 * The token of a log URL for `phase`, valid until `expiresAt` (ms since the epoch):
 * `base64url(kind.id.expiresAt)` `.` `base64url(HMAC-SHA256)`. Changing any character of either
 * part makes {@link readLog} refuse it.
 * @example
 * logToken(ctx.state, "plan", "plan-abc", ctx.now + DEFAULT_LOG_LINK_TTL_MS) // "cGxhbi5wbGFuLWFiYy4xNzA0MDY3MjAwMDAw.Xk3..."
 */
export function logToken(state: Readonly<RunsState>, kind: LogKind, phaseId: string, expiresAt: number): string {
  const payload = `${kind}.${phaseId}.${expiresAt}`;
  return `${Buffer.from(payload, "utf8").toString("base64url")}.${signature(state, payload).toString("base64url")}`;
}

/** A byte range of a log (`offset`, `limit` in bytes; `limit` undefined: to the end). */
export interface LogRange {
  readonly offset?: number;
  readonly limit?: number;
}

/**
 * The log a token names, or the part `range` asks for (go-tfe asks `?limit=<n>&offset=<m>`).
 * @throws {DomainError} `not_found` (404) for a token that does not decode, whose signature does not
 *   match (tampered), that has expired on the simulator clock, or whose phase is gone.
 * @example
 * readLog(ctx, token, { offset: 0, limit: 1024 }) // Uint8Array starting with 0x02 once the plan runs
 */
export function readLog(ctx: ReadContext<RunsState>, token: string, range: LogRange = {}): Uint8Array {
  const [encoded, signed, ...rest] = token.split(".");
  if (encoded === undefined || signed === undefined || rest.length > 0) throw notFound(READ_LOG);
  const payload = Buffer.from(encoded, "base64url").toString("utf8");
  const given = Buffer.from(signed, "base64url");
  const expected = signature(ctx.state, payload);
  // A re-encoding of the same bytes (base64url's spare bits) is tampering too: compare the text.
  if (given.length !== expected.length || !timingSafeEqual(given, expected) || signed !== expected.toString("base64url")) throw notFound(READ_LOG);
  if (Buffer.from(payload, "utf8").toString("base64url") !== encoded) throw notFound(READ_LOG);
  const [kind, phaseId, expires] = payload.split(".");
  const expiresAt = Number(expires);
  if (!Number.isSafeInteger(expiresAt) || expiresAt <= ctx.now) throw notFound(READ_LOG);
  const phase = kind === "plan" ? ctx.state.plans[phaseId ?? ""] : kind === "apply" ? ctx.state.applies[phaseId ?? ""] : undefined;
  const run = phase === undefined ? undefined : ctx.state.runs[phase.runId];
  if (phase === undefined || run === undefined) throw notFound(READ_LOG);
  const bytes = Buffer.from(logText(run, phase, kind === "plan" ? "plan" : "apply"), "utf8");
  const offset = Math.min(range.offset ?? 0, bytes.length);
  const end = range.limit === undefined ? bytes.length : Math.min(bytes.length, offset + range.limit);
  return new Uint8Array(bytes.subarray(offset, end));
}

/**
 * The whole log of a plan or an apply as it stands: empty until the phase starts; the engine's
 * banner while it runs (no ETX: a reader keeps polling); the banner, the phase's output and ETX once
 * it has finished, errored or been canceled.
 * @example
 * logText(run, plan, "plan") // "\u0002Terraform v1.9.8\n...Plan: 1 to add, 0 to change, 0 to destroy.\n\u0003"
 */
export function logText(run: Run, phase: Phase, kind: LogKind): string {
  if (phase.status === "pending" || phase.status === "queued") return "";
  if (phase.status === "unreachable" && phase.statusTimestamps.running === undefined) return "";
  const banner = `${STX}Terraform v${run.engineVersion}\non linux_amd64\nInitializing plugins and modules...\n`;
  if (phase.status === "running") return banner;
  let body: string;
  switch (phase.status) {
    case "finished":
      body = kind === "plan" ? planOutput(run, phase) : applyOutput(run, phase);
      break;
    case "errored":
      body = kind === "plan"
        ? "\nError: Simulated plan failure\n\nThe run's outcome makes this plan fail (plan: \"errors\").\n"
        : `${applyLines(run, phase, false)}\nError: Simulated apply failure\n\nThe run's outcome makes this apply fail (apply: "errors").\n`;
      break;
    default: // canceled
      body = "\nInterrupt received.\nPlease wait for Terraform to exit or data loss may occur.\nGracefully shutting down...\n\nStopping operation...\n";
  }
  return `${banner}${body}${ETX}`;
}

function summary(counts: ResourceCounts, words: readonly [string, string, string, string]): string {
  const parts = [`${counts.add} ${words[1]}`, `${counts.change} ${words[2]}`, `${counts.destroy} ${words[3]}`];
  if (counts.import > 0) parts.unshift(`${counts.import} ${words[0]}`);
  return parts.join(", ");
}

/** `type.name` -> [type, name] (a name may hold dots only in module paths, which are not expanded). */
function split(address: string): [string, string] {
  const dot = address.indexOf(".");
  return dot < 0 ? [address, address] : [address.slice(0, dot), address.slice(dot + 1)];
}

function planOutput(run: Run, plan: Phase): string {
  if (!plan.hasChanges) {
    return "\nNo changes. Your infrastructure matches the configuration.\n\nTerraform has compared your real infrastructure against your configuration\nand found no differences, so no changes are needed.\n";
  }
  const counts = plan.resources;
  const addresses = plan.addresses ?? [];
  let out = "";
  if (addresses.length > 0 && counts.add + counts.destroy > 0) {
    const destroy = run.isDestroy;
    out += `\nTerraform used the selected providers to generate the following execution\nplan. Resource actions are indicated with the following symbols:\n  ${destroy ? "- destroy" : "+ create"}\n\nTerraform will perform the following actions:\n`;
    for (const address of addresses) {
      const [type, name] = split(address);
      out += destroy
        ? `\n  # ${address} will be destroyed\n  - resource "${type}" "${name}" {\n      - id = "${resourceId(run.id, address)}" -> null\n    }\n`
        : `\n  # ${address} will be created\n  + resource "${type}" "${name}" {\n      + id = (known after apply)\n    }\n`;
    }
  }
  return `${out}\nPlan: ${summary(counts, ["to import", "to add", "to change", "to destroy"])}.\n`;
}

function applyLines(run: Run, apply: Phase, complete: boolean): string {
  const addresses = apply.addresses ?? [];
  const destroying = run.isDestroy;
  const started = apply.statusTimestamps.running ?? 0;
  const ended = apply.statusTimestamps.finished ?? apply.statusTimestamps.errored ?? started;
  const seconds = Math.floor((ended - started) / 1000 / Math.max(1, addresses.length));
  let out = "";
  for (const address of addresses) {
    const id = resourceId(apply.runId, address);
    if (destroying) out += `${address}: Destroying... [id=${id}]\n${complete ? `${address}: Destruction complete after ${seconds}s\n` : ""}`;
    else out += `${address}: Creating...\n${complete ? `${address}: Creation complete after ${seconds}s [id=${id}]\n` : ""}`;
  }
  return out;
}

function applyOutput(run: Run, apply: Phase): string {
  return `${applyLines(run, apply, true)}\nApply complete! Resources: ${summary(apply.resources, ["imported", "added", "changed", "destroyed"])}.\n`;
}

/** A resource's id as `null_resource` prints it (19 digits), from the run and the address: the same every time. */
function resourceId(runId: string, address: string): string {
  const digest = createHash("sha256").update(`${runId}\0${address}`).digest();
  return (digest.readBigUInt64BE(0) % 10_000_000_000_000_000_000n).toString().padStart(19, "1");
}
