/**
 * The write journal that makes a transaction's cost follow what it touches, not what is stored.
 *
 * During a transaction an operation sees its service's state through a membrane of proxies: reads
 * pass through (an object or array read from the state comes back wrapped, so writes deep inside
 * are seen too), and every write (`set`, `delete`, `defineProperty`) first records the property as
 * it was (its own descriptor, or its absence). A failed operation is rolled back by putting the
 * recorded properties back in reverse order, which leaves the state exactly as before (same
 * objects, same keys in the same order, same array lengths); a successful one just drops the
 * journal. Nothing is copied.
 *
 * A key deleted from a plain object inside a transaction stays in place until the outermost
 * transaction ends, holding a marker the membrane hides (reads answer `undefined`, `in`,
 * `Object.keys`, spreads and `JSON.stringify` leave it out): a commit then deletes it, a rollback
 * gives it its value back where it was. Deleting it at once would put it back last on a rollback,
 * and knowing its place meant listing every key of the object on each delete (`Object.keys` of a
 * table of 1,000 tokens: about 100 us per deleted token).
 *
 * Proxies never end up in the state, in a scheduled move's payload or in what the operation
 * returns: a value written through the membrane, a payload and a result are unwrapped (a wrapped
 * object is replaced by the object itself, a new object or array is searched for wrapped objects,
 * which are replaced in place).
 *
 * Wrapped: plain objects (prototype `Object.prototype` or null) and arrays that are not frozen.
 * Byte arrays, `Map`, `Set`, `Date` and other objects are handed out as they are: service state
 * never changes them in place (stored bytes are replaced, not edited), as DESIGN.md requires.
 */
import { setOwn } from "./dict.js";

/**
 * What every journal's proxy answers with its target (see {@link peek}). Hot code that peeks at one
 * kind of record may read it at a site of its own (`record[PEEK] ?? record`): `peek`'s single load
 * site sees every shape of object and turns megamorphic (a stub-cache probe per call).
 * @example
 * const plain = ((run as { [PEEK]?: Run })[PEEK] ?? run);
 */
export const PEEK = Symbol("journal peek");

/**
 * The plain object behind a transaction's proxy (any other value as it is), for an operation that
 * only reads or copies a piece of its state: reading through the membrane wraps every object read
 * and copying a proxy (`{ ...proxy }`, `Object.values(proxy)`) goes through its traps, several
 * times the plain cost. Never write through what it returns: the write would escape the journal
 * (a failed request would keep it). Objects copied out of it and then written into the state are
 * shared with it, exactly as when copied through the membrane. A key deleted earlier in the same
 * transaction still shows in what `peek` gives, holding a symbol (the journal's marker).
 * @example
 * const outcome = { ...peek(ctx.state.settings.outcome) }; // a copy, read without traps
 */
export function peek<T>(value: T): T {
  if (value === null || typeof value !== "object") return value;
  return ((value as Record<symbol, T | undefined>)[PEEK] ?? value) as T;
}

/** The key of a recorded prototype change. */
const PROTOTYPE = Symbol("prototype");

/** What a key deleted inside a transaction holds until the outermost transaction ends. */
const DELETED = Symbol("journal: deleted in this transaction");

/** One recorded write: the property as it was before (undefined descriptor: it did not exist). */
interface Entry {
  readonly target: object;
  readonly key: string | symbol;
  readonly before: PropertyDescriptor | undefined;
  /** For a key deleted at once from a plain object (not a writable data property): the keys in order before, to put it back in its place. */
  readonly order?: readonly string[];
  /** A delete that left the marker in place: the commit deletes the key if it still holds it. */
  readonly marked?: true;
}

/** `target[key]` as if `target` had no own `key`: from its prototype, or undefined. */
function inherited(target: object, key: string | symbol): unknown {
  const prototype = Object.getPrototypeOf(target) as object | null;
  return prototype === null ? undefined : Reflect.get(prototype, key, target);
}

/** Whether `target[key]` is an own property holding the marker of a delete (see `markDeleted`). */
function isMarked(target: object, key: string | symbol): boolean {
  return (target as Record<string | symbol, unknown>)[key] === DELETED && Object.prototype.hasOwnProperty.call(target, key);
}

/** Moves the keys that came after `key` in `order` behind it again (they are re-added in order). */
function restoreOrder(target: object, key: string, order: readonly string[]): void {
  const position = order.indexOf(key);
  for (let i = position + 1; i < order.length; i++) {
    const later = order[i] as string;
    const descriptor = Object.getOwnPropertyDescriptor(target, later);
    if (descriptor === undefined) continue;
    Reflect.deleteProperty(target, later);
    Reflect.defineProperty(target, later, descriptor);
  }
}

function isWrappable(value: object): boolean {
  if (Array.isArray(value)) return !Object.isFrozen(value);
  const prototype = Object.getPrototypeOf(value) as unknown;
  return (prototype === Object.prototype || prototype === null) && !Object.isFrozen(value);
}

/**
 * A membrane over plain data with an undo journal. One per simulator; transactions nest (each
 * rolls back to its own mark).
 *
 * @example
 * const journal = new Journal();
 * const mark = journal.begin();
 * const draft = journal.wrap(state);
 * draft.runs["run-1"] = { id: "run-1" };
 * journal.rollback(mark); // state.runs["run-1"] is gone again
 */
export class Journal {
  private entries: Entry[] = [];
  private depth = 0;
  /**
   * The proxy of each object wrapped in the open transaction (the same proxy every time), forgotten
   * when the outermost transaction ends: a table kept for the simulator's life (a `WeakMap` from
   * every object ever touched to its proxy) made the garbage collector trace them all, a fifth of a
   * 10,000-workspace build.
   */
  private proxies = new Map<object, object>();
  /** What this journal's proxies answer for their target (any other object: undefined). */
  private readonly targetKey = Symbol("journal target");
  private readonly handler: ProxyHandler<object>;
  /** Entries of marked deletes in the open transactions (0: the hiding traps pass straight through). */
  private marked = 0;

  constructor() {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const journal = this;
    const targetKey = this.targetKey;
    this.handler = {
      get(target, key) {
        if (key === targetKey || key === PEEK) return target;
        let value = (target as Record<string | symbol, unknown>)[key];
        // A deleted key reads as it would without it: inherited (`__proto__`) or undefined.
        if (value === DELETED) value = inherited(target, key);
        if (value === null || typeof value !== "object") return value;
        return journal.wrap(value);
      },
      has(target, key) {
        if (journal.marked > 0 && isMarked(target, key)) {
          const prototype = Object.getPrototypeOf(target) as object | null;
          return prototype !== null && Reflect.has(prototype, key);
        }
        return Reflect.has(target, key);
      },
      getOwnPropertyDescriptor(target, key) {
        if (journal.marked > 0 && isMarked(target, key)) return undefined;
        return Reflect.getOwnPropertyDescriptor(target, key);
      },
      ownKeys(target) {
        const keys = Reflect.ownKeys(target);
        if (journal.marked === 0) return keys;
        return keys.filter((key) => (target as Record<string | symbol, unknown>)[key] !== DELETED);
      },
      set(target, key, value) {
        // `o.__proto__ = x` on a plain object without that own key may change its prototype, as it
        // would without the membrane: record the prototype too.
        if (key === "__proto__" && !Object.prototype.hasOwnProperty.call(target, key)) journal.recordPrototype(target);
        if (key === "length" && Array.isArray(target)) journal.recordCut(target, value);
        journal.record(target, key);
        const plain = journal.unwrap(value);
        return Reflect.set(target, key, plain);
      },
      deleteProperty(target, key) {
        if (!Object.prototype.hasOwnProperty.call(target, key)) return true;
        if (journal.markDeleted(target, key)) return true;
        journal.record(target, key, true);
        return Reflect.deleteProperty(target, key);
      },
      defineProperty(target, key, descriptor) {
        if (key === "length" && Array.isArray(target) && "value" in descriptor) journal.recordCut(target, descriptor.value);
        journal.record(target, key);
        const plain = "value" in descriptor ? { ...descriptor, value: journal.unwrap(descriptor.value) } : descriptor;
        return Reflect.defineProperty(target, key, plain);
      },
      setPrototypeOf() {
        return false;
      },
    };
  }

  /** Whether a transaction is open. */
  get active(): boolean {
    return this.depth > 0;
  }

  /** Opens a (possibly nested) transaction; returns its mark for {@link Journal.rollback}. */
  begin(): number {
    this.depth++;
    return this.entries.length;
  }

  /** Closes a transaction that succeeded: its writes stay (the outermost one forgets the journal). */
  commit(): void {
    this.depth--;
    if (this.depth === 0) {
      if (this.marked > 0) this.deleteMarked();
      this.forget();
    }
  }

  /** The outermost transaction committed: the keys it deleted go now (those not written again since). */
  private deleteMarked(): void {
    for (const entry of this.entries) {
      if (entry.marked === true && isMarked(entry.target, entry.key)) Reflect.deleteProperty(entry.target, entry.key);
    }
  }

  /**
   * Deletes `key` of a plain object inside a transaction by leaving the marker in its place (see
   * the module's note); false when it cannot (no transaction, an array, a symbol key, or not a
   * writable data property), for the caller to delete it at once.
   */
  private markDeleted(target: object, key: string | symbol): boolean {
    if (this.depth === 0 || typeof key !== "string" || Array.isArray(target)) return false;
    const before = Object.getOwnPropertyDescriptor(target, key);
    if (before === undefined || !("value" in before) || before.writable !== true || before.configurable !== true) return false;
    if (before.value === DELETED) return true;
    this.entries.push({ target, key, before, marked: true });
    this.marked++;
    (target as Record<string, unknown>)[key] = DELETED;
    return true;
  }

  /** Closes a transaction that failed: puts back every property written since `mark`, newest first. */
  rollback(mark: number): void {
    const entries = this.entries;
    for (let i = entries.length - 1; i >= mark; i--) {
      const { target, key, before, order, marked } = entries[i] as Entry;
      if (marked === true) this.marked--;
      if (key === PROTOTYPE) Object.setPrototypeOf(target, (before as PropertyDescriptor).value as object | null);
      else if (before === undefined) Reflect.deleteProperty(target, key);
      else {
        Reflect.defineProperty(target, key, before);
        if (order !== undefined) restoreOrder(target, key as string, order);
      }
    }
    entries.length = mark;
    this.depth--;
    if (this.depth === 0) this.forget();
  }

  /** The outermost transaction ended: its entries and proxies go. */
  private forget(): void {
    this.marked = 0;
    if (this.entries.length > 0) this.entries = [];
    if (this.proxies.size > 0) this.proxies = new Map();
  }

  /** The object behind one of this journal's proxies, or undefined for anything else. */
  private targetOf(value: object): object | undefined {
    return (value as Record<symbol, object | undefined>)[this.targetKey];
  }

  /** The object seen through the membrane (the same proxy every time within a transaction). */
  wrap<T>(value: T): T {
    if (value === null || typeof value !== "object") return value;
    const object = value as object;
    let proxy = this.proxies.get(object);
    if (proxy === undefined) {
      if (this.targetOf(object) !== undefined || !isWrappable(object)) return value;
      proxy = new Proxy(object, this.handler);
      this.proxies.set(object, proxy);
    }
    return proxy as T;
  }

  /**
   * `value` without proxies: a wrapped object becomes the object itself; a new plain object or
   * array has the wrapped objects it holds (at any depth) replaced in place.
   */
  unwrap<T>(value: T): T {
    if (value === null || typeof value !== "object") return value;
    const target = this.targetOf(value as object);
    if (target !== undefined) return target as T;
    this.unwrapInside(value as object, undefined);
    return value;
  }

  private unwrapInside(object: object, seen: Set<object> | undefined): void {
    if (!isWrappable(object)) return;
    if (seen?.has(object)) return;
    if (Array.isArray(object)) {
      for (let i = 0; i < object.length; i++) {
        const item = object[i] as unknown;
        if (item === null || typeof item !== "object") continue;
        const target = this.targetOf(item);
        if (target !== undefined) object[i] = target;
        else this.unwrapInside(item, (seen ??= new Set()).add(object));
      }
      return;
    }
    const record = object as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const item = record[key];
      if (item === null || typeof item !== "object") continue;
      const target = this.targetOf(item);
      if (target === undefined) this.unwrapInside(item, (seen ??= new Set()).add(object));
      else setOwn(record, key, target);
    }
  }

  private recordPrototype(target: object): void {
    if (this.depth > 0) this.entries.push({ target, key: PROTOTYPE, before: { value: Object.getPrototypeOf(target) } });
  }

  /**
   * An array's `length` set below its length drops the elements past it without a delete the
   * membrane would see (the array methods delete them first; `list.length = n` and a
   * `defineProperty` of `length` do not): record each element about to go, so that a rollback puts
   * it back (the `length` entry recorded after it restores the length first, newest first).
   * Elements are looked up by index when fewer than the array's own keys, else among its own keys
   * (a sparse array of a huge length).
   */
  recordCut(target: unknown[], value: unknown): void {
    if (this.depth === 0) return;
    const length = Number(value);
    // An invalid length throws (RangeError) before anything changes: nothing to record.
    if (!(length >>> 0 === length) || length >= target.length) return;
    if (target.length - length <= 1024) {
      for (let i = length; i < target.length; i++) {
        const before = Object.getOwnPropertyDescriptor(target, i);
        if (before !== undefined) this.entries.push({ target, key: String(i), before });
      }
      return;
    }
    for (const key of Object.keys(target)) {
      const index = Number(key);
      if (index >= length) this.entries.push({ target, key, before: Object.getOwnPropertyDescriptor(target, key) });
    }
  }

  private record(target: object, key: string | symbol, deleting = false): void {
    if (this.depth === 0) return;
    // Writing past the end of an array grows its length without a write to "length": record it.
    if (Array.isArray(target) && typeof key === "string" && key !== "length") {
      const index = Number(key);
      if (Number.isInteger(index) && index >= target.length) {
        this.entries.push({ target, key: "length", before: Object.getOwnPropertyDescriptor(target, "length") });
      }
    }
    const before = Object.getOwnPropertyDescriptor(target, key);
    if (this.marked > 0 && !deleting && typeof key === "string" && !Array.isArray(target) && before?.value === DELETED) {
      // Written again after its delete: as without the membrane, the key now comes last. It leaves
      // its place (kept, to put the marker back there on a rollback) before the write lands.
      this.entries.push({ target, key, before, order: Object.keys(target) });
      Reflect.deleteProperty(target, key);
      return;
    }
    // A key put back after a delete would come last: keep the order to put it back in its place
    // (Object.keys costs what the object holds; a writable data property is marked instead, see
    // markDeleted, so this is for the rare accessor or read-only property).
    if (deleting && typeof key === "string" && !Array.isArray(target)) {
      const order = Object.keys(target);
      if (order[order.length - 1] !== key) {
        this.entries.push({ target, key, before, order });
        return;
      }
    }
    this.entries.push({ target, key, before });
  }
}
