/**
 * Transactions on the write journal, against plain copies: a random program of writes (sets,
 * deletes, array methods, objects moved or shared between places, new objects holding state
 * objects) run through `Simulator.update` leaves
 * - when it then throws: the state exactly as before (same keys in the same order, same holes);
 * - when it returns: the state the same program gives on a plain copy, with no proxy left in it
 *   (a snapshot copies it) nor in what the operation returned.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DomainError } from "../../src/simulator/kernel/errors.js";
import { Simulator, type ServiceDefinition } from "../../src/simulator/kernel/simulator.js";

type Data = Record<string, unknown>;

/** A dump that sees key order and array holes (`toEqual` sees neither). */
function dump(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "undefined";
  if (Array.isArray(value)) {
    const items: string[] = [];
    for (let i = 0; i < value.length; i++) items.push(i in value ? dump(value[i]) : "<hole>");
    return `[${items.join(",")}]`;
  }
  return `{${Object.keys(value).map((key) => `${JSON.stringify(key)}:${dump((value as Data)[key])}`).join(",")}}`;
}

type Op =
  | { kind: "set"; path: number[]; key: string; value: unknown }
  | { kind: "move"; path: number[]; key: string; from: number[] }
  | { kind: "wrapNew"; path: number[]; key: string; from: number[] }
  | { kind: "delete"; path: number[] }
  | { kind: "array"; path: number[]; method: "push" | "pop" | "shift" | "unshift" | "splice" | "reverse" | "sort" | "grow" | "truncate" | "fill" | "copyWithin"; value: unknown; n: number }
  | { kind: "assign"; path: number[]; value: Data }
  | { kind: "observe"; path: number[] };

const leaf = fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constantFrom("a", "b", "zz", ""), fc.boolean(), fc.constant(null));
const small: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small", withCrossShrink: true }, leaf, tie("object"), tie("array")),
  object: fc.dictionary(fc.constantFrom("a", "b", "c", "d", "10", "2", "__proto__"), tie("value"), { maxKeys: 4 }),
  array: fc.array(tie("value"), { maxLength: 4 }),
})).value;
const path = fc.array(fc.nat(), { maxLength: 4 });
const key = fc.constantFrom("a", "b", "c", "e", "7", "x", "__proto__");
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant("set" as const), path, key, value: small }),
  fc.record({ kind: fc.constant("move" as const), path, key, from: path }),
  fc.record({ kind: fc.constant("wrapNew" as const), path, key, from: path }),
  fc.record({ kind: fc.constant("delete" as const), path }),
  fc.record({
    kind: fc.constant("array" as const),
    path,
    method: fc.constantFrom("push", "pop", "shift", "unshift", "splice", "reverse", "sort", "grow", "truncate", "fill", "copyWithin"),
    value: small,
    n: fc.nat({ max: 5 }),
  }),
  fc.record({ kind: fc.constant("assign" as const), path, value: fc.dictionary(key, small, { maxKeys: 3 }) }),
  fc.record({ kind: fc.constant("observe" as const), path }),
  // Deletes and writes the same keys often: a key written again after its delete comes last.
  fc.record({ kind: fc.constant("set" as const), path: fc.constant<number[]>([]), key: fc.constantFrom("a", "b", "c"), value: leaf }),
  fc.record({ kind: fc.constant("delete" as const), path: fc.constantFrom<number[]>([], [0], [0, 0]) }),
);

/** Follows `path` (child indexes, modulo the number of object children) from `root`. */
function walk(root: object, steps: number[]): object {
  let node = root;
  for (const step of steps) {
    const children = Object.keys(node)
      .map((k) => (node as Data)[k])
      .filter((v): v is object => v !== null && typeof v === "object");
    if (children.length === 0) break;
    node = children[step % children.length] as object;
  }
  return node;
}

/** Whether `inner` is `outer` or lies inside it (moving `outer` under `inner` would make a cycle). */
function contains(outer: object, inner: object, seen = new Set<object>()): boolean {
  if (outer === inner) return true;
  if (seen.has(outer)) return false;
  seen.add(outer);
  return Object.keys(outer).some((k) => {
    const v = (outer as Data)[k];
    return v !== null && typeof v === "object" && contains(v, inner, seen);
  });
}

function put(target: object, key: string, value: unknown): void {
  if (Array.isArray(target)) target[key.length % 3] = value;
  else if (key === "__proto__") Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else (target as Data)[key] = value;
}

/** Runs `ops` on `root` (a plain object or the membrane: the program is the same). */
function run(root: Data, ops: Op[]): unknown[] {
  const returned: unknown[] = [];
  for (const o of ops) {
    const target = walk(root, o.path);
    switch (o.kind) {
      case "set":
        put(target, o.key, structuredClone(o.value));
        break;
      case "move": {
        const source = walk(root, o.from);
        if (!contains(source, target)) put(target, o.key, source);
        returned.push(source);
        break;
      }
      case "wrapNew": {
        const source = walk(root, o.from);
        const fresh = { held: source, list: [source, { deeper: source }] };
        if (!contains(source, target)) put(target, o.key, fresh);
        returned.push(fresh);
        break;
      }
      case "delete": {
        const keys = Object.keys(target);
        const k = keys[o.path.length % Math.max(1, keys.length)];
        if (k !== undefined) delete (target as Data)[k];
        break;
      }
      case "array": {
        if (!Array.isArray(target)) break;
        const items = target as unknown[];
        if (o.method === "push") items.push(structuredClone(o.value));
        else if (o.method === "pop") items.pop();
        else if (o.method === "shift") items.shift();
        else if (o.method === "unshift") items.unshift(structuredClone(o.value), o.n);
        else if (o.method === "splice") items.splice(o.n % (items.length + 1), 2, structuredClone(o.value));
        else if (o.method === "reverse") items.reverse();
        else if (o.method === "sort") items.sort((x, y) => dump(x).localeCompare(dump(y)));
        else if (o.method === "truncate") items.length = Math.min(items.length, o.n % 3);
        else if (o.method === "fill") items.fill(structuredClone(o.value), o.n % 3, o.n);
        else if (o.method === "copyWithin") items.copyWithin(o.n % 3, o.n % 2);
        else items[items.length + o.n] = o.n; // leaves holes
        break;
      }
      case "assign":
        if (!Array.isArray(target)) Object.assign(target, structuredClone(o.value));
        break;
      case "observe": {
        // What the program sees of an object in the middle of the transaction, every way it can look.
        const keys = ["a", "b", "c", "d", "e", "1", "7", "x", "__proto__"];
        const seen = [
          dump(target),
          JSON.stringify(target) ?? "",
          Object.keys({ ...target }).join(","),
          Object.entries(target).map(([k]) => k).join(","),
          keys.map((k) => `${k in target}/${Object.hasOwn(target, k)}/${Object.getOwnPropertyDescriptor(target, k) !== undefined}`).join(","),
        ];
        const inOrder: string[] = [];
        for (const k in target) inOrder.push(k);
        returned.push([...seen, inOrder.join(",")]);
        break;
      }
    }
  }
  return returned;
}

function definition(initial: Data): ServiceDefinition<Data> {
  return { name: "data", initialState: () => structuredClone(initial) };
}

describe("kernel: transactions on the write journal", () => {
  it("leaves a failed operation's state exactly as before, and a successful one as on a plain copy", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom("a", "b", "c", "d", "1"), small, { maxKeys: 5 }), fc.array(op, { maxLength: 12 }), fc.boolean(), (initial, ops, fails) => {
        const sim = new Simulator({ services: [definition(initial)] });
        const before = dump(sim.read<Data, Data>("data", (ctx) => ctx.state));
        const model = structuredClone(initial);
        const modelReturned = run(model, ops);
        let returned: unknown[] = [];
        const operation = () =>
          sim.update<Data, unknown[]>("data", (ctx) => {
            const out = run(ctx.state, ops);
            if (fails) throw new DomainError({ code: "invalid", service: "data", operation: "program", message: "refused" });
            return out;
          });
        if (fails) expect(operation).toThrow(DomainError);
        else returned = operation();
        const after = sim.read<Data, Data>("data", (ctx) => ctx.state);
        expect(dump(after)).toBe(fails ? before : dump(model));
        // No proxy left behind: these copies would throw on one.
        expect(() => sim.snapshot()).not.toThrow();
        expect(() => structuredClone(returned)).not.toThrow();
        if (!fails) expect(dump(returned)).toBe(dump(modelReturned));
      }),
      { numRuns: 500 },
    );
  });

  it("rolls a nested transaction back to its own start", () => {
    const sim = new Simulator({ services: [definition({ list: [1], map: { a: 1, b: 2, c: 3 } })] });
    sim.update<Data, void>("data", (ctx) => {
      (ctx.state.list as number[]).push(2);
      expect(() =>
        sim.update<Data, void>("data", (inner) => {
          (inner.state.list as number[]).push(3);
          delete (inner.state.map as Data).a;
          throw new DomainError({ code: "invalid", service: "data", operation: "inner", message: "refused" });
        }),
      ).toThrow(DomainError);
    });
    expect(dump(sim.read<Data, Data>("data", (ctx) => ctx.state))).toBe(dump({ list: [1, 2], map: { a: 1, b: 2, c: 3 } }));
  });

  it("deletes for good what a committed transaction deleted, inner transactions included", () => {
    const sim = new Simulator({ services: [definition({ map: { a: 1, b: 2, c: 3, d: 4 } })] });
    sim.update<Data, void>("data", (ctx) => {
      const map = ctx.state.map as Data;
      delete map.b;
      sim.update<Data, void>("data", (inner) => void delete (inner.state.map as Data).c);
      expect(() =>
        sim.update<Data, void>("data", (inner) => {
          delete (inner.state.map as Data).a;
          throw new DomainError({ code: "invalid", service: "data", operation: "inner", message: "refused" });
        }),
      ).toThrow(DomainError);
      expect([Object.keys(map), "b" in map, map.b, JSON.stringify(map)]).toEqual([["a", "d"], false, undefined, '{"a":1,"d":4}']);
    });
    // The state itself, not a view of it: the deleted keys are gone, nothing is left holding a marker.
    const map = sim.read<Data, Data>("data", (ctx) => ctx.state.map as Data);
    expect(Reflect.ownKeys(map)).toEqual(["a", "d"]);
    expect(Object.getOwnPropertySymbols(map)).toEqual([]);
    expect(Object.values(map)).toEqual([1, 4]);
  });
});
