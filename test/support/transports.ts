/**
 * The contract-suite harness: runs the same HTTP tests through every transport (nock, the fast
 * `interceptors` transport, msw 2 handlers from `mswHandlers()`, and the real node:http server), like hono's common.case.test.ts runs
 * one suite against every router.
 *
 * @example
 * describeEachTransport("runs: configuration versions", (t) => {
 *   it("creates a version", async () => {
 *     const { doubles, base } = await t.start([runsPlugin]);
 *     await fetch(`${base("runs")}/workspaces/ws-1/configuration-versions`, ...);
 *   });
 * });
 */
import { setupServer } from "msw/node";
import { afterEach, describe } from "vitest";
import { mswHandlers } from "../../src/interceptors/transports/msw.js";
import { useNockModule } from "../../src/interceptors/transports/nock-module.js";
import { DoublesCore, type DoublesCoreOptions } from "../../src/scenarios/doubles-core.js";
import type { ServicePlugin } from "../../src/scenarios/plugin.js";

/** Which transport a suite runs through. */
export type TransportName = "nock" | "interceptors" | "msw" | "server";

/** A started transport. */
export interface StartedTransport<D extends DoublesCore = DoublesCore> {
  readonly doubles: D;
  readonly transport: TransportName;
  /** The base URL of a service's named base (default `api`) as clients must use it. */
  base(service: string, baseName?: string): string;
}

/** Handed to each suite: starts doubles on this transport (stopped after each test). */
export interface TransportHarness {
  readonly name: TransportName;
  start(plugins: readonly ServicePlugin<unknown>[], options?: DoublesCoreOptions): Promise<StartedTransport>;
  /** Starts a ready-made doubles object (e.g. from `createDoubles()`). */
  startWith<D extends DoublesCore>(doubles: D): Promise<StartedTransport<D>>;
}

/** Every transport, in the order suites run through them. */
export const TRANSPORTS: readonly TransportName[] = ["nock", "interceptors", "msw", "server"];

// The nock the nock transport loads: `INFRA_DOUBLES_TEST_NOCK=nock15` runs the suite through nock 15
// (an npm alias devDependency); nock 14 (`nock`) otherwise. CI runs the contract suite with each.
if (process.env.INFRA_DOUBLES_TEST_NOCK) useNockModule(process.env.INFRA_DOUBLES_TEST_NOCK);

/**
 * The transports suites run through: all of them, or the comma-separated names in
 * `INFRA_DOUBLES_TEST_TRANSPORTS` (read when a suite is declared; test/interceptors/nock15.test.ts
 * runs contract files through nock 15 alone).
 */
function selectedTransports(): readonly TransportName[] {
  const chosen = process.env.INFRA_DOUBLES_TEST_TRANSPORTS;
  if (!chosen) return TRANSPORTS;
  const names = chosen.split(",").map((name) => name.trim());
  const unknown = names.filter((name) => !TRANSPORTS.includes(name as TransportName));
  if (unknown.length > 0) throw new Error(`INFRA_DOUBLES_TEST_TRANSPORTS: unknown transport ${unknown.join(", ")} (${TRANSPORTS.join(", ")})`);
  return TRANSPORTS.filter((name) => names.includes(name));
}

/** Runs `suite` once per transport, inside `describe("<title> (via nock|interceptors|msw|server)")`. */
export function describeEachTransport(title: string, suite: (harness: TransportHarness) => void): void {
  for (const name of selectedTransports()) {
    describe(`${title} (via ${name})`, () => {
      const stops: (() => Promise<void>)[] = [];
      let mswServer: ReturnType<typeof setupServer> | undefined;
      afterEach(async () => {
        for (const stop of stops.splice(0)) await stop();
      });
      const startWith = async <D extends DoublesCore>(doubles: D): Promise<StartedTransport<D>> => {
        if (name === "nock" || name === "interceptors") {
          const interception = doubles.intercept({ transport: name });
          stops.push(async () => interception.stop());
          const urls = doubles.baseUrls();
          return {
            doubles,
            transport: name,
            base: (service, baseName = "api") => required(urls[service]?.[baseName], service, baseName),
          };
        }
        if (name === "msw") {
          // One msw server per test, as suites use msw: later doubles of the same test join it with
          // server.use() (two listening msw servers would not hand a request body from one to the other).
          if (mswServer === undefined) {
            const server = setupServer(...mswHandlers(doubles));
            server.listen({ onUnhandledRequest: "bypass" });
            mswServer = server;
            stops.push(async () => {
              server.close();
              mswServer = undefined;
            });
          } else {
            mswServer.use(...mswHandlers(doubles));
          }
          stops.unshift(() => doubles.close());
          const urls = doubles.baseUrls();
          return {
            doubles,
            transport: name,
            base: (service, baseName = "api") => required(urls[service]?.[baseName], service, baseName),
          };
        }
        const server = await doubles.listen();
        stops.push(() => server.close());
        const registered = doubles.registeredPlugins;
        return {
          doubles,
          transport: name,
          base: (service, baseName = "api") =>
            required(registered.find((p) => p.key === service)?.serverBases(server.url)[baseName], service, baseName),
        };
      };
      suite({
        name,
        startWith,
        start: (plugins, options) => startWith(new DoublesCore(plugins, options)),
      });
    });
  }
}

function required(value: string | undefined, service: string, baseName: string): string {
  if (value === undefined) throw new Error(`no base "${baseName}" for service "${service}"`);
  return value.replace(/\/+$/, "");
}
