/**
 * msw 2 request handlers over the same `handle()` as every other transport: for a test suite that
 * already runs msw's `setupServer`, `setupServer(...mswHandlers(doubles))` answers the services'
 * origins from the doubles, next to the suite's own handlers. msw is an optional peer dependency,
 * loaded only by this entry (`infra-doubles/msw`).
 */
import { http } from "msw";
import { holdClientMethodSupport } from "../client-methods.js";
import type { Handler } from "../handler.js";
import type { SimRequest } from "../http.js";
import { holdOwnedOrigins } from "../owned-origins.js";
import { connectionError } from "../faults.js";
import { droppedResponse, holdNetworkErrorShapes } from "./network-errors.js";
import { holdDisposeGuard } from "./dispose-guard.js";
import { requestBody, toResponse } from "./interceptors.js";

/** What {@link mswHandlers} needs: the doubles (or anything with their handler). */
export interface HandlerSource {
  readonly handler: Handler;
  /** When present (the doubles have it), the handlers stop answering after `doubles.close()`. */
  onClose?(stop: () => void): void;
}

/**
 * One msw 2 handler per origin the doubles own (their nock base URLs, `doubles.baseUrls()`),
 * answering every method and path there from the doubles' handler: the exact request bytes,
 * malformed JSON, `LIST` and any other method included, with the services' own statuses and error
 * bodies. Requests to other origins fall through to the suite's other handlers (or msw's
 * `onUnhandledRequest`).
 *
 * msw gives handlers no teardown: node:http `LIST` support (`client-methods.ts`) and the guard
 * that keeps node:http requests to owned origins in process and answers heads beyond 16 KiB with
 * 431 (`owned-origins.ts`) are held from this call until `doubles.close()`; after it the handlers answer nothing (msw moves on to the next
 * handler). Do not also `doubles.intercept()` the same doubles while these handlers are listening:
 * whichever engine listener runs first answers.
 *
 * Implements the transports section of the specs' wire rules (docs/decisions/transports.md).
 * @param doubles - the doubles (`createDoubles()`), or an object with their `handler`.
 * @returns msw 2 request handlers, for `setupServer(...)` or `server.use(...)`.
 * @example
 * import { setupServer } from "msw/node";
 * import { createDoubles } from "infra-doubles";
 * import { mswHandlers } from "infra-doubles/msw";
 *
 * const doubles = createDoubles({ seed: 1 });
 * const server = setupServer(...mswHandlers(doubles), ...myOwnHandlers);
 * server.listen({ onUnhandledRequest: "bypass" });
 * await fetch(`${doubles.baseUrls().secrets.api}/sys/health`); // answered by the doubles
 * server.close();
 * await doubles.close();
 */
export function mswHandlers(doubles: HandlerSource): ReturnType<typeof http.all>[] {
  const handler = doubles.handler;
  const releaseMethods = holdClientMethodSupport();
  const releaseOrigins = holdOwnedOrigins(handler.origins);
  const releaseShapes = holdNetworkErrorShapes();
  const releaseGuard = holdDisposeGuard();
  let release: (() => void) | undefined = () => {
    releaseGuard();
    releaseShapes();
    releaseOrigins();
    releaseMethods();
  };
  doubles.onClose?.(() => {
    release?.();
    release = undefined;
  });
  return handler.origins.map((origin) =>
    http.all(new RegExp(`^${origin.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?:/|$)`), async ({ request }) => {
      if (release === undefined) return undefined;
      const url = new URL(request.url);
      const read = await requestBody(request, () => handler.maxBodyBytes(url));
      const simRequest: SimRequest = {
        method: request.method,
        url,
        headers: Object.fromEntries(request.headers as unknown as Iterable<[string, string]>),
        body: read.body,
        signal: request.signal,
        ...(read.tooLarge ? { bodyTooLarge: true } : {}),
      };
      const response = await handler.handle(simRequest);
      // A fault's dropped connection: msw's network error (its one way to fail a request), which
      // the request controller turns into the client's own form of the drop (network-errors.ts).
      if (response.drop !== undefined) {
        const drop = response.drop;
        return droppedResponse(() => connectionError(drop, "node"));
      }
      return toResponse(response, request.method === "HEAD");
    }),
  );
}
