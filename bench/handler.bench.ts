/**
 * Handler rows (`npm run bench`, see bench/README.md): a request through the transport-free
 * `handler.handle()`, against the demo service of the tests (the router's and kernel's floor).
 */
import { demoGet, runGet } from "./fixtures.js";
import { row } from "./table.js";

row({
  name: "GET run through handle()",
  clock: "cpu",
  target: "<= 20us",
  setup: async () => {
    const { doubles, request } = await runGet();
    return {
      figure: { label: "handle()", run: () => doubles.handler.handle(request) },
      anchor: { label: "demo GET through handle()", run: demoGet() },
    };
  },
});
