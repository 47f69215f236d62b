/**
 * `PerplexityTask`: token-weighted cross-entropy of the model on validation text tokenised with the model's own
 * tokenizer, as perplexity, nats/token, bits/byte — over random windows or HF-style sliding windows that score
 * every token exactly once.
 *
 * @packageDocumentation
 */
import { messages } from '../../messages.js';
import type { Model } from '../../models/model.js';
import type { Paradigm } from '../../models/paradigm.js';
import type { Tokenizer } from '../../models/tokenizer.js';
import type { Rng } from '../../rng.js';
import type { BenchmarkConfig } from '../config.js';
import type {
  BenchmarkContext,
  BenchmarkResult,
  BenchmarkTask,
  CellRecord,
  MetaValue,
  MetricDescriptor,
} from '../task.js';
import {
  batchRows,
  type EvalBatch,
  EvalBudget,
  type EvalTextOptions,
  planEvalWindows,
} from './eval-windows.js';
import { keepCell, standaloneContext } from './task-context.js';

/** Largest natural log whose `exp` is a finite float64 (exp(709.78) overflows): perplexity is capped at e^709. */
export const MAX_LOG_PERPLEXITY = 709;

/** Metrics of {@link PerplexityTask}. */
export const PERPLEXITY_METRICS: readonly MetricDescriptor[] = [
  {
    key: 'perplexity',
    unit: '1',
    description: `exp(eval_loss), computed in float64 and capped at e^${MAX_LOG_PERPLEXITY} (meta perplexity_capped says when).`,
    higherIsBetter: false,
  },
  {
    key: 'eval_loss',
    unit: 'nats/token',
    description:
      'Token-weighted mean negative log-likelihood: Σ NLL / Σ scored tokens over all windows (ar: next-token; diffusion: masked-token cross-entropy).',
    higherIsBetter: false,
  },
  {
    key: 'bits_per_token',
    unit: 'bits/token',
    description: 'eval_loss / ln 2.',
    higherIsBetter: false,
  },
  {
    key: 'bits_per_byte',
    unit: 'bits/byte',
    description:
      'Σ NLL / (ln 2 · Σ UTF-8 bytes of the scored tokens); a window’s scored bytes are the UTF-8 length of tokenizer.decode(its scored ids) (ar only).',
    higherIsBetter: false,
  },
  { key: 'tokens_scored', unit: 'tokens', description: 'Number of tokens whose loss entered eval_loss.' },
];

/** Options of {@link PerplexityTask}: the text and tokenizer of the windows, and the row name. */
export interface PerplexityTaskOptions extends EvalTextOptions {
  /** Row name. @default 'perplexity' */
  readonly name?: string;
}

const utf8 = new TextEncoder();

/**
 * The bytes that scored tokens stand for, in bytes: the UTF-8 length of `tokenizer.decode(ids)` — what
 * `bits_per_byte` divides by (every model and baseline counts bytes this way).
 */
export function scoredBytes(tokenizer: Tokenizer, ids: ArrayLike<number>): number {
  return utf8.encode(tokenizer.decode(Array.from(ids))).length;
}

/** The totals {@link perplexityMetrics} turns into metrics. */
export interface LikelihoodTotals {
  /** Σ negative log-likelihood of the scored tokens, in nats. */
  readonly sumNll: number;
  /** Tokens scored (> 0). */
  readonly tokens: number;
  /** Bytes of the scored tokens ({@link scoredBytes}), when they are known (next-token scoring). */
  readonly bytes?: number;
}

/**
 * `perplexity`, `eval_loss`, `bits_per_token`, `bits_per_byte` (when `bytes` is given) and `tokens_scored` of a
 * scored text, as {@link PERPLEXITY_METRICS} defines them: eval_loss = Σ NLL / tokens, bits/token = eval_loss /
 * ln 2, bits/byte = Σ NLL / (ln 2 · bytes), perplexity = exp(eval_loss) capped at e^709.
 */
export function perplexityMetrics(totals: LikelihoodTotals): Record<string, number> {
  const { sumNll, tokens, bytes } = totals;
  const evalLoss = sumNll / tokens;
  const metrics: Record<string, number> = {
    perplexity: Math.exp(Math.min(evalLoss, MAX_LOG_PERPLEXITY)),
    eval_loss: evalLoss,
    bits_per_token: evalLoss / Math.LN2,
  };
  if (bytes !== undefined) metrics['bits_per_byte'] = sumNll / (Math.LN2 * bytes);
  metrics['tokens_scored'] = tokens;
  return metrics;
}

/**
 * Perplexity of the model on validation text, tokenised with the model's own tokenizer (never `ord(c) % 256`).
 *
 * - **Random windows** (default): `evalBatches` batches of `evalBatchSize` windows with starts uniform over the
 *   token stream; a window has `evalSeqLen + 1` tokens for ar (`evalSeqLen` targets), `evalSeqLen` for diffusion.
 *   An `evalSeqLen` above the model's `maxContext` is clamped to it (a warning, and `meta.eval_seq_len_clamped`).
 * - **Sliding windows** (`evalStride` set, ar): windows of `evalSeqLen + 1` tokens starting every `evalStride`
 *   tokens from the start of the text; each window scores only the tokens no earlier window scored (the earlier
 *   ones are context, via `scoreFrom`), so every token from position 1 up to where the windows stop is scored
 *   exactly once (Hugging Face's "perplexity of fixed-length models"). At most `evalBatches · evalBatchSize`
 *   windows are used, or the whole text if it is shorter.
 *
 * Losses are combined token-weighted (Σ NLL / Σ tokens), never as a mean of batch means. The loss and the
 * window sampling use independent random streams.
 */
export class PerplexityTask implements BenchmarkTask {
  /** Row name. */
  readonly name: string;
  /** Metric schema. */
  readonly metrics = PERPLEXITY_METRICS;
  readonly #options: PerplexityTaskOptions;

  constructor(options: PerplexityTaskOptions = {}) {
    this.name = options.name ?? 'perplexity';
    this.#options = options;
  }

  /**
   * Evaluates the loss.
   *
   * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` when there is no tokenizer, the text is shorter than one window
   * or a token id falls outside the vocabulary; `IO` when the data file cannot be read.
   */
  async run(
    paradigm: Paradigm,
    model: Model,
    config: BenchmarkConfig,
    rng: Rng,
    context: BenchmarkContext = standaloneContext(),
  ): Promise<BenchmarkResult> {
    const { tracer } = context;
    // `bench --trace`: tokenization and each batch's scoring as spans.
    const plan =
      tracer === undefined
        ? planEvalWindows(paradigm, model, config, rng, context, this.#options)
        : await tracer.span('tokenize and cut windows', 'tokenize', async () =>
            planEvalWindows(paradigm, model, config, rng, context, this.#options),
          );
    const { ids, batches, planned, seqLen, strided, source, tokenizer, ar, lossRng } = plan;
    context.plan(planned);

    // The whole evaluation is bounded by the cell budget `maxCellMs` (see EvalBudget).
    const budget = new EvalBudget(context.clock, config.maxCellMs);
    const cells: CellRecord[] = [];
    let lastBatch: EvalBatch | undefined;
    for (const [i, batch] of budget.batches(batches)) {
      if (context.signal?.aborted) throw context.signal.reason;
      const rows = batchRows(ids, batch);
      let batchBytes = 0;
      // ar target j is token j + 1: the scored tokens of a row are row[scoreFrom + 1 …].
      for (const start of ar ? batch.starts : [])
        batchBytes += scoredBytes(tokenizer, ids.subarray(start + batch.scoreFrom + 1, start + batch.length));
      const score = () =>
        paradigm.lossFn(
          model,
          rows,
          { batch: batch.starts.length, seq: batch.length },
          lossRng,
          batch.scoreFrom > 0 ? { scoreFrom: batch.scoreFrom } : {},
        );
      const loss = await (tracer === undefined ? score() : tracer.span(`score batch ${i}`, 'scoring', score));
      await keepCell(context, cells, {
        task: this.name,
        cell: `batch=${i}`,
        phase: 'eval',
        batch: batch.starts.length,
        seqLen: batch.length,
        status: 'completed',
        metrics: { sum_nll: loss.sumLoss, tokens: loss.tokensScored, ...(ar ? { bytes: batchBytes } : {}) },
      });
      lastBatch = batch;
    }
    const result = this.summarize(cells);
    const meta: Record<string, MetaValue> = {
      data_source: source,
      tokenizer: tokenizer.name,
      eval_mode: strided ? `sliding (stride ${config.evalStride})` : 'random windows',
      loss_kind: ar
        ? 'next-token cross-entropy'
        : 'masked-token cross-entropy (a diffusion surrogate, not a true perplexity)',
    };
    meta['eval_seq_len'] = seqLen;
    if (seqLen < config.evalSeqLen) {
      meta['eval_seq_len_clamped'] = messages.evalSeqLenClamped(config.evalSeqLen, model.config.maxContext);
    }
    Object.assign(meta, result.meta);
    const truncation = budget.truncation(planned);
    if (truncation !== undefined) meta['eval_truncated'] = truncation;
    if (strided && lastBatch !== undefined) {
      meta['coverage'] =
        `tokens 1..${(lastBatch.starts[lastBatch.starts.length - 1] as number) + lastBatch.length - 1} of ${ids.length}`;
    }
    if (config.evalStride !== null && !ar)
      meta['eval_stride'] = 'ignored (diffusion scores masked positions)';
    return { ...result, meta };
  }

  /**
   * The row from the batches scored so far (all of them after a full run; the finished ones after Ctrl-C or a
   * crash): the loss is Σ `sum_nll` / Σ `tokens` over the completed `eval` cells.
   *
   * @throws Error when no batch was scored.
   */
  summarize(cells: readonly CellRecord[]): BenchmarkResult {
    let sumNll = 0;
    let tokens = 0;
    let bytes = 0;
    let ar = false;
    for (const cell of cells) {
      if (cell.status !== 'completed') continue;
      sumNll += cell.metrics['sum_nll'] ?? 0;
      tokens += cell.metrics['tokens'] ?? 0;
      const b = cell.metrics['bytes'];
      if (b !== undefined) {
        ar = true;
        bytes += b;
      }
    }
    if (tokens === 0) throw new Error('no batch was scored');
    const metrics = perplexityMetrics({ sumNll, tokens, ...(ar ? { bytes } : {}) });
    return {
      task: this.name,
      metrics,
      ...((metrics['eval_loss'] as number) > MAX_LOG_PERPLEXITY ? { meta: { perplexity_capped: true } } : {}),
    };
  }
}
