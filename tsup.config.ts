import { copyFileSync, cpSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { defineConfig } from "tsup";

const entry = {
  index: "src/index.ts",
  simulator: "src/simulator/index.ts",
  nock: "src/interceptors/nock-entry.ts",
  server: "src/interceptors/server-entry.ts",
  msw: "src/interceptors/msw-entry.ts",
  testing: "src/testing/index.ts",
  coverage: "src/vitest/coverage.ts",
  vitest: "src/scenarios/vitest-entry.ts",
  cli: "src/cli.ts",
};

export default defineConfig({
  entry,
  format: ["esm", "cjs"],
  dts: { entry: { index: "src/index.ts", simulator: "src/simulator/index.ts", nock: "src/interceptors/nock-entry.ts", server: "src/interceptors/server-entry.ts", msw: "src/interceptors/msw-entry.ts", testing: "src/testing/index.ts", coverage: "src/vitest/coverage.ts", vitest: "src/scenarios/vitest-entry.ts" } },
  target: "node20",
  platform: "node",
  sourcemap: true,
  clean: true,
  splitting: true,
  external: ["nock", "msw", "fast-check", "vitest"],
  shims: true,
  // The scenario document schema (generated from the types by `npm run schema`) ships beside the
  // bundles: validation reads it from there, and `infra-doubles/scenario.schema.json` exports it;
  // so does the dashboard's folder (dist/dashboard/).
  // Then the ESM outputs are built again, the main entry's modules as one internal file (scripts/build-esm.mjs says why).
  onSuccess: async () => {
    copyFileSync("src/scenarios/document/scenario.schema.json", "dist/scenario.schema.json");
    // The dev server's dashboard (GET /_sim/ui): its page, script and style sheet, read from beside the bundles.
    cpSync("src/interceptors/dashboard", "dist/dashboard", { recursive: true });
    // The state document schema (written by hand, src/scenarios/state/) ships the same way.
    copyFileSync("src/scenarios/state/state.schema.json", "dist/state.schema.json");
    const { buildEsm } = (await import(pathToFileURL(join(process.cwd(), "scripts/build-esm.mjs")).href)) as { buildEsm: (entries: Record<string, string>) => Promise<void> };
    await buildEsm(entry);
  },
});
