/**
 * The fuzz's only source of randomness: sfc32 (Small Fast Counter, 32-bit), seeded from
 * `(seed, index)` so any request can be generated again on its own. Never `Math.random()`.
 */

/** A seeded generator of numbers and choices. */
export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  /**
   * @param seed - the run's seed (any 32-bit integer).
   * @param index - the request's index in the run; each index gets its own stream.
   */
  constructor(seed: number, index: number, stream = 0) {
    this.a = mix(seed ^ 0x9e3779b9);
    this.b = mix(index ^ 0x85ebca6b);
    this.c = mix((seed + index * 31 + stream * 7919) ^ 0xc2b2ae35);
    this.d = 1;
    for (let i = 0; i < 12; i++) this.next();
  }

  /** A uniform 32-bit unsigned integer. */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** An integer in `[0, n)`. */
  int(n: number): number {
    return n <= 0 ? 0 : this.next() % n;
  }

  /** An integer in `[lo, hi]`. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() / 0x1_0000_0000 < p;
  }

  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("fuzz: pick from an empty list");
    return items[this.int(items.length)] as T;
  }

  /** One element, chosen with the given weights. */
  weighted<T>(items: readonly (readonly [T, number])[]): T {
    const total = items.reduce((sum, [, w]) => sum + w, 0);
    let roll = this.int(total);
    for (const [item, weight] of items) {
      if (roll < weight) return item;
      roll -= weight;
    }
    return (items.at(-1) as readonly [T, number])[0];
  }

  /** A string of `length` characters from `alphabet`. */
  string(length: number, alphabet = "abcdefghijklmnopqrstuvwxyz0123456789-_"): string {
    let out = "";
    for (let i = 0; i < length; i++) out += alphabet[this.int(alphabet.length)];
    return out;
  }
}

/** murmur3's finalizer: spreads the bits of a 32-bit integer. */
function mix(x: number): number {
  let h = x | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
