/**
 * The dev server as a child process (bench/peers.ts bundles and starts it), on the bench's stored
 * run: `doubles.listen()` on a free loopback port. Prints one JSON line, the run's URL, the
 * headers to send and the answer's status, content type and body, which the peers then serve.
 */
import { runGet } from "../fixtures.js";

async function main(): Promise<void> {
  const { doubles, request, headers } = await runGet();
  const server = await doubles.listen({ port: 0 });
  const url = `${server.url}${request.url.pathname}${request.url.search}`;
  const answer = await fetch(url, { headers });
  const body = await answer.text();
  process.stdout.write(`${JSON.stringify({ url, path: request.url.pathname, headers, status: answer.status, contentType: answer.headers.get("content-type"), body })}\n`);
}

void main();
