#!/usr/bin/env node
// `npm run explore`: runs the property and model tests (every test file that calls fc.assert,
// fc.check, fc.property, fc.asyncProperty or fc.commands) again and again, each round with a NEW
// random fast-check seed and a larger budget, and writes every failure found to a JSON-lines file
// (seed, fast-check's path, counterexample, test, error, the command that replays it). `npm test`
// never draws a seed (test/support/fast-check-seed.ts): what explore finds becomes a fixed
// regression case there (docs/develop.md).
//
// Usage: npm run explore -- [--rounds N | --minutes M] [--factor F] [--out FILE] [FILE ...]
//   --rounds N   rounds to run (default 3), each with its own seed
//   --minutes M  run rounds until M minutes have passed instead (at least one round)
//   --factor F   multiply every property's number of runs by F (default 10)
//   --out FILE   where findings go (default explore-findings.jsonl, gitignored; appended to)
//   --seed S     run one round with seed S (replays a round)
//   FILE ...     only these test files (default: every property and model test file)
import { spawnSync } from "node:child_process";
import { randomInt } from "node:crypto";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const PROPERTY_CALL = /\bfc\.(assert|check|property|asyncProperty|commands)\(/;

function usage(message) {
  if (message) console.error(`explore: ${message}`);
  console.error("usage: npm run explore -- [--rounds N | --minutes M] [--factor F] [--out FILE] [--seed S] [FILE ...]");
  process.exit(2);
}

function parseArgs(argv) {
  const args = { rounds: 3, minutes: undefined, factor: 10, out: "explore-findings.jsonl", seed: undefined, files: [] };
  const number = (flag, value) => {
    const n = Number(value);
    if (value === undefined || !Number.isFinite(n) || n <= 0) usage(`${flag} needs a positive number, not ${JSON.stringify(value)}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--rounds") args.rounds = Math.round(number(arg, argv[++i]));
    else if (arg === "--minutes") args.minutes = number(arg, argv[++i]);
    else if (arg === "--factor") args.factor = number(arg, argv[++i]);
    else if (arg === "--out") args.out = argv[++i] ?? usage("--out needs a file");
    else if (arg === "--seed") {
      args.seed = Number(argv[++i]);
      if (!Number.isSafeInteger(args.seed)) usage("--seed needs an integer");
    } else if (arg === "--help" || arg === "-h") usage();
    else if (arg.startsWith("-")) usage(`unknown option ${arg}`);
    else args.files.push(arg);
  }
  return args;
}

/** Every test file under test/ and examples/ that runs a fast-check property (the fuzz harness uses its own PRNG). */
function propertyFiles(dir = root) {
  const files = [];
  const walk = (path) => {
    for (const name of readdirSync(path)) {
      const full = join(path, name);
      if (name === "node_modules") continue;
      if (statSync(full).isDirectory()) walk(full);
      else if (name.endsWith(".test.ts") && PROPERTY_CALL.test(readFileSync(full, "utf8"))) files.push(relative(dir, full));
    }
  };
  for (const top of ["test", "examples"]) if (existsSync(join(dir, top))) walk(join(dir, top));
  return files.sort();
}

function countLines(file) {
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).length : 0;
}

const args = parseArgs(process.argv.slice(2));
const files = args.files.length > 0 ? args.files : propertyFiles();
const out = resolve(root, args.out);
const vitest = join(root, "node_modules", "vitest", "vitest.mjs");
const deadline = args.minutes === undefined ? undefined : Date.now() + args.minutes * 60_000;
const before = countLines(out);
console.log(`explore: ${files.length} property test files, ${args.factor}x the runs, findings to ${relative(process.cwd(), out) || out}`);

for (let round = 1; ; round++) {
  if (args.seed !== undefined ? round > 1 : deadline === undefined ? round > args.rounds : round > 1 && Date.now() >= deadline) break;
  const seed = args.seed ?? randomInt(-(2 ** 31), 2 ** 31);
  const found = countLines(out);
  console.log(`\nexplore: round ${round}, seed ${seed}`);
  const run = spawnSync(
    process.execPath,
    [vitest, "run", "--reporter=dot", "--reporter=./scripts/explore-reporter.mjs", "--testTimeout", String(Math.round(30_000 * args.factor)), ...files],
    { cwd: root, stdio: "inherit", env: { ...process.env, FC_SEED: String(seed), FC_NUM_RUNS_FACTOR: String(args.factor), EXPLORE_FINDINGS: out } },
  );
  const now = countLines(out);
  console.log(`explore: round ${round}, seed ${seed}: ${now - found} finding(s)${run.status !== 0 && now === found ? ` (vitest exited ${run.status ?? run.signal})` : ""}`);
}

const total = countLines(out) - before;
console.log(`\nexplore: ${total} finding(s) written to ${out}`);
if (total > 0) console.log("Each one becomes a fixed regression case in npm test (docs/develop.md), then is fixed.");
process.exit(total > 0 ? 1 : 0);
