/**
 * The bench harness: each bench file declares rows, `npm run bench` (scripts/bench.mjs) runs every
 * row in a fresh process and prints one table. A row compares a figure with an anchor measured in
 * the same process, in paired rounds (figure then anchor, anchor then figure, ...); the table gives
 * the median of each and the median of the per-round ratios, so load from other processes on the
 * machine cancels out of the ratio. See bench/README.md.
 *
 * @example
 * row({
 *   name: "GET /things/:id through handle()",
 *   target: "<= 20us",
 *   setup: () => ({
 *     figure: { label: "handle()", run: () => handler.handle(request) },
 *     anchor: { label: "JSON.stringify", run: () => JSON.stringify(document) },
 *   }),
 * });
 */
import { writeFileSync } from "node:fs";
import { basename } from "node:path";

/**
 * Thrown by a row's `setup` when the row cannot run on this machine for a reason outside the code
 * measured (a peer mock server that cannot be installed): the table shows the row as skipped, with
 * the message, and the command does not fail.
 */
export class SkipRow extends Error {}

/** One side of a comparison. */
export interface Measure {
  /** What is measured, shown beside the anchor's figure in the table. */
  readonly label: string;
  /** One call performs `ops` operations (sync or async); timed in batches. */
  readonly run?: () => unknown;
  /** A value read once per round instead of timing `run` (rows of kind "value", e.g. heap MB). */
  readonly value?: () => number | Promise<number>;
  /** Operations one `run` call performs (default 1): a call that sends 320 requests says 320. */
  readonly ops?: number;
  /** Untimed, before each batch of this side (install an interceptor, ...). */
  readonly before?: () => unknown;
  /** Untimed, after each batch of this side (remove what `before` installed). */
  readonly after?: () => unknown;
  /**
   * Untimed, before every call of `run`: for a run that uses up what it measures (fires every move
   * of a scenario), `fresh` builds it anew. Such a side times one call per batch.
   */
  readonly fresh?: () => unknown;
  /**
   * Untimed, after the forced collection that follows `fresh`: runs the side's hot code again on
   * something small. A full collection throws away optimized code that embedded objects it found
   * dead (V8's "weak objects" deoptimization: 150 of them across 12 collections in a probe of token
   * creates, `handle()` among them), so without it the timed call would pay for compiling its hot
   * code again (about 10% of the 10,000-workspace scenario's advance).
   */
  readonly settle?: () => unknown;
  /**
   * Collect garbage before each batch of this side: its untimed `before`/`after` work allocates
   * much (restoring a snapshot of 10,000 stored resources), and that garbage is not the run's. Off
   * by default: a forced collection also charges the next batch with sweeping the whole heap
   * (bench/README.md, "How it runs").
   */
  readonly collect?: boolean;
  /**
   * Least length of this side's batches, ms (default `BENCH_BATCH_MS`, 100). A side that collects
   * before each batch wants longer ones: for a while after a forced collection the same work costs
   * up to 2-3x (measured: token creates right after `gc()` 50-100 us, from about the 2,500th on
   * 20-30 us), so in short batches the ratio follows how many calls each side's batch happens to
   * hold.
   */
  readonly batchMs?: number;
}

/** What a row's setup returns. */
export interface Comparison {
  readonly figure: Measure;
  readonly anchor: Measure;
  /** Untimed, once after the last round (close servers, ...). */
  readonly teardown?: () => unknown;
}

/** A row of the table. */
export interface RowSpec {
  /** The figure's name in the table (unique within its file; the filter matches it). */
  readonly name: string;
  /**
   * How the figure is shown: "time" (default: time per operation), "rate" (operations per second;
   * the ratio is then figure rate / anchor rate), or "value" (`value()` results, in `unit`).
   */
  readonly kind?: "time" | "rate" | "value";
  /** Unit of a "value" row (e.g. "MB"). */
  readonly unit?: string;
  /**
   * The issue's target, checked against the medians: on the ratio (`"<= 1.3x"`, `">= 0.9x"`), on the
   * figure's time per operation (`"<= 20us"`, `"<= 0.2ms"`, `"<= 30s"`), its rate (`">= 1e6/s"`) or
   * its value in the row's unit (`"<= 200MB"`); a `+` bounds the figure's excess over the anchor
   * (`"<= +10ms"`: at most 10 ms more than the anchor). Omitted: the row is shown, not judged.
   */
  readonly target?: string;
  /**
   * What a batch is timed with: "wall" (default: elapsed time, for anything that waits on I/O or
   * other processes) or "cpu" (this process's CPU time, user + system: for work that stays in the
   * process, it hardly moves when other processes load the machine). `BENCH_CLOCK=wall` times every
   * row in wall time.
   */
  readonly clock?: "wall" | "cpu";
  /** Paired rounds (default 15, or `BENCH_ROUNDS`). */
  readonly rounds?: number;
  /**
   * `false`: no warm-up round. For a row whose one call is a whole run of child processes lasting
   * minutes (a mutation run): nothing in this process warms up, and a warm-up round would double
   * the row's time.
   */
  readonly warmup?: false;
  /** Builds both sides (untimed); runs only in the row's own process. */
  readonly setup: () => Comparison | Promise<Comparison>;
}

/** One row's result, as the runner receives it. */
export interface RowResult {
  readonly file: string;
  readonly name: string;
  readonly kind: "time" | "rate" | "value";
  readonly unit?: string;
  readonly target?: string;
  readonly clock: "wall" | "cpu";
  readonly figureLabel: string;
  readonly anchorLabel: string;
  /** Medians: seconds per operation ("time", "rate") or the value ("value"). */
  readonly figure: number;
  readonly anchor: number;
  /** Median of the per-round ratios, in the row's sense (rate rows: figure rate / anchor rate). */
  readonly ratio: number;
  readonly ratioLow: number;
  readonly ratioHigh: number;
  readonly rounds: number;
  readonly pass?: boolean;
  /** Why the row did not run ({@link SkipRow}); the figures are then 0. */
  readonly skipped?: string;
}

const rows: RowSpec[] = [];

/** Declares a row (call at the top level of a bench/*.bench.ts file). */
export function row(spec: RowSpec): void {
  if (rows.some((existing) => existing.name === spec.name)) throw new Error(`bench: two rows named ${JSON.stringify(spec.name)}`);
  rows.push(spec);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))))] as number;
}

const collect = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
const batchSeconds = Number(process.env.BENCH_BATCH_MS ?? 100) / 1000;
const rowSeconds = Number(process.env.BENCH_ROW_SECONDS ?? 10);
/** Least time spent on unrecorded warm-up rounds (`BENCH_WARMUP_MS`, default 1000). */
const warmupSeconds = Number(process.env.BENCH_WARMUP_MS ?? 1000) / 1000;

/** A measure that can run a batch of `n` calls and report seconds per operation. */
class Side {
  private async_ = false;
  n = 1;
  constructor(
    readonly measure: Measure,
    private readonly clock: "wall" | "cpu",
  ) {}

  async prepare(): Promise<void> {
    const m = this.measure;
    if (m.value) return;
    if (!m.run) throw new Error(`bench: measure ${m.label} has neither run nor value`);
    await m.before?.();
    await m.fresh?.();
    const first = m.run();
    this.async_ = typeof (first as { then?: unknown } | undefined)?.then === "function";
    await first;
    const least = m.batchMs === undefined ? batchSeconds : m.batchMs / 1000;
    // Grow the batch until it lasts batchSeconds (a slow operation runs once per batch; a side
    // with `fresh` always runs once per batch, after its untimed `fresh`).
    for (; m.fresh === undefined; ) {
      const seconds = await this.time(this.n);
      if (seconds * this.n * (m.ops ?? 1) >= least || this.n >= 1 << 20) break;
      this.n = Math.max(this.n * 2, Math.min(1 << 20, Math.ceil(least / Math.max(seconds * (m.ops ?? 1), 1e-9) / 2)));
    }
    await m.after?.();
  }

  /** Seconds per operation over one batch (or the measured value). */
  async sample(): Promise<number> {
    const m = this.measure;
    // No forced collection before a timed batch (see bench/README.md, "How it runs"): each side
    // pays for its own garbage, as in a test run. BENCH_COLLECT=1 forces one before every batch.
    if (m.value || m.collect === true || process.env.BENCH_COLLECT === "1") collect();
    if (m.value) return m.value();
    await m.before?.();
    try {
      return await this.time(this.n);
    } finally {
      await m.after?.();
    }
  }

  private async time(n: number): Promise<number> {
    const run = this.measure.run as () => unknown;
    if (this.measure.fresh) {
      await this.measure.fresh();
      collect(); // the garbage of building it is not the run's
      await this.measure.settle?.();
    }
    const cpu = this.clock === "cpu" ? process.cpuUsage() : undefined;
    const start = performance.now();
    if (this.async_) for (let i = 0; i < n; i++) await run();
    else for (let i = 0; i < n; i++) run();
    let seconds = (performance.now() - start) / 1000;
    if (cpu) {
      const used = process.cpuUsage(cpu);
      seconds = (used.user + used.system) / 1e6;
    }
    return seconds / (n * (this.measure.ops ?? 1));
  }
}

const TIME_UNITS: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, ms: 1e-3, s: 1 };

/**
 * Whether a result meets its target (see {@link RowSpec.target}).
 * @throws when the target is not written as documented.
 */
export function meets(target: string, kind: RowResult["kind"], figure: number, anchor: number, ratio: number, unit?: string): boolean {
  const match = /^\s*(<=|>=)\s*(\+?)\s*([0-9][0-9_.,e+]*)\s*(x|ns|us|µs|ms|s|\/s|\/?[A-Za-z%]+)\s*$/.exec(target);
  if (!match) throw new Error(`bench: cannot read target ${JSON.stringify(target)}`);
  const [, op, over, numberText, suffix] = match as unknown as [string, string, string, string, string];
  const bound = Number(numberText.replace(/[_,]/g, ""));
  const above = (value: number): number => (over ? value - anchor : value);
  let actual: number;
  let expected = bound;
  if (suffix === "x" && !over) actual = ratio;
  else if (suffix === "/s" && !over) actual = 1 / figure;
  else if (kind !== "value" && suffix in TIME_UNITS) {
    actual = above(figure);
    expected = bound * (TIME_UNITS[suffix] as number);
  } else if (kind === "value" && suffix === unit) actual = above(figure);
  else throw new Error(`bench: target ${JSON.stringify(target)} does not fit a ${kind} row${unit ? ` in ${unit}` : ""}`);
  return op === "<=" ? actual <= expected : actual >= expected;
}

async function runRow(file: string, spec: RowSpec): Promise<RowResult> {
  const kind = spec.kind ?? "time";
  const clock = process.env.BENCH_CLOCK === "wall" ? "wall" : (spec.clock ?? "wall");
  let comparison: Comparison;
  try {
    comparison = await spec.setup();
  } catch (error) {
    if (!(error instanceof SkipRow)) throw error;
    const none = { figure: 0, anchor: 0, ratio: 0, ratioLow: 0, ratioHigh: 0, rounds: 0, figureLabel: "", anchorLabel: "" };
    return { file, name: spec.name, kind, unit: spec.unit, target: spec.target, clock, ...none, skipped: error.message };
  }
  try {
    const figure = new Side(comparison.figure, clock);
    const anchor = new Side(comparison.anchor, clock);
    await figure.prepare();
    await anchor.prepare();
    // Unrecorded warm-up rounds for at least warmupSeconds (one round at the least), then paired
    // rounds in alternating order. The CPU clock counts the optimizing compiler's background
    // threads too: until it has compiled a side's hot code, the side is charged for compiling it.
    const warming = performance.now();
    if (spec.warmup !== false) {
      do {
        await figure.sample();
        await anchor.sample();
      } while ((performance.now() - warming) / 1000 < warmupSeconds);
    }
    const rounds = spec.rounds ?? Number(process.env.BENCH_ROUNDS ?? 15);
    const figures: number[] = [];
    const anchors: number[] = [];
    const ratios: number[] = [];
    const started = performance.now();
    for (let round = 0; round < rounds; round++) {
      let f: number;
      let a: number;
      if (round % 2 === 0) {
        f = await figure.sample();
        a = await anchor.sample();
      } else {
        a = await anchor.sample();
        f = await figure.sample();
      }
      figures.push(f);
      anchors.push(a);
      ratios.push(kind === "rate" ? a / f : f / a);
      if (round >= 4 && (performance.now() - started) / 1000 > rowSeconds) break;
    }
    const result = {
      file,
      name: spec.name,
      kind,
      unit: spec.unit,
      target: spec.target,
      clock,
      figureLabel: comparison.figure.label,
      anchorLabel: comparison.anchor.label,
      figure: median(figures),
      anchor: median(anchors),
      ratio: median(ratios),
      ratioLow: quantile(ratios, 0.25),
      ratioHigh: quantile(ratios, 0.75),
      rounds: ratios.length,
    };
    return spec.target === undefined ? result : { ...result, pass: meets(spec.target, kind, result.figure, result.anchor, result.ratio, spec.unit) };
  } finally {
    await comparison.teardown?.();
  }
}

/**
 * Entry of a row process (scripts/bench.mjs bundles a bench file with a call to this): lists the
 * file's rows, or runs the one named by `BENCH_ROW`, and writes JSON to `BENCH_OUT`.
 */
export async function main(file: string): Promise<void> {
  const out = process.env.BENCH_OUT;
  if (!out) throw new Error("bench: run bench files through `npm run bench` (scripts/bench.mjs)");
  const name = basename(file).replace(/\.bench\.ts$/, "");
  if (process.env.BENCH_MODE === "list") {
    writeFileSync(out, JSON.stringify(rows.map((spec) => ({ file: name, name: spec.name, target: spec.target }))));
    return;
  }
  const spec = rows.find((candidate) => candidate.name === process.env.BENCH_ROW);
  if (!spec) throw new Error(`bench: no row ${JSON.stringify(process.env.BENCH_ROW)} in ${name}`);
  writeFileSync(out, JSON.stringify(await runRow(name, spec)));
}
