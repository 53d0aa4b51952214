/**
 * The server leaves a connection on node:http's own parse (in C++, straight from the socket) until
 * node:http refuses a method, then reads it through the method tracker from the refused request's
 * first byte (issue 25; docs/decisions/transports.md). node:http's refusal does not say where that
 * request began (`LI` + `ST /…` fails as `UNLI` + `ST /…` does), so every case here must get
 * exactly what the same request gets alone on a fresh connection: the request line cut at every
 * byte, after pipelined requests still being answered, after a body, keep-alive after the switch,
 * another unknown method, and a Python client. The raw socket framing exists on the server only.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import type { Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Doubles } from "../../src/scenarios/doubles.js";
import { rawExchange, secretsOnRawSockets, type RawSecretsServer, type WireResponse } from "./wire.js";

let doubles: Doubles;
let port: number;
let url: string;
let token: string;
let prefix: string;
let head: RawSecretsServer["head"];
let post: RawSecretsServer["post"];
const sockets: Socket[] = [];

beforeAll(async () => {
  ({ doubles, port, url, token, prefix, head, post } = await secretsOnRawSockets((socket) => sockets.push(socket)));
});

afterAll(async () => {
  await doubles.close();
});
const GET = (): string => `${head("GET", "/sys/health")}\r\n`;
const GET_ROLE = (): string => `${head("GET", "/ssh/roles/web")}\r\n`;
const LIST = (): string => `${head("LIST", "/ssh/roles")}\r\n`;
const UNLIST = (): string => `${head("UNLIST", "/ssh/roles")}\r\n`;
const BREW = (): string => `${head("BREW", "/sys/mounts/ssh")}\r\n`;
const LIST_WITH_BODY = (): string => `${head("LIST", "/ssh/roles", "Content-Type: application/json\r\nContent-Length: 2\r\n")}\r\n{}`;

/** Status, body (request ids aside) and whether the connection stays open. */
const comparable = (r: WireResponse | undefined) =>
  r && { status: r.status, body: r.body.toString("latin1").replace(/"request_id":"[^"]*"/, '"request_id":""'), connection: r.headers.connection };

async function alone(request: string): Promise<ReturnType<typeof comparable>> {
  const { responses } = await rawExchange(port, [Buffer.from(request)], ["GET"]);
  return comparable(responses[0]);
}

/** Sends `parts` on one connection (each its own write) and compares every answer with `requests` alone. */
async function expectAsAlone(parts: readonly string[], requests: readonly string[]): Promise<void> {
  const expected = [];
  for (const request of requests) expected.push(await alone(request));
  const { responses } = await rawExchange(
    port,
    parts.map((part) => Buffer.from(part)),
    requests.map(() => "GET"),
    { gapMs: 15 },
  );
  expect(responses.map(comparable)).toEqual(expected);
}

describe("node:http's own parse until it refuses a method", () => {
  it("keeps a connection that sends known methods on node:http's C++ parse, and reads it through the tracker from its first LIST", async () => {
    const before = sockets.length;
    const parser = (): { _consumed?: boolean } | null | undefined => (sockets[before] as (Socket & { parser?: { _consumed?: boolean } | null }) | undefined)?.parser;
    const consumed: (boolean | undefined)[] = [];
    const { responses } = await rawExchange(port, [Buffer.from(GET()), Buffer.from(GET_ROLE()), Buffer.from(LIST()), Buffer.from(GET())], ["GET", "GET", "GET", "GET"], {
      afterWrite: async (_client, index) => {
        await new Promise((r) => setTimeout(r, 30));
        consumed[index] = parser()?._consumed;
      },
    });
    expect(consumed.slice(0, 3)).toEqual([true, true, false]);
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200]);
  });

  it("answers a LIST whose request line is cut at any byte, after a GET on the same connection", async () => {
    const line = LIST().slice(0, LIST().indexOf("\r\n") + 2);
    for (let cut = 1; cut < line.length; cut++) {
      await expectAsAlone([GET() + LIST().slice(0, cut), LIST().slice(cut)], [GET(), LIST()]);
      await expectAsAlone([GET(), LIST().slice(0, cut), LIST().slice(cut)], [GET(), LIST()]);
    }
  });

  it("tells a cut UNLIST from a cut LIST, and a LIST after a body ending in UN from an UNLIST", async () => {
    expect((await alone(UNLIST()))?.status).toBe(405);
    await expectAsAlone([GET() + "UNLI", UNLIST().slice(4)], [GET(), UNLIST()]);
    await expectAsAlone([GET() + "LI", LIST().slice(2)], [GET(), LIST()]);
    const unBody = post("/ssh/roles/other", "UN");
    await expectAsAlone([unBody, LIST()], [unBody, LIST()]);
    await expectAsAlone([unBody.slice(0, -2), "UN" + LIST()], [unBody, LIST()]);
    await expectAsAlone([unBody + "LI", LIST().slice(2)], [unBody, LIST()]);
    await expectAsAlone([GET(), UNLIST()], [GET(), UNLIST()]);
  });

  it("answers pipelined requests before the LIST in order, and the LIST after them", async () => {
    await expectAsAlone([GET() + GET_ROLE() + LIST()], [GET(), GET_ROLE(), LIST()]);
    await expectAsAlone([GET() + GET_ROLE() + LIST().slice(0, 2), LIST().slice(2) + GET()], [GET(), GET_ROLE(), LIST(), GET()]);
  });

  it("answers a LIST with a body, cut inside its method", async () => {
    await expectAsAlone([GET() + LIST_WITH_BODY().slice(0, 3), LIST_WITH_BODY().slice(3)], [GET(), LIST_WITH_BODY()]);
  });

  it("answers a LIST that follows a body spread over many reads, in the read that ends the body", async () => {
    const big = post("/ssh/roles/other", JSON.stringify({ key_type: "ca", allow_user_certificates: true, default_user: "u".repeat(200_000) }));
    await expectAsAlone([big + LIST()], [big, LIST()]);
    await expectAsAlone([big.slice(0, 100_000), big.slice(100_000) + LIST().slice(0, 3), LIST().slice(3)], [big, LIST()]);
  });

  it("keeps the connection alive after the switch: known and unknown methods go on being answered", async () => {
    await expectAsAlone([GET(), LIST(), GET_ROLE(), LIST(), BREW(), GET()], [GET(), LIST(), GET_ROLE(), LIST(), BREW(), GET()]);
  });

  it("answers another unknown method as the service does, switched or not", async () => {
    expect((await alone(BREW()))?.status).toBe(405);
    await expectAsAlone([GET(), BREW()], [GET(), BREW()]);
    await expectAsAlone([GET() + "BR", BREW().slice(2)], [GET(), BREW()]);
  });

  it("answers a Python client's LIST on a pooled connection after a GET", async () => {
    const script = [
      "import json, sys, requests",
      "s = requests.Session()",
      "h = {'X-Vault-Token': sys.argv[2]}",
      "a = s.get(sys.argv[1] + '/sys/health', headers=h)",
      "b = s.request('LIST', sys.argv[1] + '/ssh/roles', headers=h)",
      "c = s.request('LIST', sys.argv[1] + '/ssh/roles', headers=h)",
      "print(json.dumps([a.status_code, b.status_code, b.json()['data'], c.status_code]))",
    ].join("\n");
    const output = await new Promise<string>((resolve, reject) => {
      execFile("python3", ["-c", script, `${url}${prefix}`, token], { timeout: 20_000 }, (error, stdout, stderr) => (error ? reject(new Error(`${String(error)}\n${stderr}`)) : resolve(stdout)));
    });
    const [health, status, data, again] = JSON.parse(output) as [number, number, unknown, number];
    expect(health).toBe(200);
    expect(status).toBe(200);
    expect(again).toBe(200);
    expect((data as { keys?: unknown }).keys).toContain("web");
  });

  it.skipIf(!existsSync("/usr/bin/python3"))("answers hvac's LIST (its requests session) after a GET on the same connection", async () => {
    const script = [
      "import json, sys, hvac",
      "c = hvac.Client(url=sys.argv[1], token=sys.argv[2])",
      "c.adapter.get(sys.argv[3] + '/sys/health')",
      "r = c.adapter.list(sys.argv[3] + '/ssh/roles')",
      "r2 = c.adapter.list(sys.argv[3] + '/ssh/roles')",
      "print(json.dumps([r['data']['keys'], r2['data']['keys']]))",
    ].join("\n");
    const output = await new Promise<string>((resolve, reject) => {
      execFile("/usr/bin/python3", ["-c", script, url, token, prefix], { timeout: 20_000 }, (error, stdout, stderr) => (error ? reject(new Error(`${String(error)}\n${stderr}`)) : resolve(stdout)));
    });
    const [first, second] = JSON.parse(output) as [string[], string[]];
    expect(first).toContain("web");
    expect(second).toEqual(first);
  });
});
