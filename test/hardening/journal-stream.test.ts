/**
 * `GET /_sim/journal` does not stall the server (issue 24, item 2). Measured on main: a journal of
 * 1,000 entries with 16 KiB bodies was serialised in one piece (17.1 MB in 3.2 s), and a health
 * request sent meanwhile waited 2.6 s. Now the answer is written in slices that yield to the event
 * loop between them, and can be paged (`?limit=&after=`) or read as NDJSON (`?format=ndjson`); the
 * whole-journal JSON answer keeps its shape for existing callers.
 */
import http from "node:http";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { journalWire } from "../../src/interceptors/journal.js";
import type { RunningServer } from "../../src/interceptors/server.js";
import { createDoubles, type Doubles } from "../../src/scenarios/doubles.js";

let server: RunningServer | undefined;
let doubles: Doubles;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Fills the journal with `count` secrets writes of 16 KiB each, in process (the journal is the server's too). */
async function fill(target: Doubles, count: number): Promise<void> {
  const handler = target.handler;
  const value = "x".repeat(16 * 1024);
  const base = target.baseUrls().secrets?.api ?? "";
  for (let i = 0; i < count; i++) {
    await handler.handle({
      method: "POST",
      url: new URL(`${base}/secret/data/item-${i}`),
      headers: { "x-secrets-token": target.secrets.rootToken, "content-type": "application/json" },
      body: new TextEncoder().encode(JSON.stringify({ data: { value } })),
    });
  }
}

beforeAll(async () => {
  doubles = createDoubles({ seed: 1, journal: { limit: 2000, maxBodyBytes: 16 * 1024 } });
  await fill(doubles, 2000);
}, 120_000);

describe("GET /_sim/journal of a full journal (2,000 entries of 16 KiB bodies, 34 MB)", () => {
  it("health requests sent while it is read are answered within a few ms (the longest under 100 ms)", async () => {
    server = await doubles.listen();
    const url = server.url;
    // fetch's first request in a process loads and compiles its client: not the server's wait.
    for (let i = 0; i < 3; i++) await (await fetch(`${url}/v1/sys/health`)).arrayBuffer();
    // The journal's client reads nothing for the first second (its socket's buffers fill: a
    // server that writes as the socket drains has little to do meanwhile), then reads the rest.
    const journal = new Promise<{ text: string; ms: number }>((resolve, reject) => {
      const started = performance.now();
      const req = http.get(`${url}/_sim/journal`, (res) => {
        res.pause();
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ text: Buffer.concat(chunks).toString("utf8"), ms: performance.now() - started }));
        setTimeout(() => res.resume(), 1_000);
      });
      req.on("error", reject);
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const waits: number[] = [];
    const until = performance.now() + 900;
    while (performance.now() < until) {
      const started = performance.now();
      await (await fetch(`${url}/v1/sys/health`)).arrayBuffer();
      waits.push(performance.now() - started);
    }
    const read = await journal;
    expect((JSON.parse(read.text) as { entries: unknown[] }).entries).toHaveLength(2000);
    expect(waits.length).toBeGreaterThan(3);
    expect(Math.max(...waits), `health waits (ms) while a ${read.text.length}-byte journal was read in ${Math.round(read.ms)} ms: ${waits.map(Math.round).join(", ")}`).toBeLessThan(100);
  }, 60_000);

  it("the whole-journal answer keeps its shape: {\"entries\": [...]} as journalWire gives each entry", async () => {
    server = await doubles.listen();
    const response = await fetch(`${server.url}/_sim/journal`);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    const body = (await response.json()) as { entries: unknown[] };
    expect(body).toEqual({ entries: doubles.handler.journal.map((entry) => journalWire(entry, false)) });
  });

  it("pages: ?limit=N&after=SEQ gives the next N entries after SEQ, and `next` while more remain", async () => {
    server = await doubles.listen();
    const all = doubles.handler.journal;
    const first = all[0]?.seq ?? 0;
    const page = (await (await fetch(`${server.url}/_sim/journal?limit=3&after=${first}`)).json()) as { entries: { seq: number }[]; next?: number };
    expect(page.entries.map((e) => e.seq)).toEqual([first + 1, first + 2, first + 3]);
    expect(page.next).toBe(first + 3);
    const last = (await (await fetch(`${server.url}/_sim/journal?limit=5&after=${(all.at(-1)?.seq ?? 0) - 2}`)).json()) as { entries: { seq: number }[]; next?: number };
    expect(last.entries).toHaveLength(2);
    expect(last).not.toHaveProperty("next");
    for (const bad of ["limit=0", "limit=-1", "limit=x", "after=-1", "after=1.5", "format=xml"]) {
      const refused = await fetch(`${server.url}/_sim/journal?${bad}`);
      expect([bad, refused.status, ((await refused.json()) as { error: { code: string } }).error.code]).toEqual([bad, 400, "invalid"]);
    }
  });

  it("?format=ndjson: one entry per line, application/x-ndjson", async () => {
    server = await doubles.listen();
    const response = await fetch(`${server.url}/_sim/journal?format=ndjson&limit=4`);
    expect(response.headers.get("content-type")).toBe("application/x-ndjson");
    const lines = (await response.text()).split("\n");
    expect(lines.at(-1)).toBe("");
    expect(lines.slice(0, -1).map((line) => JSON.parse(line) as unknown)).toEqual(doubles.handler.journal.slice(0, 4).map((entry) => journalWire(entry, false)));
  });
});
