/**
 * In-process transport rows (`npm run bench`, see bench/README.md): one GET of a stored run through
 * `fetch`, against the anchors answering the same bytes with a static reply. The nock rows are in
 * wall time: nock answers after its own timers (a `setImmediate` and two `setTimeout(0)` on nock 14,
 * a `setTimeout(0)` before the body ends on nock 15), which no configuration of its reply avoids
 * (docs/guides/choose-a-transport.md).
 */
import { bareNock, fetchText, mswStatic, rawInterceptors } from "./anchors.js";
import { runGet } from "./fixtures.js";
import { useNockModule } from "../src/interceptors/transports/nock-module.js";
import { row } from "./table.js";

row({
  name: "GET run through fetch, nock transport",
  setup: async () => {
    const { doubles, url, headers, reply } = await runGet();
    let interception: { stop(): void } | undefined;
    return {
      figure: {
        label: "doubles.intercept()",
        before: () => (interception = doubles.intercept()),
        run: () => fetchText(url, headers),
        after: () => interception?.stop(),
      },
      anchor: bareNock(url, reply, headers),
    };
  },
});

row({
  name: "anchor: bare nock, static reply",
  setup: async () => {
    const { url, headers, reply } = await runGet();
    return { figure: { ...bareNock(url, reply, headers), label: "bare nock" }, anchor: await rawInterceptors(url, reply, headers) };
  },
});

row({
  name: "anchor: msw setupServer, static handler",
  setup: async () => {
    const { url, headers, reply } = await runGet();
    return { figure: { ...(await mswStatic(url, reply, headers)), label: "msw" }, anchor: await rawInterceptors(url, reply, headers) };
  },
});

row({
  name: "GET run through fetch, nock transport on nock 15",
  setup: async () => {
    const { doubles, url, headers, reply } = await runGet();
    const anchor = bareNock(url, reply, headers, { module: "nock15" }); // loads nock 15 for the transport too
    useNockModule("nock15");
    let interception: { stop(): void } | undefined;
    return {
      figure: {
        label: "doubles.intercept(), nock 15",
        before: () => (interception = doubles.intercept()),
        run: () => fetchText(url, headers),
        after: () => interception?.stop(),
      },
      anchor,
    };
  },
});

row({
  // The reply form the nock transport registers, against nock's static reply: nock's floor is the same.
  name: "anchor: bare nock, async reply function",
  setup: async () => {
    const { url, headers, reply } = await runGet();
    return { figure: bareNock(url, reply, headers, { reply: "async function" }), anchor: bareNock(url, reply, headers) };
  },
});

row({
  name: "anchor: bare nock 15, static reply",
  setup: async () => {
    const { url, headers, reply } = await runGet();
    return { figure: bareNock(url, reply, headers, { module: "nock15" }), anchor: await rawInterceptors(url, reply, headers) };
  },
});
