/**
 * Reading stops at the body limit (issue 8, defect 7) on the transports that hand the body over
 * as a stream: the @mswjs/interceptors transport (`intercept({ transport: "interceptors" })`) and
 * msw handlers read a streamed request body only up to the service's limit (32 MiB) and answer the
 * service's 413 while the client is still sending, as the local server does. The client here sends
 * 33 MiB and never ends its body: a transport that waits for the whole body never answers.
 * (nock hands its reply function a body it has buffered whole: see docs/decisions/security.md.)
 */
import http from "node:http";
import https from "node:https";
import { expect, it } from "vitest";
import { createDoubles } from "../../src/scenarios/doubles.js";
import { describeEachTransport } from "../support/transports.js";

const MIB = 1024 * 1024;
/** The secrets service's answer to a body over its limit. */
const TOO_LARGE = '{"errors":["failed to parse JSON input: http: request body too large"]}';

/** POSTs 33 MiB in 1 MiB chunks through node:http(s) without ending the body; resolves with the answer. */
function endlessPost(url: string, token: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = (url.startsWith("https:") ? https : http).request(
      url,
      { method: "POST", headers: { "x-secrets-token": token, "content-type": "application/json", "transfer-encoding": "chunked" } },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => {
          resolve({ status: res.statusCode ?? 0, body });
          req.destroy();
        });
      },
    );
    req.on("error", (error) => reject(error));
    const chunk = Buffer.alloc(MIB, 0x20);
    for (let i = 0; i < 33; i++) req.write(chunk);
    // no req.end(): the body never completes
  });
}

describeEachTransport("a streamed body over the limit", (t) => {
  // nock buffers the whole body before any reply function runs (docs/decisions/security.md).
  it.skipIf(t.name === "nock")("is answered 413 before the client ends it (node:http)", async () => {
    const started = await t.startWith(createDoubles({ seed: 1 }));
    const answer = await endlessPost(`${started.base("secrets")}/secret/data/big`, started.doubles.secrets.rootToken);
    expect(answer).toEqual({ status: 413, body: TOO_LARGE });
  }, 60_000);

  it.skipIf(t.name === "nock")("is answered 413 before the client ends it (fetch with a stream body)", async () => {
    const started = await t.startWith(createDoubles({ seed: 1 }));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent < 33) {
          sent++;
          controller.enqueue(new Uint8Array(MIB).fill(0x20));
        }
        // then nothing more, and never closed
      },
    });
    const response = await fetch(`${started.base("secrets")}/secret/data/big`, {
      method: "POST",
      headers: { "x-secrets-token": started.doubles.secrets.rootToken, "content-type": "application/json" },
      body,
      duplex: "half",
    } as RequestInit);
    expect([response.status, await response.text()]).toEqual([413, TOO_LARGE]);
  }, 60_000);
});
