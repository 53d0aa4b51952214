import { copyFileSync } from "node:fs";
import { defineConfig } from "tsup";

export default defineConfig({
  entry: {
    index: "src/index.ts",
    simulator: "src/simulator/index.ts",
    nock: "src/interceptors/nock-entry.ts",
    server: "src/interceptors/server-entry.ts",
    msw: "src/interceptors/msw-entry.ts",
    testing: "src/testing/index.ts",
    coverage: "src/vitest/coverage.ts",
    vitest: "src/scenarios/vitest-entry.ts",
    cli: "src/cli.ts",
  },
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
  // bundles: validation reads it from there, and `infra-doubles/scenario.schema.json` exports it.
  onSuccess: async () => {
    copyFileSync("src/scenarios/document/scenario.schema.json", "dist/scenario.schema.json");
  },
});
