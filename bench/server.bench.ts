/**
 * Server rows (`npm run bench`, see bench/README.md): GET of a stored run from the node:http
 * transport (`doubles.listen()`), against a bare node:http server sending the same bytes, both
 * through a keep-alive node:http agent. Client and server share the process, so its CPU time per
 * request (clock "cpu") is what bounds throughput and sequential latency on loopback, and it holds
 * still when other processes load the machine; `BENCH_CLOCK=wall npm run bench -- server` times
 * them in wall time on a quiet machine.
 */
import { Agent } from "node:http";
import { bareHttpServer, httpGet, httpGets, staticReply } from "./anchors.js";
import { runGet } from "./fixtures.js";
import { row } from "./table.js";

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
  const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  return {
    url,
    bareUrl: `${bare.url}${request.url.pathname}`,
    headers,
    agent,
    teardown: async () => {
      agent.destroy();
      await served.close();
      await bare.close();
    },
  };
}

row({
  name: "GET run, one request at a time",
  clock: "cpu",
  target: "<= 1.2x",
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
  name: `GET run, ${IN_FLIGHT} in flight`,
  kind: "rate",
  clock: "cpu",
  target: ">= 0.9x",
  setup: async () => {
    const { url, bareUrl, headers, agent, teardown } = await servers();
    return {
      figure: { label: "doubles.listen()", ops: REQUESTS, run: () => httpGets(url, agent, headers, REQUESTS, IN_FLIGHT) },
      anchor: { label: "bare node:http, same bytes", ops: REQUESTS, run: () => httpGets(bareUrl, agent, headers, REQUESTS, IN_FLIGHT) },
      teardown,
    };
  },
});
