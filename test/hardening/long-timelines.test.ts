/**
 * Long timelines (issue 24, item 3). Measured on main: a 10^6-step timeline posted to the server had
 * no answer after 100 s and health went unanswered 10 s later; `infra-doubles run` on a long one
 * crashed at the end (`lines.push(...transcript.lines)`: a spread of an unbounded array into a
 * call throws RangeError past about 125,000 elements). Now `POST /_sim/scenario?play=true` plays
 * in slices that yield to the event loop, a posted timeline is capped at
 * {@link MAX_POSTED_TIMELINE_STEPS} steps (400 at `/timeline`, nothing loaded), and `run` writes a
 * transcript of any length.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runScenarioFile } from "../../src/cli/run.js";
import type { RunningServer } from "../../src/interceptors/server.js";
import { MAX_POSTED_TIMELINE_STEPS } from "../../src/scenarios/document/control-routes.js";
import { createDoubles } from "../../src/scenarios/doubles.js";

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** `n` steps: alternately a one-second advance and an expectation that holds. */
function timeline(n: number): unknown[] {
  return Array.from({ length: n }, (_, i) => (i % 2 === 0 ? { advance: "1s" } : { expect: { path: "secrets.nodeState", equals: "active" } }));
}

const JSON_TYPE = { "content-type": "application/json" };

describe("POST /_sim/scenario?play=true", () => {
  it(`plays ${MAX_POSTED_TIMELINE_STEPS} steps in slices: health requests meanwhile are answered (9 in 10 under 100 ms)`, async () => {
    server = await createDoubles({ seed: 1, clock: "manual" }).listen();
    const url = server.url;
    for (let i = 0; i < 3; i++) await (await fetch(`${url}/v1/sys/health`)).arrayBuffer();
    let playing = true;
    const posted = (async () => {
      const response = await fetch(`${url}/_sim/scenario?play=true`, { method: "POST", headers: JSON_TYPE, body: JSON.stringify({ timeline: timeline(MAX_POSTED_TIMELINE_STEPS) }) });
      playing = false;
      return { status: response.status, body: (await response.json()) as { transcript: { ok: boolean; passed: number; lines: string[] } } };
    })();
    const waits: number[] = [];
    while (playing) {
      const started = performance.now();
      await (await fetch(`${url}/v1/sys/health`)).arrayBuffer();
      waits.push(performance.now() - started);
    }
    const answer = await posted;
    expect(answer.status).toBe(201);
    expect(answer.body.transcript).toMatchObject({ ok: true, passed: MAX_POSTED_TIMELINE_STEPS / 2, failed: 0 });
    expect(answer.body.transcript.lines).toHaveLength(MAX_POSTED_TIMELINE_STEPS);
    expect(answer.body.transcript.lines.at(-1)).toMatch(/^step 10000 \[\+1h23m20s /);
    // The document is checked and loaded in one piece (about 10 us a step); the play yields.
    expect(waits.length).toBeGreaterThan(5);
    const sorted = [...waits].sort((a, b) => a - b);
    expect(sorted[Math.floor(sorted.length * 0.9)], `health waits (ms): ${waits.map(Math.round).join(", ")}`).toBeLessThan(100);
  }, 120_000);

  it(`refuses a timeline of more than ${MAX_POSTED_TIMELINE_STEPS} steps whole: 400 at /timeline, nothing loaded or played`, async () => {
    const doubles = createDoubles({ seed: 1, clock: "manual" });
    server = await doubles.listen();
    const before = doubles.now();
    const document = { secrets: { tokens: [{ name: "extra", policies: ["default"] }] }, timeline: timeline(MAX_POSTED_TIMELINE_STEPS + 1) };
    const response = await fetch(`${server.url}/_sim/scenario?play=true`, { method: "POST", headers: JSON_TYPE, body: JSON.stringify(document) });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("invalid");
    expect(body.error.message).toContain("/timeline");
    expect(body.error.message).toContain(`at most ${MAX_POSTED_TIMELINE_STEPS} steps`);
    expect(doubles.now()).toBe(before);
  });
});

describe("infra-doubles run", () => {
  it("plays and prints a 140,000-step timeline (a spread of its lines threw RangeError)", () => {
    const dir = mkdtempSync(join(tmpdir(), "long-timeline-"));
    try {
      const file = join(dir, "long.json");
      writeFileSync(file, JSON.stringify({ timeline: timeline(140_000) }));
      let out = "";
      let err = "";
      const code = runScenarioFile(file, { seed: 1 }, { write: (t: string) => (out += t) }, { write: (t: string) => (err += t) });
      expect([code, err]).toEqual([0, ""]);
      expect(out.endsWith("\n70000 expectations passed, 0 failed\n")).toBe(true);
      expect(out.split("\n").filter((line) => line.startsWith("step "))).toHaveLength(140_000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
