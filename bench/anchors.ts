/**
 * Anchors shared by the bench rows (see bench/table.ts): each serves the same bytes as the figure it
 * is compared with, and loads its library only when a row's setup asks for it (a row runs in its own
 * process, so nothing but what the row uses is loaded or patched).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRequire } from "node:module";
import { createServer, request as httpRequest, Agent, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Measure } from "./table.js";
import type { SimRequest, SimResponse } from "../src/interceptors/http.js";
import { loadNock, useNockModule } from "../src/interceptors/transports/nock-module.js";

/** A response to replay byte for byte: status, headers (lower-case names) and body. */
export interface StaticReply {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
}

/** The reply a doubles response (`SimResponse`) would put on the wire, with its Content-Length. */
export function staticReply(response: { status: number; headers: Readonly<Record<string, string>>; body?: string | Uint8Array }): StaticReply {
  const body = response.body === undefined ? new Uint8Array() : typeof response.body === "string" ? new TextEncoder().encode(response.body) : response.body;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) headers[name.toLowerCase()] = value;
  headers["content-length"] ??= String(body.length);
  return { status: response.status, headers, body };
}

const require = createRequire(import.meta.url);

/** `fetch(url)` with `headers` and read the body: the request every transport row times. */
export async function fetchText(url: string, headers: Readonly<Record<string, string>> = {}): Promise<string> {
  return (await fetch(url, { headers })).text();
}

/**
 * Bare nock with a persisted reply for GET `url`, timed through `fetch` (sending `headers`): a static
 * reply, or (`reply: "async function"`) an async reply function giving back the same bytes, the form
 * the nock transport registers. `module` names the nock to load (`"nock15"`: the aliased nock 15,
 * loaded as the transport loads it, with `Promise.withResolvers` on Node 20).
 */
export function bareNock(url: string, reply: StaticReply, headers: Readonly<Record<string, string>> = {}, options: { module?: string; reply?: "static" | "async function" } = {}): Measure {
  const nock = options.module === undefined ? (require("nock") as typeof import("nock")) : nockNamed(options.module);
  const { origin, pathname, search } = new URL(url);
  const body = Buffer.from(reply.body);
  const asFunction = options.reply === "async function";
  return {
    label: `bare ${options.module ?? "nock"}, ${asFunction ? "async reply function" : "static reply"}`,
    before: () => {
      const interceptor = nock(origin).persist().get(`${pathname}${search}`);
      if (asFunction) interceptor.reply(async () => [reply.status, body, reply.headers]);
      else interceptor.reply(reply.status, body, reply.headers);
    },
    run: () => fetchText(url, headers),
    after: () => nock.cleanAll(),
  };
}

/** nock loaded under another module name (the `nock15` alias), as the nock transport loads it. */
function nockNamed(name: string): typeof import("nock") {
  useNockModule(name);
  return loadNock();
}

/** Raw @mswjs/interceptors (the fetch interceptor) answering GET `url` with a static reply. */
export async function rawInterceptors(url: string, reply: StaticReply, headers: Readonly<Record<string, string>> = {}): Promise<Measure> {
  const { FetchInterceptor } = await import("@mswjs/interceptors/fetch");
  let interceptor: InstanceType<typeof FetchInterceptor> | undefined;
  return {
    label: "raw @mswjs/interceptors, static reply",
    before: () => {
      interceptor = new FetchInterceptor();
      // Applied first: when nock (built on the same interceptors) is loaded too, this one joins the
      // running fetch interceptor and its listener must be added after that.
      interceptor.apply();
      interceptor.on("request", ({ controller }) => {
        controller.respondWith(new Response(reply.body as Uint8Array<ArrayBuffer>, { status: reply.status, headers: reply.headers }));
      });
    },
    run: () => fetchText(url, headers),
    after: () => interceptor?.dispose(),
  };
}

/** msw 2 `setupServer` with one static handler for GET `url`. */
export async function mswStatic(url: string, reply: StaticReply, headers: Readonly<Record<string, string>> = {}): Promise<Measure> {
  const { setupServer } = await import("msw/node");
  const { http } = await import("msw");
  const server = setupServer(http.get(url, () => new Response(reply.body as Uint8Array<ArrayBuffer>, { status: reply.status, headers: reply.headers })));
  return {
    label: "msw setupServer, static handler",
    before: () => server.listen({ onUnhandledRequest: "bypass" }),
    run: () => fetchText(url, headers),
    after: () => server.close(),
  };
}

/** A bare node:http server sending `reply` to every request; `close()` stops it. */
export async function bareHttpServer(reply: StaticReply): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(reply.status, reply.headers);
      res.end(reply.body);
    });
  });
  return listening(server);
}

/**
 * A bare node:http server that calls `handler.handle()` per request, the server transport's floor:
 * it builds the request from node:http's own parse (URL under `apiOrigin`, node's lower-cased
 * headers, no body read for a bodiless request) and writes the answer with its Content-Length. No
 * method rewriter, no head-size check, no admission, no abort signal: what the server adds over
 * it is the transport's own cost (issue 25, decision 1).
 */
export async function bareHandleServer(
  handler: { handle(request: SimRequest): Promise<SimResponse> },
  apiOrigin: string,
): Promise<{ url: string; close: () => Promise<void> }> {
  const empty = new Uint8Array();
  const server = createServer((req, res) => {
    req.resume();
    const request: SimRequest = { method: req.method ?? "GET", url: new URL(req.url ?? "/", apiOrigin), headers: req.headers as Record<string, string>, body: empty };
    void handler.handle(request).then((response) => {
      const body = response.body === undefined ? undefined : typeof response.body === "string" ? Buffer.from(response.body) : Buffer.from(response.body);
      const headers: Record<string, string> = {};
      for (const name in response.headers) headers[name] = response.headers[name] as string;
      headers["content-length"] = String(body?.length ?? 0);
      res.writeHead(response.status, headers);
      res.end(body);
    });
  });
  return listening(server);
}

async function listening(server: Server): Promise<{ url: string; close: () => Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** GET `url` over node:http with `agent` (keep-alive) and `headers`; resolves with the body's length. */
export function httpGet(url: string, agent: Agent, headers: Readonly<Record<string, string>> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { agent, headers }, (res) => {
      let length = 0;
      res.on("data", (chunk: Buffer) => (length += chunk.length));
      res.on("end", () => resolve(length));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

/** `count` GETs of `url`, `inFlight` at a time (one op each: pass `ops: count`). */
export async function httpGets(url: string, agent: Agent, headers: Readonly<Record<string, string>>, count: number, inFlight: number): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      next++;
      await httpGet(url, agent, headers);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
}

/** A fresh `node -e 0`: the cold-start anchor. */
export function nodeStart(): Measure {
  return { label: "node -e 0", run: () => coldStart(["-e", "0"]) };
}

/**
 * Runs `node <args>` to completion (a fresh process, no inherited flags).
 * @throws when the process fails (so a broken import never passes for a fast one).
 */
export function coldStart(args: readonly string[]): void {
  const result = spawnSync(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8", env: { ...process.env, NODE_OPTIONS: "" } });
  if (result.status !== 0) throw new Error(`node ${args.join(" ")} failed: ${result.stderr}`);
}

/** Preloaded (`-r`, CommonJS: no ESM loader for `node -e 0`) by {@link coldStartCpu}: the process's CPU time (user + system, µs) on stderr at exit. */
const CPU_AT_EXIT = `process.on("exit", () => { const u = process.cpuUsage(); process._rawDebug("infra-doubles-bench-cpu " + (u.user + u.system)); });\n`;
let cpuPreload: string | undefined;

function preload(): string {
  if (cpuPreload === undefined) {
    const dir = mkdtempSync(join(tmpdir(), "infra-doubles-bench-"));
    cpuPreload = join(dir, "cpu-at-exit.cjs");
    writeFileSync(cpuPreload, CPU_AT_EXIT);
    process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  }
  return cpuPreload;
}

/**
 * Runs `node <args>` to completion like {@link coldStart}; returns the CPU time (user + system, in
 * seconds) the child process used, start-up included, which other jobs on the machine hardly move.
 * @throws when the process fails.
 */
export function coldStartCpu(args: readonly string[]): number {
  const result = spawnSync(process.execPath, ["-r", preload(), ...args], {
    stdio: ["ignore", "ignore", "pipe"],
    encoding: "utf8",
    env: { ...process.env, NODE_OPTIONS: "" },
  });
  const used = /infra-doubles-bench-cpu (\d+)/.exec(result.stderr)?.[1];
  if (result.status !== 0 || used === undefined) throw new Error(`node ${args.join(" ")} failed: ${result.stderr}`);
  return Number(used) / 1e6;
}

/** `node -e 0` as a child process's CPU time, the anchor of the CPU cold-import rows. */
export function nodeStartCpu(): Measure {
  return { label: "node -e 0", value: () => coldStartCpu(["-e", "0"]) };
}
