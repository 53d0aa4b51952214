/** Property: the health code for every node state and parameter combination follows the precedence table. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DoublesCore } from "../../src/scenarios/doubles-core.js";
import type { SecretsScenario } from "../../src/scenarios/secrets/secrets-scenario.js";
import { NODE_STATES, type NodeState } from "../../src/simulator/secrets/node-state.js";
import { itemsPlugin } from "../interceptors/secrets/test-engine.js";

const CODE_PARAMS = ["activecode", "standbycode", "drsecondarycode", "performancestandbycode", "sealedcode", "uninitcode"] as const;
const DEFAULTS = { activecode: 200, standbycode: 429, drsecondarycode: 472, performancestandbycode: 473, sealedcode: 503, uninitcode: 501 };

/** The model: the precedence table, written out row by row. */
function expected(state: NodeState, unstable: boolean, standbyok: boolean, perfstandbyok: boolean, codes: typeof DEFAULTS): number {
  if (state === "not-initialized") return codes.uninitcode;
  if (state === "sealed") return codes.sealedcode;
  if (unstable && (state === "dr-secondary-active" || state === "dr-secondary-standby" || state === "performance-standby")) {
    return standbyok ? codes.activecode : codes.standbycode;
  }
  if (state === "dr-secondary-active" || state === "dr-secondary-standby") return codes.drsecondarycode;
  if (state === "performance-standby") return perfstandbyok ? codes.activecode : codes.performancestandbycode;
  if (state === "standby") return standbyok ? codes.activecode : codes.standbycode;
  return codes.activecode;
}

const goBool = fc.constantFrom(["1", true], ["t", true], ["T", true], ["TRUE", true], ["true", true], ["True", true], ["0", false], ["f", false], ["F", false], ["FALSE", false], ["false", false], ["False", false]);

describe("secrets health (property)", () => {
  const doubles = new DoublesCore([itemsPlugin()]);
  const controls = doubles.controlsOf<SecretsScenario>("secrets");
  const ask = (method: string, query: string) =>
    doubles.handler.handle({ method, url: new URL(`https://secrets.test/v1/sys/health${query}`), headers: {}, body: new Uint8Array() });

  it("GET and HEAD answer the code the precedence table gives", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...NODE_STATES),
        fc.boolean(),
        fc.option(goBool, { nil: undefined }),
        fc.option(goBool, { nil: undefined }),
        fc.dictionary(fc.constantFrom(...CODE_PARAMS), fc.integer({ min: 200, max: 599 }).filter((c) => ![204, 205, 304].includes(c)), { maxKeys: 6 }),
        async (state, unstable, standbyok, perfstandbyok, overrides) => {
          controls.setNodeState(state, { unstable });
          const params = new URLSearchParams();
          if (standbyok) params.set("standbyok", standbyok[0] as string);
          if (perfstandbyok) params.set("perfstandbyok", perfstandbyok[0] as string);
          for (const [name, code] of Object.entries(overrides)) params.set(name, String(code));
          const codes = { ...DEFAULTS, ...overrides };
          const want = expected(state, unstable, (standbyok?.[1] as boolean) ?? false, (perfstandbyok?.[1] as boolean) ?? false, codes);
          const query = `?${params.toString()}`;
          const get = await ask("GET", query);
          expect(get.status).toBe(want);
          expect(JSON.parse(String(get.body)).sealed).toBe(state === "sealed" || state === "not-initialized");
          const head = await ask("HEAD", query);
          expect(head.status).toBe(want);
          expect(head.body).toBeUndefined();
        },
      ),
      { numRuns: 300 },
    );
  });

  it("any value Go cannot parse is a 400 whatever the state", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...NODE_STATES),
        fc.constantFrom("standbyok", "perfstandbyok", ...CODE_PARAMS),
        fc.string({ maxLength: 6 }).filter((s) => !/^(1|t|T|TRUE|true|True|0|f|F|FALSE|false|False)$/.test(s) && !/^[+-]?\d+$/.test(s)),
        async (state, name, value) => {
          controls.setNodeState(state, { unstable: false });
          const response = await ask("GET", `?${new URLSearchParams({ [name]: value }).toString()}`);
          expect(response.status).toBe(400);
          expect(JSON.parse(String(response.body))).toEqual({ errors: [] });
        },
      ),
      { numRuns: 200 },
    );
  });
});
