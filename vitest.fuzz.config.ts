import { defineConfig } from "vitest/config";
import { FULL_FUZZ, shared } from "./vitest.config.js";

/** `npm run test:fuzz`: the full-budget fuzz files `npm test` leaves out (vitest.config.ts). */
export default defineConfig({
  ...shared,
  test: { ...shared.test, include: FULL_FUZZ },
});
