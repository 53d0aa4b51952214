/**
 * Issue 8 defect 7: each service reads request bodies up to its limit (32 MiB, the secrets
 * service's default `max_request_size`; the same bound for the others, docs/decisions/security.md)
 * and answers a longer body with its own error, through every transport. Bodies are generated
 * lazily from one 1 MiB buffer, so the test itself holds little.
 */
import { request } from "node:http";
import { expect, it } from "vitest";
import { createDoubles } from "../../src/scenarios/doubles.js";
import { describeEachTransport } from "../support/transports.js";

/**
 * Tests that send 32 MiB bodies (twice, through nock's hex-encoding path too) take 1-4 s alone and
 * up to 8x that when the whole suite loads both cores: they get room beyond the 30 s default.
 */
const BIG_BODY = { timeout: 120_000 };

const MiB = 1024 * 1024;
const LIMIT = 32 * MiB;
const CHUNK = Buffer.alloc(MiB, "a");

/** `{"pad":"aaa...a"}` of exactly `length` bytes, as a stream of at most 1 MiB chunks. */
function jsonBody(length: number): ReadableStream<Uint8Array> {
  const head = Buffer.from('{"pad":"');
  const tail = Buffer.from('"}');
  let padding = length - head.length - tail.length;
  let started = false;
  let ended = false;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(new Uint8Array(head));
        return;
      }
      if (padding > 0) {
        const size = Math.min(padding, CHUNK.length);
        padding -= size;
        controller.enqueue(new Uint8Array(CHUNK.buffer, CHUNK.byteOffset, size));
        return;
      }
      if (!ended) {
        ended = true;
        controller.enqueue(new Uint8Array(tail));
        return;
      }
      controller.close();
    },
  });
}

async function post(url: string, length: number, headers: Record<string, string> = {}, method = "POST") {
  const response = await fetch(url, { method, headers: { "content-type": "application/json", ...headers }, body: jsonBody(length), duplex: "half" } as RequestInit);
  return { status: response.status, type: response.headers.get("content-type"), text: await response.text() };
}

describeEachTransport("request body limits", (t) => {
  it("secrets: reads a body of exactly 32 MiB; one byte more is 413 with the real error body", BIG_BODY, async () => {
    const { base } = await t.startWith(createDoubles({ seed: 1 }));
    const url = `${base("secrets")}/sys/policies/acl/big`;
    const under = await post(url, LIMIT);
    expect(under.status).not.toBe(413);
    expect(under.text).not.toContain("too large");
    const over = await post(url, LIMIT + 1);
    expect(over).toEqual({ status: 413, type: "application/json", text: '{"errors":["failed to parse JSON input: http: request body too large"]}' });
  });

  it("access control: 32 MiB is read; one byte more is refused as an unreadable body (400, plain text)", BIG_BODY, async () => {
    const { base } = await t.startWith(createDoubles({ seed: 1 }));
    const url = `${base("accessControl")}/acl/token`;
    const under = await post(url, LIMIT, {}, "PUT");
    expect(under.text).not.toContain("too large");
    const over = await post(url, LIMIT + 1, {}, "PUT");
    expect(over.status).toBe(400);
    expect(over.text).toBe("Request decode failed: http: request body too large");
  });

  it("run orchestration: 32 MiB is read; one byte more is 413 as a JSON:API error document", BIG_BODY, async () => {
    const { base } = await t.startWith(createDoubles({ seed: 1 }));
    const url = `${base("runs")}/runs`;
    const under = await post(url, LIMIT, { "content-type": "application/vnd.api+json" });
    expect(under.status).not.toBe(413);
    const over = await post(url, LIMIT + 1, { "content-type": "application/vnd.api+json" });
    expect(over.status).toBe(413);
    expect(JSON.parse(over.text)).toEqual({ errors: [{ status: "413", title: "request entity too large" }] });
  });

  it("changes nothing stored when a body is too large", BIG_BODY, async () => {
    const { base, doubles } = await t.startWith(createDoubles({ seed: 1 }));
    const before = JSON.stringify(doubles.snapshot());
    expect((await post(`${base("secrets")}/sys/policies/acl/big`, LIMIT + 1, { "x-vault-token": doubles.secrets.rootToken })).status).toBe(413);
    expect(JSON.stringify(doubles.snapshot())).toBe(before);
  });
});

it("the server stops reading at the limit: a declared 1 GiB body is answered 413 after 1 MiB was sent", async () => {
  const doubles = createDoubles({ seed: 1 });
  const server = await doubles.listen();
  try {
    const answer = await new Promise<{ status: number; body: string; connection: string | undefined }>((resolve, reject) => {
      const req = request(`${server.url}/v1/sys/policies/acl/big`, { method: "POST", headers: { "content-type": "application/json", "content-length": String(1024 * MiB) } }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), connection: res.headers.connection }));
      });
      req.on("error", reject);
      req.write(CHUNK);
    });
    expect(answer).toEqual({ status: 413, body: '{"errors":["failed to parse JSON input: http: request body too large"]}', connection: "close" });
  } finally {
    await doubles.close();
  }
});
