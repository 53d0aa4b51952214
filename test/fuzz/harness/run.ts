/**
 * The fuzz runner: generates requests `start .. start+count-1` of a seed, sends each through one
 * transport, and applies every oracle. Requests run in episodes of {@link EPISODE}: each episode
 * starts from the world's initial state, so index I replays alone from its episode's start.
 */
import { createHash } from "node:crypto";
import { EPISODE, HANG_MS, KNOWN_DEFECTS, type FuzzTransport, type KnownDefect } from "../fuzz.config.js";
import { describeRequest, endpointsOf, generate, type Endpoint, type FuzzRequest, type Profile } from "./generate.js";
import { callerPrivileged, checkAnswer, checkLeak, checkState, heldSecrets, liveServices, liveStateHash, type FuzzResponse, type HeldSecret, type Violation } from "./oracles.js";
import type { Transport } from "./transports.js";
import type { World, WorldIds } from "./world.js";

/** One failing request. */
export interface Finding {
  readonly seed: number;
  readonly index: number;
  readonly transport: FuzzTransport;
  readonly violations: readonly Violation[];
  readonly request: string;
  readonly response: string;
  /** The command that replays it alone. */
  readonly replay: string;
}

/** What a run did. */
export interface RunResult {
  readonly sent: number;
  /** Requests not sent because a known defect matches them, by defect id. */
  readonly skipped: Readonly<Record<string, number>>;
  readonly findings: readonly Finding[];
  /** One line per request: request, status, headers and a hash of the body. */
  readonly transcript: readonly string[];
  /** Answers by status class, e.g. `{ "2xx": 1200, "4xx": 3000 }`. */
  readonly statuses: Readonly<Record<string, number>>;
  readonly ms: number;
  /** CPU time of this process during the run (user + system, ms): steadier than `ms` on a busy machine. */
  readonly cpuMs: number;
  /** The last index generated. */
  readonly lastIndex: number;
  /** The last request sent, described, and its answer (what a replay shows). */
  readonly last?: { readonly request: string; readonly response: string; readonly sent: FuzzRequest };
}

/** Options of {@link runFuzz}. */
export interface RunOptions {
  readonly seed: number;
  readonly start: number;
  /** How many requests to send (known-defect skips do not count). */
  readonly count: number;
  readonly world: World;
  readonly transport: Transport;
  readonly profile: Profile;
  /** Only report (and keep in the transcript) indexes at or after this one (replays start at their episode). */
  readonly reportFrom?: number;
  readonly knownDefects?: readonly KnownDefect[];
  /** Match known defects as if the requests went through this transport (a twin run of another one). */
  readonly defectsAs?: FuzzTransport;
  readonly hangMs?: number;
  /** Called after each request (the planted-violation tests use it to break things). */
  readonly afterEach?: (request: FuzzRequest) => void;
  /**
   * Send `start` itself and nothing after it, even when a known defect matches it (a replay):
   * earlier indexes of its episode still run, and skip as in the run that found it.
   */
  readonly exactly?: boolean;
  /** Stop after this many findings (default 20). */
  readonly maxFindings?: number;
  /**
   * Sends this request instead of the generated one (undefined: the generated one), and every
   * oracle judges it: the oracle tests handcraft an episode's exchanges with it, so they do not
   * depend on what the route tables make the generator draw. The fuzz itself never sets it.
   */
  readonly handcrafted?: (generated: FuzzRequest) => FuzzRequest | undefined;
}

/** Headers node:http adds to every answer; not part of what the fake decides. */
const TRANSPORT_HEADERS = new Set(["date", "connection", "keep-alive", "transfer-encoding", "content-length", "x-fuzz-pipeline"]);

/** The transcript line of one exchange. */
export function transcriptLine(request: FuzzRequest, response: FuzzResponse | undefined): string {
  const head = `${request.index} ${request.method} ${request.service}.${request.base}${request.path}${request.query ? `?${request.query}` : ""}`;
  if (response === undefined) return `${head} -> no answer`;
  const headers = Object.entries(response.headers)
    .filter(([n]) => !TRANSPORT_HEADERS.has(n))
    .sort(([a], [b]) => a.localeCompare(b));
  const body = request.method === "HEAD" ? "" : createHash("sha1").update(response.body).digest("hex");
  return `${head} -> ${response.status} ${JSON.stringify(headers)} ${body}`;
}

function freshPools(ids: WorldIds): Record<string, string[]> {
  return Object.fromEntries(Object.entries(ids.pools).map(([k, v]) => [k, [...v]]));
}

/** Adds the ids a successful answer names to the episode's pools (so later requests find them). */
function harvest(pools: Record<string, string[]>, response: FuzzResponse): void {
  if (response.status >= 300 || response.body.length === 0 || response.body.length > 256 * 1024) return;
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(response.body));
  } catch {
    return;
  }
  const add = (pool: string, id: unknown): void => {
    if (typeof id !== "string" || id === "") return;
    const list = (pools[pool] ??= []);
    if (!list.includes(id)) list.push(id);
    if (list.length > 24) list.shift();
  };
  const visit = (v: unknown, depth: number): void => {
    if (depth > 4 || v === null || typeof v !== "object") return;
    if (Array.isArray(v)) {
      for (const item of v.slice(0, 20)) visit(item, depth + 1);
      return;
    }
    const o = v as Record<string, unknown>;
    if (typeof o.type === "string" && typeof o.id === "string") add(o.type, o.id);
    if (typeof o.AccessorID === "string") add("token", o.AccessorID);
    if (typeof o.ID === "string" && "BindType" in o) add("binding-rule", o.ID);
    if (typeof o.lease_id === "string") {
      add("renew", o.lease_id);
      add("revoke", o.lease_id);
    }
    for (const key of ["data", "included"]) if (key in o) visit(o[key], depth + 1);
  };
  visit(value, 0);
}

function describeResponse(response: FuzzResponse | undefined): string {
  if (response === undefined) return "no answer";
  const body = new TextDecoder().decode(response.body.subarray(0, 400));
  return `${response.status} ${JSON.stringify(response.headers).slice(0, 400)} ${JSON.stringify(body)}`;
}

/** Watches for uncaught exceptions and unhandled rejections while a run is going. */
function watchCrashes(): { take(): string[]; stop(): void } {
  let seen: string[] = [];
  const onError = (error: unknown): void => {
    seen.push(error instanceof Error ? (error.stack ?? error.message) : String(error));
  };
  process.on("uncaughtException", onError);
  process.on("unhandledRejection", onError);
  return {
    take: () => {
      const out = seen;
      seen = [];
      return out;
    },
    stop: () => {
      process.off("uncaughtException", onError);
      process.off("unhandledRejection", onError);
    },
  };
}

/**
 * Runs requests `start .. start+count-1` of `seed` through `transport`.
 * @example const result = await runFuzz({ seed: 8, start: 0, count: 1000, world, transport: directHandler(world.doubles), profile: "portable" });
 */
export async function runFuzz(options: RunOptions): Promise<RunResult> {
  const { seed, world, transport, profile } = options;
  const known = options.knownDefects ?? KNOWN_DEFECTS;
  const hangMs = options.hangMs ?? HANG_MS;
  const maxFindings = options.maxFindings ?? 20;
  const reportFrom = options.reportFrom ?? options.start;
  const endpoints: readonly Endpoint[] = endpointsOf(world.doubles);
  const sim = world.doubles.sim;
  const findings: Finding[] = [];
  const transcript: string[] = [];
  const skipped: Record<string, number> = {};
  const statuses: Record<string, number> = {};
  const crashes = watchCrashes();
  const began = performance.now();
  const cpuBefore = process.cpuUsage();
  let index: number;
  let lastIndex = options.start - 1;
  let last: RunResult["last"];
  let sent = 0;
  let pools = freshPools(world.ids);
  let secretsFor: { hash: string; held: HeldSecret[] } | undefined;
  let hash = "";
  const first = options.start - (options.start % EPISODE);
  try {
    const end = options.exactly ? options.start + 1 : options.start + options.count * 4;
    for (index = first; sent < options.count && index < end; index++) {
      lastIndex = index;
      if (index % EPISODE === 0 || index === first) {
        world.doubles.restore(world.initial);
        pools = freshPools(world.ids);
        hash = "";
      }
      const ids: WorldIds = { tokens: world.ids.tokens, pools };
      const generated = generate({ seed, index, endpoints, ids, profile });
      const request = options.handcrafted?.(generated) ?? generated;
      const defect = options.exactly && index === options.start ? undefined : known.find((d) => d.matches(request, options.defectsAs ?? transport.name));
      if (defect) {
        if (index >= reportFrom) skipped[defect.id] = (skipped[defect.id] ?? 0) + 1;
        continue;
      }
      sim.catchUp();
      if (hash === "") hash = liveStateHash(sim);
      const before = hash;
      if (secretsFor?.hash !== before) secretsFor = { hash: before, held: heldSecrets(liveServices(sim)) };
      const privileged = callerPrivileged(request, liveServices(sim), sim.clock.now());
      const abort = new AbortController();
      let timer: NodeJS.Timeout | undefined;
      const violations: Violation[] = [];
      let response: FuzzResponse | undefined;
      try {
        response = await Promise.race([
          transport.send(request, abort.signal),
          new Promise<"hang">((resolve) => {
            timer = setTimeout(() => resolve("hang"), hangMs);
          }),
        ]).then((r) => {
          if (r === "hang") {
            violations.push({ oracle: "hang", detail: `no answer within ${hangMs} ms` });
            abort.abort();
            return undefined;
          }
          return r;
        });
      } catch (error) {
        violations.push({ oracle: "transport-error", detail: error instanceof Error ? `${error.name}: ${error.message} ${String((error as { cause?: unknown }).cause ?? "")}` : String(error) });
      } finally {
        clearTimeout(timer);
      }
      await new Promise((r) => setImmediate(r)); // let a stray rejection surface before we look
      for (const crash of crashes.take()) violations.push({ oracle: "crash", detail: crash.slice(0, 800) });
      sim.catchUp();
      hash = liveStateHash(sim);
      violations.push(...checkState(response?.status, before, hash));
      if (response !== undefined) {
        violations.push(...checkAnswer(response), ...checkLeak(request, response, secretsFor.held, privileged));
        harvest(pools, response);
      }
      options.afterEach?.(request);
      if (index < reportFrom || index < options.start) continue;
      sent++;
      last = { request: describeRequest(request), response: describeResponse(response), sent: request };
      const klass = response === undefined ? "none" : `${Math.floor(response.status / 100)}xx`;
      statuses[klass] = (statuses[klass] ?? 0) + 1;
      transcript.push(transport.comparable(request) ? transcriptLine(request, response) : `${request.index} (answered by the transport itself: framing ${request.framing ?? ""})`);
      if (violations.length > 0) {
        findings.push({
          seed,
          index,
          transport: transport.name,
          violations,
          request: describeRequest(request),
          response: describeResponse(response),
          replay: `npm run fuzz -- --seed ${seed} --index ${index} --transport ${transport.name}`,
        });
        if (findings.length >= maxFindings) break;
      }
    }
  } finally {
    crashes.stop();
  }
  const cpu = process.cpuUsage(cpuBefore);
  return { sent, skipped, findings, transcript, statuses, ms: Math.round(performance.now() - began), cpuMs: Math.round((cpu.user + cpu.system) / 1000), lastIndex, ...(last ? { last } : {}) };
}

/** A findings report, one block per finding. */
export function formatFindings(findings: readonly Finding[]): string {
  return findings
    .map((f) => `seed ${f.seed} index ${f.index} via ${f.transport}: ${f.violations.map((v) => `${v.oracle}: ${v.detail}`).join("; ")}\n  request: ${f.request}\n  response: ${f.response}\n  replay: ${f.replay}`)
    .join("\n");
}
