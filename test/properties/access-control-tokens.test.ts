/**
 * Properties of access-control tokens, on the simulator directly (fast-check prints the seed and
 * path of any failure):
 * - a token is usable exactly while `now < ExpirationTime`;
 * - an update never changes an immutable field (AccessorID, SecretID, AuthMethod, ExpirationTime,
 *   Local, CreateTime, CreateIndex), and a refused update changes nothing at all;
 * - the same seed and the same calls give the same state, byte for byte.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { accessControlDefinition } from "../../src/simulator/access-control/definition.js";
import { createPolicy } from "../../src/simulator/access-control/fixtures.js";
import { ACCESS_CONTROL, type AccessControlState } from "../../src/simulator/access-control/state.js";
import { createToken, listTokens, readSelf, updateToken, type TokenInput } from "../../src/simulator/access-control/tokens.js";
import { login } from "../../src/simulator/access-control/login.js";
import { createAuthMethod, registerBearerToken } from "../../src/simulator/access-control/fixtures.js";
import { createBindingRule } from "../../src/simulator/access-control/binding-rules.js";
import type { TokenView } from "../../src/simulator/access-control/views.js";
import { isDomainError } from "../../src/simulator/kernel/errors.js";
import { Simulator } from "../../src/simulator/kernel/simulator.js";

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

function fresh(seed = 1) {
  const sim = new Simulator({ seed, services: [accessControlDefinition()] });
  const root = sim.read<AccessControlState, string>(ACCESS_CONTROL, (ctx) => ctx.state.bootstrap.secretId);
  sim.update<AccessControlState, unknown>(ACCESS_CONTROL, (ctx) => createPolicy(ctx, { name: "acl-read", rules: 'acl = "read"' }));
  return { sim, root };
}

function usable(sim: Simulator, secret: string): boolean {
  try {
    sim.read<AccessControlState, unknown>(ACCESS_CONTROL, (ctx) => readSelf(ctx, { secret }));
    sim.read<AccessControlState, unknown>(ACCESS_CONTROL, (ctx) => listTokens(ctx, { secret }));
    return true;
  } catch (error) {
    if (isDomainError(error) && error.code === "unauthenticated") return false;
    throw error;
  }
}

describe("access-control token properties", () => {
  it("a token is usable exactly while now < ExpirationTime", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: MINUTE, max: DAY }),
        fc.integer({ min: 0, max: DAY }),
        fc.array(fc.integer({ min: 0, max: DAY + MINUTE }), { minLength: 1, maxLength: 6 }),
        fc.boolean(),
        (ttl, wait, probes, absolute) => {
          const { sim, root } = fresh();
          sim.advance(wait);
          const start = sim.now();
          const input: TokenInput = absolute
            ? { policies: [{ name: "acl-read" }], expirationTime: start + ttl }
            : { policies: [{ name: "acl-read" }], expirationTtlMs: ttl };
          const token = sim.update<AccessControlState, TokenView>(ACCESS_CONTROL, (ctx) => createToken(ctx, { secret: root }, input));
          expect(token.expirationTime).toBe(start + ttl);
          for (const probe of [...probes, ttl - 1, ttl, ttl + 1].sort((a, b) => a - b)) {
            sim.advance(start + probe - sim.now());
            expect(usable(sim, token.secretId)).toBe(sim.now() < start + ttl);
          }
          sim.advance(Math.max(0, start + ttl - sim.now()));
          expect(usable(sim, token.secretId)).toBe(false);
          expect(sim.read<AccessControlState, boolean>(ACCESS_CONTROL, (ctx) => token.accessorId in ctx.state.tokens)).toBe(false);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("an update never changes an immutable field, and a refused update changes nothing", () => {
    const uuidLike = fc.uuid().filter((u) => !u.startsWith("00000000-0000-0000-0000-0000000000"));
    const update = fc.record(
      {
        secretId: fc.option(fc.oneof(fc.constant("SAME"), uuidLike, fc.constant("")), { nil: undefined }),
        description: fc.option(fc.string({ maxLength: 8 }), { nil: undefined }),
        local: fc.option(fc.boolean(), { nil: undefined }),
        authMethod: fc.option(fc.constantFrom("", "k8s", "other"), { nil: undefined }),
        expirationTime: fc.option(fc.oneof(fc.constant("SAME"), fc.integer({ min: 0, max: 2 * DAY })), { nil: undefined }),
        expirationTtlMs: fc.option(fc.integer({ min: 0, max: DAY }), { nil: undefined }),
        serviceIdentities: fc.option(fc.array(fc.record({ serviceName: fc.constantFrom("web", "Bad", "", "api") }), { maxLength: 2 }), { nil: undefined }),
        policies: fc.option(fc.array(fc.record({ name: fc.constantFrom("acl-read", "missing") }), { maxLength: 2 }), { nil: undefined }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(
        fc.record({ local: fc.boolean(), ttl: fc.option(fc.integer({ min: MINUTE, max: DAY }), { nil: undefined }), viaLogin: fc.boolean() }),
        fc.array(update, { minLength: 1, maxLength: 4 }),
        (source, updates) => {
          const { sim, root } = fresh();
          let token: TokenView;
          if (source.viaLogin) {
            sim.update<AccessControlState, unknown>(ACCESS_CONTROL, (ctx) => {
              createAuthMethod(ctx, { name: "k8s", type: "kubernetes", tokenLocality: source.local ? "local" : "global", maxTokenTtlMs: source.ttl ?? 0 });
              registerBearerToken(ctx, { name: "k8s" }, "jwt", { name: "web", namespace: "default" });
              return createBindingRule(ctx, { secret: root }, { authMethod: "k8s", bindType: "service", bindName: "${serviceaccount.name}" });
            });
            token = sim.update<AccessControlState, TokenView>(ACCESS_CONTROL, (ctx) => login(ctx, {}, { authMethod: "k8s", bearerToken: "jwt" }));
          } else {
            token = sim.update<AccessControlState, TokenView>(ACCESS_CONTROL, (ctx) =>
              createToken(ctx, { secret: root }, { local: source.local, expirationTtlMs: source.ttl }),
            );
          }
          for (const change of updates) {
            const before = sim.snapshot().services;
            const input: TokenInput = {
              ...change,
              secretId: change.secretId === "SAME" ? token.secretId : change.secretId,
              expirationTime: change.expirationTime === "SAME" ? token.expirationTime : change.expirationTime,
            };
            let after: TokenView | undefined;
            try {
              after = sim.update<AccessControlState, TokenView>(ACCESS_CONTROL, (ctx) => updateToken(ctx, { secret: root }, token.accessorId, input));
            } catch (error) {
              if (!isDomainError(error)) throw error;
              expect(sim.snapshot().services).toEqual(before);
              continue;
            }
            for (const field of ["accessorId", "secretId", "authMethod", "expirationTime", "local", "createTime", "createIndex"] as const) {
              expect(after[field]).toEqual(token[field]);
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it("gives byte-identical state for the same seed and the same calls", () => {
    fc.assert(
      fc.property(fc.integer(), fc.array(fc.integer({ min: MINUTE, max: DAY }), { maxLength: 5 }), (seed, ttls) => {
        const run = () => {
          const { sim, root } = fresh(seed);
          for (const ttl of ttls) sim.update<AccessControlState, unknown>(ACCESS_CONTROL, (ctx) => createToken(ctx, { secret: root }, { expirationTtlMs: ttl }));
          sim.advance(DAY / 2);
          return JSON.stringify(sim.snapshot());
        };
        expect(run()).toBe(run());
      }),
      { numRuns: 30 },
    );
  });
});
