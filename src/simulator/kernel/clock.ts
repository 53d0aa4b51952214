/**
 * Clocks. The simulator reads time only through a {@link Clock}; this module (with `ids.ts`) is
 * the one place in `src/simulator` allowed to touch the real time source.
 *
 * - {@link ManualClock}: moves only when a test says so (`advance("10m")`, `set(date)`).
 * - {@link SystemClock}: real time, immune to fake timers.
 * - {@link GlobalDateClock}: reads `Date.now()` on every call, so `vi.useFakeTimers()` and
 *   `vi.setSystemTime()` drive the simulator.
 * - {@link AdvanceableClock}: another clock plus an offset that only grows (the dev server's clock).
 * - {@link ScaledClock}: real time compressed, `speed` times faster (the base of `soak`'s clock).
 *
 * Clock time is a whole number of milliseconds within the range a `Date` can hold
 * (±8.64e15 ms): sub-millisecond parts of a move are dropped, and a move past the range is refused.
 */
import { lazyRequire } from "./lazy-require.js";
import { UsageError } from "./errors.js";
import { parseDuration, type Duration } from "./duration.js";

/*
 * The real timer functions, taken when this module loads: fake timers installed later
 * (`vi.useFakeTimers()` replaces `setTimeout` and `performance` on the global object) do not reach
 * the clocks that follow real time.
 */
const realSetTimeout = globalThis.setTimeout;
const realClearTimeout = globalThis.clearTimeout;

/** `node:perf_hooks`, loaded by the first {@link SystemClock} read (its `performance`, not the global one fake timers replace). */
const perfHooks = lazyRequire<typeof import("node:perf_hooks")>("node:perf_hooks");

/** Called with the new time (ms since the Unix epoch) after a clock is moved by hand. */
export type ClockListener = (now: number) => void;

/**
 * A source of time in milliseconds since the Unix epoch.
 *
 * `onChange` lets the simulator wake blocked reads when a test moves time by hand; `wakeAt` lets a
 * real-time clock release a blocked read when wall time passes (manual clocks never need it).
 */
export interface Clock {
  /** Current time, milliseconds since the Unix epoch. */
  now(): number;
  /** Subscribes to hand-made moves (`advance`, `set`). Returns the unsubscribe function. */
  onChange?(listener: ClockListener): () => void;
  /**
   * Asks to be called back once wall time reaches `at` (ms since the epoch). Only clocks that move
   * by themselves implement it. Returns a cancel function. The timer never keeps the process alive.
   */
  wakeAt?(at: number, callback: () => void): () => void;
  /**
   * Sets the time back to `to` (ms since the epoch): only the doubles' reset calls it, together
   * with the state of that time (`Simulator.restore(snapshot, { rewind: true })`), so no move
   * fires twice. Clocks that follow a time they do not own (system, fake timers) do not have it.
   */
  rewind?(to: number): void;
}

/** Anything a clock can be set to: a `Date`, ms since the epoch, or an ISO 8601 string. */
export type Instant = Date | number | string;

/** The default start of a {@link ManualClock}: 2024-01-01T00:00:00.000Z. */
export const DEFAULT_START = Date.UTC(2024, 0, 1);

/** The latest time a `Date` can hold, ms since the epoch (+275760-09-13T00:00:00.000Z). */
export const MAX_EPOCH_MS = 8.64e15;

/**
 * Converts an {@link Instant} to whole milliseconds since the epoch (a fractional number is
 * truncated).
 * @throws {UsageError} when the value is not a valid time, or lies outside the range of a `Date`
 *   (±{@link MAX_EPOCH_MS}).
 * @example toEpochMs("2024-01-01T00:00:00Z") // 1704067200000
 */
export function toEpochMs(instant: Instant): number {
  const ms = typeof instant === "number" ? Math.trunc(instant) : new Date(instant).getTime();
  if (!Number.isFinite(ms) || Math.abs(ms) > MAX_EPOCH_MS) throw new UsageError(`not a valid time: ${String(instant)}`);
  return ms;
}

class Listeners {
  private readonly set = new Set<ClockListener>();
  add(listener: ClockListener): () => void {
    this.set.add(listener);
    return () => this.set.delete(listener);
  }
  emit(now: number): void {
    for (const listener of [...this.set]) listener(now);
  }
}

/**
 * A clock that moves only when told to. Time never goes backwards.
 *
 * @example
 * const clock = new ManualClock("2024-05-01T00:00:00Z");
 * clock.advance("10m"); // or clock.advance(600_000)
 */
export class ManualClock implements Clock {
  private current: number;
  private readonly listeners = new Listeners();

  /** @param start - the starting time (default {@link DEFAULT_START}). */
  constructor(start: Instant = DEFAULT_START) {
    this.current = toEpochMs(start);
  }

  now(): number {
    return this.current;
  }

  /**
   * Moves time forward.
   * @param by - milliseconds or a duration string with units (`"90s"`, `"1h30m"`, `"1.5h"`,
   *   `"2d"`); sub-millisecond parts are dropped.
   * @returns the new time (ms since the epoch).
   * @throws {UsageError} for a negative or invalid duration, a string without a unit (`"600"`:
   *   write `"600ms"` or `"600s"`), or a move past {@link MAX_EPOCH_MS}.
   */
  advance(by: Duration): number {
    this.current = movedBy(this.current, by);
    this.listeners.emit(this.current);
    return this.current;
  }

  /**
   * Sets the time. Setting an earlier time is refused.
   * @throws {UsageError} when `to` is before the current time.
   */
  set(to: Instant): number {
    const ms = toEpochMs(to);
    if (ms < this.current) {
      throw new UsageError(
        `clock cannot go backwards: it is ${new Date(this.current).toISOString()}, asked for ${new Date(ms).toISOString()}`,
      );
    }
    this.current = ms;
    this.listeners.emit(this.current);
    return this.current;
  }

  /**
   * Sets the time back (or forward) to `to`, for a reset that puts back the state of that time.
   * @throws {UsageError} for a time a `Date` cannot hold.
   * @example clock.rewind(Date.UTC(2024, 0, 1))
   */
  rewind(to: number): void {
    this.current = toEpochMs(to);
    this.listeners.emit(this.current);
  }

  onChange(listener: ClockListener): () => void {
    return this.listeners.add(listener);
  }
}

/**
 * Wall-clock time that fake timers cannot touch: it reads `node:perf_hooks`' `performance`
 * (`timeOrigin + now()`; the module's own object, which `vi.useFakeTimers()` does not replace,
 * loaded on the first read) and wakes blocked reads with the real `setTimeout`, taken when the
 * library loads, before any `vi.useFakeTimers()`.
 *
 * @example
 * const sim = new Simulator({ clock: new SystemClock(), services: [definition] });
 */
export class SystemClock implements Clock {
  now(): number {
    const { performance } = perfHooks();
    return Math.floor(performance.timeOrigin + performance.now());
  }
  wakeAt(at: number, callback: () => void): () => void {
    return realTimer(at - this.now(), callback);
  }
}

/**
 * Reads `Date.now()` lazily on every call, so vitest's `vi.useFakeTimers()` / `vi.setSystemTime()`
 * (or any fake-timer library) drive the simulator.
 *
 * A blocked read (a blocking query's `wait`) is woken through whatever `setTimeout` is installed
 * when it starts waiting, so `vi.advanceTimersByTime()` releases it under fake timers and real
 * time does without them. Because `vi.setSystemTime()` can move `Date.now()` without firing any
 * timer, the wake-up never sleeps longer than one second before looking at `Date.now()` again.
 *
 * @example
 * vi.useFakeTimers(); vi.setSystemTime("2024-01-01T00:00:00Z");
 * const sim = new Simulator({ clock: new GlobalDateClock(), services: [definition] });
 * vi.advanceTimersByTime(600_000); // the simulator sees ten minutes pass
 */
export class GlobalDateClock implements Clock {
  now(): number {
    return Date.now();
  }
  wakeAt(at: number, callback: () => void): () => void {
    const set = globalThis.setTimeout;
    const clear = globalThis.clearTimeout;
    const handle = set(callback, Math.min(Math.max(0, at - Date.now()), GLOBAL_WAKE_CAP_MS));
    (handle as { unref?: () => unknown }).unref?.();
    return () => clear(handle);
  }
}

/** Longest sleep of a {@link GlobalDateClock} wake-up before it looks at `Date.now()` again, ms. */
const GLOBAL_WAKE_CAP_MS = 1000;

/**
 * Another clock plus an offset that can only grow: real time that a test or the dev server's
 * control API can push forward (`advance("30s")`).
 * @example
 * const clock = new AdvanceableClock(); // follows the wall clock
 * clock.advance("30s"); // now() reads 30 s ahead of the wall clock from here on
 */
export class AdvanceableClock implements Clock {
  private offset = 0;
  private readonly listeners = new Listeners();

  /**
   * @param base - the clock to follow (default: a {@link SystemClock}).
   * @param start - where time starts (default: the base clock's time); it then runs at the base
   *   clock's pace, e.g. real time from 2024-05-01T00:00:00Z.
   */
  constructor(
    private readonly base: Clock = new SystemClock(),
    start?: Instant,
  ) {
    if (start !== undefined) this.offset = toEpochMs(start) - base.now();
  }

  now(): number {
    return this.base.now() + this.offset;
  }

  /**
   * Moves time forward by `by` (ms or a duration string with units; sub-millisecond parts are
   * dropped).
   * @returns the new time (ms since the epoch).
   * @throws {UsageError} for a negative or invalid duration, a string without a unit, or a move
   *   past {@link MAX_EPOCH_MS}.
   */
  advance(by: Duration): number {
    const base = this.base.now();
    this.offset = movedBy(base + this.offset, by) - base;
    const now = this.now();
    this.listeners.emit(now);
    return now;
  }

  /**
   * Sets the time back (or forward) to `to`, from where it runs on at the base clock's pace: for a
   * reset that puts back the state of that time.
   * @throws {UsageError} for a time a `Date` cannot hold.
   * @example clock.rewind(Date.UTC(2024, 0, 1))
   */
  rewind(to: number): void {
    this.offset = toEpochMs(to) - this.base.now();
    this.listeners.emit(this.now());
  }

  /** Subscribes to {@link AdvanceableClock.advance} and to hand-made moves of the base clock. */
  onChange(listener: ClockListener): () => void {
    const own = this.listeners.add(listener);
    const base = this.base.onChange?.(() => listener(this.now()));
    return () => {
      own();
      base?.();
    };
  }

  /** Wakes through the base clock's own wake-up when it has one (fake timers), else a real timer. */
  wakeAt(at: number, callback: () => void): () => void {
    if (this.base.wakeAt) return this.base.wakeAt(at - this.offset, callback);
    return realTimer(at - this.now(), callback);
  }
}

/**
 * Real time compressed: from its creation it runs `speed` times faster than the wall clock
 * (`speed` 10000: a simulated day every 8.64 wall seconds). The base of `infra-doubles soak`'s
 * clock (an {@link AdvanceableClock} over it); blocked reads wake after the wall time that makes
 * the simulated wait.
 * @example
 * const clock = new AdvanceableClock(new ScaledClock(10_000), "2024-01-01T00:00:00Z");
 * // one wall second later, clock.now() reads 2024-01-01T02:46:40Z
 */
export class ScaledClock implements Clock {
  private readonly system = new SystemClock();
  private readonly origin: number;
  /** Wall time it started running (undefined: still paused). */
  private running: number | undefined;
  /**
   * @param speed - simulated ms per wall ms (at least 1).
   * @param options.paused - stand still until {@link ScaledClock.run} (soak builds its world at
   *   the start time, then lets time run when the client starts).
   * @throws {UsageError} for a speed below 1 or not finite.
   */
  constructor(
    readonly speed: number,
    options: { readonly paused?: boolean } = {},
  ) {
    if (!(Number.isFinite(speed) && speed >= 1)) throw new UsageError(`clock speed must be a number of at least 1, not ${String(speed)}`);
    this.origin = this.system.now();
    if (options.paused !== true) this.running = this.origin;
  }
  /** Lets a paused clock run (from the time it stood at). */
  run(): void {
    this.running ??= this.system.now();
  }
  now(): number {
    return this.running === undefined ? this.origin : this.origin + Math.floor((this.system.now() - this.running) * this.speed);
  }
  wakeAt(at: number, callback: () => void): () => void {
    // Paused: look again in a second (nothing is due while time stands still).
    return realTimer(this.running === undefined ? 1000 : Math.ceil((at - this.now()) / this.speed), callback);
  }
}

/**
 * How far a clock move goes: milliseconds as a number, or a duration string with units (`"90s"`,
 * `"1h30m"`, `"1.5h"`, `"2d"`, Go syntax plus days). Unlike the services' durations, a string
 * without a unit (`"600"`) is refused: it is unclear whether it means ms or seconds.
 *
 * @returns whole milliseconds, at least 0 (sub-millisecond parts are dropped).
 * @throws {UsageError} for a value that is not a duration, a string without a unit, or a
 *   negative duration (clocks never go backwards).
 * @example clockDurationMs("1h30m") // 5_400_000
 */
export function clockDurationMs(by: Duration): number {
  let ms: number;
  try {
    if (typeof by === "string" && /^\s*[+-]?\d+\s*$/.test(by) && Number(by) !== 0) throw new Error("missing unit");
    ms = parseDuration(by);
  } catch {
    throw new UsageError(
      `not a duration: ${JSON.stringify(by)} (use milliseconds as a number, or a string with units like "600ms", "90s", "1h30m")`,
    );
  }
  if (ms < 0) throw new UsageError(`clock cannot go backwards (advance by ${String(by)})`);
  return Math.trunc(ms);
}

/**
 * `from` moved forward by `by`, in whole milliseconds.
 * @throws {UsageError} for a bad or negative duration, or a result past {@link MAX_EPOCH_MS}.
 */
function movedBy(from: number, by: Duration): number {
  const to = from + clockDurationMs(by);
  if (to > MAX_EPOCH_MS) {
    throw new UsageError(`cannot advance by ${String(by)}: the clock would pass the latest time a Date can hold (+275760-09-13T00:00:00.000Z)`);
  }
  return to;
}

/** Longest delay `setTimeout` takes (2^31 - 1 ms, about 24.8 days); Node fires longer ones at once. */
const MAX_TIMER_DELAY_MS = 2_147_483_647;

/**
 * The real timer of the real-time clocks: releases blocked reads. Never keeps the process alive.
 * A deadline further than {@link MAX_TIMER_DELAY_MS} wakes early, and the waiter sleeps again.
 */
function realTimer(delayMs: number, callback: () => void): () => void {
  const handle = realSetTimeout(callback, Math.min(Math.max(0, delayMs), MAX_TIMER_DELAY_MS));
  handle.unref();
  return () => realClearTimeout(handle);
}
