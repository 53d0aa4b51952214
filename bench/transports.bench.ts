/**
 * The fast in-process transport (`doubles.intercept({ transport: "interceptors" })`, issue 9 item 3):
 * one GET of a stored run through `fetch`, against raw @mswjs/interceptors and msw 2 `setupServer`
 * answering the same bytes with a static reply, each measured in the same process (see
 * bench/README.md), and the msw handlers of `infra-doubles/msw` against msw with a static handler.
 * The nock transport's row is in transport.bench.ts.
 */
import { fetchText, mswStatic, rawInterceptors } from "./anchors.js";
import { runGet } from "./fixtures.js";
import { row, type Measure } from "./table.js";

/** The interceptors transport on the bench's stored run, started before each batch. */
async function interceptorsTransport(): Promise<{ figure: Measure; rest: Awaited<ReturnType<typeof runGet>> }> {
  const fixture = await runGet();
  const { doubles, url, headers } = fixture;
  let interception: { stop(): void } | undefined;
  return {
    rest: fixture,
    figure: {
      label: 'intercept({ transport: "interceptors" })',
      before: () => (interception = doubles.intercept({ transport: "interceptors" })),
      run: () => fetchText(url, headers),
      after: () => interception?.stop(),
    },
  };
}

row({
  // Target retired (issue 25, decision 2): the gap is handle()'s, which the next rows split out.
  name: "GET run through fetch, interceptors transport vs raw @mswjs/interceptors",
  clock: "cpu",
  setup: async () => {
    const { figure, rest } = await interceptorsTransport();
    return { figure, anchor: await rawInterceptors(rest.url, rest.reply, rest.headers) };
  },
});

row({
  name: "GET run through fetch, interceptors transport vs msw static handler",
  target: "<= 0.5x", // issue 25, decision 2: end to end
  clock: "cpu",
  setup: async () => {
    const { figure, rest } = await interceptorsTransport();
    return { figure, anchor: await mswStatic(rest.url, rest.reply, rest.headers) };
  },
});

row({
  name: "GET run through fetch, infra-doubles/msw handlers vs msw static handler",
  clock: "cpu",
  setup: async () => {
    const { doubles, url, headers, reply } = await runGet();
    const { setupServer } = await import("msw/node");
    const { mswHandlers } = await import("../src/interceptors/msw-entry.js");
    const server = setupServer(...mswHandlers(doubles));
    return {
      figure: {
        label: "setupServer(...mswHandlers(doubles))",
        before: () => server.listen({ onUnhandledRequest: "bypass" }),
        run: () => fetchText(url, headers),
        after: () => server.close(),
      },
      anchor: await mswStatic(url, reply, headers),
    };
  },
});

row({
  // The transport's own cost: the same interception over a handler whose handle() gives back the
  // stored run's response (computed once, untimed), so the figure leaves out what handle() costs.
  // Against the first row, it splits a GET's cost between the transport and handle().
  name: "GET run through fetch, interceptors transport over a precomputed answer vs raw @mswjs/interceptors",
  target: "<= 1.2x", // issue 25, decision 2: the transport's own cost
  clock: "cpu",
  setup: async () => {
    const { doubles, url, headers, reply, request } = await runGet();
    const answer = await doubles.handler.handle(request);
    const handler = Object.create(doubles.handler, { handle: { value: () => Promise.resolve(answer) } }) as typeof doubles.handler;
    const { interceptWithInterceptors } = await import("../src/interceptors/transports/interceptors.js");
    let interception: { stop(): void } | undefined;
    return {
      figure: {
        label: "interceptWithInterceptors, precomputed answer",
        before: () => (interception = interceptWithInterceptors(handler)),
        run: () => fetchText(url, headers),
        after: () => interception?.stop(),
      },
      anchor: await rawInterceptors(url, reply, headers),
    };
  },
});
