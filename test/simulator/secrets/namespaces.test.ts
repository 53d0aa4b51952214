import { describe, expect, it } from "vitest";
import { Simulator } from "../../../src/simulator/kernel/simulator.js";
import { createNamespace, resolveNamespace } from "../../../src/simulator/secrets/namespaces.js";
import { secretsDefinition } from "../../../src/simulator/secrets/service.js";
import type { SecretsState } from "../../../src/simulator/secrets/state.js";

describe("secrets namespaces", () => {
  const sim = new Simulator({ seed: 1, services: [secretsDefinition({ engines: {}, rootToken: "root" })] });
  sim.update<SecretsState, void>("secrets", (ctx) => void createNamespace(ctx, "ns1/ns2"));
  const resolve = (header: string | undefined, path: string) => sim.read<SecretsState, unknown>("secrets", (ctx) => resolveNamespace(ctx.state, header, path));

  it("creates parents and gives each a 5-character id", () => {
    const state = sim.read<SecretsState, SecretsState>("secrets", (ctx) => ctx.state);
    expect(Object.keys(state.namespaces)).toEqual(["ns1/", "ns1/ns2/"]);
    expect(state.namespaces["ns1/"]?.id).toMatch(/^[0-9A-Za-z]{5}$/);
  });

  it("combines the header and the path prefix, header first", () => {
    expect(resolve(undefined, "sys/health")).toEqual({ namespace: "", path: "sys/health" });
    expect(resolve("ns1", "sys/health")).toEqual({ namespace: "ns1/", path: "sys/health" });
    expect(resolve(undefined, "ns1/ns2/sys/health")).toEqual({ namespace: "ns1/ns2/", path: "sys/health" });
    expect(resolve("ns1/", "ns2/identity/x")).toEqual({ namespace: "ns1/ns2/", path: "identity/x" });
    expect(resolve("/root/", "ssh/x")).toEqual({ namespace: "", path: "ssh/x" });
    expect(resolve("ghost", "ssh/x")).toBeUndefined();
    expect(resolve(undefined, "ns2/ssh")).toEqual({ namespace: "", path: "ns2/ssh" });
  });
});
