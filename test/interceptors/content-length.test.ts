/**
 * Every response whose length is known carries a `Content-Length`, on every transport: bodyless
 * answers (the archive upload's 200, the run actions' 202) too, rather than going out chunked.
 * Checked as node:http and fetch clients see them.
 */
import http from "node:http";
import https from "node:https";
import { describe, expect, it } from "vitest";
import { describeEachTransport } from "../support/transports.js";
import { startRuns, type RunsWorld } from "./runs/support.js";

interface Seen {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** One request through node:http(s), as a client sees the answer. */
function send(url: string, method: string, headers: Record<string, string>, body?: Uint8Array): Promise<Seen> {
  return new Promise((resolve, reject) => {
    const req = (url.startsWith("https:") ? https : http).request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body === undefined ? undefined : Buffer.from(body));
  });
}

async function pausedRun(w: RunsWorld): Promise<string> {
  const { runId } = await w.upload();
  w.doubles.advance("1m");
  expect(w.runs.run(runId ?? "").status).toBe("planned");
  return runId ?? "";
}

describeEachTransport("Content-Length on every answer of known length", (h) => {
  describe("bodyless answers", () => {
    it("the archive upload's 200 has Content-Length: 0 and no chunked coding (node:http)", async () => {
      const w = await startRuns(h);
      const created = await w.api("POST", `/workspaces/${w.ws.id}/configuration-versions`, { body: { data: { type: "configuration-versions" } } });
      const seen = await send(created.body.data.attributes["upload-url"] as string, "PUT", { "content-type": "application/octet-stream" }, new Uint8Array([1, 2, 3]));
      expect(seen.status).toBe(200);
      expect(seen.headers["content-length"]).toBe("0");
      expect(seen.headers["transfer-encoding"]).toBeUndefined();
      expect(seen.body.length).toBe(0);
    });

    it("the archive upload's 200 has Content-Length: 0 (fetch)", async () => {
      const w = await startRuns(h);
      const created = await w.api("POST", `/workspaces/${w.ws.id}/configuration-versions`, { body: { data: { type: "configuration-versions" } } });
      const response = await fetch(created.body.data.attributes["upload-url"] as string, {
        method: "PUT",
        headers: { "content-type": "application/octet-stream" },
        body: new Uint8Array([1, 2, 3]),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-length")).toBe("0");
      expect(response.headers.get("transfer-encoding")).toBeNull();
      expect(await response.text()).toBe("");
    });

    it("a run action's 202 has Content-Length: 0 (node:http and fetch)", async () => {
      const w = await startRuns(h);
      const runId = await pausedRun(w);
      const seen = await send(`${w.base}/runs/${runId}/actions/discard`, "POST", { authorization: `Bearer ${w.writer}`, "content-type": "application/vnd.api+json" });
      expect(seen.status).toBe(202);
      expect(seen.headers["content-length"]).toBe("0");
      expect(seen.headers["transfer-encoding"]).toBeUndefined();
      const again = await w.api("POST", `/runs/${await pausedRun(w)}/actions/discard`, { token: w.writer });
      expect(again.status).toBe(202);
      expect(again.headers.get("content-length")).toBe("0");
    });
  });

  it("JSON answers carry the byte length of their body, HEAD the length a GET would get", async () => {
    const w = await startRuns(h);
    const runId = await pausedRun(w);
    const seen = await send(`${w.base}/runs/${runId}`, "GET", { authorization: `Bearer ${w.admin}` });
    expect(seen.status).toBe(200);
    expect(seen.headers["content-length"]).toBe(String(seen.body.length));
    expect(seen.headers["transfer-encoding"]).toBeUndefined();
  });
});
