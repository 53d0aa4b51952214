#!/usr/bin/env node
// CI's check of examples/mutants (issue 27, "Done when": `infra-doubles mutate` kills every mutant
// the example suites should kill and names the survivors the example's README predicts; the same
// mutant set, seed and suite give the same report twice).
//
// Reads from examples/mutants/README.md the two `infra-doubles mutate` commands it prints (the
// first suite alone, then with kills-the-survivors.test.ts) and the survivors it predicts for
// each, runs each command with `node dist/cli.cjs` in place of `npx infra-doubles` and
// `--json FILE --fresh --state FILE` added (the first one twice), and fails unless:
//   (a) the survivors of each run are exactly the README's predicted ids, in the README's order;
//   (b) every other mutant of the set the suite reached is killed (none survived or timed out), and
//       each run reached at least one mutant;
//   (c) the two JSON reports of the first command are byte-identical.
//
// Usage: node scripts/mutants-example.mjs   (needs `npm run build` first: dist/cli.cjs)
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const readmePath = join(root, "examples", "mutants", "README.md");
const cli = join(root, "dist", "cli.cjs");

/** The README's `npx infra-doubles mutate ...` lines (in `sh` blocks), in order, as argument lists. */
export function commandsOf(readme) {
  const commands = [];
  for (const block of readme.matchAll(/^```sh\n([\s\S]*?)^```/gm)) {
    const text = (block[1] ?? "").replace(/\\\n\s*/g, " ");
    for (const line of text.split("\n")) {
      const words = line.trim().split(/\s+/);
      if (words[0] === "npx" && words[1] === "infra-doubles" && words[2] === "mutate") commands.push(words.slice(2));
    }
  }
  return commands;
}

/** The ids listed after `<!-- predicted survivors: NAME -->` (lines "- `id`..." up to the first other line); none listed: `[]`. */
export function predictedOf(readme, name) {
  const marker = `<!-- predicted survivors: ${name} -->`;
  const at = readme.indexOf(marker);
  if (at < 0) throw new Error(`mutants-example: ${readmePath} has no "${marker}"`);
  const ids = [];
  for (const line of readme.slice(at + marker.length).replace(/^\n+/, "").split("\n")) {
    const item = /^- `([^`]+)`/.exec(line);
    if (item === null) break;
    ids.push(item[1]);
  }
  return ids;
}

function run(args, label, work) {
  const dash = args.indexOf("--");
  const json = join(work, `${label}.json`);
  const full = [...args.slice(0, dash), "--json", json, "--fresh", "--state", join(work, `${label}.state.jsonl`), ...args.slice(dash)];
  const started = Date.now();
  process.stdout.write(`\n$ node dist/cli.cjs ${full.join(" ")}\n`);
  const result = spawnSync(process.execPath, [cli, ...full], { cwd: root, stdio: ["ignore", "inherit", "inherit"] });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  // mutate exits 0 without --threshold whatever the survivors; 2: the suite failed against the faithful fake.
  if (result.status !== 0) throw new Error(`mutants-example: ${label} exited ${result.status ?? result.signal}`);
  if (!existsSync(json)) throw new Error(`mutants-example: ${label} wrote no JSON report`);
  process.stdout.write(`(${label}: ${seconds} s)\n`);
  return { bytes: readFileSync(json), report: JSON.parse(readFileSync(json, "utf8")) };
}

function check(report, predicted, label) {
  const problems = [];
  const survived = report.mutants.filter((m) => m.outcome === "survived").map((m) => m.id);
  if (JSON.stringify(survived) !== JSON.stringify(predicted)) {
    problems.push(`${label}: survivors ${JSON.stringify(survived)}, the README predicts ${JSON.stringify(predicted)}`);
  }
  const reached = report.mutants.filter((m) => m.outcome !== "not-reached");
  if (reached.length === 0) problems.push(`${label}: the suite reached no mutant of the set`);
  for (const m of reached) {
    if (m.outcome !== "killed" && m.outcome !== "survived") problems.push(`${label}: ${m.id} ${m.outcome}, not killed`);
  }
  return problems;
}

function main() {
  if (!existsSync(cli)) throw new Error("mutants-example: no dist/cli.cjs (run `npm run build` first)");
  const readme = readFileSync(readmePath, "utf8");
  const commands = commandsOf(readme);
  if (commands.length !== 2) throw new Error(`mutants-example: ${readmePath} prints ${commands.length} mutate commands, not 2 (the first suite, then both files)`);
  const [first, second] = commands;
  const predicted = { first: predictedOf(readme, "first run"), second: predictedOf(readme, "second run") };
  const work = mkdtempSync(join(process.env.TMPDIR || tmpdir(), "infra-doubles-mutants-example-"));
  try {
    const a = run(first, "first", work);
    const again = run(first, "first-again", work);
    const b = run(second, "second", work);
    const problems = [...check(a.report, predicted.first, "first run"), ...check(b.report, predicted.second, "second run")];
    if (!a.bytes.equals(again.bytes)) problems.push("first run: the two JSON reports of the same set, seed and suite differ");
    if (problems.length > 0) {
      for (const problem of problems) process.stderr.write(`${problem}\n`);
      process.exit(1);
    }
    const summary = (r) => `${r.summary.killed} killed, ${r.summary.survived} survived, ${r.summary.notReached} not reached`;
    process.stdout.write(`\nmutants-example: ok (first run: ${summary(a.report)}, twice, same bytes; second run: ${summary(b.report)})\n`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
