import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "examples/**/*.test.ts"],
    testTimeout: 30_000,
    pool: "forks",
    // Builds dist/ when it is missing or older than src/ (the CLI and packaging tests run it).
    globalSetup: ["test/support/global-setup.ts"],
  },
});
