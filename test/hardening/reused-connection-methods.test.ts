/**
 * Methods node:http cannot parse (`LIST`, lower-case `list`, an unknown token such as `BREW`) get the
 * service's own answer on a keep-alive connection that already carried other requests, whatever
 * came before and however the bytes are cut (issue 8, fuzz seed 9 indexes 78, 467 and 2068 via
 * server-socket: after a request carrying `Upgrade:` without `Connection: upgrade`, which node:http
 * serves as a plain request, the server's method rewriter stopped following the connection and
 * node:http answered the next `LIST` with a bare 400).
 *
 * Each case sends a first request, then the probe: in its own write, pipelined in the same write,
 * or with its request line cut across writes; the probe must get exactly what it gets alone on a
 * fresh connection. The raw socket framing exists on the server only.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Doubles } from "../../src/scenarios/doubles.js";
import { rawExchange, secretsOnRawSockets, type RawSecretsServer, type WireResponse } from "../interceptors/wire.js";

let doubles: Doubles;
let port: number;
let head: RawSecretsServer["head"];
let post: RawSecretsServer["post"];

beforeAll(async () => {
  ({ doubles, port, head, post } = await secretsOnRawSockets());
});

afterAll(async () => {
  await doubles.close();
});

/** A POST whose body goes in chunks (with an extension and a trailer). */
function chunkedPost(path: string, body: string): string {
  const half = Math.floor(body.length / 2);
  const chunks = [body.slice(0, half), body.slice(half)].map((c) => `${c.length.toString(16)};x=y\r\n${c}\r\n`).join("");
  return `${head("POST", path, "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n")}\r\n${chunks}0\r\nX-Trailer: t\r\n\r\n`;
}

/** Rewrites the role the suite made (the probes' answers stay the same), with request-like bytes. */
const BODY = JSON.stringify({ key_type: "ca", allow_user_certificates: true, default_user: "LIST /v1/ssh/roles HTTP/1.1\r\n\r\n" });

/** What comes first on the connection. */
const FIRST: Record<string, () => string> = {
  "a GET": () => `${head("GET", "/sys/health")}\r\n`,
  "a POST with a Content-Length body": () => post("/ssh/roles/web", BODY),
  "a POST with a chunked body": () => chunkedPost("/ssh/roles/web", BODY),
  "a LIST": () => `${head("LIST", "/ssh/roles")}\r\n`,
  "a PUT carrying Upgrade: without Connection: upgrade (node:http serves it as a plain request)": () => post("/ssh/roles/web", BODY, "Upgrade: websocket\r\n"),
  "a GET carrying Upgrade: h2c": () => `${head("GET", "/ssh/", "Upgrade: h2c\r\n")}\r\n`,
  "a GET with Upgrade: and Connection: upgrade (no protocol switch: it is answered as HTTP)": () => `${head("GET", "/sys/health", "Connection: keep-alive, Upgrade\r\nUpgrade: websocket\r\n")}\r\n`,
};

/** The requests node:http cannot parse. */
const PROBES: Record<string, () => string> = {
  LIST: () => `${head("LIST", "/ssh/roles")}\r\n`,
  "lower-case list": () => `${head("list", "/ssh/roles")}\r\n`,
  BREW: () => `${head("BREW", "/sys/mounts/ssh")}\r\n`,
  "LIST with a body": () => `${head("LIST", "/ssh/roles", "Content-Type: application/json\r\nContent-Length: 2\r\n")}\r\n{}`,
};

const alone = new Map<string, WireResponse>();

async function answerAlone(name: string, probe: string): Promise<WireResponse> {
  const known = alone.get(name);
  if (known) return known;
  const { responses } = await rawExchange(port, [Buffer.from(probe)], ["GET"]);
  const answer = responses[0];
  if (!answer) throw new Error(`no answer to ${name} alone`);
  expect(bareRejection(answer), `${name} alone`).toBe(false);
  alone.set(name, answer);
  return answer;
}

/** Status, body (request ids aside) and whether the connection stays open. */
const comparable = (r: WireResponse | undefined) =>
  r && { status: r.status, body: r.body.toString("latin1").replace(/"request_id":"[^"]*"/, '"request_id":""'), connection: r.headers.connection };

/** node:http's own answer to a request it cannot parse: 400, no body, connection closed. */
const bareRejection = (r: WireResponse | undefined): boolean => r === undefined || (r.status === 400 && r.body.length === 0);

describe("an unknown method on a reused connection", () => {
  for (const [firstName, firstOf] of Object.entries(FIRST)) {
    for (const [probeName, probeOf] of Object.entries(PROBES)) {
      const layouts: Record<string, (first: string, probe: string) => Buffer[]> = {
        "in its own write": (first, probe) => [Buffer.from(first), Buffer.from(probe)],
        "pipelined in the same write": (first, probe) => [Buffer.from(first + probe)],
        "with its request line cut across writes": (first, probe) => {
          const cut = probe.indexOf(" /") - 1; // inside the method
          return [Buffer.from(first + probe.slice(0, cut)), Buffer.from(probe.slice(cut, cut + 6)), Buffer.from(probe.slice(cut + 6))];
        },
      };
      for (const [layout, partsOf] of Object.entries(layouts)) {
        it(`after ${firstName}: ${probeName} ${layout}`, async () => {
          const probe = probeOf();
          const parts = partsOf(firstOf(), probe);
          const expected = await answerAlone(probeName, probe);
          const { responses } = await rawExchange(port, parts, ["GET", "GET"], { gapMs: 10 });
          expect(bareRejection(responses[0]), "the first request").toBe(false);
          expect(comparable(responses[1])).toEqual(comparable(expected));
        });
      }
    }
  }
});
