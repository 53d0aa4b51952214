/**
 * The `/_sim/` control API decides before it reads a body (issue 24, items 1 and 9). Measured on
 * main: three 200 MiB posts WITHOUT the control token took the server to 1,073 MB before each got
 * its 401, and a 160 MiB `POST /_sim/scenario` to 865 MB: the checks ran after the whole body was
 * read, and no `/_sim/` route had a body limit. Now the Host, Origin, token and content-type checks
 * answer from the head alone (the body is never read, the connection closes after the answer), a
 * control body is limited to {@link CONTROL_MAX_BODY_BYTES} (8 MiB: 413 in the control API's error
 * shape, read no further), and a second `Host` line, an absolute-form target or a non-`http` Origin
 * are refused.
 *
 * Each client here sends a head declaring a huge body and then only the first MiB of it, and never
 * the rest: a server that reads the body before it answers never answers.
 */
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { CONTROL_MAX_BODY_BYTES } from "../../src/interceptors/control.js";
import type { RunningServer } from "../../src/interceptors/server.js";
import { createDoubles } from "../../src/scenarios/doubles.js";

const MIB = 1024 * 1024;
const TOKEN = "t0ken";
let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function listen(): Promise<RunningServer> {
  server = await createDoubles({ seed: 1 }).listen({ controlToken: TOKEN });
  return server;
}

interface RawAnswer {
  readonly status: number;
  readonly head: string;
  readonly json: unknown;
  /** Whether the server closed the connection (within 3 s of its answer). */
  readonly closed: boolean;
}

/**
 * Sends `head` (without its blank line), then `firstBytes` of body, never the rest; resolves with
 * the answer once the server has answered and closed (or 3 s after the answer).
 */
function rawRequest(port: number, head: string, firstBytes = MIB): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let text = "";
    let answeredAt: NodeJS.Timeout | undefined;
    const finish = (closed: boolean): void => {
      clearTimeout(giveUp);
      clearTimeout(answeredAt);
      const [headText = "", bodyText = ""] = text.split("\r\n\r\n");
      let json: unknown;
      try {
        json = JSON.parse(bodyText);
      } catch {
        json = bodyText;
      }
      socket.destroy();
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(headText)?.[1] ?? 0), head: headText, json, closed });
    };
    socket.on("connect", () => {
      socket.write(`${head}\r\n\r\n`);
      if (firstBytes > 0) socket.write(Buffer.alloc(firstBytes, 0x20));
    });
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => {
      text += chunk;
      if (answeredAt === undefined && text.includes("\r\n\r\n")) answeredAt = setTimeout(() => finish(false), 3_000);
    });
    socket.on("error", () => undefined);
    socket.on("close", () => finish(true));
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within 10 s (the server waits for the body?): ${JSON.stringify(text.slice(0, 80))}`));
    }, 10_000);
  });
}

const huge = 200 * MIB;

describe("control checks answer from the head, before any body byte is read", () => {
  it("no control token: 401 while the 200 MiB body is still unsent, and the connection closes", async () => {
    const { port } = await listen();
    const answer = await rawRequest(port, `POST /_sim/scenario HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${huge}`);
    expect(answer.status).toBe(401);
    expect(answer.json).toMatchObject({ error: { status: 401, code: "unauthenticated" } });
    expect(answer.closed).toBe(true);
  });

  it("a foreign Host (403), a cross-site Origin (403), a text/plain body (415): answered before the body", async () => {
    const { port } = await listen();
    const common = `Content-Length: ${huge}\r\nX-Infra-Doubles-Control-Token: ${TOKEN}`;
    const foreign = await rawRequest(port, `POST /_sim/reset HTTP/1.1\r\nHost: evil.example\r\nContent-Type: application/json\r\n${common}`);
    expect([foreign.status, foreign.closed]).toEqual([403, true]);
    const crossSite = await rawRequest(port, `POST /_sim/reset HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nOrigin: http://evil.example\r\nContent-Type: application/json\r\n${common}`);
    expect([crossSite.status, crossSite.closed]).toEqual([403, true]);
    const plain = await rawRequest(port, `POST /_sim/reset HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: text/plain\r\n${common}`);
    expect([plain.status, plain.closed]).toEqual([415, true]);
  });

  it("chunked, without a declared length: 401 before the body ends", async () => {
    const { port } = await listen();
    const answer = await rawRequest(port, `POST /_sim/scenario HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n100000`, MIB);
    expect([answer.status, answer.closed]).toEqual([401, true]);
  });
});

describe(`a control body is limited to ${CONTROL_MAX_BODY_BYTES / MIB} MiB`, () => {
  it("a declared 200 MiB scenario document: 413 in the control API's error shape, the body unread, the connection closed", async () => {
    const { port } = await listen();
    const answer = await rawRequest(port, `POST /_sim/scenario HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nX-Infra-Doubles-Control-Token: ${TOKEN}\r\nContent-Length: ${huge}`);
    expect(answer.status).toBe(413);
    expect(answer.json).toEqual({ error: { status: 413, code: "request_too_large", message: expect.stringContaining("8 MiB") } });
    expect(answer.closed).toBe(true);
  });

  it("a chunked body past the limit: 413 once the limit is passed, the rest never waited for", async () => {
    const { port } = await listen();
    const chunk = 9 * MIB;
    const answer = await rawRequest(port, `POST /_sim/clock/advance HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nX-Infra-Doubles-Control-Token: ${TOKEN}\r\nTransfer-Encoding: chunked\r\n\r\n${chunk.toString(16)}\r\n`, chunk);
    expect([answer.status, answer.closed]).toEqual([413, true]);
  });

  it("a body of exactly the limit is read and answered; one byte more is 413", async () => {
    const { url } = await listen();
    const exactly = `{"by":"1s"}`.padEnd(CONTROL_MAX_BODY_BYTES, " ");
    const headers = { "content-type": "application/json", "x-infra-doubles-control-token": TOKEN };
    const ok = await fetch(`${url}/_sim/clock/advance`, { method: "POST", headers, body: exactly });
    expect(ok.status).toBe(200);
    const over = await fetch(`${url}/_sim/clock/advance`, { method: "POST", headers, body: `${exactly} ` });
    expect([over.status, await over.json()]).toEqual([413, { error: { status: 413, code: "request_too_large", message: expect.any(String) } }]);
  });
});

describe("heads no browser sends are refused on /_sim/", () => {
  it("a second Host line: 403, even when both name the server", async () => {
    const { port } = await listen();
    const answer = await rawRequest(port, `GET /_sim/clock HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nHost: 127.0.0.1:${port}\r\nX-Infra-Doubles-Control-Token: ${TOKEN}`, 0);
    expect(answer.status).toBe(403);
    expect(answer.json).toMatchObject({ error: { status: 403, code: "forbidden", message: expect.stringMatching(/Host/) } });
  });

  it("an absolute-form target: 403, even naming the server", async () => {
    const { port } = await listen();
    const answer = await rawRequest(port, `GET http://127.0.0.1:${port}/_sim/clock HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Infra-Doubles-Control-Token: ${TOKEN}`, 0);
    expect(answer.status).toBe(403);
    expect(answer.json).toMatchObject({ error: { status: 403, code: "forbidden", message: expect.stringMatching(/absolute-form/) } });
  });

  it("an https Origin naming the server: 403 (the server speaks http only); the http one passes", async () => {
    const { port } = await listen();
    const https = await rawRequest(port, `GET /_sim/clock HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nOrigin: https://127.0.0.1:${port}\r\nX-Infra-Doubles-Control-Token: ${TOKEN}`, 0);
    expect(https.status).toBe(403);
    const http = await rawRequest(port, `GET /_sim/clock HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nOrigin: http://127.0.0.1:${port}\r\nX-Infra-Doubles-Control-Token: ${TOKEN}\r\nConnection: close`, 0);
    expect(http.status).toBe(200);
  });

  it("the service routes still answer a second Host line and an absolute-form target, as before", async () => {
    const { port } = await listen();
    const twice = await rawRequest(port, `GET /v1/sys/health HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\nConnection: close`, 0);
    expect(twice.status).toBe(200);
    const absolute = await rawRequest(port, `GET http://secrets.example/v1/sys/health HTTP/1.1\r\nHost: secrets.example\r\nConnection: close`, 0);
    expect(absolute.status).toBe(200);
  });
});
