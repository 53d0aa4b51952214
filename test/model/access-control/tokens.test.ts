/**
 * Model-based test of token lifetimes (fast-check commands): creates with and without expiry,
 * clones, deletes and time jumps, checked after every step against a model that is just a map
 * from AccessorID to expiry. A shrunk failure reads as a story of commands.
 */
import fc from "fast-check";
import { expect, it } from "vitest";
import { accessControlDefinition } from "../../../src/simulator/access-control/definition.js";
import { ACCESS_CONTROL, type AccessControlState } from "../../../src/simulator/access-control/state.js";
import { cloneToken, createToken, deleteToken, listTokens } from "../../../src/simulator/access-control/tokens.js";
import type { TokenView } from "../../../src/simulator/access-control/views.js";
import { isDomainError } from "../../../src/simulator/kernel/errors.js";
import { Simulator } from "../../../src/simulator/kernel/simulator.js";

const MINUTE = 60_000;

interface Model {
  now: number;
  /** AccessorID -> expiry (ms) or null; only tokens made by the commands. */
  tokens: Map<string, number | null>;
}

interface Real {
  sim: Simulator;
  root: string;
}

function live(real: Real): string[] {
  return real.sim.read<AccessControlState, TokenView[]>(ACCESS_CONTROL, (ctx) => listTokens(ctx, { secret: real.root })).map((t) => t.accessorId);
}

function check(model: Model, real: Real): void {
  const expected = [...model.tokens].filter(([, exp]) => exp === null || model.now <= exp).map(([id]) => id);
  const actual = live(real).filter((id) => model.tokens.has(id));
  expect(actual.sort()).toEqual(expected.sort());
}

class Create implements fc.Command<Model, Real> {
  constructor(readonly ttlMinutes: number | null) {}
  check = () => true;
  run(model: Model, real: Real): void {
    const token = real.sim.update<AccessControlState, TokenView>(ACCESS_CONTROL, (ctx) =>
      createToken(ctx, { secret: real.root }, this.ttlMinutes === null ? {} : { expirationTtlMs: this.ttlMinutes * MINUTE }),
    );
    model.tokens.set(token.accessorId, token.expirationTime);
    expect(token.expirationTime).toBe(this.ttlMinutes === null ? null : model.now + this.ttlMinutes * MINUTE);
    check(model, real);
  }
  toString = () => `create(ttl=${this.ttlMinutes === null ? "none" : `${this.ttlMinutes}m`})`;
}

class Clone implements fc.Command<Model, Real> {
  constructor(readonly pick: number) {}
  check = (model: Readonly<Model>) => model.tokens.size > 0;
  run(model: Model, real: Real): void {
    const ids = [...model.tokens.keys()];
    const id = ids[this.pick % ids.length] as string;
    const expiry = model.tokens.get(id) ?? null;
    try {
      const clone = real.sim.update<AccessControlState, TokenView>(ACCESS_CONTROL, (ctx) => cloneToken(ctx, { secret: real.root }, id, {}));
      model.tokens.set(clone.accessorId, clone.expirationTime);
      expect(clone.expirationTime).toBe(expiry);
      expect(expiry === null || expiry - model.now >= MINUTE).toBe(true);
    } catch (error) {
      if (!isDomainError(error)) throw error;
      const alive = expiry === null || model.now <= expiry;
      if (alive) expect(expiry !== null && expiry - model.now < MINUTE).toBe(true);
    }
    check(model, real);
  }
  toString = () => `clone(#${this.pick})`;
}

class Delete implements fc.Command<Model, Real> {
  constructor(readonly pick: number) {}
  check = (model: Readonly<Model>) => model.tokens.size > 0;
  run(model: Model, real: Real): void {
    const ids = [...model.tokens.keys()];
    const id = ids[this.pick % ids.length] as string;
    expect(real.sim.update<AccessControlState, boolean>(ACCESS_CONTROL, (ctx) => deleteToken(ctx, { secret: real.root }, id))).toBe(true);
    model.tokens.delete(id);
    check(model, real);
  }
  toString = () => `delete(#${this.pick})`;
}

class Advance implements fc.Command<Model, Real> {
  constructor(readonly ms: number) {}
  check = () => true;
  run(model: Model, real: Real): void {
    real.sim.advance(this.ms);
    model.now += this.ms;
    check(model, real);
  }
  toString = () => `advance(${this.ms}ms)`;
}

it("keeps exactly the tokens whose expiry has not come, whatever the order of creates, clones, deletes and time jumps", () => {
  const commands = [
    fc.option(fc.integer({ min: 1, max: 24 * 60 }), { nil: null }).map((ttl) => new Create(ttl)),
    fc.nat().map((n) => new Clone(n)),
    fc.nat().map((n) => new Delete(n)),
    fc.oneof(fc.integer({ min: 0, max: 2 * MINUTE }), fc.integer({ min: 0, max: 30 * 60 * MINUTE })).map((ms) => new Advance(ms)),
  ];
  fc.assert(
    fc.property(fc.commands(commands, { maxCommands: 40 }), (cmds) => {
      const sim = new Simulator({ seed: 11, services: [accessControlDefinition()] });
      const root = sim.read<AccessControlState, string>(ACCESS_CONTROL, (ctx) => ctx.state.bootstrap.secretId);
      fc.modelRun(() => ({ model: { now: sim.now(), tokens: new Map() }, real: { sim, root } }), cmds);
    }),
    { numRuns: 60 },
  );
});
