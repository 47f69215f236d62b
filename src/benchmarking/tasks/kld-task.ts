/**
 * `KldTask`: how far a model's next-token distributions are from a reference model's on the same token windows
 * (llama.cpp's `--kl-divergence`): KL(reference ‖ model) per scored position, top-1 agreement and the
 * perplexity ratio. The typical use is a quantized model against the full-precision model it came from.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import type { Model } from '../../models/model.js';
import { logitScorer } from '../../models/onnx/logit-scorer.js';
import type { Paradigm } from '../../models/paradigm.js';
import {
  bootstrapClusters,
  clusterBootstrapMethod,
  type Interval,
  quantileSorted,
  type TotalsStatistic,
} from '../../profiling/index.js';
import type { Rng } from '../../rng.js';
import type { BenchmarkConfig } from '../config.js';
import type { BenchmarkContext, BenchmarkResult, CellRecord, MetaValue, MetricDescriptor } from '../task.js';
import { batchRows, EvalBudget, type EvalTextOptions, planEvalWindows } from './eval-windows.js';
import { intervalMetrics, withIntervalColumns } from './interval-columns.js';
import { keepCell, standaloneContext } from './task-context.js';
import { type KldReference, withReference } from './with-reference.js';

/** Metrics of {@link KldTask}. */
export const KLD_METRICS: readonly MetricDescriptor[] = [
  ...withIntervalColumns({
    key: 'kld_mean',
    unit: 'nats',
    description: 'Mean over scored positions of KL(reference ‖ model) of the next-token distributions.',
    higherIsBetter: false,
  }),
  { key: 'kld_median', unit: 'nats', description: 'Median per-position KL.', higherIsBetter: false },
  {
    key: 'kld_p99',
    unit: 'nats',
    description: '99th percentile of the per-position KL (linear interpolation).',
    higherIsBetter: false,
  },
  { key: 'kld_max', unit: 'nats', description: 'Largest per-position KL.', higherIsBetter: false },
  ...withIntervalColumns({
    key: 'top1_agreement',
    unit: '1',
    description:
      'Fraction of scored positions where the model and the reference have the same arg-max token.',
    higherIsBetter: true,
  }),
  ...withIntervalColumns({
    key: 'ppl_ratio',
    unit: '1',
    description:
      'Model perplexity ÷ reference perplexity on the same targets: exp(mean NLL − mean reference NLL).',
    higherIsBetter: false,
  }),
  {
    key: 'reference_perplexity',
    unit: '1',
    description: 'Perplexity of the reference on the scored targets.',
    higherIsBetter: false,
  },
  { key: 'tokens_scored', unit: 'tokens', description: 'Number of positions compared.' },
];

/**
 * The statistics of the kld row that get intervals, as functions of per-window totals (Σ KL, positions, arg-max
 * agreements, Σ NLL, Σ reference NLL): the token-weighted mean KL, the agreement and the perplexity ratio.
 */
const KLD_STATISTICS: readonly TotalsStatistic[] = [
  (t) => (t[0] as number) / (t[1] as number),
  (t) => (t[2] as number) / (t[1] as number),
  (t) => Math.exp(((t[3] as number) - (t[4] as number)) / (t[1] as number)),
];

/**
 * The distribution columns of per-position KL divergences (nats): their mean, median and 99th percentile (linear
 * interpolation between order statistics, {@link quantileSorted}) and maximum; `NaN` for none.
 */
export function kldDistribution(
  kls: readonly number[],
): Record<'kld_mean' | 'kld_median' | 'kld_p99' | 'kld_max', number> {
  const n = kls.length;
  const sorted = Float64Array.from(kls).sort();
  return {
    kld_mean: sorted.reduce((s, x) => s + x, 0) / n,
    kld_median: quantileSorted(sorted, 0.5),
    kld_p99: quantileSorted(sorted, 0.99),
    kld_max: n === 0 ? Number.NaN : (sorted[n - 1] as number),
  };
}

/** Options of {@link KldTask}. */
export interface KldTaskOptions extends EvalTextOptions {
  /** The reference model (any {@link Model}: another dtype, another engine, another folder). */
  readonly reference: KldReference;
  /** Name of the reference for the report. @default the reference's `info.name` and `info.dtype` */
  readonly referenceName?: string;
  /** Row name. @default 'kld' */
  readonly name?: string;
}

/**
 * KL divergence of a model from a reference model on the windows of the perplexity task (random windows, or
 * `evalStride` sliding windows scoring every position once). Both models run each window, one window at a time
 * (`evalBatchSize` windows make a cell); the log-softmaxes,
 * the per-position KL, both NLLs and both arg-maxes are computed by ONNX Runtime (`LogitScorer`), not in
 * JavaScript. Autoregressive models only.
 */
export class KldTask {
  /** Row name. */
  readonly name: string;
  /** Metric schema. */
  readonly metrics = KLD_METRICS;
  readonly #options: KldTaskOptions;

  constructor(options: KldTaskOptions) {
    this.name = options.name ?? 'kld';
    this.#options = options;
  }

  /**
   * Compares `model` with the reference.
   *
   * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` when the vocabularies differ, the paradigm is not `ar`, or the
   * windows cannot be made (see the perplexity task).
   */
  async run(
    paradigm: Paradigm,
    model: Model,
    config: BenchmarkConfig,
    rng: Rng,
    context: BenchmarkContext = standaloneContext(),
  ): Promise<BenchmarkResult> {
    if (paradigm.type !== 'ar') {
      throw new DantinoxError('INVALID_INPUT', messages.decodeNotApplicable(paradigm.type));
    }
    return withReference(this.#options.reference, model, (reference) =>
      this.#compare(paradigm, model, reference, config, rng, context),
    );
  }

  async #compare(
    paradigm: Paradigm,
    model: Model,
    reference: Model,
    config: BenchmarkConfig,
    rng: Rng,
    context: BenchmarkContext,
  ): Promise<BenchmarkResult> {
    const vocab = model.config.vocabSize;
    if (reference.config.vocabSize !== vocab) {
      throw new DantinoxError('INVALID_INPUT', messages.kldVocabMismatch(vocab, reference.config.vocabSize));
    }
    const plan = planEvalWindows(paradigm, model, config, rng, context, this.#options);
    context.plan(plan.planned);
    // The whole evaluation is bounded by the cell budget `maxCellMs`, as perplexity's.
    const budget = new EvalBudget(context.clock, config.maxCellMs);
    const scorer = await logitScorer();
    const kls: number[] = [];
    // Per scored window: Σ KL, positions, arg-max agreements, Σ NLL, Σ reference NLL (the bootstrap's clusters).
    const windows: [number[], number[], number[], number[], number[]] = [[], [], [], [], []];
    const cells: CellRecord[] = [];
    for (const [i, batch] of budget.batches(plan.batches)) {
      if (context.signal?.aborted) throw context.signal.reason;
      const rows = batchRows(plan.ids, batch);
      const b = batch.starts.length;
      const t = batch.length - 1;
      let batchKl = 0;
      // One window at a time through both models: the logits alive at once are one window's per model (for a
      // 50,257-word vocabulary and 256 positions, 51 MB each), and ONNX Runtime's arenas grow to one window's
      // activations, not a batch's.
      for (let r = 0; r < b; r++) {
        const row = rows.subarray(r * batch.length, (r + 1) * batch.length);
        const inputs = row.slice(0, t);
        const targets = BigInt64Array.from(row.subarray(1), (id) => BigInt(id));
        const q = await model.forward(inputs, { batch: 1, seq: t });
        const p = await reference.forward(inputs, { batch: 1, seq: t });
        const scored = await scorer.kl(p.data, q.data, vocab, targets);
        let windowKl = 0;
        let agree = 0;
        let nll = 0;
        let referenceNll = 0;
        for (let j = batch.scoreFrom; j < t; j++) {
          const kl = scored.kl[j] as number;
          kls.push(kl);
          windowKl += kl;
          nll += scored.modelNll[j] as number;
          referenceNll += scored.referenceNll[j] as number;
          if (scored.modelArgmax[j] === scored.referenceArgmax[j]) agree++;
        }
        batchKl += windowKl;
        for (const [k, v] of [windowKl, t - batch.scoreFrom, agree, nll, referenceNll].entries())
          (windows[k] as number[]).push(v);
      }
      const n = b * (t - batch.scoreFrom);
      await keepCell(context, cells, {
        task: this.name,
        cell: `batch=${i}`,
        phase: 'eval',
        batch: b,
        seqLen: batch.length,
        status: 'completed',
        metrics: { sum_kl: batchKl, tokens: n },
      });
    }
    const n = kls.length;
    const totals = Float64Array.from(windows, (column: number[]) => column.reduce((s, x) => s + x, 0));
    const [kldCi, top1Ci, pplCi] = bootstrapClusters(windows, KLD_STATISTICS, {
      rng: plan.lossRng,
      resamples: config.ciResamples,
      confidence: config.ciLevel,
    }) as [Interval, Interval, Interval];
    const metrics: Record<string, number> = {
      ...kldDistribution(kls),
      // The mean as the bootstrap computes it (window totals summed), so the interval is around it to the last digit.
      kld_mean: (KLD_STATISTICS[0] as TotalsStatistic)(totals),
      ...intervalMetrics('kld_mean', kldCi),
      top1_agreement: (KLD_STATISTICS[1] as TotalsStatistic)(totals),
      ...intervalMetrics('top1_agreement', top1Ci),
      ppl_ratio: (KLD_STATISTICS[2] as TotalsStatistic)(totals),
      ...intervalMetrics('ppl_ratio', pplCi),
      reference_perplexity: Math.exp((totals[4] as number) / n),
      tokens_scored: n,
    };
    const meta: Record<string, MetaValue> = {
      reference: this.#options.referenceName ?? `${reference.info.name} (${reference.info.dtype})`,
      reference_engine: reference.info.engine,
      data_source: plan.source,
      tokenizer: plan.tokenizer.name,
      eval_mode: plan.strided ? `sliding (stride ${config.evalStride})` : 'random windows',
      eval_seq_len: plan.seqLen,
      ci_method: clusterBootstrapMethod('scored window', config.ciLevel, config.ciResamples),
    };
    const truncation = budget.truncation(plan.planned);
    if (truncation !== undefined) meta['eval_truncated'] = truncation;
    return { task: this.name, metrics, meta };
  }
}
