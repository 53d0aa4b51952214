/**
 * Vitest global setup: the tests that run the built package (the CLI, the bin, import cost) need
 * `dist/` as `npm run build` leaves it. `npm test` builds before vitest; a lone `npx vitest run`
 * after editing `src/` would otherwise test a stale build. Built here once, before any test file
 * runs (test files run in parallel: building in each would race), only when `dist/` is missing or
 * older than a file in `src/`; a fresh `dist/` costs one walk of `src/`'s modification times.
 */
import { execSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "../..");

/** The newest modification time of a file under `dir` (0 for none). */
export function newestMtime(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return latest;
}

/** The oldest of the built entry points' modification times (0 when one is missing). */
function builtAt(): number {
  try {
    return Math.min(...["index.js", "index.cjs", "cli.cjs"].map((file) => statSync(join(root, "dist", file)).mtimeMs));
  } catch {
    return 0;
  }
}

export default function setup(): void {
  if (builtAt() >= newestMtime(join(root, "src"))) return;
  try {
    execSync("npm run build", { cwd: root, stdio: "pipe" });
  } catch (error) {
    // Vitest shows a failed global setup as a bare "Serialized Error": say what the build printed.
    const { stdout, stderr } = error as { stdout?: Buffer; stderr?: Buffer };
    throw new Error(`npm run build failed before the tests:\n${String(stdout ?? "")}${String(stderr ?? "")}`, { cause: error });
  }
}
