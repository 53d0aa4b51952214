/**
 * Cold import rows (`npm run bench`, see bench/README.md): a fresh Node process loading the built
 * package (dist/, rebuilt first when older than src/), against `node -e 0`, with nock and msw/node
 * for scale. Each is timed twice: in wall time, and as the child process's CPU time (`[cpu]`), which
 * other jobs on the machine hardly move.
 */
import { join } from "node:path";
import { coldStart, coldStartCpu, nodeStart, nodeStartCpu } from "./anchors.js";
import { builtDist } from "./fixtures.js";
import { row } from "./table.js";

/** The repository (npm run bench runs each row with it as the working directory). */
const root = process.cwd();


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
      builtDist(root, ["dist/index.js", "dist/index.cjs"]);
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
      builtDist(root, ["dist/index.js", "dist/index.cjs"]);
      const argv = args();
      return { figure: { label: name, value: () => coldStartCpu(argv) }, anchor: nodeStartCpu() };
    },
  });
}
