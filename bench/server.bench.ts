/**
 * Server rows (`npm run bench`, see bench/README.md): GET of a stored run from the node:http
 * transport (`doubles.listen()`), against a bare node:http server calling the same `handle()` per
 * request (the transport's own cost, issue 25 decision 1a; targets <= 1.15x one at a time, >= 0.87x
 * the rate with 32 in flight) and against a bare node:http server sending the same bytes (shown, not
 * judged: the service's own work), all through a keep-alive node:http agent. Client and server share the process, so its CPU time per
 * request (clock "cpu") is what bounds throughput and sequential latency on loopback, and it holds
 * still when other processes load the machine; `BENCH_CLOCK=wall npm run bench -- server` times
 * them in wall time on a quiet machine.
 */
import { Agent } from "node:http";
import { bareHandleServer, bareHttpServer, httpGet, httpGets, staticReply } from "./anchors.js";
import { runGet } from "./fixtures.js";
import { PEER_NAMES, startDoublesServer, startPeer, type ChildServer, type Payload } from "./peers.js";
import { row, SkipRow, type Comparison } from "./table.js";

const IN_FLIGHT = 32;
const REQUESTS = 320;

async function servers() {
  const { doubles, request, headers } = await runGet();
  const served = await doubles.listen({ port: 0 });
  const url = `${served.url}${request.url.pathname}${request.url.search}`;
  const probe = await fetch(url, { headers });
  if (probe.status !== 200) throw new Error(`bench: the server answered ${probe.status} to ${url}`);
  // node:http adds these itself, on both servers alike.
  const added = new Set(["date", "connection", "keep-alive", "transfer-encoding"]);
  const replyHeaders: Record<string, string> = {};
  probe.headers.forEach((value, name) => {
    if (!added.has(name)) replyHeaders[name] = value;
  });
  const reply = staticReply({ status: probe.status, headers: replyHeaders, body: new Uint8Array(await probe.arrayBuffer()) });
  const bare = await bareHttpServer(reply);
  const bareHandle = await bareHandleServer(doubles.handler, request.url.origin);
  const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  const bareHandleUrl = `${bareHandle.url}${request.url.pathname}${request.url.search}`;
  const check = await fetch(bareHandleUrl, { headers });
  if (check.status !== 200 || (await check.text()) !== new TextDecoder().decode(reply.body)) throw new Error("bench: the bare handle() server does not answer the server's bytes");
  return {
    url,
    bareUrl: `${bare.url}${request.url.pathname}`,
    bareHandleUrl,
    headers,
    agent,
    teardown: async () => {
      agent.destroy();
      await served.close();
      await bare.close();
      await bareHandle.close();
    },
  };
}

row({
  name: "GET run, one request at a time, vs bare node:http calling handle()",
  clock: "cpu",
  target: "<= 1.15x",
  setup: async () => {
    const { url, bareHandleUrl, headers, agent, teardown } = await servers();
    return {
      figure: { label: "doubles.listen()", run: () => httpGet(url, agent, headers) },
      anchor: { label: "bare node:http calling handle()", run: () => httpGet(bareHandleUrl, agent, headers) },
      teardown,
    };
  },
});

row({
  name: `GET run, ${IN_FLIGHT} in flight, vs bare node:http calling handle()`,
  kind: "rate",
  clock: "cpu",
  target: ">= 0.87x",
  setup: async () => {
    const { url, bareHandleUrl, headers, agent, teardown } = await servers();
    return {
      figure: { label: "doubles.listen()", ops: REQUESTS, run: () => httpGets(url, agent, headers, REQUESTS, IN_FLIGHT) },
      anchor: { label: "bare node:http calling handle()", ops: REQUESTS, run: () => httpGets(bareHandleUrl, agent, headers, REQUESTS, IN_FLIGHT) },
      teardown,
    };
  },
});

row({
  // Target retired (issue 25, decision 1): the bare server does none of the service's work.
  name: "GET run, one request at a time, vs bare node:http sending the same bytes",
  clock: "cpu",
  setup: async () => {
    const { url, bareUrl, headers, agent, teardown } = await servers();
    return {
      figure: { label: "doubles.listen()", run: () => httpGet(url, agent, headers) },
      anchor: { label: "bare node:http, same bytes", run: () => httpGet(bareUrl, agent, headers) },
      teardown,
    };
  },
});

row({
  // Target retired (issue 25, decision 1), as above.
  name: `GET run, ${IN_FLIGHT} in flight, vs bare node:http sending the same bytes`,
  kind: "rate",
  clock: "cpu",
  setup: async () => {
    const { url, bareUrl, headers, agent, teardown } = await servers();
    return {
      figure: { label: "doubles.listen()", ops: REQUESTS, run: () => httpGets(url, agent, headers, REQUESTS, IN_FLIGHT) },
      anchor: { label: "bare node:http, same bytes", ops: REQUESTS, run: () => httpGets(bareUrl, agent, headers, REQUESTS, IN_FLIGHT) },
      teardown,
    };
  },
});

/**
 * The dev server against the mock servers a team would run instead (issue 25, decision 1b), each in
 * its own process on loopback serving the same payload (bench/peers.ts), 32 GETs in flight from
 * this process through a keep-alive agent per server; wall time (the servers are other processes).
 */
async function againstPeer(choose: (payload: Payload) => Promise<ChildServer>): Promise<Comparison> {
  const doubles = await startDoublesServer();
  let peer: ChildServer;
  try {
    peer = await choose(doubles.payload);
  } catch (error) {
    await doubles.close();
    throw error;
  }
  const agents = [new Agent({ keepAlive: true, maxSockets: IN_FLIGHT }), new Agent({ keepAlive: true, maxSockets: IN_FLIGHT })] as const;
  const { headers } = doubles.payload;
  return {
    figure: { label: "doubles.listen()", ops: REQUESTS, run: () => httpGets(doubles.url, agents[0], headers, REQUESTS, IN_FLIGHT) },
    anchor: { label: peer.name, ops: REQUESTS, run: () => httpGets(peer.url, agents[1], headers, REQUESTS, IN_FLIGHT) },
    teardown: async () => {
      for (const agent of agents) agent.destroy();
      await Promise.all([doubles.close(), peer.close()]);
    },
  };
}

for (const name of PEER_NAMES) {
  row({
    name: `GET run, ${IN_FLIGHT} in flight, vs peer ${name}`,
    kind: "rate",
    setup: () => againstPeer((payload) => startPeer(name, payload)),
  });
}

row({
  // Every peer that starts is timed for a few batches first; the row compares with the fastest.
  name: `GET run, ${IN_FLIGHT} in flight, vs the fastest peer mock server`,
  kind: "rate",
  target: ">= 1.5x",
  setup: () =>
    againstPeer(async (payload) => {
      const started: ChildServer[] = [];
      const reasons: string[] = [];
      for (const name of PEER_NAMES) {
        try {
          started.push(await startPeer(name, payload));
        } catch (error) {
          if (!(error instanceof SkipRow)) throw error;
          reasons.push(error.message);
        }
      }
      if (started.length === 0) throw new SkipRow(`no peer started: ${reasons.join("; ")}`);
      const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
      const rates = new Map<ChildServer, number[]>(started.map((peer) => [peer, []]));
      for (let round = 0; round < 4; round++) {
        for (const peer of started) {
          const start = performance.now();
          await httpGets(peer.url, agent, payload.headers, REQUESTS, IN_FLIGHT);
          if (round > 0) rates.get(peer)?.push(REQUESTS / (performance.now() - start));
        }
      }
      agent.destroy();
      const median = (values: number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;
      const fastest = started.reduce((best, peer) => (median(rates.get(peer) ?? []) > median(rates.get(best) ?? []) ? peer : best));
      await Promise.all(started.filter((peer) => peer !== fastest).map((peer) => peer.close()));
      return { ...fastest, name: `${fastest.name} (fastest peer)` };
    }),
});
