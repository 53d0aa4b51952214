/**
 * A failing vitest test under `useDoubles()` leaves a replay bundle named in its failure, and
 * `infra-doubles replay` reproduces its answers byte for byte, prints `--diff N`, and serves the
 * world before a request with `--until N` (read back over HTTP).
 */
import { spawnSync } from "node:child_process";
import { EventEmitter } from "node:events";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli, type CliIo } from "../../src/cli/main.js";
import { readBundle, type BundleRequest } from "../../src/scenarios/bundles/bundle.js";

const dir = mkdtempSync(join(tmpdir(), "bundle-run-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function io(): CliIo & { out: () => string; err: () => string; signals: EventEmitter } {
  let out = "";
  let err = "";
  const signals = new EventEmitter();
  return {
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text) },
    signals: signals as never,
    out: () => out,
    err: () => err,
  } as never;
}

describe("a failing test under useDoubles()", () => {
  it("leaves a bundle that replays identically, diffs a request and serves the world before one", { timeout: 240_000 }, async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, INFRA_DOUBLES_BUNDLE_DIR: dir };
    delete env.VITEST;
    delete env.VITEST_WORKER_ID;
    delete env.VITEST_POOL_ID;
    const run = spawnSync("npx", ["vitest", "run", "--config", "test/fixtures/bundle-project/vitest.config.ts"], { env, encoding: "utf8", timeout: 200_000 });
    const output = run.stdout + run.stderr;
    expect(run.status, output).toBe(1);
    const files = readdirSync(dir);
    // Only the failing test wrote one.
    expect(files).toEqual(["apply.fixture-applies_the_run_once.json"]);
    const path = join(dir, files[0] ?? "");
    expect(output).toContain(`infra-doubles: replay bundle written to ${path}`);
    expect(output).toContain(`npx infra-doubles replay ${path}`);
    const bundle = readBundle(path);
    expect(bundle.test).toMatchObject({ file: "apply.fixture.ts", name: "applies the run once" });
    expect(bundle.test?.errors?.[0]).toContain("expected 'planned' to be 'applied'");
    const requests = bundle.events.filter((e): e is BundleRequest => e.kind === "request");
    expect(requests.map((r) => `${r.method} ${r.response.status}`)).toEqual(["POST 201", "PUT 200", "POST 201", "GET 200"]);

    const replay = io();
    expect(await runCli(["replay", path], replay), replay.err()).toBe(0);
    expect(replay.out()).toContain("replayed 4 requests: every answer identical, byte for byte");

    const diff = io();
    expect(await runCli(["replay", path, "--diff", "3"], diff), diff.err()).toBe(0);
    expect(diff.out()).toMatch(/state change of request #3 POST https:\/\/app\.run-orchestration\.test\/api\/v2\/runs \(at 2024-01-01T00:00:00\.000Z\): \d+ changes/);
    expect(diff.out()).toMatch(/\n {2}\/services\/runs\/\S*run-\S*: \(absent\) -> \{/);

    const until = io();
    const serving = runCli(["replay", path, "--until", "4", "--port", "0", "--json"], until);
    for (let i = 0; i < 200 && !until.out().includes('"url"'); i++) await new Promise((resolve) => setTimeout(resolve, 25));
    const started = JSON.parse(until.out().split("\n").find((line) => line.startsWith("{")) ?? "{}") as { url: string; before: { n: number; method: string; url: string } };
    expect(started.before).toMatchObject({ n: 4, method: "GET" });
    // The world before request 4: the run exists, still planning at 00:00 (the 5 minutes came after).
    const clock = (await (await fetch(`${started.url}/_sim/clock`)).json()) as { now: string };
    expect(clock.now).toBe("2024-01-01T00:00:00.000Z");
    const recorded = requests[3] as BundleRequest;
    const answer = await fetch(started.before.url, { headers: { authorization: recorded.headers.authorization ?? "" } });
    expect(answer.status).toBe(200);
    const status = ((await answer.json()) as { data: { attributes: { status: string } } }).data.attributes.status;
    expect(status).not.toBe("planned");
    until.signals.emit("SIGINT");
    expect(await serving).toBe(0);
    expect(existsSync(path)).toBe(true);
  });
});
