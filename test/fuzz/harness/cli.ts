/**
 * `npm run fuzz`: the long run of the seeded fuzz, and the replay of one finding.
 *
 *   npm run fuzz                                   # 100,000 requests through the handler, seed 8
 *   npm run fuzz -- --seed 42 --count 1000000      # a longer run
 *   npm run fuzz -- --transport nock-fetch --count 20000 --twin   # also compare with the handler
 *   npm run fuzz -- --transport all                # every transport
 *   npm run fuzz -- --seed 8 --index 1234 --transport server-socket   # replay one request alone
 *
 * Exits 1 when a finding is reported (each with its seed, index and replay command).
 */
import { CI_SEED, KNOWN_DEFECTS } from "../fuzz.config.js";
import { formatFindings } from "./run.js";
import { TRANSPORTS, fuzzSession, summary, transcriptDiff } from "./session.js";

interface Args {
  seed: number;
  start: number;
  count: number | undefined;
  index: number | undefined;
  transport: string;
  twin: boolean;
  chunk: number;
}

function parse(argv: readonly string[]): Args {
  const args: Args = { seed: CI_SEED, start: 0, count: undefined, index: undefined, transport: "handler", twin: false, chunk: 20_000 };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i] ?? "";
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`fuzz: ${flag} needs a value`);
      return v;
    };
    const int = (): number => {
      const v = Number(value());
      if (!Number.isSafeInteger(v) || v < 0) throw new Error(`fuzz: ${flag} needs a whole number`);
      return v;
    };
    switch (flag) {
      case "--seed":
        args.seed = int();
        break;
      case "--start":
        args.start = int();
        break;
      case "--count":
        args.count = int();
        break;
      case "--index":
        args.index = int();
        break;
      case "--transport":
        args.transport = value();
        break;
      case "--twin":
        args.twin = true;
        break;
      case "--help":
      case "-h":
        console.log("npm run fuzz -- [--seed S] [--start I] [--count N] [--index I] [--transport handler|nock-fetch|nock-http|interceptors-fetch|interceptors-http|msw-fetch|msw-http|server-socket|all] [--twin]");
        process.exit(0);
        break;
      default:
        throw new Error(`fuzz: unknown argument ${flag} (try --help)`);
    }
  }
  return args;
}

async function main(): Promise<number> {
  const args = parse(process.argv.slice(2));
  const transports = args.transport === "all" ? [...TRANSPORTS] : [args.transport];
  for (const t of transports) if (!(TRANSPORTS as readonly string[]).includes(t)) throw new Error(`fuzz: unknown transport ${t} (${TRANSPORTS.join(", ")}, all)`);
  console.log(`fuzz: seed ${args.seed}; known defects skipped: ${KNOWN_DEFECTS.map((d) => d.id).join(", ") || "none"}`);
  let failed = false;
  for (const transport of transports as (typeof TRANSPORTS)[number][]) {
    if (args.index !== undefined) {
      // Replay: the episode up to the index runs again (skipping as the run did), then the index
      // itself is sent even when a known defect matches it; only the index is reported.
      const result = await fuzzSession({ transport, seed: args.seed, start: args.index, count: 1, maxFindings: 1, exactly: true });
      console.log(result.transcript.join("\n"));
      if (result.last) console.log(`  request: ${result.last.request}\n  response: ${result.last.response}`);
      const defect = KNOWN_DEFECTS.find((d) => result.last !== undefined && d.matches(result.last.sent, transport));
      if (defect) console.log(`index ${args.index} is one the CI runs skip (known defect ${defect.id}): sent anyway`);
      console.log(result.findings.length > 0 ? formatFindings(result.findings) : `seed ${args.seed} index ${args.index} via ${transport}: no finding`);
      failed ||= result.findings.length > 0;
      continue;
    }
    const total = args.count ?? (transport === "handler" ? 100_000 : 5_000);
    let start = args.start;
    for (let done = 0; done < total; ) {
      const count = Math.min(args.chunk, total - done);
      const result = await fuzzSession({ transport, seed: args.seed, start, count, twin: args.twin, maxFindings: 50 });
      console.log(summary(`${transport} [${start}..${result.lastIndex}]`, result));
      if (result.findings.length > 0) console.log(formatFindings(result.findings));
      if (result.twin) {
        const diff = transcriptDiff(result.transcript, result.twin.transcript);
        if (diff.length > 0) console.log(`transcripts differ from the handler's:\n${diff.join("\n")}`);
        failed ||= diff.length > 0 || result.twin.findings.length > 0;
      }
      failed ||= result.findings.length > 0;
      done += result.sent;
      start = result.lastIndex + 1;
      if (result.sent === 0) break;
    }
  }
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(2);
  },
);
