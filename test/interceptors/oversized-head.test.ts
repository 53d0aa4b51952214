/**
 * A request whose head exceeds node:http's limit (16 KiB) gets the local server's answer on every
 * transport: `431 Request Header Fields Too Large`, no body, `Connection: close`. Through nock,
 * node:http(s) requests of that size used to hang forever (issue 8, defect 11).
 */
import http from "node:http";
import https from "node:https";
import { expect, it } from "vitest";
import { secretsPlugin } from "../../src/scenarios/secrets/plugin.js";
import { describeEachTransport } from "../support/transports.js";

interface Seen {
  status: number;
  statusMessage: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function send(url: string, headers: Record<string, string>): Promise<Seen> {
  return new Promise((resolve, reject) => {
    const req = (url.startsWith("https:") ? https : http).request(url, { headers, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, statusMessage: res.statusMessage ?? "", headers: res.headers, body }));
    });
    req.on("error", reject);
    req.setTimeout(5_000, () => req.destroy(new Error("no answer within 5 s")));
    req.end();
  });
}

describeEachTransport("request heads beyond 16 KiB", (h) => {
  it.each([17_000, 70_000])("a %d-byte header gets 431 with no body from node:http(s)", async (size) => {
    const t = await h.start([secretsPlugin], { seed: 1 });
    const seen = await send(`${t.base("secrets")}/sys/health`, { "x-padding": "a".repeat(size) });
    expect(seen.status).toBe(431);
    expect(seen.statusMessage).toBe("Request Header Fields Too Large");
    expect(seen.headers.connection).toBe("close");
    expect(seen.body).toBe("");
  });

  it("a head just under the limit is answered as usual", async () => {
    const t = await h.start([secretsPlugin], { seed: 1 });
    const seen = await send(`${t.base("secrets")}/sys/health`, { "x-padding": "a".repeat(16_000) });
    expect(seen.status).toBe(200);
  });
});
