/**
 * `fitNgrams`: n-gram models fitted on a token stream, its smoothing parameters (add-k's k, Kneser–Ney's
 * discounts) chosen on a dev slice of that same stream.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { type CountTable, countNgrams, type NgramCounts, type NgramOrder } from './ngram-counts.js';
import { NgramModel, type NgramParameters, type NgramSmoothing } from './ngram-model.js';

/** The training stream is cut into this many equal blocks to pick the dev slice. */
export const NGRAM_DEV_BLOCKS = 100;
/** Every `NGRAM_DEV_EVERY`-th block (the 10th, 20th, … 100th) is the dev slice: 10% of the tokens. */
export const NGRAM_DEV_EVERY = 10;

/** One model {@link fitNgrams} fits. */
export interface FitNgramOptions {
  /** 1 (unigram), 2 (bigram) or 3 (trigram). */
  readonly order: NgramOrder;
  /** `add-k` or `kneser-ney`. */
  readonly smoothing: NgramSmoothing;
  /** The smoothing's parameters. @default chosen on the dev slice ({@link tuneNgram}) */
  readonly parameters?: NgramParameters;
}

/** A training stream cut into the blocks models are counted on and the blocks their smoothing is chosen on. */
export interface DevSplit {
  /** The blocks to count, in order (9 in 10). */
  readonly fit: Int32Array[];
  /** The dev blocks, in order (1 in 10). */
  readonly dev: Int32Array[];
}

/**
 * `ids` cut into {@link NGRAM_DEV_BLOCKS} contiguous blocks of (nearly) equal length: every
 * {@link NGRAM_DEV_EVERY}-th block (blocks 10, 20, …, 100) is `dev`, the others `fit` — a tenth of the stream,
 * spread over all of it (a text's topics and genres often come in runs).
 */
export function devSplit(ids: Int32Array): DevSplit {
  const fit: Int32Array[] = [];
  const dev: Int32Array[] = [];
  for (let b = 0; b < NGRAM_DEV_BLOCKS; b++) {
    const block = ids.subarray(
      Math.floor((b * ids.length) / NGRAM_DEV_BLOCKS),
      Math.floor(((b + 1) * ids.length) / NGRAM_DEV_BLOCKS),
    );
    if (block.length > 0) (b % NGRAM_DEV_EVERY === NGRAM_DEV_EVERY - 1 ? dev : fit).push(block);
  }
  return { fit, dev };
}

/**
 * Smallest discount the search picks: with every discount > 0, each order keeps some mass for what it has not
 * seen, so every id of the vocabulary — one that never occurs in the training text too — gets p > 0.
 */
export const MIN_DISCOUNT = 1e-3;

/** Most sweeps of the discounts' coordinate descent. */
const MAX_SWEEPS = 20;
/** The descent stops after a sweep that moved no discount by more than this. */
const SWEEP_TOLERANCE = 1e-4;

/** Minimises a one-dimensional `f` on [lo, hi] by golden-section search (`steps` steps); returns the best point. */
function goldenSection(f: (x: number) => number, lo: number, hi: number, steps: number): number {
  const r = (Math.sqrt(5) - 1) / 2;
  let a = lo;
  let b = hi;
  let x1 = b - r * (b - a);
  let x2 = a + r * (b - a);
  let f1 = f(x1);
  let f2 = f(x2);
  for (let i = 0; i < steps; i++) {
    if (f1 <= f2) {
      b = x2;
      x2 = x1;
      f2 = f1;
      x1 = b - r * (b - a);
      f1 = f(x1);
    } else {
      a = x1;
      x1 = x2;
      f1 = f2;
      x2 = a + r * (b - a);
      f2 = f(x2);
    }
  }
  return f1 <= f2 ? x1 : x2;
}

/**
 * Chen and Goodman's estimates of the three discounts of a count table (from its counts of counts n₁ … n₄:
 * Y = n₁ / (n₁ + 2n₂), D₁ = 1 − 2Y·n₂/n₁, D₂ = 2 − 3Y·n₃/n₂, D₃₊ = 3 − 4Y·n₄/n₃), each kept inside (0, i); an
 * estimate the counts cannot give (a zero count of counts) is i/2.
 */
export function chenGoodmanDiscounts(table: CountTable): [number, number, number] {
  const [n1, n2, n3, n4] = table.countOfCounts;
  const y = n1 + 2 * n2 > 0 ? n1 / (n1 + 2 * n2) : 0;
  const raw = [n1 > 0 ? 1 - (2 * y * n2) / n1 : Number.NaN, n2 > 0 ? 2 - (3 * y * n3) / n2 : Number.NaN];
  raw.push(n3 > 0 ? 3 - (4 * y * n4) / n3 : Number.NaN);
  return raw.map((d, i) => {
    const cap = i + 1;
    return Number.isFinite(d) && d > 0 && d < cap ? d : cap / 2;
  }) as [number, number, number];
}

/** Statistics of one dev position at one level: whether its context was seen, and the counts the formula reads. */
interface LevelStats {
  readonly found: Uint8Array;
  readonly count: Float64Array;
  readonly total: Float64Array;
  readonly n1: Float64Array;
  readonly n2: Float64Array;
  readonly n3: Float64Array;
}

/** The per-position statistics of the dev tokens at every level, read once so each trial of the search is a loop. */
function devStatistics(
  tables: NgramCounts,
  dev: readonly Int32Array[],
  order: NgramOrder,
  smoothing: NgramSmoothing,
): { levels: LevelStats[]; top: Uint8Array; positions: number } {
  const positions = dev.reduce((n, s) => n + Math.max(0, s.length - 1), 0);
  const make = (): LevelStats => ({
    found: new Uint8Array(positions),
    count: new Float64Array(positions),
    total: new Float64Array(positions),
    n1: new Float64Array(positions),
    n2: new Float64Array(positions),
    n3: new Float64Array(positions),
  });
  const levels = Array.from({ length: order }, make);
  const top = new Uint8Array(positions);
  let p = 0;
  for (const s of dev) {
    for (let i = 1; i < s.length; i++, p++) {
      const t = Math.min(order, i + 1);
      top[p] = t;
      for (let m = smoothing === 'add-k' ? t : 1; m <= t; m++) {
        const table = (m === t || smoothing === 'add-k' ? tables.raw : tables.continuation)[
          m - 1
        ] as CountTable;
        let key = 0;
        for (let j = i - m + 1; j < i; j++) key = key * tables.vocabSize + (s[j] as number);
        const c = table.context(key);
        if (c < 0) continue;
        const level = levels[m - 1] as LevelStats;
        const stats = table.stats(c);
        level.found[p] = 1;
        level.count[p] = table.count(c, s[i] as number);
        level.total[p] = stats.total;
        level.n1[p] = stats.n1;
        level.n2[p] = stats.n2;
        level.n3[p] = stats.n3;
      }
    }
  }
  return { levels, top, positions };
}

/**
 * Chooses the smoothing parameters of an n-gram of `order` on the count tables `fit` (of that order or more) by
 * the mean negative log-likelihood of the `dev` tokens (each segment scored from its second token, as held-out text
 * is):
 *
 * - **add-k**: k by golden-section search on log₁₀ k ∈ [−7, 2].
 * - **Kneser–Ney**: the 3 × order discounts by coordinate descent — sweeps over the discounts, unigram level first,
 *   each by golden-section search on [{@link MIN_DISCOUNT}, i] for D_i, until a sweep moves none by more than
 *   10⁻⁴ (at most 20 sweeps) — starting from Chen and Goodman's estimates ({@link chenGoodmanDiscounts}). Each
 *   probability is affine in any one discount, so the dev log-likelihood is concave in each and every step finds
 *   its optimum.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` when `dev` has no token to score; `INVALID_OPTION` for
 *   an order above the counts'.
 */
export function tuneNgram(
  fit: NgramCounts,
  dev: readonly Int32Array[],
  order: NgramOrder,
  smoothing: NgramSmoothing,
): NgramParameters {
  if (order > fit.order)
    throw new DantinoxError(
      'INVALID_OPTION',
      messages.ngramBadParameter('order', order, `1 to ${fit.order} (the order of the counts)`),
    );
  const tables = fit;
  const { levels, top, positions } = devStatistics(tables, dev, order, smoothing);
  if (positions === 0)
    throw new DantinoxError('INVALID_INPUT', messages.ngramDevTooShort(fit.raw[0]?.totals[0] ?? 0));
  const V = fit.vocabSize;
  if (smoothing === 'add-k') {
    const loss = (log10k: number): number => {
      const k = 10 ** log10k;
      let nll = 0;
      for (let p = 0; p < positions; p++) {
        const level = levels[(top[p] as number) - 1] as LevelStats;
        nll -= Math.log(
          level.found[p] === 1
            ? ((level.count[p] as number) + k) / ((level.total[p] as number) + k * V)
            : 1 / V,
        );
      }
      return nll;
    };
    return { smoothing, k: 10 ** goldenSection(loss, -7, 2, 60) };
  }
  const discounts = tables.raw
    .slice(0, order)
    .flatMap((raw, i) =>
      chenGoodmanDiscounts(i + 1 === order ? raw : (tables.continuation[i] as CountTable)),
    );
  /** Level m's p_m = a + g · p_{m−1} at position p under discounts `d`, into `out` (never seen: a = 0, g = 1). */
  const out = new Float64Array(2);
  const affine = (d: readonly number[], m: number, p: number): void => {
    const level = levels[m - 1] as LevelStats;
    if (level.found[p] !== 1) {
      out[0] = 0;
      out[1] = 1;
      return;
    }
    const base = 3 * (m - 1);
    const count = level.count[p] as number;
    const total = level.total[p] as number;
    const discount = count === 0 ? 0 : (d[base + Math.min(count, 3) - 1] as number);
    out[0] = (count - discount) / total;
    out[1] =
      ((d[base] as number) * (level.n1[p] as number) +
        (d[base + 1] as number) * (level.n2[p] as number) +
        (d[base + 2] as number) * (level.n3[p] as number)) /
      total;
  };
  // With every discount but D_i fixed, each position's probability is affine in D_i: p = c0 + c1 · D_i.
  const c0 = new Float64Array(positions);
  const c1 = new Float64Array(positions);
  for (let sweep = 0, moved = 1; sweep < MAX_SWEEPS && moved > SWEEP_TOLERANCE; sweep++) {
    moved = 0;
    for (let i = 0; i < discounts.length; i++) {
      const L = Math.floor(i / 3) + 1;
      const bucket = (i % 3) + 1;
      const d0 = discounts.slice();
      d0[i] = 0;
      for (let p = 0; p < positions; p++) {
        let below = 1 / V;
        for (let m = 1; m < L; m++) {
          affine(discounts, m, p);
          below = (out[0] as number) + (out[1] as number) * below;
        }
        let scale = 1;
        let shift = 0;
        for (let m = L + 1; m <= (top[p] as number); m++) {
          affine(discounts, m, p);
          scale *= out[1] as number;
          shift = (out[0] as number) + (out[1] as number) * shift;
        }
        const level = levels[L - 1] as LevelStats;
        if ((top[p] as number) < L || level.found[p] !== 1) {
          c0[p] = (top[p] as number) < L ? 1 : scale * below + shift; // level L not read, or not seen: constant
          c1[p] = 0;
          continue;
        }
        affine(d0, L, p);
        c0[p] = scale * ((out[0] as number) + (out[1] as number) * below) + shift;
        const total = level.total[p] as number;
        const count = level.count[p] as number;
        const own = Math.min(count, 3) === bucket && count > 0 ? -1 / total : 0;
        const mass = (bucket === 1 ? level.n1[p] : bucket === 2 ? level.n2[p] : level.n3[p]) as number;
        c1[p] = scale * (own + (mass / total) * below);
      }
      const trial = (x: number): number => {
        let nll = 0;
        for (let p = 0; p < positions; p++) nll -= Math.log((c0[p] as number) + (c1[p] as number) * x);
        return nll;
      };
      const next = goldenSection(trial, MIN_DISCOUNT, bucket, 40);
      moved = Math.max(moved, Math.abs(next - (discounts[i] as number)));
      discounts[i] = next;
    }
  }
  return { smoothing, discounts };
}

/**
 * N-gram models of `ids` (one token stream), one per (order, smoothing) of `models`, counted on all of it; each
 * with the parameters {@link tuneNgram} chose by counting the stream without its dev slice ({@link devSplit}:
 * every tenth of 100 blocks) and scoring that slice, unless `parameters` are given. The stream is counted twice
 * (without the dev slice, then whole) whatever the number of models. Text the models will be evaluated on must
 * not be in `ids`.
 *
 * @example
 * ```ts
 * const tok = trainBpe(brownCorpusText('train'), { vocabSize: 4096 });
 * const ids = Int32Array.from(tok.encode(brownCorpusText('train')));
 * const [kn3] = fitNgrams(ids, tok.vocabSize, [{ order: 3, smoothing: 'kneser-ney' }]);
 * kn3.parameters; // { smoothing: 'kneser-ney', discounts: [9 numbers] }
 * ```
 * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` for an empty stream, ids outside the vocabulary, or a
 *   stream too short to hold a dev slice; `INVALID_OPTION` for bad parameters or parameters of another smoothing.
 */
export function fitNgrams(
  ids: Int32Array,
  vocabSize: number,
  models: readonly FitNgramOptions[],
): NgramModel[] {
  const order = Math.max(1, ...models.map((m) => m.order)) as NgramOrder;
  let fitCounts: NgramCounts | undefined;
  let dev: Int32Array[] = [];
  const parameters = models.map(({ order: o, smoothing, parameters: given }) => {
    if (given !== undefined && given.smoothing !== smoothing)
      throw new DantinoxError(
        'INVALID_OPTION',
        messages.ngramBadParameter(
          'parameters.smoothing',
          given.smoothing,
          `the smoothing asked for, ${smoothing}`,
        ),
      );
    if (given !== undefined) return given;
    if (fitCounts === undefined) {
      const split = devSplit(ids);
      fitCounts = countNgrams(split.fit, order, vocabSize);
      dev = split.dev;
    }
    return tuneNgram(fitCounts, dev, o, smoothing);
  });
  const counts = countNgrams([ids], order, vocabSize);
  return models.map((m, i) => new NgramModel(counts, parameters[i] as NgramParameters, m.order));
}
