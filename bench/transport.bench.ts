/**
 * In-process transport rows (`npm run bench`, see bench/README.md): one GET of a stored run through
 * `fetch`, against the anchors answering the same bytes with a static reply.
 */
import { bareNock, fetchText, mswStatic, rawInterceptors } from "./anchors.js";
import { runGet } from "./fixtures.js";
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
