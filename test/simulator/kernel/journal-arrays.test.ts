/**
 * Every way an array can be changed inside a transaction is undone by a rollback: setting its
 * `length` (shorter: the elements cut off come back; longer), `Object.defineProperty` of its
 * `length`, and each mutating method (splice, sort, reverse, fill, copyWithin, shift, unshift,
 * push, pop), on dense arrays, arrays with holes and arrays of objects.
 */
import { describe, expect, it } from "vitest";
import { DomainError } from "../../../src/simulator/kernel/errors.js";
import { Simulator, type ServiceDefinition } from "../../../src/simulator/kernel/simulator.js";

type Data = { list: unknown[] };

/** A dump that sees array holes and lengths (`toEqual` treats a hole as undefined). */
function dump(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "undefined";
  if (Array.isArray(value)) {
    const items: string[] = [];
    for (let i = 0; i < value.length; i++) items.push(i in value ? dump(value[i]) : "<hole>");
    return `[${items.join(",")}](${value.length})`;
  }
  return `{${Object.keys(value).map((key) => `${JSON.stringify(key)}:${dump((value as Record<string, unknown>)[key])}`).join(",")}}`;
}

const refused = (): never => {
  throw new DomainError({ code: "invalid", service: "data", operation: "program", message: "refused" });
};

const starts: Record<string, () => unknown[]> = {
  dense: () => [5, 3, 9, 1, 7],
  // eslint-disable-next-line no-sparse-arrays
  holes: () => [5, , 9, , 7, ,],
  objects: () => [{ n: 2 }, { n: 1 }, { n: 3 }, [4, 5]],
};

const mutations: Record<string, (list: unknown[]) => void> = {
  "length = 2": (list) => {
    list.length = 2;
  },
  "length = 0": (list) => {
    list.length = 0;
  },
  "length = 9": (list) => {
    list.length = 9;
  },
  "defineProperty length 1": (list) => {
    Object.defineProperty(list, "length", { value: 1 });
  },
  "Reflect.set length 1": (list) => {
    Reflect.set(list, "length", 1);
  },
  "length = 1 then push": (list) => {
    list.length = 1;
    list.push("x", "y");
  },
  "splice(1, 2)": (list) => {
    list.splice(1, 2);
  },
  "splice(1, 1, a, b, c)": (list) => {
    list.splice(1, 1, "a", "b", "c");
  },
  "splice(0)": (list) => {
    list.splice(0);
  },
  sort: (list) => {
    list.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  },
  reverse: (list) => {
    list.reverse();
  },
  "fill(0, 1, 3)": (list) => {
    list.fill(0, 1, 3);
  },
  fill: (list) => {
    list.fill("f");
  },
  "copyWithin(0, 2)": (list) => {
    list.copyWithin(0, 2);
  },
  "copyWithin(2, 0)": (list) => {
    list.copyWithin(2, 0);
  },
  shift: (list) => {
    list.shift();
  },
  "shift twice": (list) => {
    list.shift();
    list.shift();
  },
  unshift: (list) => {
    list.unshift("u", "v");
  },
  pop: (list) => {
    list.pop();
  },
  push: (list) => {
    list.push("p");
  },
  "nested: cut an inner array": (list) => {
    const inner = list.find(Array.isArray) as unknown[] | undefined;
    if (inner !== undefined) inner.length = 0;
    list.length = 1;
  },
};

function world(start: () => unknown[]): Simulator {
  const definition: ServiceDefinition<Data> = { name: "data", initialState: () => ({ list: start() }) };
  return new Simulator({ services: [definition] });
}

describe("kernel: a rollback undoes every array mutation", () => {
  for (const [startName, start] of Object.entries(starts)) {
    for (const [name, mutate] of Object.entries(mutations)) {
      it(`${name} on ${startName}`, () => {
        const sim = world(start);
        const before = dump(sim.read<Data, Data>("data", (ctx) => ctx.state));
        // The same program on a plain array: what a successful operation must leave.
        const model = { list: start() };
        mutate(model.list);
        expect(() =>
          sim.update<Data, void>("data", (ctx) => {
            mutate(ctx.state.list);
            expect(dump(ctx.state)).toBe(dump(model));
            refused();
          }),
        ).toThrow(DomainError);
        expect(dump(sim.read<Data, Data>("data", (ctx) => ctx.state))).toBe(before);
        // Committed, it leaves what the plain program leaves.
        sim.update<Data, void>("data", (ctx) => mutate(ctx.state.list));
        expect(dump(sim.read<Data, Data>("data", (ctx) => ctx.state))).toBe(dump(model));
      });
    }
  }

  it("undoes a cut inside a nested transaction that fails, and keeps the outer one's writes", () => {
    const sim = world(starts.dense as () => unknown[]);
    sim.update<Data, void>("data", (ctx) => {
      ctx.state.list.push(11);
      expect(() =>
        sim.update<Data, void>("data", (inner) => {
          inner.state.list.length = 1;
          refused();
        }),
      ).toThrow(DomainError);
    });
    expect(dump(sim.read<Data, Data>("data", (ctx) => ctx.state))).toBe("{\"list\":[5,3,9,1,7,11](6)}");
  });
});
