/**
 * What a test run keeps after each test (`npm run bench`, see bench/README.md): heap kept per
 * createDoubles/intercept/close cycle while node:http talks keep-alive to a local server (issue 8,
 * defect 9: about 17 KB per cycle while nock's interceptor stayed active after the last `stop()`),
 * against the same cycle without `intercept()`. Shown, not judged: nock's own activate/restore
 * cycle keeps about 1-2 KB (measured the same way), and the rest is not yet accounted for.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createDoubles } from "../src/scenarios/doubles.js";
import { row } from "./table.js";

const CYCLES = 40;
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

row({
  name: "heap kept per createDoubles/intercept/close cycle, node:http keep-alive",
  kind: "value",
  unit: "KB",
  setup: async () => {
    const local = http.createServer((_req, res) => res.end("ok"));
    await new Promise<void>((resolve) => local.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(local.address() as AddressInfo).port}/`;
    const agent = new http.Agent({ keepAlive: true });
    const get = (): Promise<void> =>
      new Promise((resolve, reject) => {
        http.get(url, { agent }, (res) => res.resume().on("end", resolve)).on("error", reject);
      });
    const kept = (intercept: boolean) => async (): Promise<number> => {
      gc();
      const before = process.memoryUsage().heapUsed;
      for (let i = 0; i < CYCLES; i++) {
        const doubles = createDoubles({ seed: i });
        if (intercept) doubles.intercept();
        await get();
        await doubles.close();
      }
      gc();
      return (process.memoryUsage().heapUsed - before) / CYCLES / 1024;
    };
    return {
      figure: { label: "with intercept()", value: kept(true) },
      anchor: { label: "same cycle, no intercept()", value: kept(false) },
      teardown: async () => {
        agent.destroy();
        await new Promise<void>((resolve) => local.close(() => resolve()));
      },
    };
  },
});
