/**
 * `infra-doubles serve --passthrough SERVICE=URL` (issue 23 item 4): what the fake does not
 * simulate goes to the real server, what it simulates stays in the fake, and bad values are usage
 * errors.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { parseCommand } from "../../src/cli/args.js";
import { EXIT_USAGE } from "../../src/cli/main.js";
import { launch } from "./launch.js";


describe("infra-doubles serve --passthrough", () => {
  it("forwards a KV read the fake does not simulate to the real server, and answers SSH OTPs itself", async () => {
    const seen: string[] = [];
    const real: Server = createServer((req, res) => {
      seen.push(`${req.method ?? ""} ${req.url ?? ""} ${String(req.headers["x-vault-token"])}`);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ data: { data: { password: "real" } } }));
    });
    await new Promise<void>((resolve) => real.listen(0, "127.0.0.1", resolve));
    const realUrl = `http://127.0.0.1:${(real.address() as AddressInfo).port}`;
    const run = launch(["serve", "--port", "0", "--json", "--clock", "manual", "--passthrough", `secrets=${realUrl}`]);
    try {
      const start = JSON.parse(await run.firstLine()) as { url: string; secrets: { baseUrl: string; rootToken: string; passthrough: string } };
      expect(start.secrets.passthrough).toBe(realUrl);
      const headers = { "x-vault-token": start.secrets.rootToken, "content-type": "application/json" };
      const kv = await fetch(`${start.secrets.baseUrl}/secret/data/app`, { headers });
      expect(kv.status).toBe(200);
      expect(await kv.json()).toEqual({ data: { data: { password: "real" } } });
      const otp = await fetch(`${start.secrets.baseUrl}/ssh/creds/otp-role`, { method: "POST", headers, body: JSON.stringify({ ip: "10.0.0.5" }) });
      expect(otp.status).toBe(200);
      expect(seen).toEqual([`GET /v1/secret/data/app ${start.secrets.rootToken}`]);
      const journal = (await (await fetch(`${start.url}/_sim/journal`)).json()) as { entries?: { url: string; answeredBy?: string }[] } | { url: string; answeredBy?: string }[];
      const entries = Array.isArray(journal) ? journal : (journal.entries ?? []);
      expect(entries.find((e) => e.url.endsWith("/v1/secret/data/app"))?.answeredBy).toBe("passthrough");
    } finally {
      run.signals.emit("SIGTERM");
      expect(await run.exit).toBe(0);
      await new Promise<void>((resolve) => real.close(() => resolve()));
    }
  });

  it("takes one SERVICE=URL per service and refuses anything else as a usage error", async () => {
    expect(parseCommand(["serve", "--passthrough", "secrets=http://127.0.0.1:8200", "--passthrough", "accessControl=http://127.0.0.1:8500"])).toMatchObject({
      passthrough: { secrets: "http://127.0.0.1:8200", accessControl: "http://127.0.0.1:8500" },
    });
    expect(parseCommand(["serve"])).not.toHaveProperty("passthrough");
    expect(parseCommand(["serve", "--passthrough", "vault=http://127.0.0.1:8200"])).toEqual({ command: "usage", problem: expect.stringContaining("SERVICE one of runs, accessControl, secrets") });
    expect(parseCommand(["serve", "--passthrough", "secrets=127.0.0.1:8200"])).toEqual({ command: "usage", problem: expect.stringContaining("needs an http(s) URL") });
    expect(parseCommand(["serve", "--passthrough", "secrets=http://a", "--passthrough", "secrets=http://b"])).toEqual({ command: "usage", problem: "--passthrough secrets is given twice" });
    expect(parseCommand(["run", "world.yaml", "--passthrough", "secrets=http://a"])).toEqual({ command: "usage", problem: "--passthrough is an option of serve, not run" });
    const run = launch(["serve", "--passthrough", "secrets"]);
    expect(await run.exit).toBe(EXIT_USAGE);
    expect(run.err.join("")).toContain("--passthrough secrets= needs an http(s) URL");
  });
});
