/**
 * A 431 closes the connection (issue 24, item 8): a client that sends a head over the limit and then
 * a 10 MB body gets its 431 and the server closes the socket at once, as Go's net/http does (it
 * answers and closes), instead of reading the body until the client gives up. Both 431 paths of the
 * server are covered: a head the server's own check refuses (17 KB) and one node:http's parser
 * refuses (70 KB).
 */
import net from "node:net";
import { afterEach, expect, it } from "vitest";
import { createDoubles } from "../../src/scenarios/doubles.js";
import type { RunningServer } from "../../src/interceptors/server.js";

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Sends the head, then writes body bytes for as long as the socket takes them; resolves when the server closes. */
function oversizedHeadThenBody(port: number, padding: number): Promise<{ answer: string; closedAfterMs: number; bodyBytesWritten: number }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let answer = "";
    let written = 0;
    let stop = false;
    const started = Date.now();
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const pump = (): void => {
      while (!stop && written < 10_000_000) {
        written += chunk.length;
        if (!socket.write(chunk)) {
          socket.once("drain", pump);
          return;
        }
      }
    };
    socket.on("connect", () => {
      socket.write(`POST /v1/sys/health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Length: 10000000\r\nX-Padding: ${"a".repeat(padding)}\r\n\r\n`);
      pump();
    });
    socket.setEncoding("latin1");
    socket.on("data", (text: string) => (answer += text));
    socket.on("error", () => undefined); // a reset after the answer is a close too
    socket.on("close", () => {
      stop = true;
      resolve({ answer, closedAfterMs: Date.now() - started, bodyBytesWritten: written });
    });
    setTimeout(() => {
      stop = true;
      socket.destroy();
      reject(new Error(`the server kept the connection open for 10 s after its answer ${JSON.stringify(answer.slice(0, 60))}`));
    }, 10_000);
  });
}

it.each([17_000, 70_000])("a %d-byte head followed by a 10 MB body: 431, then the server closes the connection", async (padding) => {
  server = await createDoubles({ seed: 1 }).listen();
  const seen = await oversizedHeadThenBody(server.port, padding);
  expect(seen.answer).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
  expect(seen.closedAfterMs).toBeLessThan(3_000);
}, 15_000);
