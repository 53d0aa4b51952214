/**
 * The repository's commands do what docs/develop.md says: `npm pack` builds dist/ first (a fresh
 * clone has none: issue 22 item 7; .ci/run packs after removing dist/), and `npm test` leaves the
 * full-budget fuzz to `npm run test:fuzz`, which .ci/run runs as its own step (issue 22: a suite
 * that stays quick). Every fuzz file that sends a CI budget is in exactly that second run.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { FULL_FUZZ } from "../../vitest.config.js";

const root = resolve(import.meta.dirname, "../..");
const read = (path: string): string => readFileSync(join(root, path), "utf8");
const scripts = (JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts;

/** Whether `path` matches one of the config's patterns (`*` within a file name only). */
function fullFuzz(path: string): boolean {
  return FULL_FUZZ.some((pattern) => new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*")}$`).test(path));
}

describe("package.json scripts", () => {
  it("builds dist/ before npm pack, so a fresh clone's tarball has it (prepack)", () => {
    expect(scripts.prepack).toBe("npm run build");
    expect(read(".ci/run")).toMatch(/rm -rf dist\n(?:.*\n)*?tarball="\$\(npm pack /);
  });

  it("npm test runs the fuzz smoke, npm run test:fuzz every file that sends a CI budget, as a step of .ci/run", () => {
    const files = readdirSync(join(root, "test/fuzz")).filter((name) => name.endsWith(".test.ts")).map((name) => `test/fuzz/${name}`);
    const budgeted = files.filter((path) => /CI_COUNTS\.\w+/.test(read(path)) && !path.endsWith("/smoke.test.ts"));
    expect(budgeted.length).toBeGreaterThanOrEqual(9);
    expect(files.filter(fullFuzz).sort()).toEqual(budgeted.sort());
    expect(scripts["test:fuzz"]).toBe("vitest run --config vitest.fuzz.config.ts");
    expect(scripts.test).toMatch(/&& vitest run$/);
    expect(read(".ci/run")).toMatch(/\nnpm test\n(?:.*\n)*?npm run test:fuzz\n/);
  });
});
