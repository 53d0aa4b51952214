#!/usr/bin/env node
/**
 * Soak of the dev server under mixed load (issue 24; not part of `npm test`): starts
 * `node dist/cli.cjs serve` (run `npm run build` first) and, for N minutes, keeps in flight at once:
 *   - service traffic (secrets mounts and LIST ssh roles, access-control token self, a
 *     workspace's runs), three clients back to back;
 *   - `GET /_sim/journal` read whole, again and again (the journal holds 1,000 entries);
 *   - `POST /_sim/scenario?play=true` with a 10,000-step timeline, again and again;
 *   - a 33 MiB secrets write (over the 32 MiB limit: streamed until the server's 413), again and again;
 *   - `GET /v1/sys/health` back to back, timed.
 * Reports the server's RSS after warm-up and at the end, health latency percentiles (p50, p99, max)
 * while the rest is in flight, and counts of answers and of unexpected ones.
 *
 *   node scripts/soak.mjs [--minutes 15] [--warmup 60]
 * Exit status 1 when health p99 >= 50 ms, RSS grew by more than 20% after warm-up, or any answer
 * was unexpected.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { clearInterval, setInterval } from "node:timers";
import { parseArgs } from "node:util";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({ options: { minutes: { type: "string", default: "15" }, warmup: { type: "string", default: "60" } } });
const minutes = Number(values.minutes);
const warmupMs = Number(values.warmup) * 1000;
if (!(minutes > 0) || !(warmupMs >= 0)) throw new Error("--minutes must be > 0 and --warmup >= 0");

const server = spawn(process.execPath, [join(root, "dist/cli.cjs"), "serve", "--port", "0", "--json", "--clock", "manual"], { stdio: ["ignore", "pipe", "inherit"] });
const [line] = await new Promise((resolveLine, reject) => {
  server.once("exit", (code) => reject(new Error(`the server exited (${code}) before its start line`)));
  createInterface({ input: server.stdout }).once("line", (l) => resolveLine([l]));
});
const start = JSON.parse(line);
const url = start.url;
const rootToken = start.secrets.rootToken;
const started = Date.now();
const endAt = started + minutes * 60_000;
const running = () => Date.now() < endAt;

const counts = {};
const unexpected = [];
function count(name, status, expected) {
  counts[name] = (counts[name] ?? 0) + 1;
  if (!expected.includes(status) && unexpected.length < 20) unexpected.push(`${name}: ${status}`);
  if (!expected.includes(status)) counts[`${name} unexpected`] = (counts[`${name} unexpected`] ?? 0) + 1;
}

async function call(name, path, init, expected) {
  try {
    const response = await fetch(`${url}${path}`, init);
    await response.arrayBuffer();
    count(name, response.status, expected);
  } catch (error) {
    count(name, `error ${error.cause?.code ?? error.message}`, expected);
  }
}

const SECRETS = { "x-secrets-token": rootToken, "content-type": "application/json" };
async function serviceClient(i) {
  const secretsBase = new URL(start.secrets.baseUrl).pathname;
  const runsBase = new URL(start.runs.baseUrl).pathname;
  const aclBase = new URL(start.accessControl.baseUrl).pathname;
  while (running()) {
    await call("secrets GET /sys/mounts", `${secretsBase}/sys/mounts`, { headers: SECRETS }, [200]);
    await call("secrets LIST /ssh/roles", `${secretsBase}/ssh/roles?list=true`, { headers: SECRETS }, [200]);
    await call("access control GET /acl/token/self", `${aclBase}/acl/token/self`, { headers: { "x-consul-token": start.accessControl.bootstrapSecretId } }, [200]);
    await call("runs GET /workspaces/:workspace_id/runs", `${runsBase}/workspaces/${start.runs.workspaceId}/runs?client=${i}`, { headers: { authorization: `Bearer ${start.runs.userToken}` } }, [200]);
  }
}

async function journalReader() {
  while (running()) {
    try {
      const response = await fetch(`${url}/_sim/journal`);
      const reader = response.body.getReader();
      for (;;) if ((await reader.read()).done) break;
      count("GET /_sim/journal", response.status, [200]);
    } catch (error) {
      count("GET /_sim/journal", `error ${error.message}`, [200]);
    }
  }
}

const timeline = JSON.stringify({
  timeline: Array.from({ length: 10_000 }, (_, i) => (i % 2 === 0 ? { advance: "1s" } : { expect: { path: "secrets.nodeState", equals: "active" } })),
});
async function timelinePoster() {
  while (running()) await call("POST /_sim/scenario?play=true (10,000 steps)", "/_sim/scenario?play=true", { method: "POST", headers: { "content-type": "application/json" }, body: timeline }, [201]);
}

/** 33 MiB in 1 MiB chunks through node:http; the server answers 413 once past 32 MiB. */
function bigBody() {
  return new Promise((done) => {
    const req = http.request(`${url}/v1/secret/data/big`, { method: "POST", headers: { ...SECRETS, "transfer-encoding": "chunked" } }, (res) => {
      res.resume();
      res.on("end", () => {
        count("POST 33 MiB body", res.statusCode, [413]);
        req.destroy();
        done();
      });
    });
    req.on("error", (error) => {
      // The server closes an over-limit upload after its 413: a write racing the close fails (EPIPE, ECONNRESET).
      count("POST 33 MiB body", `error ${error.code ?? error.message}`, [413, "error EPIPE", "error ECONNRESET"]);
      done();
    });
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let sent = 0;
    const pump = () => {
      while (sent < 33) {
        sent++;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      req.end();
    };
    pump();
  });
}
async function bigBodyPoster() {
  while (running()) await bigBody();
}

const waits = [];
async function healthPoller() {
  while (running()) {
    const t = performance.now();
    await call("GET /v1/sys/health", "/v1/sys/health", {}, [200]);
    if (Date.now() - started >= warmupMs) waits.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const rss = [];
function rssMb() {
  const status = readFileSync(`/proc/${server.pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}
const sampler = setInterval(() => rss.push({ at: (Date.now() - started) / 1000, mb: rssMb() }), 5_000);

await Promise.all([healthPoller(), journalReader(), timelinePoster(), bigBodyPoster(), ...[0, 1, 2].map(serviceClient)]);
clearInterval(sampler);
server.kill("SIGTERM");

const afterWarmup = rss.filter((s) => s.at * 1000 >= warmupMs);
const first = afterWarmup[0]?.mb ?? NaN;
const last = afterWarmup.at(-1)?.mb ?? NaN;
const peak = Math.max(...afterWarmup.map((s) => s.mb));
const sorted = waits.sort((a, b) => a - b);
const pct = (p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
const report = {
  minutes,
  warmupSeconds: warmupMs / 1000,
  rssMb: { afterWarmup: Math.round(first), end: Math.round(last), peakAfterWarmup: Math.round(peak), growthPercent: Math.round(((last - first) / first) * 1000) / 10 },
  healthMs: { count: sorted.length, p50: Math.round(pct(0.5) * 10) / 10, p99: Math.round(pct(0.99) * 10) / 10, max: Math.round((sorted.at(-1) ?? NaN) * 10) / 10 },
  answers: counts,
  unexpected,
};
console.log(JSON.stringify(report, null, 2));
process.exitCode = report.healthMs.p99 >= 50 || report.rssMb.growthPercent > 20 || unexpected.length > 0 ? 1 : 0;
