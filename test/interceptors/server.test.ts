import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import http from "node:http";
import { connect, type Socket } from "node:net";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import type { RunningServer } from "../../src/interceptors/server.js";
import { DoublesCore } from "../../src/scenarios/doubles-core.js";
import { demoPlugin } from "../support/demo-service.js";
import { INTERNAL_HEADER, rawExchange, serialize, type WireRequest } from "./wire.js";

const run = promisify(execFile);

const servers: RunningServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function start(): Promise<{ server: RunningServer; doubles: DoublesCore; base: string; path: string }> {
  const doubles = new DoublesCore([demoPlugin], { seed: 5 });
  const server = await doubles.listen();
  servers.push(server);
  return { server, doubles, base: `${server.url}/demo/api`, path: "/demo/api" };
}

const json = (response: { body: Buffer }): unknown => JSON.parse(response.body.toString("utf8"));
const sha256 = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

function pipeline(path: string): WireRequest[] {
  return [
    { method: "LIST", target: `${path}/echo/keys?list=1`, headers: [["Host", "h"]] },
    {
      method: "LIST",
      target: `${path}/echo/chunked`,
      headers: [["Host", "h"], ["Content-Type", "text/plain"]],
      body: { kind: "chunked", chunks: [Buffer.from("LIST /x HTTP/1.1\r\n"), Buffer.from("tail")], trailers: [["X-T", "1"]] },
    },
    {
      method: "POST",
      target: `${path}/things`,
      headers: [["Host", "h"], ["Content-Type", "application/json"]],
      body: { kind: "length", bytes: Buffer.from('{"name":"LIST / HTTP/1.1"}') },
    },
  ];
}

function checkPipelineAnswers(responses: { status: number; body: Buffer }[]): void {
  expect(responses.map((r) => r.status)).toEqual([200, 200, 201]);
  expect(json(responses[0]!)).toMatchObject({ method: "LIST", rest: "keys", length: 0 });
  expect(json(responses[1]!)).toMatchObject({ method: "LIST", rest: "chunked", length: 22, sha256: sha256(Buffer.from("LIST /x HTTP/1.1\r\ntail")) });
  expect(json(responses[2]!)).toMatchObject({ name: "LIST / HTTP/1.1" });
}

describe("the local server and the LIST method", () => {
  it("answers pipelined LIST, chunked LIST and POST requests on one keep-alive connection", async () => {
    const { server, path } = await start();
    const bytes = Buffer.concat(pipeline(path).map((r) => serialize(r)));
    const { responses, closed } = await rawExchange(server.port, [bytes], ["LIST", "LIST", "POST"]);
    expect(closed).toBe(false);
    checkPipelineAnswers(responses);
  });

  it("answers the same whichever byte the requests are split at across TCP writes", async () => {
    const { server, path } = await start();
    // Server-side reads per client port, so each client waits until its first part was read.
    const reads = new Map<number, { count: number; wake: () => void }>();
    const readsOf = (port: number) => {
      let entry = reads.get(port);
      if (!entry) reads.set(port, (entry = { count: 0, wake: () => undefined }));
      return entry;
    };
    server.server.on("connection", (socket: Socket) => {
      const entry = readsOf(socket.remotePort ?? 0);
      socket.on("data", () => {
        entry.count++;
        entry.wake();
      });
    });
    const serverHasRead = (client: Socket, index: number) =>
      new Promise<void>((resolve) => {
        const entry = readsOf(client.localPort ?? 0);
        entry.wake = () => {
          if (entry.count > index) resolve();
        };
        entry.wake();
      });
    const bytes = Buffer.concat(pipeline(path).map((r) => serialize(r)));
    const splits = Array.from({ length: bytes.length - 1 }, (_, i) => i + 1);
    for (let batch = 0; batch < splits.length; batch += 16) {
      await Promise.all(
        splits.slice(batch, batch + 16).map(async (at) => {
          const parts = [bytes.subarray(0, at), bytes.subarray(at)];
          const { responses } = await rawExchange(server.port, parts, ["LIST", "LIST", "POST"], { afterWrite: serverHasRead });
          expect(responses.length, `split at ${at}`).toBe(3);
          checkPipelineAnswers(responses);
        }),
      );
    }
    expect(reads.size).toBe(splits.length);
    expect([...reads.values()].every((entry) => entry.count >= 2)).toBe(true);
  });

  it("answers a LIST request sent one byte per TCP write", async () => {
    const { server, path } = await start();
    const bytes = serialize(pipeline(path)[1]!);
    const parts = [...bytes].map((b) => Buffer.from([b]));
    const { responses } = await rawExchange(server.port, parts, ["LIST"], { gapMs: 0 });
    expect(json(responses[0]!)).toMatchObject({ method: "LIST", rest: "chunked", length: 22 });
  });

  it("answers curl -X LIST, with and without a body", async () => {
    const { base } = await start();
    const plain = await run("curl", ["-sS", "-X", "LIST", `${base}/echo/secret/`]);
    expect(JSON.parse(plain.stdout)).toMatchObject({ method: "LIST", rest: "secret" });
    const withBody = await run("curl", ["-sS", "-X", "LIST", "--data-binary", "abc", `${base}/echo/b`]);
    expect(JSON.parse(withBody.stdout)).toMatchObject({ method: "LIST", length: 3, sha256: sha256(Buffer.from("abc")) });
  });

  it("answers LIST from fetch with a streamed (chunked) body", async () => {
    const { base } = await start();
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(Buffer.from("part one;")));
        controller.enqueue(new Uint8Array(Buffer.from("part two")));
        controller.close();
      },
    });
    const viaFetch = await fetch(`${base}/echo/stream`, { method: "LIST", body: stream, duplex: "half" } as RequestInit);
    expect(await viaFetch.json()).toMatchObject({ method: "LIST", length: 17 });
  });

  it("answers LIST from node:http and axios clients in another process", async () => {
    // In this process nock is loaded (DoublesCore imports it), and nock's request interceptor
    // hangs node:http LIST requests before they reach any socket; a separate client process is
    // what the dev server serves anyway.
    const { base } = await start();
    const script = `
      const http = require("node:http");
      const axios = require("axios");
      const url = process.argv[1];
      http.request(url + "/echo/http", { method: "LIST" }, (res) => {
        let text = "";
        res.on("data", (c) => (text += c));
        res.on("end", async () => {
          const viaAxios = await axios.request({ method: "LIST", url: url + "/echo/axios" });
          console.log(JSON.stringify({ http: JSON.parse(text), axios: viaAxios.data }));
        });
      }).end();`;
    const { stdout } = await run(process.execPath, ["-e", script, base], { cwd: process.cwd(), timeout: 10_000 });
    expect(JSON.parse(stdout)).toMatchObject({ http: { method: "LIST", rest: "http" }, axios: { method: "LIST", rest: "axios" } });
  });

  it("hands any other unknown method to the service, which answers it as the real one would", async () => {
    const { server, path } = await start();
    const { responses } = await rawExchange(server.port, [Buffer.from(`FROB ${path}/things HTTP/1.1\r\nHost: x\r\n\r\n`)], ["FROB"]);
    expect(responses[0]?.status).toBe(405);
  });

  it("takes the method from X-HTTP-Method-Override, but never from the internal header a client sends", async () => {
    const { base } = await start();
    const overridden = await fetch(`${base}/echo/o`, { method: "GET", headers: { "x-http-method-override": "LIST" } });
    expect(await overridden.json()).toMatchObject({ method: "LIST" });
    const lowercase = await fetch(`${base}/echo/o`, { method: "GET", headers: { "x-http-method-override": "list" } });
    expect(await lowercase.json()).toMatchObject({ method: "LIST" });
    const spoofed = await fetch(`${base}/things/none`, { headers: { [INTERNAL_HEADER]: "LIST" } });
    expect(spoofed.status).toBe(404);
    const echoed = await fetch(`${base}/echo/h`, { method: "LIST", headers: { [INTERNAL_HEADER]: "DELETE" } });
    const body = (await echoed.json()) as { method: string };
    expect(body.method).toBe("LIST");
  });
});

describe("method overrides the real services ignore", () => {
  it("never turns a POST into another method, nor a GET into anything but LIST", async () => {
    const { base, doubles } = await start();
    const posted = await fetch(`${base}/things`, { method: "POST", headers: { "x-http-method-override": "DELETE" }, body: '{"name":"kept"}' });
    expect(posted.status).toBe(201);
    const { id } = (await posted.json()) as { id: string };
    const put = await fetch(`${base}/echo/o`, { method: "PUT", headers: { "x-http-method-override": "LIST" }, body: "x" });
    expect(await put.json()).toMatchObject({ method: "PUT" });
    const get = await fetch(`${base}/things/${id}`, { headers: { "x-http-method-override": "DELETE" } });
    expect(get.status).toBe(200);
    expect(doubles.sim.read("demo", (ctx) => Object.keys((ctx.state as { things: object }).things))).toEqual([id]);
  });
});

describe("the local server under awkward clients", () => {
  it("answers HEAD with the GET headers and no body, and keeps the connection usable", async () => {
    const { server, base, path } = await start();
    const created = (await (await fetch(`${base}/things`, { method: "POST", body: '{"name":"h"}' })).json()) as { id: string };
    const get = await fetch(`${base}/things/${created.id}`);
    const getBody = await get.text();
    const head = await fetch(`${base}/things/${created.id}`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(Buffer.byteLength(getBody)));
    expect(await head.text()).toBe("");
    const requests = [
      serialize({ method: "HEAD", target: `${path}/things/${created.id}`, headers: [["Host", "x"]] }),
      serialize({ method: "GET", target: `${path}/things/${created.id}`, headers: [["Host", "x"]] }),
    ];
    const { responses } = await rawExchange(server.port, [Buffer.concat(requests)], ["HEAD", "GET"]);
    expect(responses.map((r) => [r.status, r.body.length])).toEqual([
      [200, 0],
      [200, Buffer.byteLength(getBody)],
    ]);
  });

  it("sends a body with characters outside ASCII as UTF-8, its Content-Length counting bytes (GET and HEAD, one connection)", async () => {
    const { server, base, path } = await start();
    const name = "é💥ü-\u0000-名前";
    const created = (await (await fetch(`${base}/things`, { method: "POST", body: JSON.stringify({ name }) })).json()) as { id: string };
    const requests = [
      serialize({ method: "GET", target: `${path}/things/${created.id}`, headers: [["Host", "x"]] }),
      serialize({ method: "HEAD", target: `${path}/things/${created.id}`, headers: [["Host", "x"]] }),
      serialize({ method: "GET", target: `${path}/things/${created.id}`, headers: [["Host", "x"]] }),
    ];
    const { responses } = await rawExchange(server.port, [Buffer.concat(requests)], ["GET", "HEAD", "GET"]);
    const [get, head, again] = responses;
    expect(get?.status).toBe(200);
    expect((JSON.parse(get?.body.toString("utf8") ?? "") as { name: string }).name).toBe(name);
    const bytes = Buffer.byteLength(get?.body.toString("utf8") ?? "");
    expect(bytes).toBeGreaterThan(get?.body.toString("utf8").length ?? 0);
    expect([get?.headers["content-length"], head?.headers["content-length"], again?.headers["content-length"]]).toEqual([String(bytes), String(bytes), String(bytes)]);
    expect([get?.body.length, head?.body.length, again?.body.length]).toEqual([bytes, 0, bytes]);
  });

  it("survives clients that go away mid-request, stores nothing of them, and keeps serving", async () => {
    const { server, base, path, doubles } = await start();
    const cuts = [
      `POST ${path}/things HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{"name":"half"}`,
      "LIST /de",
      `LIST ${path}/echo/x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nabc`,
      `PUT ${path}/echo/x HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n0123456789`,
    ];
    for (const cut of cuts) {
      await new Promise<void>((resolve) => {
        const socket = connect({ port: server.port, host: "127.0.0.1" }, () => {
          socket.write(cut, () => setTimeout(() => socket.destroy(), 5));
        });
        socket.on("close", () => resolve());
        socket.on("error", () => undefined);
      });
    }
    const response = await fetch(`${base}/echo/after`, { method: "LIST" });
    expect(await response.json()).toMatchObject({ method: "LIST", rest: "after" });
    expect(doubles.sim.read("demo", (ctx) => ctx.state)).toEqual({ things: {}, log: [] });
  });

  it("takes a 10 MB upload, plain and chunked, byte for byte", async () => {
    const { base } = await start();
    const big = new Uint8Array(10 * 1024 * 1024);
    for (let i = 0; i < big.length; i += 4096) big[i] = (i / 4096) % 251;
    const plain = await fetch(`${base}/echo/big.bin`, { method: "PUT", body: big, headers: { "content-type": "application/octet-stream" } });
    expect(await plain.json()).toMatchObject({ length: big.length, sha256: sha256(big) });
    const pieces = 10;
    const size = big.length / pieces;
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === pieces) controller.close();
        else controller.enqueue(big.subarray(sent * size, ++sent * size));
      },
    });
    const chunked = await fetch(`${base}/echo/big.bin`, { method: "LIST", body: stream, duplex: "half" } as RequestInit);
    expect(await chunked.json()).toMatchObject({ method: "LIST", length: big.length, sha256: sha256(big) });
  });

  it("routes requests under its own origin whatever the Host header says", async () => {
    const { server, path } = await start();
    const hosts = ["[::bad", "a b", "", "evil.test:99999", "xn--\u00ff"];
    for (const host of hosts) {
      const request = Buffer.from(`GET ${path}/things/missing HTTP/1.1\r\nHost: ${host}\r\n\r\n`, "latin1");
      const { responses } = await rawExchange(server.port, [request], ["GET"]);
      expect(responses[0]?.status, `Host: ${host}`).toBe(404);
      expect(json(responses[0]!), `Host: ${host}`).toEqual({ error: "not found" });
    }
    const noHost = await rawExchange(server.port, [Buffer.from(`GET ${path}/things/missing HTTP/1.0\r\n\r\n`)], ["GET"]);
    expect(noHost.responses[0]?.status).toBe(404);
    const absolute = await rawExchange(server.port, [Buffer.from(`LIST http://elsewhere.test${path}/echo/abs HTTP/1.1\r\nHost: x\r\n\r\n`)], ["LIST"]);
    expect(json(absolute.responses[0]!)).toMatchObject({ method: "LIST", rest: "abs" });
    const doubleSlash = await rawExchange(server.port, [Buffer.from(`GET //demo/api/things/x HTTP/1.1\r\nHost: x\r\n\r\n`)], ["GET"]);
    expect(doubleSlash.responses[0]?.body.toString()).toMatch(/no service is mounted at http:\/\/127\.0\.0\.1:\d+\/\/demo/);
  });

  it("answers malformed requests the way node:http does, without crashing", async () => {
    const { server, base } = await start();
    const bad = await rawExchange(server.port, [Buffer.from("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n")], ["POST"]);
    expect(bad.responses[0]?.status).toBe(400);
    const garbage = await rawExchange(server.port, [Buffer.from("\u0001\u0002 nonsense\r\n\r\n")], ["GET"]);
    expect(garbage.responses[0]?.status).toBe(400);
    expect((await fetch(`${base}/echo/ok`, { method: "LIST" })).status).toBe(200);
  });
});

describe("the local server's lifecycle", () => {
  it("closes idle keep-alive connections and requests in flight on close", async () => {
    const { server, base } = await start();
    const agent = new http.Agent({ keepAlive: true });
    await new Promise<void>((resolve, reject) => {
      http.get(`${base}/things/x`, { agent }, (res) => {
        res.resume();
        res.on("end", () => resolve());
      }).on("error", reject);
    });
    const halfSent = connect({ port: server.port, host: "127.0.0.1" });
    halfSent.on("error", () => undefined);
    await new Promise<void>((resolve) => halfSent.write("LIST /demo/api/echo/x HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc", () => resolve()));
    const closedAt = performance.now();
    await server.close();
    expect(performance.now() - closedAt).toBeLessThan(2000);
    expect(server.server.listening).toBe(false);
    agent.destroy();
    halfSent.destroy();
  });

  it("leaves no open handle behind after being started and closed many times", async () => {
    const doubles = new DoublesCore([demoPlugin]);
    const settle = async (): Promise<void> => {
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    };
    const warm = await doubles.listen();
    await fetch(`${warm.url}/demo/api/echo/w`, { method: "LIST", headers: { connection: "close" } });
    await warm.close();
    await settle();
    const before = process.getActiveResourcesInfo().filter((r) => r !== "Timeout" && r !== "Immediate");
    for (let i = 0; i < 20; i++) {
      const server = await doubles.listen();
      const agent = new http.Agent({ keepAlive: true });
      await new Promise<void>((resolve, reject) => {
        http
          .get(`${server.url}/demo/api/things/${i}`, { agent }, (res) => {
            res.resume();
            res.on("end", () => resolve());
          })
          .on("error", reject);
      });
      expect((await fetch(`${server.url}/demo/api/echo/${i}`, { method: "LIST" })).status).toBe(200);
      await server.close();
      agent.destroy();
    }
    await settle();
    const after = process.getActiveResourcesInfo().filter((r) => r !== "Timeout" && r !== "Immediate");
    expect(after.sort()).toEqual(before.sort());
  });
});
