import { defineConfig } from "tsup";

export default defineConfig({
  entry: {
    index: "src/index.ts",
    simulator: "src/simulator/index.ts",
    nock: "src/interceptors/nock-entry.ts",
    server: "src/interceptors/server-entry.ts",
    msw: "src/interceptors/msw-entry.ts",
    cli: "src/cli.ts",
  },
  format: ["esm", "cjs"],
  dts: { entry: { index: "src/index.ts", simulator: "src/simulator/index.ts", nock: "src/interceptors/nock-entry.ts", server: "src/interceptors/server-entry.ts", msw: "src/interceptors/msw-entry.ts" } },
  target: "node20",
  platform: "node",
  sourcemap: true,
  clean: true,
  splitting: true,
  external: ["nock", "msw"],
  shims: true,
});
