/**
 * The peer mock servers of the server rows (issue 25, decision 1b): the mock servers a team would
 * run instead of the dev server, each a child process on a loopback port serving the same payload
 * as the dev server (the bench's stored run). They are installed for the bench only, from
 * bench/peers/package.json and its lock (`npm ci --prefix bench/peers`, run here when
 * bench/peers/node_modules is missing), never as dependencies of the package. A peer that cannot
 * be installed or started makes its row skip with the reason ({@link SkipRow}).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { SkipRow } from "./table.js";

/** bench/peers (scripts/bench.mjs runs every row with the repository as its working directory). */
const PEERS_DIR = resolve("bench", "peers");

/** What the dev server answers to the bench's GET, which every peer then serves. */
export interface Payload {
  readonly url: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/** A server running as a child process; `close()` ends it. */
export interface ChildServer {
  readonly name: string;
  readonly url: string;
  close(): Promise<void>;
}

/** The peers, by the name their rows show. */
export const PEER_NAMES = ["@stoplight/prism-cli", "json-server", "mockttp", "@mockoon/cli"] as const;
export type PeerName = (typeof PEER_NAMES)[number];

let installed = false;

/**
 * Installs the peers from bench/peers/package-lock.json when bench/peers/node_modules is missing.
 * @throws {SkipRow} when npm cannot install them (offline, registry refused, ...).
 */
export function installPeers(): void {
  if (installed || existsSync(join(PEERS_DIR, "node_modules", ".package-lock.json"))) {
    installed = true;
    return;
  }
  process.stderr.write("bench: installing the peer mock servers (npm ci --prefix bench/peers)...\n");
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const result = spawnSync(npm, ["ci", "--prefix", PEERS_DIR, "--no-audit", "--no-fund"], { encoding: "utf8", stdio: ["ignore", "ignore", "pipe"] });
  if (result.status !== 0) {
    const reason = (result.stderr || String(result.error ?? `exit ${result.status}`)).trim().split("\n").slice(-3).join(" ");
    throw new SkipRow(`the peer mock servers could not be installed (npm ci --prefix bench/peers): ${reason}`);
  }
  installed = true;
}

/** A free loopback port (the peers whose port must be named beforehand). */
function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => done(port));
    });
  });
}

/** One GET; resolves with its status (0 when the connection fails). */
function probe(url: string, headers: Readonly<Record<string, string>>): Promise<number> {
  return new Promise((done) => {
    const req = httpRequest(url, { headers, agent: false }, (res) => {
      res.resume();
      res.on("end", () => done(res.statusCode ?? 0));
    });
    req.on("error", () => done(0));
    req.end();
  });
}

/** Ends a child process and waits for it. */
function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    child.once("exit", () => done());
    child.kill("SIGTERM");
    setTimeout(() => child.kill("SIGKILL"), 3000).unref();
  });
}

/**
 * Starts `command` and waits until GET `url` answers 200 (60 s at most).
 * @throws {SkipRow} when the process exits first or the wait runs out (with its last output).
 */
async function startChild(name: string, command: readonly string[], dir: string, url: string, headers: Readonly<Record<string, string>>): Promise<ChildServer> {
  // Its output goes to a file (a peer that logs every request then costs this process nothing),
  // read back to say why it did not start.
  const log = join(dir, "output.log");
  const fd = openSync(log, "w");
  const child = spawn(process.execPath, command, { cwd: PEERS_DIR, stdio: ["ignore", fd, fd], env: { ...process.env, NODE_OPTIONS: "" } });
  closeSync(fd);
  const close = async (): Promise<void> => {
    await stop(child);
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    if ((await probe(url, headers)) === 200) return { name, url, close };
    await new Promise((done) => setTimeout(done, 200));
  }
  const output = readFileSync(log, "utf8").trim().split("\n").slice(-3).join(" ");
  await close();
  throw new SkipRow(`${name} did not start (${child.exitCode === null ? "no answer in 60 s" : `exit ${child.exitCode}`}): ${output}`);
}

/**
 * The dev server (`doubles.listen()` on the bench's stored run) in its own process, bundled from
 * bench/peers/doubles-server.ts, and the payload it answers.
 */
export async function startDoublesServer(): Promise<ChildServer & { readonly payload: Payload }> {
  const { build } = await import("esbuild");
  const out = join(resolve("bench", ".build"), `doubles-server-${process.pid}.mjs`);
  mkdirSync(resolve("bench", ".build"), { recursive: true });
  await build({
    entryPoints: [join(PEERS_DIR, "doubles-server.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    outfile: out,
    logLevel: "error",
    banner: { js: 'import { createRequire as __benchRequire } from "node:module"; const require = __benchRequire(import.meta.url);' },
  });
  const child = spawn(process.execPath, [out], { cwd: resolve("."), stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NODE_OPTIONS: "" } });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const line = await new Promise<string>((done, fail) => {
    let text = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      const end = text.indexOf("\n");
      if (end !== -1) done(text.slice(0, end));
    });
    child.once("exit", (code) => fail(new Error(`bench: the dev server's process exited (${code}): ${stderr}`)));
  });
  const payload = JSON.parse(line) as Payload;
  if (payload.status !== 200) throw new Error(`bench: the dev server answered ${payload.status} to ${payload.url}`);
  return {
    name: "doubles.listen()",
    url: payload.url,
    payload,
    close: async () => {
      await stop(child);
      rmSync(out, { force: true });
    },
  };
}

/**
 * Starts one peer serving `payload` at its path on a free loopback port, in its quietest
 * configuration (no request log where it has a switch for it).
 * @throws {SkipRow} when the peers cannot be installed or this one does not start.
 */
export async function startPeer(name: PeerName, payload: Payload): Promise<ChildServer> {
  installPeers();
  const dir = mkdtempSync(join(tmpdir(), "infra-doubles-peer-"));
  const port = await freePort();
  const bodyFile = join(dir, "body.json");
  writeFileSync(bodyFile, payload.body);
  const url = `http://127.0.0.1:${port}${payload.path}`;
  const bin = (path: string): string => join(PEERS_DIR, "node_modules", path);
  switch (name) {
    case "@stoplight/prism-cli": {
      // An OpenAPI document whose only operation has the payload as its example.
      const document = {
        openapi: "3.0.3",
        info: { title: "infra-doubles bench", version: "1" },
        paths: { [payload.path]: { get: { responses: { "200": { description: "the run", content: { [payload.contentType]: { example: JSON.parse(payload.body) } } } } } } },
      };
      writeFileSync(join(dir, "openapi.json"), JSON.stringify(document));
      return startChild(name, [bin("@stoplight/prism-cli/dist/index.js"), "mock", join(dir, "openapi.json"), "--host", "127.0.0.1", "--port", String(port), "--verboseLevel", "error"], dir, url, payload.headers);
    }
    case "json-server": {
      // The run as a record of a "runs" collection (json-server adds nothing but its id field, which
      // the run has), and a route mapping the service's prefix onto json-server's root.
      const segments = payload.path.split("/");
      const id = segments.pop() as string;
      const collection = segments.pop() as string;
      const prefix = segments.join("/");
      writeFileSync(join(dir, "db.json"), JSON.stringify({ [collection]: [{ id, ...(JSON.parse(payload.body) as object) }] }));
      writeFileSync(join(dir, "routes.json"), JSON.stringify(prefix === "" ? {} : { [`${prefix}/*`]: "/$1" }));
      return startChild(name, [bin("json-server/lib/cli/bin.js"), join(dir, "db.json"), "--routes", join(dir, "routes.json"), "--host", "127.0.0.1", "--port", String(port), "--quiet"], dir, url, payload.headers);
    }
    case "mockttp":
      return startChild(name, [join(PEERS_DIR, "mockttp-peer.mjs"), String(port), payload.path, bodyFile, payload.contentType], dir, url, payload.headers);
    case "@mockoon/cli": {
      const environment = join(dir, "environment.json");
      const made = spawnSync(process.execPath, [join(PEERS_DIR, "mockoon-env.mjs"), environment, String(port), payload.path, bodyFile, payload.contentType], { cwd: PEERS_DIR, encoding: "utf8" });
      if (made.status !== 0) throw new SkipRow(`@mockoon/cli: cannot write its environment file: ${made.stderr.trim()}`);
      return startChild(name, [bin("@mockoon/cli/bin/run.js"), "start", "--data", environment, "--port", String(port), "--disable-log-to-file", "--disable-admin-api"], dir, url, payload.headers);
    }
  }
}
