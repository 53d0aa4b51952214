#!/usr/bin/env node
// What a whole test file costs on each transport (issue 25, docs/guides/choose-a-transport.md):
// writes a vitest file of TESTS tests, each sending REQUESTS fetch GETs of the bench's stored run
// (bench/fixtures.ts), once per transport (nock 14, nock 15, the interceptors transport, the msw
// handlers, the server) and once on msw 2 with a static handler answering the same bytes (the
// anchor), and times `npx vitest run` on each, one after the other, in wall time. The file is the
// only one of its run (its own config in a temporary directory under the repository, one worker).
//
//   node scripts/transport-file-cost.mjs [--tests 500] [--requests 10] [--only nock,msw-static]
//
// Prints a table (wall seconds per file, time inside the tests as vitest reports it, per test and
// per request, ratios to msw's static handler)
// and the machine's load average before and after: on a loaded machine the figures are "measured
// under load" and only the ratios compare.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : args[at + 1];
};
const TESTS = Number(option("tests", 500));
const REQUESTS = Number(option("requests", 10));

const fixture = JSON.stringify(join(root, "bench", "fixtures.ts"));
const src = (path) => JSON.stringify(join(root, "src", path));

/** Per transport: imports, what runs once before the tests, what runs once after. */
const TRANSPORTS = {
  "msw-static": {
    label: "msw 2 setupServer, static handler (anchor)",
    imports: `import { setupServer } from "msw/node";\nimport { http } from "msw";`,
    before: `const server = setupServer(http.get(url, () => new Response(reply.body, { status: reply.status, headers: reply.headers })));\nserver.listen({ onUnhandledRequest: "bypass" });\nstop = () => server.close();`,
  },
  nock: {
    label: 'nock transport, nock 14 (doubles.intercept())',
    imports: "",
    before: `const interception = doubles.intercept();\nstop = () => interception.stop();`,
  },
  nock15: {
    label: "nock transport, nock 15",
    imports: `import { useNockModule } from ${src("interceptors/transports/nock-module.ts")};`,
    before: `useNockModule("nock15");\nconst interception = doubles.intercept();\nstop = () => interception.stop();`,
  },
  interceptors: {
    label: 'interceptors transport (intercept({ transport: "interceptors" }))',
    imports: "",
    before: `const interception = doubles.intercept({ transport: "interceptors" });\nstop = () => interception.stop();`,
  },
  msw: {
    label: "msw handlers (setupServer(...mswHandlers(doubles)))",
    imports: `import { setupServer } from "msw/node";\nimport { mswHandlers } from ${src("interceptors/msw-entry.ts")};`,
    before: `const server = setupServer(...mswHandlers(doubles));\nserver.listen({ onUnhandledRequest: "bypass" });\nstop = () => server.close();`,
  },
  server: {
    label: "server (doubles.listen(), fetch over loopback)",
    imports: "",
    before: `const served = await doubles.listen({ port: 0 });\nurl = served.url + new URL(url).pathname;\nstop = () => served.close();`,
  },
};

function testFile(transport) {
  return `import { afterAll, beforeAll, expect, test } from "vitest";
import { runGet } from ${fixture};
${transport.imports}

let url = "";
let headers = {};
let stop = () => undefined;
beforeAll(async () => {
  const fixture = await runGet();
  const { doubles, reply } = fixture;
  url = fixture.url;
  headers = fixture.headers;
  ${transport.before.replace(/\n/g, "\n  ")}
});
afterAll(() => stop());

for (let t = 0; t < ${TESTS}; t++) {
  test("GET run x${REQUESTS}, " + t, async () => {
    for (let r = 0; r < ${REQUESTS}; r++) {
      const response = await fetch(url, { headers });
      expect(response.status).toBe(200);
      await response.text();
    }
  });
}
`;
}

const only = option("only", undefined)?.split(",");
const names = Object.keys(TRANSPORTS).filter((name) => only === undefined || only.includes(name));
const work = mkdtempSync(join(root, ".transport-cost-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));
writeFileSync(join(work, "vitest.config.mjs"), `export default { test: { include: ["*.test.ts"], pool: "forks", maxWorkers: 1, testTimeout: 600000, hookTimeout: 600000 } };\n`);

/** vitest's terminal colours (ESC [ ... m), taken out before its summary is read. */
const COLOURS = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");
const results = [];
const loadBefore = loadavg()[0];
for (const name of names) {
  const file = join(work, `${name}.test.ts`);
  writeFileSync(file, testFile(TRANSPORTS[name]));
  const start = performance.now();
  const run = spawnSync("npx", ["vitest", "run", "--config", join(work, "vitest.config.mjs"), "--root", work, `${name}.test.ts`], { cwd: root, encoding: "utf8", env: { ...process.env, FORCE_COLOR: "0" } });
  const seconds = (performance.now() - start) / 1000;
  if (run.status !== 0) {
    console.error(`${name}: vitest failed\n${run.stdout}\n${run.stderr}`);
    process.exit(1);
  }
  const out = run.stdout.replace(COLOURS, "");
  const time = (text) => (text === undefined ? NaN : Number.parseFloat(text) / (text.endsWith("ms") ? 1000 : 1));
  const tests = Number(/Tests\s+(\d+) passed/.exec(out)?.[1]);
  // vitest's own split: the whole run, and the time spent inside the tests (no start-up, no import).
  const duration = time(/Duration\s+([\d.]+m?s)/.exec(out)?.[1]);
  const inTests = time(/tests ([\d.]+m?s)/.exec(out)?.[1]);
  results.push({ name, label: TRANSPORTS[name].label, seconds, duration, inTests, tests });
  process.stderr.write(`${name}: ${seconds.toFixed(1)} s (${tests} tests passed)\n`);
  rmSync(file);
}
const loadAfter = loadavg()[0];
const anchor = results.find((result) => result.name === "msw-static");
console.log(`${TESTS} tests x ${REQUESTS} fetch GETs of a stored run, one vitest file per transport, npx vitest run wall time (load average ${loadBefore.toFixed(1)} -> ${loadAfter.toFixed(1)})\n`);
console.log("| transport | file (npx vitest run, wall) | inside the tests | per test | per request | file vs msw static | tests vs msw static |");
console.log("| --- | --- | --- | --- | --- | --- | --- |");
for (const result of results) {
  const perTest = (result.inTests / TESTS) * 1000;
  const ratio = (value, of) => (anchor ? `${(value / of).toFixed(2)}x` : "");
  console.log(`| ${result.label} | ${result.seconds.toFixed(1)} s | ${result.inTests.toFixed(2)} s | ${perTest.toFixed(2)} ms | ${(perTest / REQUESTS).toFixed(3)} ms | ${ratio(result.seconds, anchor?.seconds)} | ${ratio(result.inTests, anchor?.inTests)} |`);
}
