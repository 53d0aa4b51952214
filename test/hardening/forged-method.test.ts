/**
 * The internal method signal of the server cannot be forged (issue 8, defect 4): a client's own
 * `X-Infra-Doubles-Original-Method: DELETE` on a `GET` is ignored in every framing state of the
 * server's method tracker (following requests, after an `Upgrade:` request, after a `CONNECT` and
 * framing it gives up on, pipelined, split across writes) and through nock.
 */
import { expect, it } from "vitest";
import { createDoubles } from "../../src/scenarios/doubles.js";
import { rawExchange } from "../interceptors/wire.js";
import { describeEachTransport } from "../support/transports.js";

const FORGED = "X-Infra-Doubles-Original-Method";
const ROLE = { key_type: "ca", allow_user_certificates: true, default_user: "ubuntu" };

describeEachTransport("forged internal method header", (t) => {
  const start = async () => {
    const started = await t.startWith(createDoubles({ seed: 1 }));
    const token = started.doubles.secrets.rootToken;
    const secrets = started.base("secrets");
    const headers = { "x-secrets-token": token, "content-type": "application/json" };
    expect((await fetch(`${secrets}/ssh/roles/web`, { method: "POST", headers, body: JSON.stringify(ROLE) })).status).toBe(204);
    const roleExists = async () => (await fetch(`${secrets}/ssh/roles/web`, { headers })).status === 200;
    const url = new URL(secrets);
    const get = (path: string, extra = "") =>
      `GET ${url.pathname}${path} HTTP/1.1\r\nHost: x\r\nX-Secrets-Token: ${token}\r\n${extra}`;
    const forgedGet = `${get("/ssh/roles/web", `${FORGED}: DELETE\r\n`)}\r\n`;
    return { ...started, token, secrets, roleExists, port: Number(url.port), get, forgedGet };
  };

  it("a GET carrying the header reads (fetch)", async () => {
    const { secrets, token, roleExists } = await start();
    const read = await fetch(`${secrets}/ssh/roles/web`, { headers: { "x-secrets-token": token, [FORGED]: "DELETE" } });
    expect(read.status).toBe(200);
    expect(await roleExists()).toBe(true);
    const list = await fetch(`${secrets}/ssh/roles`, { method: "LIST", headers: { "x-secrets-token": token, [FORGED]: "DELETE" } });
    expect(list.status).toBe(200);
    expect(await roleExists()).toBe(true);
  });

  /**
   * `lastStatus`: what the last request gets (node:http answers 400 and closes on bad framing;
   * `null`: it closes without an answer).
   */
  const server = (name: string, build: (s: Awaited<ReturnType<typeof start>>) => { parts: Buffer[]; methods: string[] }, lastStatus: number | null = 200) =>
    it(`on the wire: ${name}`, async () => {
      if (t.name !== "server") return; // framing states exist on the server only
      const started = await start();
      const { parts, methods } = build(started);
      const { responses } = await rawExchange(started.port, parts, methods, { gapMs: 20 });
      expect(responses.at(-1)?.status ?? null).toBe(lastStatus);
      expect(await started.roleExists()).toBe(true);
    });

  server("after an Upgrade request", ({ get, forgedGet }) => ({
    parts: [Buffer.from(`${get("/sys/health", "Upgrade: websocket\r\nConnection: Upgrade\r\n")}\r\n`), Buffer.from(forgedGet)],
    methods: ["GET", "GET"],
  }));

  server("in the Upgrade request itself", ({ get }) => ({
    parts: [Buffer.from(`${get("/ssh/roles/web", `Upgrade: websocket\r\nConnection: Upgrade\r\n${FORGED}: DELETE\r\n`)}\r\n`)],
    methods: ["GET"],
  }));

  server("after framing the tracker gives up on (duplicate Content-Length)", ({ get, forgedGet }) => ({
    parts: [Buffer.from(`${get("/sys/health", "Content-Length: 0\r\nContent-Length: 0\r\n")}\r\n`), Buffer.from(forgedGet)],
    methods: ["GET", "GET"],
  }), 400);

  server("after a CONNECT request (pass-through)", ({ forgedGet }) => ({
    parts: [Buffer.from("CONNECT x:443 HTTP/1.1\r\nHost: x:443\r\n\r\n"), Buffer.from(forgedGet)],
    methods: ["CONNECT", "GET"],
  }), null);

  server("pipelined behind a LIST", ({ get, forgedGet }) => ({
    parts: [Buffer.from(`${get("/ssh/roles").replace(/^GET/, "LIST")}\r\n${forgedGet}`)],
    methods: ["LIST", "GET"],
  }));

  server("split across writes, folded, in upper case", ({ forgedGet }) => {
    const text = forgedGet.replace(`${FORGED}: DELETE`, `${FORGED.toUpperCase()}:\r\n DELETE`);
    const cut = text.indexOf("ORIGINAL") + 3;
    return { parts: [Buffer.from(text.slice(0, cut)), Buffer.from(text.slice(cut))], methods: ["GET"] };
  });
});
