/**
 * Clocks. The simulator reads time only through a {@link Clock}; this module (with `ids.ts`) is
 * the one place in `src/simulator` allowed to touch the real time source.
 *
 * - {@link ManualClock}: moves only when a test says so (`advance("10m")`, `set(date)`).
 * - {@link SystemClock}: real time, immune to fake timers.
 * - {@link GlobalDateClock}: reads `Date.now()` on every call, so `vi.useFakeTimers()` and
 *   `vi.setSystemTime()` drive the simulator.
 * - {@link AdvanceableClock}: another clock plus an offset that only grows (the dev server's clock).
 */
import { UsageError } from "./errors.js";
import { parseDuration, type Duration } from "./duration.js";

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
}

/** Anything a clock can be set to: a `Date`, ms since the epoch, or an ISO 8601 string. */
export type Instant = Date | number | string;

/** The default start of a {@link ManualClock}: 2024-01-01T00:00:00.000Z. */
export const DEFAULT_START = Date.UTC(2024, 0, 1);

/**
 * Converts an {@link Instant} to milliseconds since the epoch.
 * @throws {UsageError} when the value is not a valid time.
 */
export function toEpochMs(instant: Instant): number {
  const ms = typeof instant === "number" ? instant : new Date(instant).getTime();
  if (!Number.isFinite(ms)) throw new UsageError(`not a valid time: ${String(instant)}`);
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
   * @param by - milliseconds or a duration string (`"90s"`, `"1h30m"`).
   * @returns the new time (ms since the epoch).
   * @throws {UsageError} for a negative or invalid duration.
   */
  advance(by: Duration): number {
    const ms = parseDurationOrUsage(by);
    if (ms < 0) throw new UsageError(`clock cannot go backwards (advance by ${String(by)})`);
    this.current += ms;
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

  onChange(listener: ClockListener): () => void {
    return this.listeners.add(listener);
  }
}

/**
 * Wall-clock time that fake timers cannot touch (it reads `performance.timeOrigin +
 * performance.now()`).
 */
export class SystemClock implements Clock {
  now(): number {
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
 * @example
 * vi.useFakeTimers(); vi.setSystemTime("2024-01-01T00:00:00Z");
 * const sim = createSimulator({ clock: new GlobalDateClock() });
 * vi.advanceTimersByTime(600_000); // the simulator sees ten minutes pass
 */
export class GlobalDateClock implements Clock {
  now(): number {
    return Date.now();
  }
}

/**
 * Another clock plus an offset that can only grow: real time that a test or the dev server's
 * control API can push forward (`advance("30s")`).
 */
export class AdvanceableClock implements Clock {
  private offset = 0;
  private readonly listeners = new Listeners();

  /** @param base - the clock to follow (default: a {@link SystemClock}). */
  constructor(private readonly base: Clock = new SystemClock()) {}

  now(): number {
    return this.base.now() + this.offset;
  }

  /** Moves time forward by `by` (ms or a duration string). @throws {UsageError} when negative. */
  advance(by: Duration): number {
    const ms = parseDurationOrUsage(by);
    if (ms < 0) throw new UsageError(`clock cannot go backwards (advance by ${String(by)})`);
    this.offset += ms;
    const now = this.now();
    this.listeners.emit(now);
    return now;
  }

  onChange(listener: ClockListener): () => void {
    return this.listeners.add(listener);
  }

  wakeAt(at: number, callback: () => void): () => void {
    return realTimer(at - this.now(), callback);
  }
}

function parseDurationOrUsage(by: Duration): number {
  try {
    return parseDuration(by);
  } catch {
    throw new UsageError(`not a duration: ${JSON.stringify(by)} (use ms or a string like "90s", "1h30m")`);
  }
}

/** The single real timer of the library: releases blocked reads on real-time clocks. */
function realTimer(delayMs: number, callback: () => void): () => void {
  const handle = setTimeout(callback, Math.max(0, delayMs));
  handle.unref();
  return () => clearTimeout(handle);
}
