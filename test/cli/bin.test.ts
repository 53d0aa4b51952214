import { execFileSync, execSync, spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync } from "node:fs";
import http from "node:http";
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

  it("prints each service's base URL and credentials in the JSON line, and they work", async () => {
    const run = serve(["serve", "--port", "0", "--json", "--seed", "3"]);
    const start = JSON.parse(await run.firstLine) as {
      url: string;
      runs: { baseUrl: string; workspaceId: string; userToken: string };
      accessControl: { baseUrl: string; bootstrapSecretId: string };
      secrets: { baseUrl: string; rootToken: string };
    };
    expect(Object.keys(start)).toEqual(["url", "runs", "accessControl", "secrets"]);
    const workspace = await fetch(`${start.runs.baseUrl}/workspaces/${start.runs.workspaceId}/runs`, { headers: { authorization: `Bearer ${start.runs.userToken}` } });
    expect(workspace.status).toBe(200);
    const self = await fetch(`${start.accessControl.baseUrl}/acl/token/self`, { headers: { "X-Acl-Token": start.accessControl.bootstrapSecretId } });
    expect(self.status).toBe(200);
    const roles = execFileSync("curl", ["-s", "-X", "LIST", "-H", `x-secrets-token: ${start.secrets.rootToken}`, `${start.secrets.baseUrl}/ssh/roles`]).toString();
    expect(JSON.parse(roles)).toMatchObject({ data: { keys: ["ca-role", "otp-role"] } });
    // A client holding an idle keep-alive connection does not keep the process from exiting.
    const agent = new http.Agent({ keepAlive: true });
    await new Promise<void>((resolve, reject) => {
      http.get(`${start.url}/_sim/clock`, { agent }, (res) => {
        res.resume();
        res.on("end", resolve);
      }).on("error", reject);
    });
    run.child.kill("SIGINT");
    expect(await run.exit).toMatchObject({ code: 0, signal: null, stderr: "" });
    agent.destroy();
  });

  it("prints usage on stdout and exits 0 for --help, and exits 1 with a message when the port is taken", async () => {
    expect(execFileSync(process.execPath, [cli, "--help"]).toString()).toContain("Usage: infra-doubles serve");
    const blocker = http.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as { port: number }).port;
    const run = serve(["serve", "--port", String(port)]);
    run.firstLine.catch(() => undefined);
    const exit = await run.exit;
    await new Promise((resolve) => blocker.close(resolve));
    expect(exit.code).toBe(1);
    expect(exit.stderr).toMatch(/EADDRINUSE/);
  });

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
