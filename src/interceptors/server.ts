/**
 * The real HTTP transport: a `node:http` server over the same transport-free handler, for clients
 * that are not in the test's Node process (curl, Go, Python, a browser).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Handler } from "./handler.js";
import type { SimRequest } from "./http.js";

/** Options of {@link startServer}. */
export interface ServerOptions {
  /** Port to listen on; 0 (default) picks a free port. */
  readonly port?: number;
  /** Interface to bind (default `127.0.0.1`). */
  readonly host?: string;
}

/** A running server. Dispose it (or `await close()`) to stop it. */
export interface RunningServer extends AsyncDisposable {
  /** The origin, e.g. `http://127.0.0.1:53211`. */
  readonly url: string;
  readonly port: number;
  readonly server: Server;
  /** Stops listening and closes every open connection. */
  close(): Promise<void>;
}

/** Header a client may set to send a method its HTTP stack cannot (e.g. `LIST`) as `GET`/`POST`. */
export const METHOD_OVERRIDE_HEADER = "x-http-method-override";

/**
 * Serves `handlerFor(origin)` over node:http. The handler is built once the origin (with the chosen
 * port) is known, so the services can give absolute links and upload URLs on that origin.
 *
 * @example
 * const server = await startServer((origin) => doubles.handlerFor(origin), { port: 0 });
 * console.log(server.url);
 */
export async function startServer(
  handlerFor: (origin: string) => Handler,
  options: ServerOptions = {},
): Promise<RunningServer> {
  const host = options.host ?? "127.0.0.1";
  const ready: { handler?: Handler } = {};
  const server = createServer((req, res) => {
    if (!ready.handler) {
      res.writeHead(503).end();
      return;
    }
    void serve(ready.handler, req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const hostForUrl = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${hostForUrl}:${address.port}`;
  ready.handler = handlerFor(url);
  const close = (): Promise<void> =>
    new Promise((resolve) => {
      if (!server.listening) {
        resolve();
        return;
      }
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return { url, port: address.port, server, close, [Symbol.asyncDispose]: close };
}

async function serve(handler: Handler, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const abort = new AbortController();
  res.on("close", () => abort.abort());
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  const override = headers[METHOD_OVERRIDE_HEADER];
  const method = (override ?? req.method ?? "GET").toUpperCase();
  const origin = `http://${req.headers.host ?? "localhost"}`;
  const request: SimRequest = {
    method,
    url: new URL(req.url ?? "/", origin),
    headers,
    body: new Uint8Array(Buffer.concat(chunks)),
    signal: abort.signal,
  };
  const response = await handler.handle({ ...request, url: rebase(request.url, handler) });
  if (res.destroyed) return;
  res.writeHead(response.status, { ...response.headers });
  if (response.body !== undefined && method !== "HEAD") res.end(response.body);
  else res.end();
}

/** Requests reach the server under whatever Host the client used; route them under the handler's origin. */
function rebase(url: URL, handler: Handler): URL {
  const origin = handler.origins[0];
  if (origin === undefined || handler.owns(url)) return url;
  return new URL(`${url.pathname}${url.search}`, origin);
}
