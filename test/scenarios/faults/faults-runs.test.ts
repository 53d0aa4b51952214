/**
 * Faults on the run orchestration service, through every transport: its own 429 and 5xx answers,
 * latency, dropped connections, commit-then-fail, and each `when` (times, after, probability,
 * window). Issue 10 item 1.
 */
import { afterEach, describe, expect, it } from "vitest";
import { describeEachTransport } from "../../support/transports.js";
import { startRuns, type RunsWorld } from "../../interceptors/runs/support.js";

const SHOW_RUN = "GET /runs/:run_id";
const APPLY = "POST /runs/:run_id/actions/apply";

/** A run paused in `planned` (its plan finished). */
async function pausedRun(w: RunsWorld): Promise<string> {
  const { runId } = await w.upload();
  w.doubles.advance("1m");
  expect(w.runs.run(runId ?? "").status).toBe("planned");
  return runId ?? "";
}

/** The statuses of `n` reads of a run (0 for a dropped connection). */
async function statuses(w: RunsWorld, runId: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await w.api("GET", `/runs/${runId}`)).status);
  return out;
}

describeEachTransport("faults: run orchestration", (h) => {
  let world: RunsWorld | undefined;
  afterEach(() => world?.doubles.faults.clear());

  describe("the service's own answers", () => {
    it("answers 429 with X-RateLimit-Limit, X-RateLimit-Reset and Retry-After, as a JSON:API error, and journals the fault", async () => {
      const w = (world = await startRuns(h));
      const { runId } = await w.upload();
      const fault = w.doubles.faults.add({ service: "runs", route: SHOW_RUN, answer: "rate-limited", retryAfter: "1.5s" });
      const response = await w.api("GET", `/runs/${runId}`);
      expect(response.status).toBe(429);
      expect(response.headers.get("content-type")).toBe("application/vnd.api+json");
      expect(response.headers.get("x-ratelimit-limit")).toBe("30");
      expect(response.headers.get("x-ratelimit-reset")).toBe("1.500");
      expect(response.headers.get("retry-after")).toBe("2");
      expect(response.text).toBe('{"errors":[{"status":"429","title":"too many requests"}]}');
      expect(w.doubles.handler.journal.at(-1)).toMatchObject({ status: 429, fault: fault.id });
      expect(fault.applied).toBe(1);
    });

    it("answers 500, 502 and 503 JSON:API error documents", async () => {
      const w = (world = await startRuns(h));
      const { runId } = await w.upload();
      for (const [answer, status, title] of [
        ["internal-error", 500, "internal server error"],
        ["bad-gateway", 502, "bad gateway"],
        ["unavailable", 503, "service unavailable"],
      ] as const) {
        const fault = w.doubles.faults.add({ service: "runs", route: SHOW_RUN, answer });
        const response = await w.api("GET", `/runs/${runId}`);
        expect(response.status).toBe(status);
        expect(response.body).toEqual({ errors: [{ status: String(status), title }] });
        fault.remove();
      }
      expect((await w.api("GET", `/runs/${runId}`)).status).toBe(200);
    });

    it("matches by operation name, and leaves other routes alone", async () => {
      const w = (world = await startRuns(h));
      const runId = await pausedRun(w);
      w.doubles.faults.add({ service: "runs", operation: "apply run", answer: "unavailable" });
      expect((await w.api("GET", `/runs/${runId}`)).status).toBe(200);
      expect((await w.api("POST", `/runs/${runId}/actions/apply`, { token: w.writer })).status).toBe(503);
      expect(w.runs.run(runId).status).toBe("planned");
    });
  });

  describe("when", () => {
    it("applies the next N times (times)", async () => {
      const w = (world = await startRuns(h));
      const { runId } = await w.upload();
      w.doubles.faults.add({ service: "runs", route: SHOW_RUN, answer: "internal-error", times: 2 });
      expect(await statuses(w, runId ?? "", 4)).toEqual([500, 500, 200, 200]);
      expect(w.doubles.faults.list()[0]).toMatchObject({ seen: 4, applied: 2, exhausted: true });
    });

    it("lets N matching calls through first (after)", async () => {
      const w = (world = await startRuns(h));
      const { runId } = await w.upload();
      w.doubles.faults.add({ service: "runs", route: SHOW_RUN, answer: "internal-error", after: 2, times: 1 });
      expect(await statuses(w, runId ?? "", 4)).toEqual([200, 200, 500, 200]);
    });

    it("applies during a window of simulated time (from, until)", async () => {
      const w = (world = await startRuns(h));
      const { runId } = await w.upload();
      w.doubles.faults.add({ service: "runs", route: SHOW_RUN, answer: "unavailable", from: "10s", until: "20s" });
      expect(await statuses(w, runId ?? "", 1)).toEqual([200]);
      w.doubles.advance("10s");
      expect(await statuses(w, runId ?? "", 1)).toEqual([503]);
      w.doubles.advance("9.999s");
      expect(await statuses(w, runId ?? "", 1)).toEqual([503]);
      w.doubles.advance("1ms");
      expect(await statuses(w, runId ?? "", 1)).toEqual([200]);
    });

    it("applies with probability p, drawn from the seed: the same seed gives the same answers", async () => {
      const draw = async (seed: number): Promise<number[]> => {
        const w = await startRuns(h, { seed, host: `seed-${seed}-${Math.floor(performance.now() * 1000)}.test` });
        const { runId } = await w.upload();
        w.doubles.faults.add({ service: "runs", route: SHOW_RUN, answer: "internal-error", probability: 0.5 });
        return statuses(w, runId ?? "", 24);
      };
      const first = await draw(5);
      const again = await draw(5);
      expect(again).toEqual(first);
      expect(first).toContain(500);
      expect(first).toContain(200);
      const other = await draw(6);
      expect(other).not.toEqual(first);
    });
  });

  describe("latency", () => {
    it("advances the manual clock by the latency, then answers normally", async () => {
      const w = (world = await startRuns(h));
      const { runId } = await w.upload();
      const before = w.doubles.now();
      w.doubles.faults.add({ service: "runs", route: SHOW_RUN, latency: "2.5s" });
      const response = await w.api("GET", `/runs/${runId}`);
      expect(response.status).toBe(200);
      expect(w.doubles.now() - before).toBe(2500);
      expect(w.doubles.handler.journal.at(-1)).toMatchObject({ status: 200, fault: "fault-1" });
    });
  });

  describe("dropped connections", () => {
    it("resets the connection: the client's request fails, and the journal says status 0", async () => {
      const w = (world = await startRuns(h));
      const { runId } = await w.upload();
      w.doubles.faults.add({ service: "runs", route: SHOW_RUN, connection: "reset", times: 1 });
      await expect(w.api("GET", `/runs/${runId}`)).rejects.toThrow();
      expect(w.doubles.handler.journal.at(-1)).toMatchObject({ status: 0, fault: "fault-1" });
      expect((await w.api("GET", `/runs/${runId}`)).status).toBe(200);
    });

    it("hangs up: the client's request fails", async () => {
      const w = (world = await startRuns(h));
      const { runId } = await w.upload();
      w.doubles.faults.add({ service: "runs", route: SHOW_RUN, connection: "hang-up", times: 1 });
      await expect(w.api("GET", `/runs/${runId}`)).rejects.toThrow();
    });

    it("never answers until the client's timeout", async () => {
      const w = (world = await startRuns(h));
      const { runId } = await w.upload();
      w.doubles.faults.add({ service: "runs", route: SHOW_RUN, connection: "no-response", times: 1 });
      const url = `${w.base}/runs/${runId}`;
      await expect(fetch(url, { headers: { authorization: `Bearer ${w.admin}` }, signal: AbortSignal.timeout(150) })).rejects.toThrow(/abort|timeout/i);
      expect((await w.api("GET", `/runs/${runId}`)).status).toBe(200);
    });

    it("a request never answered ends when the doubles close: the client's request fails, nothing keeps the process alive", async () => {
      const w = (world = await startRuns(h));
      const { runId } = await w.upload();
      w.doubles.faults.add({ service: "runs", route: SHOW_RUN, connection: "no-response" });
      const pending = fetch(`${w.base}/runs/${runId}`, { headers: { authorization: `Bearer ${w.admin}` } });
      const settled = pending.then(
        () => "answered",
        () => "failed",
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      await w.doubles.close();
      expect(await settled).toBe("failed");
    });
  });

  describe("commit then fail", () => {
    it("applies the run, then drops the connection: the state change is kept", async () => {
      const w = (world = await startRuns(h));
      const runId = await pausedRun(w);
      w.doubles.faults.add({ service: "runs", route: APPLY, connection: "reset", commit: true, times: 1 });
      await expect(w.api("POST", `/runs/${runId}/actions/apply`, { token: w.writer })).rejects.toThrow();
      expect(w.runs.run(runId).status).toBe("confirmed");
      // A blind retry meets the real service's answer to a second apply.
      expect((await w.api("POST", `/runs/${runId}/actions/apply`, { token: w.writer })).status).toBe(409);
    });

    it("applies the run, then answers 500: the state change is kept", async () => {
      const w = (world = await startRuns(h));
      const runId = await pausedRun(w);
      w.doubles.faults.add({ service: "runs", route: APPLY, answer: "internal-error", commit: true });
      expect((await w.api("POST", `/runs/${runId}/actions/apply`, { token: w.writer })).status).toBe(500);
      expect(w.runs.run(runId).status).toBe("confirmed");
    });
  });

  describe("list, remove, clear", () => {
    it("lists faults with their counts; remove() and clear() take them away", async () => {
      const w = (world = await startRuns(h));
      const { runId } = await w.upload();
      const a = w.doubles.faults.add({ service: "runs", route: SHOW_RUN, answer: "internal-error", times: 1 });
      w.doubles.faults.add({ service: "runs", operation: "apply run", answer: "unavailable", until: "1m" });
      expect(w.doubles.faults.list().map((f) => f.id)).toEqual(["fault-1", "fault-2"]);
      expect(w.doubles.faults.list()[1]).toMatchObject({ until: "2024-01-01T00:01:00.000Z", seen: 0, applied: 0, exhausted: false });
      a.remove();
      expect(w.doubles.faults.list().map((f) => f.id)).toEqual(["fault-2"]);
      w.doubles.faults.add({ service: "runs", route: SHOW_RUN, answer: "internal-error" });
      expect((await w.api("GET", `/runs/${runId}`)).status).toBe(500);
      w.doubles.faults.clear();
      expect(w.doubles.faults.list()).toEqual([]);
      expect((await w.api("GET", `/runs/${runId}`)).status).toBe(200);
    });
  });
});
