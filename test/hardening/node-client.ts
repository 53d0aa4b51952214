/**
 * A request through node:http or node:https (chosen by the URL), as a client that does not use
 * `fetch` sends it: the method goes on the wire exactly as given (node:http does not upper-case it).
 */
import http from "node:http";
import https from "node:https";

/** What {@link nodeRequest} resolves with. */
export interface NodeAnswer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

export function nodeRequest(method: string, url: string, headers: Record<string, string> = {}, body?: string): Promise<NodeAnswer> {
  const client = url.startsWith("https:") ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}
