/**
 * Requests to hosts no doubles own, while an in-process interception is live: what happens to
 * them (`onUnhandledRequest`, as msw names it). One listener, attached after every other listener
 * of the @mswjs/interceptors engine (nock's, msw's), sees a request only when no one answered it:
 * the doubles answer their origins first, a user's nock mock or msw handler next.
 *
 * Loopback hosts (`localhost`, `127.0.0.0/8`, `::1`) are never unhandled: a local server (the
 * package's own `listen()`, a test's own server) does not leave the machine. See
 * docs/decisions/transports.md "Unhandled requests".
 */
import { attachEngineListener, type EngineRequestEvent } from "./engine.js";
import { nockBringsItsOwnEngine } from "./nock-module.js";
import { networkFailure, shapeFailure } from "./network-errors.js";
import { isOwnedOrigin } from "../owned-origins.js";

/** What {@link UnhandledRequestStrategy} functions get to print msw's way. */
export interface UnhandledRequestPrint {
  /** Print the standard warning (the request still goes to the network). */
  warning(): void;
  /** Print the standard error and fail the request. */
  error(): void;
}

/**
 * What happens to a request to a host no doubles own, that no one else answered:
 * - `"warn"` (default): a warning on stderr naming the request, then the request goes to the network;
 * - `"error"`: the request fails (fetch rejects with `TypeError: fetch failed` whose `cause` names
 *   it; node:http emits `error`) and never leaves the process;
 * - `"bypass"`: it goes to the network, silently;
 * - a function `(request, print) => void`: decide per request (`print.warning()`, `print.error()`
 *   as msw's callback); calling neither bypasses.
 */
export type UnhandledRequestStrategy = "error" | "warn" | "bypass" | ((request: Request, print: UnhandledRequestPrint) => void);

/** What was done with an unhandled request. */
export type UnhandledAction = "error" | "warn";

/** One live interception's policy. */
interface Policy {
  readonly strategy: UnhandledRequestStrategy;
  /** Called with what was done with each request the policy made fail or warn about. */
  readonly seen: (request: Request, action: UnhandledAction) => void;
}

const policies = new Set<Policy>();
let detach: (() => void) | undefined;
/**
 * Whether nock 15 runs (its socket-level interceptors sit below this engine's fetch layer, so a
 * request to the doubles' own origins reaches this listener unanswered and nock 15 answers it next).
 */
let underNock15 = false;

/** The controller's state before any answer (`RequestController.PENDING`). */
const PENDING = 0;

/**
 * Checks `strategy` (a typo must not silently mean "warn").
 * @throws {TypeError} for anything but the three names or a function.
 */
export function checkUnhandledStrategy(strategy: unknown): UnhandledRequestStrategy {
  if (strategy === "error" || strategy === "warn" || strategy === "bypass" || typeof strategy === "function") return strategy as UnhandledRequestStrategy;
  throw new TypeError(`infra-doubles: onUnhandledRequest must be "error", "warn", "bypass" or a function, not ${JSON.stringify(strategy)}`);
}

/**
 * Applies `strategy` to unhandled requests until the returned function is called. With several
 * live interceptions the strictest answer wins: a failure over a warning over a bypass.
 * @param seen - told of each request failed or warned about (the doubles list them).
 * @returns the release function (calling it twice is harmless).
 * @example
 * const release = holdUnhandledPolicy("error", (request) => console.log(request.url));
 * release();
 */
export function holdUnhandledPolicy(strategy: UnhandledRequestStrategy, seen: Policy["seen"]): () => void {
  const policy: Policy = { strategy: checkUnhandledStrategy(strategy), seen };
  policies.add(policy);
  // nock 15 brings its own, newer @mswjs/interceptors, which intercepts node:http at the socket
  // level: a ClientRequest interceptor of ours in front of it would pass unhandled requests through
  // a mock socket nock 15 cannot serve (`read ENOTCONN`). Under nock 15 only fetch is policed.
  if (detach === undefined) {
    underNock15 = nockBringsItsOwnEngine();
    detach = attachEngineListener(onRequest, { last: true, fetchOnly: underNock15 });
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    policies.delete(policy);
    if (policies.size === 0 && detach !== undefined) {
      const stop = detach;
      detach = undefined;
      stop();
    }
  };
}

/**
 * Whether `hostname` is a loopback name or address.
 * @example isLoopbackHost("127.0.0.1") // true; isLoopbackHost("secrets.test") // false
 */
export function isLoopbackHost(hostname: string): boolean {
  const bare = hostname.replace(/^\[|\]$/g, "").replace(/\.$/, "").toLowerCase();
  return bare === "localhost" || bare.endsWith(".localhost") || bare === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare) || bare === "::ffff:127.0.0.1";
}

function message(request: Request, action: UnhandledAction): string {
  const head = `infra-doubles: ${action === "error" ? "refused" : "warning:"} ${request.method} ${request.url} goes to a host no doubles own and nothing else answered it`;
  const hint =
    action === "error"
      ? 'it failed and never left the process (onUnhandledRequest: "error")'
      : 'it was sent to the network (onUnhandledRequest: "warn"; "error" fails it, "bypass" lets it through silently)';
  return `${head}; ${hint}. If it should reach one of the services, give the client the doubles' baseUrls(); if it is yours, mock it (nock, msw) before it is sent.`;
}

async function onRequest({ request, controller }: EngineRequestEvent): Promise<void> {
  if (controller.readyState !== PENDING || policies.size === 0) return;
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return;
  }
  if (isLoopbackHost(url.hostname)) return;
  if (underNock15 && isOwnedOrigin(url.origin)) return;
  let fail = false;
  let warn = false;
  for (const policy of policies) {
    const { strategy } = policy;
    if (strategy === "error") fail = true;
    else if (strategy === "warn") warn = true;
    else if (typeof strategy === "function") {
      strategy(request, {
        warning: () => {
          warn = true;
        },
        error: () => {
          fail = true;
        },
      });
    }
  }
  if (!fail && !warn) return;
  const action: UnhandledAction = fail ? "error" : "warn";
  for (const policy of policies) policy.seen(request, action);
  if (action === "error") {
    // A refused connection, in the client's own form: node:http's `error` event gets the Error,
    // fetch rejects with `TypeError: fetch failed` whose cause it is (docs/decisions/faults.md).
    if (controller.readyState === PENDING) controller.errorWith(shapeFailure(request, networkFailure(Object.assign(new Error(message(request, action)), { code: "ECONNREFUSED" }))));
  } else {
    console.warn(message(request, action));
  }
}
