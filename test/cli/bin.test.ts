import { execFileSync, execSync, spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const cli = resolve(root, "dist/cli.cjs");

beforeAll(() => {
  // `npm test` builds before vitest runs; a lone `vitest run` builds here instead of skipping.
  if (!existsSync(cli)) execSync("npx tsup", { cwd: root, stdio: "ignore" });
}, 120_000);

/** Spawns the built CLI and resolves with its first stdout line. */
function serve(args: string[]): { child: ChildProcessWithoutNullStreams; firstLine: Promise<string>; exit: Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> } {
  const child = spawn(process.execPath, [cli, ...args], { cwd: root });
  let stdout = "";
  let stderr = "";
  const firstLine = new Promise<string>((resolveLine, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const newline = stdout.indexOf("\n");
      if (newline !== -1) resolveLine(stdout.slice(0, newline));
    });
    child.on("exit", () => reject(new Error(`the CLI exited before printing a line; stderr: ${stderr}`)));
  });
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>((resolveExit) =>
    child.on("close", (code, signal) => resolveExit({ code, signal, stdout, stderr })),
  );
  return { child, firstLine, exit };
}

describe("the built infra-doubles binary", () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`prints one JSON line on start, serves, and exits 0 with the server closed on ${signal}`, async () => {
      const run = serve(["serve", "--port", "0", "--json"]);
      const line = await run.firstLine;
      const start = JSON.parse(line) as Record<string, unknown> & { url: string };
      expect(start.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const clock = (await (await fetch(`${start.url}/_sim/clock`)).json()) as { advanceable: boolean };
      expect(clock.advanceable).toBe(true);
      const listed = await fetch(`${start.url}/_sim/clock`, { method: "LIST" });
      expect(listed.status).toBe(405);
      run.child.kill(signal);
      const exit = await run.exit;
      expect(exit).toMatchObject({ code: 0, signal: null });
      expect(exit.stdout).toBe(`${line}\n`);
      await expect(fetch(`${start.url}/_sim/clock`)).rejects.toThrow();
    });
  }

  it("prints usage on stderr and exits 2 on an unknown flag", () => {
    let status: number | undefined;
    let stderr = "";
    try {
      execFileSync(process.execPath, [cli, "serve", "--bogus"], { stdio: "pipe" });
    } catch (error) {
      status = (error as { status: number }).status;
      stderr = String((error as { stderr: Buffer }).stderr);
    }
    expect(status).toBe(2);
    expect(stderr).toContain("Usage: infra-doubles serve");
  });
});
