/**
 * Cold import rows (`npm run bench`, see bench/README.md): a fresh Node process loading the built
 * package (dist/, rebuilt first when older than src/), against `node -e 0`, with nock and msw/node
 * for scale. Each is timed twice: in wall time, and as the child process's CPU time (`[cpu]`), which
 * other jobs on the machine hardly move.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { coldStart, coldStartCpu, nodeStart, nodeStartCpu } from "./anchors.js";
import { row } from "./table.js";

/** The repository (npm run bench runs each row with it as the working directory). */
const root = process.cwd();

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

/** Builds dist/ when it is missing or older than a source file. */
function built(): void {
  let dist: number;
  try {
    dist = Math.min(statSync(join(root, "dist/index.js")).mtimeMs, statSync(join(root, "dist/index.cjs")).mtimeMs);
  } catch {
    dist = 0;
  }
  if (dist < newest(join(root, "src"))) execFileSync("npx", ["tsup"], { cwd: root, stdio: "ignore" });
}

const cases = [
  ["infra-doubles ESM (dist/index.js)", () => [join(root, "dist/index.js")], "<= 1.75x"],
  ["infra-doubles CJS (dist/index.cjs)", () => [join(root, "dist/index.cjs")], "<= 1.75x"],
  ["nock (CJS)", () => ["-e", 'require("nock")'], undefined],
  ["msw/node (ESM)", () => ["--input-type=module", "-e", 'import "msw/node"'], undefined],
  ["@mswjs/interceptors (ESM)", () => ["--input-type=module", "-e", 'import "@mswjs/interceptors/ClientRequest"; import "@mswjs/interceptors/fetch"'], undefined],
] as const;

for (const [name, args, target] of cases) {
  row({
    name,
    ...(target ? { target } : {}),
    rounds: 11,
    setup: () => {
      built();
      const argv = args();
      return { figure: { label: name, run: () => coldStart(argv) }, anchor: nodeStart() };
    },
  });
}

for (const [name, args, target] of cases) {
  row({
    name: `${name}, CPU`,
    clock: "cpu",
    ...(target ? { target } : {}),
    rounds: 11,
    setup: () => {
      built();
      const argv = args();
      return { figure: { label: name, value: () => coldStartCpu(argv) }, anchor: nodeStartCpu() };
    },
  });
}
