/**
 * `infra-doubles soak` arguments: the simulated period, the speed, the contracts and the client
 * command after `--`. Kept apart from `args.ts` (serve's and run's flags) so each command's parser
 * stays small.
 */
import { parseArgs } from "node:util";
import { clockDurationMs, DEFAULT_START } from "../simulator/kernel/clock.js";
import { parseContract, type ContractSpec } from "../scenarios/temporal-matchers.js";

/** Default `soak --speed`: simulated ms per wall ms (30 simulated days in 259 wall seconds). */
export const DEFAULT_SOAK_SPEED = 10_000;

/** The contracts checked when `--contracts` is not given. */
export const DEFAULT_SOAK_CONTRACTS = "renew-before=lease:2/3,renew-before=token:2/3,never-use-expired,honor-retry-after";

/** A parsed `soak` command. */
export interface SoakCommand {
  readonly command: "soak";
  /** `--for`: the simulated period, ms. */
  readonly forMs: number;
  /** `--speed`: simulated ms per wall ms. */
  readonly speed: number;
  readonly contracts: readonly ContractSpec[];
  /** The client command and its arguments (after `--`). */
  readonly client: readonly string[];
  readonly seed: number | string;
  /** `--start`: where simulated time starts, ms since the epoch (default 2024-01-01T00:00:00Z). */
  readonly start: number;
  /** `--port` (default 0: a free port). */
  readonly port: number;
}

/** What `parseSoakCommand` gives for bad arguments. */
export interface SoakUsageProblem {
  readonly command: "usage";
  readonly problem: string;
}

/**
 * Parses the arguments after `soak`.
 * @returns the command, or the problem (for the usage text, exit 2).
 * @example parseSoakCommand(["--for", "30d", "--", "node", "renewer.mjs"]) // { command: "soak", forMs: 2592000000, speed: 10000, ... }
 */
export function parseSoakCommand(argv: readonly string[]): SoakCommand | SoakUsageProblem {
  const dash = argv.indexOf("--");
  const own = dash < 0 ? argv : argv.slice(0, dash);
  const client = dash < 0 ? [] : argv.slice(dash + 1);
  let values: Record<string, string | undefined>;
  try {
    const parsed = parseArgs({
      args: [...own],
      strict: true,
      allowPositionals: false,
      options: { for: { type: "string" }, speed: { type: "string" }, contracts: { type: "string" }, seed: { type: "string" }, start: { type: "string" }, port: { type: "string", short: "p" } },
    });
    values = parsed.values as Record<string, string | undefined>;
  } catch (error) {
    return { command: "usage", problem: `soak: ${(error as Error).message}` };
  }
  if (client.length === 0 || client[0] === "") return { command: "usage", problem: "soak needs the client command after --: infra-doubles soak --for 30d -- node renewer.js" };
  if (values.for === undefined) return { command: "usage", problem: "soak needs --for DURATION, the simulated period (30d, 12h)" };
  let forMs: number;
  try {
    forMs = clockDurationMs(values.for);
  } catch {
    return { command: "usage", problem: `--for must be a duration with units like 30d or 12h, got "${values.for}"` };
  }
  if (forMs <= 0) return { command: "usage", problem: `--for must be above zero, got "${values.for}"` };
  const speed = values.speed === undefined ? DEFAULT_SOAK_SPEED : Number(values.speed);
  if (!(Number.isFinite(speed) && speed >= 1 && speed <= 1e9)) return { command: "usage", problem: `--speed must be a number from 1 to 1e9 (simulated time per wall time), got "${values.speed ?? ""}"` };
  const contracts: ContractSpec[] = [];
  for (const text of (values.contracts ?? DEFAULT_SOAK_CONTRACTS).split(",").filter((part) => part.trim() !== "")) {
    try {
      contracts.push(parseContract(text));
    } catch (error) {
      return { command: "usage", problem: `--contracts: ${(error as Error).message}` };
    }
  }
  if (contracts.length === 0) return { command: "usage", problem: "--contracts must name at least one contract" };
  const start = values.start === undefined ? DEFAULT_START : Date.parse(values.start);
  if (!Number.isFinite(start) || (values.start !== undefined && !/^\d{4}-\d{2}-\d{2}T/.test(values.start))) return { command: "usage", problem: `--start must be an RFC 3339 time like 2024-05-01T00:00:00Z, got "${values.start ?? ""}"` };
  const port = values.port === undefined ? 0 : /^\d{1,5}$/.test(values.port) && Number(values.port) <= 65535 ? Number(values.port) : -1;
  if (port < 0) return { command: "usage", problem: `--port must be a whole number from 0 to 65535, got "${values.port ?? ""}"` };
  const seed = values.seed === undefined ? 1 : /^-?\d{1,15}$/.test(values.seed) ? Number(values.seed) : values.seed;
  if (seed === "") return { command: "usage", problem: "--seed must not be empty" };
  return { command: "soak", forMs, speed, contracts, client, seed, start, port };
}
