// Probe (not a bench row: it measures designs, not the package): what node:http's parse paths cost
// per keep-alive GET, in CPU time of one process (client and server share it), interleaved rounds,
// median of paired ratios against a bare node:http server answering the same 300 bytes.
//
//   node bench/probes/server-parse-paths.mjs        # one request at a time
//   node bench/probes/server-parse-paths.mjs par    # 32 in flight
//
// Servers (see bench/README.md, "The server's and the transports' targets"):
// - bare: node:http, its parser reading the socket in C++.
// - hooks: bare plus what an exact native-until-refused switch would run on every connection: a
//   kOnMessageBegin callback and a wrapper of kOnExecute that copies a read (getCurrentBuffer) only
//   when it ends inside a message (never, for these GETs).
// - jspath: node:http fed from JavaScript (a no-op `data` listener takes the socket off the C++ path).
// - shadow: bare plus a copy of every read run through the MethodRewriter (exact framing, C++ parse).
// - rewriter: today's server path (rewriteUnknownMethods).
import { buildSync } from "esbuild";
import { mkdtempSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const out = join(mkdtempSync(join(tmpdir(), "parse-paths-")), "socket-methods.mjs");
buildSync({ entryPoints: [fileURLToPath(new URL("../../src/interceptors/socket-methods.ts", import.meta.url))], bundle: true, platform: "node", format: "esm", outfile: out, logLevel: "error" });
const { MethodRewriter, rewriteUnknownMethods } = await import(pathToFileURL(out).href);

const body = Buffer.from(JSON.stringify({ data: { id: "run-1", type: "runs", attributes: { status: "applied", message: "x".repeat(200) } } }));
const kinds = ["bare", "hooks", "jspath", "shadow", "rewriter"];

function start(kind) {
  const server = http.createServer((req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": "application/json", "content-length": body.length });
    res.end(body);
  });
  if (kind === "rewriter") rewriteUnknownMethods(server);
  server.on("connection", (socket) => {
    const parser = socket.parser;
    const K = parser.constructor;
    const onExecute = parser[K.kOnExecute];
    if (kind === "jspath") socket.on("data", () => {});
    if (kind === "hooks") {
      let begun = false;
      let before = null;
      let held = null;
      parser[K.kOnMessageBegin] = () => {
        begun = true;
        before = parser.incoming;
      };
      parser[K.kOnExecute] = function (ret) {
        const incoming = parser.incoming;
        const idle = !begun || (incoming !== before && incoming !== null && incoming.complete);
        held = idle ? null : parser.getCurrentBuffer();
        return onExecute.call(this, ret);
      };
      void held;
    }
    if (kind === "shadow") {
      const tracker = new MethodRewriter();
      parser[K.kOnExecute] = function (ret) {
        if (typeof ret === "number" && ret > 0) tracker.push(parser.getCurrentBuffer());
        return onExecute.call(this, ret);
      };
    }
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

const servers = {};
for (const kind of kinds) servers[kind] = await start(kind);
const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
const get = (port) =>
  new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path: "/api/v2/runs/run-1", agent, headers: { authorization: "Bearer x", accept: "application/vnd.api+json" } }, (res) => {
        res.on("data", () => {});
        res.on("end", resolve);
      })
      .on("error", reject);
  });
const N = 400;
const parallel = process.argv[2] === "par";
const results = Object.fromEntries(kinds.map((kind) => [kind, []]));
for (let round = 0; round < 40; round++) {
  for (const kind of round % 2 ? kinds : [...kinds].reverse()) {
    const { port } = servers[kind].address();
    const before = process.cpuUsage();
    if (parallel) for (let i = 0; i < N / 32; i++) await Promise.all(Array.from({ length: 32 }, () => get(port)));
    else for (let i = 0; i < N; i++) await get(port);
    const used = process.cpuUsage(before);
    if (round >= 2) results[kind].push((used.user + used.system) / N);
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
for (const kind of kinds) {
  const ratios = results[kind].map((value, i) => value / results.bare[i]);
  console.log(`${kind.padEnd(9)} ${median(results[kind]).toFixed(1)} us/request  ${median(ratios).toFixed(3)}x bare`);
}
agent.destroy();
for (const kind of kinds) {
  servers[kind].closeAllConnections();
  servers[kind].close();
}
