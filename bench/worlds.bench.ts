/**
 * Worlds of the dev server (issue 26 item 1; `npm run bench -- worlds`, see bench/README.md): a
 * world made through `POST /_sim/worlds` on the default scenario, 200 live worlds' memory, and a
 * world's GET run against the default world's. Server and client share the process (clock "cpu"
 * where the work stays in it).
 */
import { Agent } from "node:http";
import { startDevServer, type DevServer } from "../src/cli/serve.js";
import { Worlds } from "../src/cli/worlds.js";
import type { Doubles } from "../src/scenarios/doubles.js";
import { httpGet } from "./anchors.js";
import { storeFinishedRun } from "./fixtures.js";
import { row } from "./table.js";

const JSON_TYPE = { "content-type": "application/json" };

/** `serve`'s default world with its `/_sim/worlds` routes, as `infra-doubles serve` starts them. */
async function serve(): Promise<{ worlds: Worlds; dev: DevServer; close: () => Promise<void> }> {
  const worlds = new Worlds({ host: "127.0.0.1", seed: 1, clock: "advanceable", maxWorlds: 1_000 });
  const dev = await startDevServer({ port: 0, controlRoutes: [worlds.routes] });
  return {
    worlds,
    dev,
    close: async () => {
      await worlds.close();
      await dev.close();
    },
  };
}

async function createWorld(server: string): Promise<{ id: string; url: string }> {
  const response = await fetch(`${server}/_sim/worlds`, { method: "POST", headers: JSON_TYPE, body: "{}" }).catch((error: Error) => {
    throw new Error(`bench: POST /_sim/worlds: ${String(error.cause)}`);
  });
  if (response.status !== 201) throw new Error(`bench: POST /_sim/worlds answered ${response.status} ${await response.text()}`);
  return (await response.json()) as { id: string; url: string };
}

row({
  name: "create a world with the default scenario (POST /_sim/worlds)",
  clock: "cpu",
  target: "<= 20ms",
  setup: async () => {
    const { dev, close } = await serve();
    const made: string[] = [];
    const opened: DevServer[] = [];
    return {
      figure: {
        label: "POST /_sim/worlds",
        run: async () => made.push((await createWorld(dev.url)).id),
        // Untimed: the batch's worlds closed again, so every batch starts from none.
        after: async () => {
          await Promise.all(made.splice(0).map((id) => fetch(`${dev.url}/_sim/worlds/${id}`, { method: "DELETE" }).then((r) => r.arrayBuffer())));
        },
      },
      anchor: {
        label: "startDevServer({ port: 0 }) in process",
        run: async () => opened.push(await startDevServer({ port: 0 })),
        after: async () => {
          await Promise.all(opened.splice(0).map(async (server) => {
            await server.close();
            await server.doubles.close();
          }));
        },
      },
      teardown: close,
    };
  },
});

row({
  name: "memory: RSS of a server holding 200 live worlds",
  kind: "value",
  unit: "MB",
  target: "<= 300MB",
  rounds: 1,
  setup: async () => {
    const rss = (): number => {
      (globalThis as { gc?: () => void }).gc?.();
      return process.memoryUsage().rss / 1e6;
    };
    const { dev, close } = await serve();
    const empty = rss();
    for (let i = 0; i < 200; i++) await createWorld(dev.url);
    return { figure: { label: "200 worlds", value: rss }, anchor: { label: "the same server before", value: () => empty }, teardown: close };
  },
});

/** One finished run in `doubles` (storeFinishedRun), as a path and the headers reading it. */
function storeRun(doubles: Doubles): { path: string; headers: Record<string, string> } {
  const { run, token } = storeFinishedRun(doubles);
  return { path: `/api/v2/runs/${run.id}`, headers: { authorization: `Bearer ${token}` } };
}

row({
  name: "GET run on a world, one request at a time",
  clock: "cpu",
  target: "<= 1.1x",
  setup: async () => {
    const { worlds, dev, close } = await serve();
    const world = await createWorld(dev.url);
    const worldDoubles = worlds.doublesOf(world.id) as Doubles | undefined;
    if (worldDoubles === undefined) throw new Error("bench: the world is gone");
    const own = storeRun(worldDoubles);
    const main = storeRun(dev.doubles as Doubles);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    for (const [url, headers] of [[`${world.url}${own.path}`, own.headers], [`${dev.url}${main.path}`, main.headers]] as const) {
      const probe = await fetch(url, { headers });
      if (probe.status !== 200) throw new Error(`bench: GET ${url} answered ${probe.status}`);
    }
    return {
      figure: { label: "a world, on its own port", run: () => httpGet(`${world.url}${own.path}`, agent, own.headers) },
      anchor: { label: "the default world", run: () => httpGet(`${dev.url}${main.path}`, agent, main.headers) },
      teardown: async () => {
        agent.destroy();
        await close();
      },
    };
  },
});
