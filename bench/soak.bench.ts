/**
 * `infra-doubles soak` (issue 27 item 2; `npm run bench -- soak`, see bench/README.md): the wall
 * time soak takes to find the too-late lease renewer of examples/temporal over 30 simulated days
 * at 10,000x (target: under 30 s), against `node -e 0` (a cold Node start: soak starts the client
 * as a process, the floor any soak pays). Wall time: soak waits on a child process.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { runCli } from "../src/cli/main.js";
import { coldStart } from "./anchors.js";
import { row } from "./table.js";

const quiet = { write: () => true };
const io = { stdout: quiet, stderr: quiet, signals: { once: () => undefined, off: () => undefined } };

row({
  name: "soak finds the too-late lease renewer (30 simulated days at 10000x)",
  target: "<= 30s",
  rounds: 5,
  setup: async () => {
    const client = join(mkdtempSync(join(tmpdir(), "infra-doubles-soak-bench-")), "main.mjs");
    await build({ entryPoints: [join(process.cwd(), "examples", "temporal", "main.ts")], bundle: true, platform: "node", format: "esm", target: "node20", outfile: client, logLevel: "silent" });
    return {
      figure: {
        label: "soak --for 30d -- renewer at 9/10",
        run: async () => {
          const code = await runCli(["soak", "--for", "30d", "--speed", "10000", "--", "/usr/bin/env", "RENEW_AT=0.9", process.execPath, client], io);
          if (code !== 1) throw new Error(`bench: soak exited ${code}, not 1 (the violation)`);
        },
      },
      anchor: {
        label: "node -e 0",
        run: () => coldStart(["-e", "0"]),
      },
    };
  },
});
