/**
 * `ngramBaseline`: the unigram, bigram and trigram models (add-k and Kneser–Ney) of a tokenizer's ids, fitted on
 * a training text and scored on held-out text in bits per byte exactly as the perplexity task scores a model.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { fitNgrams } from '../../models/ngram/fit-ngram.js';
import { NGRAM_ORDERS, type NgramOrder } from '../../models/ngram/ngram-counts.js';
import {
  NGRAM_SMOOTHINGS,
  type NgramParameters,
  type NgramSmoothing,
} from '../../models/ngram/ngram-model.js';
import type { Tokenizer } from '../../models/tokenizer.js';
import { readTextFile } from '../../text-file.js';
import { type BrownSplit, brownCorpusText, brownSplitName } from '../data/brown-corpus.js';
import type { PerplexityData } from '../tasks/eval-windows.js';
import { perplexityMetrics, scoredBytes } from '../tasks/perplexity-task.js';

/** Options of {@link ngramBaseline}. */
export interface NgramBaselineOptions {
  /**
   * Text the models are fitted on (and their smoothing chosen on, from its dev slice).
   * @default the Brown corpus's training split
   */
  readonly train?: PerplexityData;
  /** Text they are scored on; it must not overlap `train`. @default the Brown corpus's held-out split */
  readonly heldOut?: PerplexityData;
  /** Orders to fit. @default [1, 2, 3] */
  readonly orders?: readonly NgramOrder[];
  /** Smoothings to fit, each at every order. @default ['add-k', 'kneser-ney'] */
  readonly smoothings?: readonly NgramSmoothing[];
}

/** One fitted n-gram and its held-out scores. */
export interface NgramBaselineRow {
  /** 1, 2 or 3. */
  readonly order: NgramOrder;
  /** `add-k` or `kneser-ney`. */
  readonly smoothing: NgramSmoothing;
  /** The smoothing's parameters, as chosen on the training text's dev slice. */
  readonly parameters: NgramParameters;
  /**
   * The perplexity task's metrics on the held-out text: `perplexity`, `eval_loss` (nats/token), `bits_per_token`,
   * `bits_per_byte`, `tokens_scored`.
   */
  readonly metrics: Readonly<Record<string, number>>;
}

/** A text the baseline read, with what it became. */
export interface NgramBaselineText {
  /** Its name: the file, or which split of the Brown corpus. */
  readonly name: string;
  /** Its length in tokens. */
  readonly tokens: number;
  /** Its length in UTF-8 bytes. */
  readonly bytes: number;
}

/** What {@link ngramBaseline} measured. */
export interface NgramBaselineResult {
  /** The tokenizer's name. */
  readonly tokenizer: string;
  /** Its vocabulary size: every model gives each of these ids a probability. */
  readonly vocabSize: number;
  /** The training text. */
  readonly train: NgramBaselineText;
  /** The held-out text (its first token is context, the others are scored). */
  readonly heldOut: NgramBaselineText;
  /** One row per (order, smoothing), orders ascending, smoothings in the order asked. */
  readonly rows: readonly NgramBaselineRow[];
  /** The row of lowest held-out bits per byte. */
  readonly best: NgramBaselineRow;
}

/** `data`, or the Brown corpus's `split` when it is absent. */
function baselineText(
  data: PerplexityData | undefined,
  split: BrownSplit,
  what: string,
): { text: string; name: string } {
  if (data === undefined) return { text: brownCorpusText(split), name: brownSplitName(split) };
  return typeof data === 'string' ? { text: readTextFile(data, what), name: data } : data;
}

const utf8Length = (text: string): number => Buffer.byteLength(text, 'utf8');

/**
 * Fits n-gram models of `tokenizer`'s ids on the training text — each order × smoothing with its parameters
 * chosen on the training text's dev slice (`fitNgrams`) — and scores every held-out token after the first one
 * given the tokens before it, with the perplexity task's own definitions (`perplexityMetrics`, `scoredBytes`):
 * bits per byte is Σ −ln p / (ln 2 · UTF-8 bytes of the scored tokens' decoded text). This is the number a
 * trained model's held-out `bits_per_byte` is compared with (perplexity with sliding windows that cover the text
 * scores the same tokens).
 *
 * @example
 * ```ts
 * const { best } = ngramBaseline(loadHfTokenizer('tok/tokenizer.json'));
 * console.log(best.order, best.smoothing, best.metrics['bits_per_byte']);
 * ```
 * @throws {@link dantinox!DantinoxError} `IO` / `INVALID_INPUT` when a text file cannot be read or is not text;
 *   `INVALID_INPUT` when the training text is too short to hold a dev slice or the held-out text has fewer than
 *   two tokens; `INVALID_OPTION` for an empty or unknown order or smoothing; the errors of `fitNgrams`.
 */
export function ngramBaseline(tokenizer: Tokenizer, options: NgramBaselineOptions = {}): NgramBaselineResult {
  const train = baselineText(options.train, 'train', 'training');
  const heldOut = baselineText(options.heldOut, 'held-out', 'held-out');
  const trainIds = Int32Array.from(tokenizer.encode(train.text));
  const heldIds = Int32Array.from(tokenizer.encode(heldOut.text));
  if (heldIds.length < 2)
    throw new DantinoxError('INVALID_INPUT', messages.heldOutTooShort(heldOut.name, heldIds.length));
  const orders = options.orders ?? NGRAM_ORDERS;
  const smoothings = options.smoothings ?? NGRAM_SMOOTHINGS;
  const badOrder = orders.find((o) => !(NGRAM_ORDERS as readonly number[]).includes(o));
  if (orders.length === 0 || badOrder !== undefined)
    throw new DantinoxError('INVALID_OPTION', messages.badChoiceList('orders', orders, NGRAM_ORDERS));
  const badSmoothing = smoothings.find((s) => !(NGRAM_SMOOTHINGS as readonly string[]).includes(s));
  if (smoothings.length === 0 || badSmoothing !== undefined)
    throw new DantinoxError(
      'INVALID_OPTION',
      messages.badChoiceList('smoothings', smoothings, NGRAM_SMOOTHINGS),
    );
  const bytes = scoredBytes(tokenizer, heldIds.subarray(1));
  const vocabSize = tokenizer.vocabSize;
  const wanted = orders.flatMap((order) => smoothings.map((smoothing) => ({ order, smoothing })));
  const rows = fitNgrams(trainIds, vocabSize, wanted).map(
    (model, i): NgramBaselineRow => ({
      ...(wanted[i] as { order: NgramOrder; smoothing: NgramSmoothing }),
      parameters: model.parameters,
      metrics: perplexityMetrics({ ...model.score(heldIds, { from: 1 }), bytes }),
    }),
  );
  const best = rows.reduce((a, b) =>
    (b.metrics['bits_per_byte'] as number) < (a.metrics['bits_per_byte'] as number) ? b : a,
  );
  return {
    tokenizer: tokenizer.name,
    vocabSize,
    train: { name: train.name, tokens: trainIds.length, bytes: utf8Length(train.text) },
    heldOut: { name: heldOut.name, tokens: heldIds.length, bytes: utf8Length(heldOut.text) },
    rows,
    best,
  };
}
