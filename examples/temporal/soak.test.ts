/**
 * `infra-doubles soak` on the renewer as a process: 30 simulated days at 10,000x. The late
 * renewer (9/10 of the TTL) is stopped at its first renewal, 54 simulated minutes in, with the
 * contract it broke; a renewer at 1/4 of the TTL keeps every contract for 6 simulated hours; a
 * client that ends first is reported as such. The client is the example's `main.ts`, bundled to
 * JavaScript as an application ships it.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runCli } from "../../src/cli/main.js";

let dir: string;
let client: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "infra-doubles-soak-"));
  client = join(dir, "main.mjs");
  await build({ entryPoints: [join(import.meta.dirname, "main.ts")], bundle: true, platform: "node", format: "esm", target: "node20", outfile: client, logLevel: "silent" });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function soak(args: readonly string[], renewAt: string, command = ["/usr/bin/env", `RENEW_AT=${renewAt}`, process.execPath, client]): Promise<{ code: number; out: string; err: string; wallMs: number }> {
  let out = "";
  let err = "";
  const started = performance.now();
  const code = await runCli(["soak", ...args, "--", ...command], {
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text) },
    signals: { once: () => undefined, off: () => undefined },
  });
  return { code, out, err, wallMs: performance.now() - started };
}

it("finds the too-late renewer within 30 simulated days, at its first renewal, and stops it", async () => {
  const { code, out, err, wallMs } = await soak(["--for", "30d", "--speed", "10000"], "0.9");
  expect(err).toMatch(/^infra-doubles soak: 30d simulated at 10000x \(about 259\.2 s wall\) from 2024-01-01T00:00:00\.000Z; server http:\/\/127\.0\.0\.1:\d+; contracts renew-before=lease:2\/3, renew-before=token:2\/3, never-use-expired, honor-retry-after\n/);
  expect(code).toBe(1);
  // Wall latency is multiplied too (10 ms of a loaded machine's round trip: 100 simulated s), so
  // the renewal lands 54 min in or somewhat later: past 2/3 of the TTL, or past the expiry.
  expect(out).toMatch(
    /^infra-doubles soak: contract broken at \S+ \(\+\S+ simulated, [\d.]+ s wall, \d+ requests checked\)\n\nrenew-before=lease:2\/3: lease cloud\/creds\/deploy\/\S+ (renewed 5\dm\S* into its 1h TTL, past 2\/3 of it \(40m\)|expired at \S+ \(its 1h TTL from \S+\) and was renewed only \S+ later: renew before 2\/3 of the TTL \(40m\))\n {2}#\d+ \S+ \(\+\S+\) GET \/cloud\/creds\/:name -> 200\n {2}#\d+ \S+ \(\+\S+\) PUT \/sys\/leases\/renew -> (200|400)\n$/,
  );
  const at = Date.parse(/contract broken at (\S+)/.exec(out)?.[1] ?? "");
  expect(at - Date.UTC(2024, 0, 1)).toBeLessThan(30 * 86_400_000); // within the period, at the first renewal
  expect(Number(/(\d+) requests checked/.exec(out)?.[1])).toBeLessThanOrEqual(3); // tune, creds, the renewal: stopped there
  console.log(`soak found the late renewer in ${(wallMs / 1000).toFixed(2)} s of wall time (30 simulated days at 10000x)`);
});

it("a renewer at 1/4 of the TTL keeps every contract for 6 simulated hours (exit 0, a summary)", async () => {
  // At 2,000x (10.8 s of wall time) the renewer's 15 simulated minutes before each renewal leave
  // 25 minutes to the 2/3 mark: a loaded machine may stall the client up to 750 ms (at 10,000x,
  // 150 ms: a CI neighbour's garbage collection broke the contract for it).
  const { code, out } = await soak(["--for", "6h", "--speed", "2000", "--contracts", "renew-before=lease:2/3,never-use-expired"], "0.25");
  expect(out).toMatch(/^infra-doubles soak: 6h simulated in [\d.]+ s wall: \d+ requests checked, every contract kept \(renew-before=lease:2\/3, never-use-expired\)\n$/);
  expect(Number(/(\d+) requests checked/.exec(out)?.[1])).toBeGreaterThanOrEqual(12); // up to 24 renewals in 6 h: each cycle also waits for the HTTP round trip, in wall time x 2,000
  expect(code).toBe(0);
});

it("a client that ends first is reported, exit 3; bad arguments exit 2 with the usage", async () => {
  const ended = await soak(["--for", "1d"], "", [process.execPath, "-e", "setTimeout(() => process.exit(1), 200)"]);
  expect(ended.code).toBe(3);
  expect(ended.out).toMatch(/^infra-doubles soak: the client ended \(code 1\) after \S+ of the 1d simulated/);
  let err = "";
  const io = { stdout: { write: () => true }, stderr: { write: (text: string) => (err += text) }, signals: { once: () => undefined, off: () => undefined } };
  expect(await runCli(["soak", "--for", "30d"], io)).toBe(2);
  expect(err).toMatch(/^infra-doubles: soak needs the client command after --/);
  expect(await runCli(["soak", "--for", "30d", "--contracts", "renew-before=secret:2/3", "--", "true"], io)).toBe(2);
  expect(err).toContain('renew-before takes "lease" or "token"');
});

it("checks requests as they arrive: a lease issued 1,200 requests before its late renewal (beyond the journal's 1,000) is still judged", async () => {
  // A client that reads credentials, sends 1,200 health checks, then renews at 9/10 of the TTL.
  const busy = join(dir, "busy.mjs");
  writeFileSync(
    busy,
    `const base = process.env.VAULT_ADDR + "/v1", token = process.env.VAULT_TOKEN, speed = Number(process.env.INFRA_DOUBLES_SPEED);
const headers = { "X-Vault-Token": token, "Content-Type": "application/json" };
await fetch(base + "/sys/mounts/cloud/tune", { method: "POST", headers, body: JSON.stringify({ default_lease_ttl: "1h" }) });
const issued = performance.now();
const creds = await (await fetch(base + "/cloud/creds/deploy", { headers })).json();
for (let i = 0; i < 1200; i++) await (await fetch(base + "/sys/health")).arrayBuffer();
await new Promise((resolve) => setTimeout(resolve, Math.max(0, (creds.lease_duration * 1000 * 0.9) / speed - (performance.now() - issued))));
await fetch(base + "/sys/leases/renew", { method: "PUT", headers, body: JSON.stringify({ lease_id: creds.lease_id }) });
await new Promise((resolve) => setTimeout(resolve, 60_000));
`,
  );
  const { code, out } = await soak(["--for", "30d", "--speed", "1000", "--contracts", "renew-before=lease:2/3"], "", [process.execPath, busy]);
  expect(code).toBe(1);
  expect(Number(/(\d+) requests checked/.exec(out)?.[1])).toBe(1203);
  // The issuing request, #2, had left the 1,000-entry journal by the time of the renewal (#1203).
  expect(out).toMatch(/renew-before=lease:2\/3: lease cloud\/creds\/deploy\/\S+ (renewed 5\dm\S* into its 1h TTL|expired at )[^\n]*\n {2}#2 \S+ \(\+\S+\) GET \/cloud\/creds\/:name -> 200\n {2}#1203 \S+ \(\+\S+\) PUT \/sys\/leases\/renew -> (200|400)\n$/);
}, 60_000);
