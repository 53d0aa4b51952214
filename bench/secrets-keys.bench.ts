/**
 * RSA key rows (`npm run bench`, see bench/README.md), issue 8 defect 6, each beside a health
 * request measured in the same run:
 * - generating an SSH CA of 2048 or 4096 bits through the handler (DELETE then POST config/ca):
 *   under 50 ms;
 * - building a pooled RSA-4096/8192 key from its two primes, uncached (the first use of a pair):
 *   under 50 ms;
 * - a health request sent through the server while a 4096-bit CA is being generated: delayed by at
 *   most 10 ms over the health request alone.
 * Before the prime pool, a 4096-bit CA took 2-5 s and an 8192-bit one 20 s, blocking every other
 * request for as long.
 */
import { sshHttp } from "../src/interceptors/secrets/ssh/ssh-http.js";
import { DoublesCore } from "../src/scenarios/doubles-core.js";
import { createSecretsPlugin } from "../src/scenarios/secrets/plugin.js";
import { modInverse } from "../src/simulator/secrets/ssh/deterministic-ecdsa.js";
import { RSA_PRIME_POOL } from "../src/simulator/secrets/rsa-prime-pool.js";
import { rsaPrivateKey } from "../src/simulator/secrets/seeded-keys.js";
import { sshEngine } from "../src/simulator/secrets/ssh/ssh-engine.js";
import { row, type Measure } from "./table.js";

const plugin = () => createSecretsPlugin({ engines: { ssh: sshEngine }, engineHttp: { ssh: sshHttp }, rootToken: "root" });

function request(method: string, path: string, body?: unknown) {
  return {
    method,
    url: new URL(`https://secrets.test/v1/${path}`),
    headers: { "x-secrets-token": "root", "content-type": "application/json" },
    body: body === undefined ? new Uint8Array() : new TextEncoder().encode(JSON.stringify(body)),
  };
}

/** A doubles with the SSH engine mounted, and a health request through its handler (the anchor). */
async function mounted(): Promise<{ doubles: DoublesCore; health: Measure }> {
  const doubles = new DoublesCore([plugin()], { seed: 1 });
  await doubles.handler.handle(request("POST", "sys/mounts/ssh", { type: "ssh" }));
  return { doubles, health: { label: "health request, handler", run: () => doubles.handler.handle(request("GET", "sys/health")) } };
}

for (const bits of [2048, 4096]) {
  row({
    name: `SSH CA RSA ${bits} (DELETE + POST config/ca, handler)`,
    clock: "cpu",
    target: "<= 50ms",
    setup: async () => {
      const { doubles, health } = await mounted();
      return {
        figure: {
          label: `CA RSA ${bits}`,
          run: async () => {
            await doubles.handler.handle(request("DELETE", "ssh/config/ca"));
            const answer = await doubles.handler.handle(request("POST", "ssh/config/ca", { key_type: "ssh-rsa", key_bits: bits }));
            if (answer.status !== 200) throw new Error(`config/ca answered ${answer.status}: ${String(answer.body)}`);
          },
        },
        anchor: health,
      };
    },
  });
}

function primes(bits: number): bigint[] {
  const bytes = Buffer.from(RSA_PRIME_POOL[bits] ?? "", "base64");
  const width = bits / 16;
  const out: bigint[] = [];
  for (let offset = 0; offset < bytes.length; offset += width) out.push(BigInt(`0x${bytes.subarray(offset, offset + width).toString("hex")}`));
  return out;
}

for (const bits of [4096, 8192]) {
  row({
    name: `build an RSA ${bits} key from two pooled primes`,
    clock: "cpu",
    target: "<= 50ms",
    setup: async () => {
      const [p, q] = primes(bits) as [bigint, bigint];
      const { health } = await mounted();
      return {
        figure: {
          label: `RSA ${bits}`,
          run: () => rsaPrivateKey({ n: p * q, e: 65537n, d: modInverse(65537n, (p - 1n) * (q - 1n)), p, q }).export({ type: "pkcs8", format: "pem" }),
        },
        anchor: health,
      };
    },
  });
}

row({
  name: "health request sent while an RSA 4096 CA is generated (server)",
  kind: "value",
  unit: "ms",
  target: "<= +10ms",
  setup: async () => {
    const doubles = new DoublesCore([plugin()], { seed: 2 });
    const server = await doubles.listen();
    const base = `${server.url}/v1`;
    const headers = { "x-secrets-token": "root", "content-type": "application/json" };
    await fetch(`${base}/sys/mounts/ssh`, { method: "POST", headers, body: '{"type":"ssh"}' });
    const health = async (): Promise<number> => {
      const start = performance.now();
      await (await fetch(`${base}/sys/health`)).arrayBuffer();
      return performance.now() - start;
    };
    return {
      figure: {
        label: "health during a CA generation",
        value: async () => {
          await (await fetch(`${base}/ssh/config/ca`, { method: "DELETE", headers })).arrayBuffer();
          const generation = fetch(`${base}/ssh/config/ca`, { method: "POST", headers, body: '{"key_bits":4096}' }).then((r) => r.arrayBuffer());
          const took = await health();
          await generation;
          return took;
        },
      },
      // The anchor also has a second request in flight (a CA read), so both sides use two pooled
      // connections: the difference is the CA generation's hold on the event loop alone.
      anchor: {
        label: "health beside a CA read (server)",
        value: async () => {
          const read = fetch(`${base}/ssh/config/ca`, { headers }).then((r) => r.arrayBuffer());
          const took = await health();
          await read;
          return took;
        },
      },
      teardown: () => server.close(),
    };
  },
});
