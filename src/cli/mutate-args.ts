/**
 * `infra-doubles mutate` arguments: the mutant selection (`--only`, `--operator`, `--max-mutants`,
 * `--seed`), the run's bounds (`--jobs`, `--timeout`), the reports (`--json`, `--html`,
 * `--threshold`), the state file (`--state`, `--fresh`), `--list`, and the test command after
 * `--`. Kept apart from `args.ts`, as `soak-args.ts` is.
 */
import { availableParallelism } from "node:os";
import { parseArgs } from "node:util";
import { MUTANT_OPERATORS, type MutantOperator } from "../scenarios/mutants/types.js";
import { clockDurationMs } from "../simulator/kernel/clock.js";

/** The service keys `mutate --only` takes. */
export const MUTATE_SERVICES = ["runs", "accessControl", "secrets"] as const;

/** A parsed `mutate` command. */
export interface MutateCommand {
  readonly command: "mutate";
  /** The test command and its arguments (after `--`); empty with `--list`. */
  readonly testCommand: readonly string[];
  /** `--list`: print the catalogue (after `--only` / `--operator`) and stop. */
  readonly list: boolean;
  /** `--only`: service keys kept; absent: every service. */
  readonly services?: readonly string[];
  /** `--operator`: operators kept; absent: every operator. */
  readonly operators?: readonly MutantOperator[];
  /** `--max-mutants`: at most this many mutants, a sample drawn with `seed`. */
  readonly maxMutants?: number;
  /** `--seed` of the sample (default 1). */
  readonly seed: number | string;
  /** `--jobs`: mutants run at once (default: the machine's available parallelism, at least 1). */
  readonly jobs: number;
  /** `--timeout`: wall ms one mutant's run may take; absent: derived from the faithful run. */
  readonly timeoutMs?: number;
  /** `--json FILE`: where the JSON report goes. */
  readonly json?: string;
  /** `--html FILE`: where the HTML report goes. */
  readonly html?: string;
  /** `--threshold P`: exit 1 when the mutation score is below P percent (0..100). */
  readonly threshold?: number;
  /** `--state FILE`: the results file (default `.infra-doubles/mutate-<hash>.jsonl`). */
  readonly state?: string;
  /** `--fresh`: ignore the results a state file holds (and start it again). */
  readonly fresh: boolean;
}

/** What `parseMutateCommand` gives for bad arguments. */
export interface MutateUsageProblem {
  readonly command: "usage";
  readonly problem: string;
}

/** A comma-separated list, trimmed, without empty items. */
function listOf(text: string): string[] {
  return text
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "");
}

/**
 * Parses the arguments after `mutate`.
 * @returns the command, or the problem (for the usage text, exit 2).
 * @example parseMutateCommand(["--jobs", "2", "--only", "runs", "--", "npx", "vitest", "run"]) // { command: "mutate", jobs: 2, services: ["runs"], testCommand: ["npx", "vitest", "run"], ... }
 */
export function parseMutateCommand(argv: readonly string[]): MutateCommand | MutateUsageProblem {
  const dash = argv.indexOf("--");
  const own = dash < 0 ? argv : argv.slice(0, dash);
  const testCommand = dash < 0 ? [] : argv.slice(dash + 1);
  let values: Record<string, string | boolean | undefined>;
  try {
    const parsed = parseArgs({
      args: [...own],
      strict: true,
      allowPositionals: false,
      options: {
        jobs: { type: "string", short: "j" },
        "max-mutants": { type: "string" },
        seed: { type: "string" },
        only: { type: "string" },
        operator: { type: "string" },
        timeout: { type: "string" },
        json: { type: "string" },
        html: { type: "string" },
        list: { type: "boolean" },
        threshold: { type: "string" },
        state: { type: "string" },
        fresh: { type: "boolean" },
      },
    });
    values = parsed.values as Record<string, string | boolean | undefined>;
  } catch (error) {
    return { command: "usage", problem: `mutate: ${(error as Error).message}` };
  }
  const text = (name: string): string | undefined => values[name] as string | undefined;
  const list = values.list === true;
  if (list && testCommand.length > 0) return { command: "usage", problem: "mutate --list prints the catalogue and takes no test command" };
  if (!list && (testCommand.length === 0 || testCommand[0] === "")) {
    return { command: "usage", problem: "mutate needs the test command after --: infra-doubles mutate -- npx vitest run" };
  }
  let services: string[] | undefined;
  if (text("only") !== undefined) {
    services = listOf(text("only") ?? "");
    const bad = services.find((key) => !(MUTATE_SERVICES as readonly string[]).includes(key));
    if (services.length === 0 || bad !== undefined) return { command: "usage", problem: `--only takes service keys (${MUTATE_SERVICES.join(", ")}), comma-separated, got "${text("only") ?? ""}"` };
  }
  let operators: MutantOperator[] | undefined;
  if (text("operator") !== undefined) {
    const named = listOf(text("operator") ?? "");
    const bad = named.find((op) => !(MUTANT_OPERATORS as readonly string[]).includes(op));
    if (named.length === 0 || bad !== undefined) return { command: "usage", problem: `--operator takes operators (${MUTANT_OPERATORS.join(", ")}), comma-separated, got "${text("operator") ?? ""}"` };
    operators = named as MutantOperator[];
  }
  const whole = (name: string, min: number): number | undefined | null => {
    const given = text(name);
    if (given === undefined) return undefined;
    return /^\d{1,6}$/.test(given) && Number(given) >= min ? Number(given) : null;
  };
  const jobs = whole("jobs", 1);
  if (jobs === null) return { command: "usage", problem: `--jobs must be a whole number from 1, got "${text("jobs") ?? ""}"` };
  const maxMutants = whole("max-mutants", 1);
  if (maxMutants === null) return { command: "usage", problem: `--max-mutants must be a whole number from 1, got "${text("max-mutants") ?? ""}"` };
  const seedText = text("seed");
  if (seedText === "") return { command: "usage", problem: "--seed must not be empty" };
  const seed = seedText === undefined ? 1 : /^-?\d{1,15}$/.test(seedText) ? Number(seedText) : seedText;
  let timeoutMs: number | undefined;
  if (text("timeout") !== undefined) {
    timeoutMs = parseTimeout(text("timeout") ?? "");
    if (timeoutMs === undefined) return { command: "usage", problem: `--timeout must be a duration with units above zero like 90s, 2m or 1m30s, got "${text("timeout") ?? ""}"` };
  }
  let threshold: number | undefined;
  if (text("threshold") !== undefined) {
    const given = text("threshold") ?? "";
    threshold = /^\d{1,3}(\.\d+)?%?$/.test(given) ? Number(given.replace(/%$/, "")) : NaN;
    if (!(threshold >= 0 && threshold <= 100)) return { command: "usage", problem: `--threshold must be a percentage from 0 to 100, got "${given}"` };
  }
  for (const name of ["json", "html", "state"]) {
    if (text(name) !== undefined && (text(name) ?? "").trim() === "") return { command: "usage", problem: `--${name} must name a file` };
  }
  if (list) {
    const runOnly = ["jobs", "max-mutants", "timeout", "json", "html", "threshold", "state", "fresh"].find((name) => values[name] !== undefined);
    if (runOnly !== undefined) return { command: "usage", problem: `--${runOnly} is an option of a mutation run, not of --list` };
  }
  return {
    command: "mutate",
    testCommand,
    list,
    ...(services === undefined ? {} : { services }),
    ...(operators === undefined ? {} : { operators }),
    ...(maxMutants === undefined ? {} : { maxMutants }),
    seed,
    jobs: jobs ?? defaultJobs(),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(text("json") === undefined ? {} : { json: text("json") as string }),
    ...(text("html") === undefined ? {} : { html: text("html") as string }),
    ...(threshold === undefined ? {} : { threshold }),
    ...(text("state") === undefined ? {} : { state: text("state") as string }),
    fresh: values.fresh === true,
  };
}

/** The default `--jobs`: the machine's available parallelism, at least 1. */
export function defaultJobs(): number {
  return Math.max(1, availableParallelism());
}

/** A wall-time duration with units (`90s`, `2m`), above zero and at most 24.8 days, as ms; `undefined` when it is not one. */
function parseTimeout(text: string): number | undefined {
  try {
    const ms = clockDurationMs(text.trim());
    return ms >= 1 && ms <= 2_147_483_647 ? ms : undefined;
  } catch {
    return undefined;
  }
}
