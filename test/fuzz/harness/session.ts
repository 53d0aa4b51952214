/**
 * One fuzz session: builds a world, starts a transport on it, runs a slice, and (optionally)
 * runs the same slice through the transport-free handler on a twin world to compare transcripts.
 * Used by the CI files (test/fuzz/*.test.ts) and by `npm run fuzz`.
 */
import type { FuzzTransport } from "../fuzz.config.js";
import type { Profile } from "./generate.js";
import { runFuzz, type RunResult } from "./run.js";
import { directHandler, nockFetch, nockHttp, serverHandler, serverSocket, twinOf, type Transport } from "./transports.js";
import { buildWorld, type World } from "./world.js";

/** The transports `npm run fuzz` and the CI files run (the handler ones are transport-free). */
export const TRANSPORTS = ["handler", "nock-fetch", "nock-http", "interceptors-fetch", "interceptors-http", "msw-fetch", "msw-http", "server-socket"] as const;

/** Options of {@link fuzzSession}. */
export interface SessionOptions {
  readonly transport: (typeof TRANSPORTS)[number];
  readonly seed: number;
  readonly start: number;
  readonly count: number;
  /** Also run the slice through the handler on a twin world and return both transcripts. */
  readonly twin?: boolean;
  readonly reportFrom?: number;
  readonly maxFindings?: number;
  /** Replay: send `start` alone (after its episode's earlier indexes), even if a known defect matches it. */
  readonly exactly?: boolean;
}

/** What a session did. */
export interface SessionResult extends RunResult {
  /** The twin run through the transport-free handler (when asked). */
  readonly twin?: RunResult;
}

function profileOf(transport: FuzzTransport): Profile {
  return transport === "server-socket" ? "socket" : "portable";
}

async function start(name: SessionOptions["transport"], world: World): Promise<Transport & { origin?: string }> {
  switch (name) {
    case "handler":
      return directHandler(world.doubles);
    case "nock-fetch":
      return nockFetch(world.doubles);
    case "nock-http":
      return nockHttp(world.doubles);
    case "interceptors-fetch":
      return nockFetch(world.doubles, "interceptors");
    case "interceptors-http":
      return nockHttp(world.doubles, "interceptors");
    case "msw-fetch":
      return nockFetch(world.doubles, "msw");
    case "msw-http":
      return nockHttp(world.doubles, "msw");
    case "server-socket":
      return serverSocket(world.doubles);
  }
}

/**
 * Runs one slice through one transport.
 * @example const result = await fuzzSession({ transport: "nock-fetch", seed: 8, start: 0, count: 5000, twin: true });
 */
export async function fuzzSession(options: SessionOptions): Promise<SessionResult> {
  const world = await buildWorld(1);
  const transport = await start(options.transport, world);
  const common = {
    seed: options.seed,
    start: options.start,
    count: options.count,
    profile: profileOf(transport.name),
    ...(options.reportFrom !== undefined ? { reportFrom: options.reportFrom } : {}),
    ...(options.maxFindings !== undefined ? { maxFindings: options.maxFindings } : {}),
    ...(options.exactly ? { exactly: true } : {}),
  };
  let result: RunResult;
  try {
    result = await runFuzz({ ...common, world, transport });
  } finally {
    await transport.close();
  }
  if (!options.twin) return result;
  const twinWorld = await buildWorld(1);
  const twinTransport =
    transport.origin !== undefined ? serverHandler(twinWorld.doubles, transport.origin, transport) : twinOf(directHandler(twinWorld.doubles), transport);
  const twin = await runFuzz({ ...common, world: twinWorld, transport: twinTransport, defectsAs: transport.name });
  return { ...result, twin };
}

/** The first lines where two transcripts differ (empty when identical). */
export function transcriptDiff(a: readonly string[], b: readonly string[], limit = 5): string[] {
  const out: string[] = [];
  for (let i = 0; i < Math.max(a.length, b.length) && out.length < limit; i++) {
    if (a[i] !== b[i]) out.push(`line ${i}:\n  ${a[i] ?? "(none)"}\n  ${b[i] ?? "(none)"}`);
  }
  return out;
}

/** A one-line summary for logs. */
export function summary(name: string, result: RunResult): string {
  const skipped = Object.entries(result.skipped).map(([k, v]) => `${k}=${v}`).join(" ");
  return `fuzz ${name}: ${result.sent} requests (indexes up to ${result.lastIndex}) in ${result.ms} ms, ${result.cpuMs} ms CPU (${(result.cpuMs / Math.max(1, result.sent)).toFixed(2)} ms CPU each), answers ${JSON.stringify(result.statuses)}, findings ${result.findings.length}, skipped (known defects) ${skipped || "none"}`;
}
