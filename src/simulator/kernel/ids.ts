/**
 * The simulator's only source of randomness: a seeded generator (sfc32) whose whole state is four
 * 32-bit words, so it can be snapshotted and restored with the rest of the simulator.
 *
 * Same seed, same calls: same ids, same secrets, same bytes.
 */

import { UsageError } from "./errors.js";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * One kind of id or secret a service draws (a row of its definition's `idKinds` table), with what
 * the spec fixes of its format and what it leaves open.
 * @example
 * const run: IdKind = { kind: "run", key: "run-", length: 16, spec: "the prefix `run-` (run-orchestration.md, runs)", formats: [{ name: "suffix-24", length: 24 }] };
 */
export interface IdKind {
  /** Stable name used in mutant ids, e.g. `run`, `token`, `lease`. */
  readonly kind: string;
  /** What the service's draw names: the prefix given to {@link IdSource.prefixed}, or the name given to {@link IdSource.named}. */
  readonly key: string;
  /** The faithful number of random characters. */
  readonly length: number;
  /** What the spec fixes (the rest is free), for reports. */
  readonly spec: string;
  /** Other formats the spec allows, each a possible mutant. */
  readonly formats: readonly IdFormat[];
}

/** A format an id kind may be drawn in instead of its own: another length, another alphabet. */
export interface IdFormat {
  /** Stable name, e.g. `suffix-24`. */
  readonly name: string;
  /** Number of random characters. */
  readonly length: number;
  /** The characters drawn from (default base62). */
  readonly alphabet?: string;
}

/** The generator's state: four unsigned 32-bit words. */
export type IdState = [number, number, number, number];

/**
 * Seeded ids and random values.
 *
 * @example
 * const ids = new IdSource(42);
 * ids.prefixed("run-"); // "run-" + 16 base62 characters, the same for every run with seed 42
 * ids.uuid();           // RFC 4122 version 4 form
 */
export class IdSource {
  // The four words of the state, kept as fields: an array rebuilt per draw cost more than the draw.
  private a = 0;
  private b = 0;
  private c = 0;
  private d = 0;
  /** Per draw key, the format a mutant's simulator draws it in instead (see {@link IdSource.setFormat}). */
  private formats: Map<string, IdFormat> | undefined;

  /** @param seed - any integer or string; the same seed always gives the same sequence. */
  constructor(seed: number | string = 1) {
    this.load(seedState(seed));
    for (let i = 0; i < 15; i++) this.nextUint32();
  }

  /** The next unsigned 32-bit integer. */
  nextUint32(): number {
    const { a, b, c, d } = this;
    const t = (((a + b) | 0) + d) | 0;
    this.d = (d + 1) | 0;
    this.a = b ^ (b >>> 9);
    this.b = (c + (c << 3)) | 0;
    this.c = (((c << 21) | (c >>> 11)) + t) | 0;
    return t >>> 0;
  }

  /**
   * A uniform integer in `[0, bound)`.
   * @param bound - a whole number from 1 to 2^32 (0 or less gives 0).
   * @throws {UsageError} when `bound` is not a whole number or is above 2^32 (no uniform draw
   *   from one 32-bit word exists then).
   */
  int(bound: number): number {
    if (!Number.isInteger(bound) || bound > 0x1_0000_0000) {
      throw new UsageError(`IdSource.int: the bound must be a whole number up to 2^32, got ${String(bound)}`);
    }
    if (bound <= 0) return 0;
    const limit = Math.floor(0x1_0000_0000 / bound) * bound;
    let value = this.nextUint32();
    while (value >= limit) value = this.nextUint32();
    return value % bound;
  }

  /** A float in `[0, 1)`. */
  float(): number {
    return this.nextUint32() / 0x1_0000_0000;
  }

  /** `length` random bytes. */
  bytes(length: number): Uint8Array {
    const out = new Uint8Array(length);
    for (let i = 0; i < length; i += 4) {
      const word = this.nextUint32();
      for (let j = 0; j < 4 && i + j < length; j++) out[i + j] = (word >>> (8 * j)) & 0xff;
    }
    return out;
  }

  /** `length` characters drawn from `alphabet`. */
  string(length: number, alphabet: string = BASE62): string {
    // `int(alphabet.length)` per character, its bound checked once.
    const bound = alphabet.length;
    if (bound === 0 || bound > 0x1_0000_0000) {
      let out = "";
      for (let i = 0; i < length; i++) out += alphabet[this.int(bound)];
      return out;
    }
    const limit = Math.floor(0x1_0000_0000 / bound) * bound;
    let out = "";
    for (let i = 0; i < length; i++) {
      let value = this.nextUint32();
      while (value >= limit) value = this.nextUint32();
      out += alphabet[value % bound];
    }
    return out;
  }

  /**
   * `prefix` plus 16 base62 characters, the real run orchestration service's id shape
   * (`run-CZcmD7eagjhyX0vN`); `prefix` names the kind of id (see {@link IdKind.key}).
   */
  prefixed(prefix: string, length = 16): string {
    const format = this.formats?.get(prefix);
    if (format !== undefined) return prefix + this.string(format.length, format.alphabet);
    return prefix + this.string(length);
  }

  /**
   * `length` characters of `alphabet` (default base62) for an id or secret of the kind `key` (see
   * {@link IdKind.key}): the same draw as {@link IdSource.string}, named so the kernel can draw it
   * in another format.
   * @example ids.named("lease", 24)
   */
  named(key: string, length: number, alphabet: string = BASE62): string {
    const format = this.formats?.get(key);
    if (format !== undefined) return this.string(format.length, format.alphabet ?? alphabet);
    return this.string(length, alphabet);
  }

  /**
   * Kernel use (a service mutant's simulator): draws of the kind `key` take `format` from now on.
   * Kept across {@link IdSource.save}/{@link IdSource.load} (not part of the state).
   */
  setFormat(key: string, format: IdFormat): void {
    (this.formats ??= new Map()).set(key, format);
  }

  /** A version 4 UUID in canonical lowercase form. */
  uuid(): string {
    const b = this.bytes(16);
    b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
    b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
    const hex = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  /** `length` lowercase hexadecimal characters. */
  hex(length: number): string {
    return this.string(length, "0123456789abcdef");
  }

  /** The generator's state, for snapshots. */
  save(): IdState {
    return [this.a, this.b, this.c, this.d];
  }

  /** Restores a state taken by {@link IdSource.save}. */
  load(state: IdState): void {
    [this.a, this.b, this.c, this.d] = state;
  }
}

function seedState(seed: number | string): IdState {
  // xmur3-style string hash to spread any seed over four words.
  const text = String(seed);
  let h = 1779033703 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    h = Math.imul(h ^ text.charCodeAt(i), 3432918353);
    h = (h << 13) | (h >>> 19);
  }
  const next = (): number => {
    h = Math.imul(h ^ (h >>> 16), 2246822507);
    h = Math.imul(h ^ (h >>> 13), 3266489909);
    h ^= h >>> 16;
    return h >>> 0;
  };
  return [next(), next(), next(), next()];
}
