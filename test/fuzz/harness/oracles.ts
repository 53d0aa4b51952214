/**
 * The fuzz's oracles, as pure functions over one exchange: a bug 500 or a stack trace in the
 * answer, a failed request that changed the state, a secret held in state shown to a caller not
 * entitled to it. (Crashes, hangs and determinism are watched by the runner.)
 */
import { createHash } from "node:crypto";
import { hasAcl, liveTokenBySecret } from "../../../src/simulator/access-control/authorization.js";
import type { AccessControlState } from "../../../src/simulator/access-control/state.js";
import type { Simulator, SimulatorSnapshot } from "../../../src/simulator/kernel/simulator.js";
import type { FuzzRequest } from "./generate.js";
import type { ServiceKey } from "./world.js";

/** An answer as a client saw it. */
export interface FuzzResponse {
  readonly status: number;
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
}

/** A secret held in state, and the service holding it. */
export interface HeldSecret {
  readonly value: string;
  readonly service: ServiceKey;
  /** Where in the state (for the report). */
  readonly where: string;
}

/** Kernel service names to service keys. */
const SERVICE_KEYS: Record<string, ServiceKey> = { runs: "runs", "access-control": "accessControl", secrets: "secrets" };

/** Property names whose string values are secrets. */
const SECRET_FIELDS = /^(secret|secretId|secretKey|secretAccessKey|sessionToken|privateKey|rootToken|otp|key|password|pin|token|uploadToken|signedKey)$/i;
/** Maps keyed by secrets (token tables). */
const SECRET_KEYED = [/^runs\.tokens$/, /^access-control\.secrets$/, /^secrets\.tokens$/];
/** Public values that look like secrets (the anonymous token is public). */
const PUBLIC = new Set(["anonymous", "00000000-0000-0000-0000-000000000002"]);

/**
 * Every secret held in the state: root token, token SecretIDs, OTPs, cloud secret keys, private
 * keys (values at least 8 characters long).
 */
export function heldSecrets(snapshot: SimulatorSnapshot): HeldSecret[] {
  const out = new Map<string, HeldSecret>();
  const add = (value: string, service: ServiceKey, where: string): void => {
    if (value.length >= 8 && !PUBLIC.has(value) && !out.has(value)) out.set(value, { value, service, where });
  };
  const walk = (value: unknown, path: string, service: ServiceKey, parentKey: string): void => {
    if (value === null || typeof value !== "object" || value instanceof Uint8Array) {
      if (typeof value === "string" && SECRET_FIELDS.test(parentKey)) add(value, service, path);
      return;
    }
    const keyed = SECRET_KEYED.some((re) => re.test(path));
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (keyed) add(k, service, `${path}[key]`);
      if (path === "secrets.tokens" && v && typeof v === "object") {
        const id = (v as { id?: unknown }).id;
        if (typeof id === "string") add(id, service, `${path}.${k}.id`);
      }
      walk(v, `${path}.${k}`, service, Array.isArray(value) ? parentKey : k);
    }
  };
  for (const [name, state] of Object.entries(snapshot.services)) {
    const service = SERVICE_KEYS[name];
    if (service) walk(state, name, service, "");
  }
  return [...out.values()];
}

/**
 * A canonical text of plain data (key order kept, numbers as JSON writes them, bytes in base64,
 * Maps and Sets by entries), so equal states hash equal whatever their in-memory representation.
 */
function canonical(value: unknown, out: string[]): void {
  if (value === null || typeof value !== "object") {
    out.push(value === undefined ? "u" : typeof value === "bigint" ? `${value}n` : JSON.stringify(value));
    return;
  }
  if (ArrayBuffer.isView(value)) {
    out.push(`b${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64")}`);
    return;
  }
  if (Array.isArray(value)) {
    out.push("[");
    for (const item of value) canonical(item, out);
    out.push("]");
    return;
  }
  if (value instanceof Map || value instanceof Set) {
    out.push(value instanceof Map ? "M{" : "S{");
    for (const entry of value instanceof Map ? value.entries() : value.values()) canonical(entry, out);
    out.push("}");
    return;
  }
  if (value instanceof Date) {
    out.push(`D${value.getTime()}`);
    return;
  }
  out.push("{");
  for (const key of Object.keys(value)) {
    out.push(JSON.stringify(key), ":");
    canonical((value as Record<string, unknown>)[key], out);
  }
  out.push("}");
}

function hashOf(value: unknown): string {
  const parts: string[] = [];
  canonical(value, parts);
  return createHash("sha1").update(parts.join(",")).digest("hex");
}

/** A hash of the whole simulator state (services, schedule, ids, blobs; not the time). */
export function stateHash(snapshot: SimulatorSnapshot): string {
  const { lastNow: _time, ...rest } = snapshot;
  return hashOf(rest);
}

/** The simulator's fields that make up its state (read without copying; the fuzz runs 100,000 requests). */
interface SimulatorInternals {
  readonly states: Map<string, unknown>;
  /** Services not used since construction, `restore` or `reset`: their state-to-be, copied on first use. */
  readonly bases: Map<string, unknown>;
  readonly schedule: unknown;
  readonly ids: { save(): unknown };
  readonly blobs: Map<string, Uint8Array>;
  readonly blobSeq: number;
}

/**
 * {@link stateHash} of the live state, without the deep copy `snapshot()` makes (same contents:
 * services, schedule, id source, blobs). Falls back to `snapshot()` if the kernel's fields change.
 */
export function liveStateHash(sim: Simulator): string {
  const inside = sim as unknown as Partial<SimulatorInternals>;
  if (!(inside.states instanceof Map) || !(inside.bases instanceof Map) || !(inside.blobs instanceof Map) || typeof inside.ids?.save !== "function") return stateHash(sim.snapshot());
  return hashOf([new Map(liveStates(sim, inside)), inside.schedule, inside.ids.save(), inside.blobs, inside.blobSeq]);
}

/**
 * Each service's state in the simulator's order: the live copy, or the base a service not used
 * since a restore will be copied from (the same contents: a first read must not look like a change).
 */
function liveStates(sim: Simulator, inside: Partial<SimulatorInternals>): [string, unknown][] {
  return sim.services.map((name) => [name, inside.states?.get(name) ?? inside.bases?.get(name)]);
}

/** The live services' states (no copy), for {@link heldSecrets}. */
export function liveServices(sim: Simulator): SimulatorSnapshot {
  const inside = sim as unknown as Partial<SimulatorInternals>;
  if (!(inside.states instanceof Map) || !(inside.bases instanceof Map)) return sim.snapshot();
  return { services: Object.fromEntries(liveStates(sim, inside)) } as unknown as SimulatorSnapshot;
}

/** What an oracle found. */
export interface Violation {
  readonly oracle: "bug-500" | "stack-trace" | "failed-changed-state" | "secret-leak" | "hang" | "crash" | "transport-error" | "framing";
  readonly detail: string;
}

const STACK = /\n\s+at [^\n]*(\(|:\d+:\d+)|node:internal\/|\/src\/[\w/.-]+\.[jt]s:\d+/;

/** A bug 500 (`x-infra-doubles-bug`), or a stack trace in any answer. */
export function checkAnswer(response: FuzzResponse): Violation[] {
  const out: Violation[] = [];
  const text = new TextDecoder().decode(response.body.subarray(0, 64 * 1024));
  if (response.status === 500 && response.headers["x-infra-doubles-bug"] !== undefined) out.push({ oracle: "bug-500", detail: text.slice(0, 600) });
  if (STACK.test(text)) out.push({ oracle: "stack-trace", detail: text.slice(0, 600) });
  return out;
}

/**
 * Whether the caller is privileged in the state before the request: its class, or an
 * under-privileged access-control token an earlier request of the episode gave `acl:write` (a
 * privileged `PUT /acl/token/:AccessorID` with the `acl-write` policy): such a caller is entitled
 * to SecretIDs (seed 8 index 99891 was that, not a leak).
 */
export function callerPrivileged(request: FuzzRequest, services: SimulatorSnapshot, now: number): boolean {
  if (request.tokenClass === "privileged") return true;
  if (request.tokenClass !== "under" || request.service !== "accessControl" || request.token === undefined) return false;
  const state = (services.services as Record<string, unknown>)["access-control"] as AccessControlState | undefined;
  const token = state === undefined ? undefined : liveTokenBySecret(state, request.token, now);
  return state !== undefined && token !== undefined && hasAcl(state, token, token.namespace, "write");
}

/** A failed request (status >= 400, or no answer) must leave the state as it was. */
export function checkState(status: number | undefined, before: string, after: string): Violation[] {
  if ((status === undefined || status >= 400) && before !== after) {
    return [{ oracle: "failed-changed-state", detail: `status ${status ?? "none"}: state ${before.slice(0, 10)} -> ${after.slice(0, 10)}` }];
  }
  return [];
}

/**
 * No secret held in state before the request appears in the answer, unless the caller sent it
 * itself or holds a privileged token of the service that keeps the secret and was answered with
 * success.
 */
export function checkLeak(request: FuzzRequest, response: FuzzResponse, held: readonly HeldSecret[], privileged = request.tokenClass === "privileged"): Violation[] {
  if (held.length === 0) return [];
  const answer = `${Object.entries(response.headers).map(([n, v]) => `${n}: ${v}`).join("\n")}\n${Buffer.from(response.body).toString("latin1")}`;
  const sent = `${request.path}?${request.query}\n${request.headers.map(([n, v]) => `${n}: ${v}`).join("\n")}\n${Buffer.from(request.body).toString("latin1")}`;
  const entitled = (s: HeldSecret): boolean => privileged && response.status < 400 && s.service === request.service;
  const out: Violation[] = [];
  for (const secret of held) {
    if (entitled(secret) || sent.includes(secret.value)) continue;
    if (answer.includes(secret.value)) out.push({ oracle: "secret-leak", detail: `${secret.where} (${secret.value.slice(0, 12)}...) in a ${response.status} to a ${request.tokenClass} caller of ${request.service}` });
  }
  return out;
}
