/**
 * The text a run trains on and how it is cut: the fixed train / held-out split (the Brown corpus's, or a user's
 * file split by paragraphs with the same rule), its tokens, the training batches drawn for each step, and the
 * fixed validation batches of the held-out text.
 *
 * @packageDocumentation
 */

import { BROWN_HELD_OUT_EVERY, brownCorpusText } from '../benchmarking/data/brown-corpus.js';
import { perplexityMetrics, scoredBytes } from '../benchmarking/tasks/perplexity-task.js';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import type { ParadigmKind } from '../models/model-config.js';
import { maskTokens } from '../models/paradigms/diffusion-paradigm.js';
import type { Tokenizer } from '../models/tokenizer.js';
import type { Rng } from '../rng.js';
import { trainingRng } from './training-rng.js';

/** Training text and the held-out text it never sees. */
export interface TrainingText {
  /** Where it comes from (`brown`, or the file as given), for messages and the run's record. */
  readonly name: string;
  /** The text trained on. */
  readonly train: string;
  /** The held-out text validation scores. */
  readonly heldOut: string;
}

/**
 * The Brown corpus's fixed split: 450 training documents, and every tenth document (`ca10`, `ca20`, …, 50 of 500)
 * held out.
 */
export function brownTrainingText(): TrainingText {
  return { name: 'brown', train: brownCorpusText('train'), heldOut: brownCorpusText('held-out') };
}

/**
 * Splits a user's text the way the Brown corpus is split: its paragraphs are the blocks separated by blank lines
 * (lines holding only whitespace); every tenth paragraph (the 10th, 20th, …) is held out and the others are
 * trained on, each side rejoined with one blank line between paragraphs.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` for an empty text, or one of fewer than ten paragraphs
 * (which would hold nothing out).
 */
export function splitTrainingText(text: string, name: string): TrainingText {
  if (text.trim() === '') throw new DantinoxError('INVALID_INPUT', messages.trainEmptyText(name));
  const paragraphs = text.split(/\r?\n[ \t]*(?:\r?\n[ \t]*)+/).filter((p) => p.trim() !== '');
  if (paragraphs.length < BROWN_HELD_OUT_EVERY)
    throw new DantinoxError(
      'INVALID_INPUT',
      messages.trainFewParagraphs(name, paragraphs.length, BROWN_HELD_OUT_EVERY),
    );
  const held = (i: number): boolean => i % BROWN_HELD_OUT_EVERY === BROWN_HELD_OUT_EVERY - 1;
  return {
    name,
    train: paragraphs.filter((_, i) => !held(i)).join('\n\n'),
    heldOut: paragraphs.filter((_, i) => held(i)).join('\n\n'),
  };
}

/** The token ids of `text` by `tokenizer`. */
export function tokenizeText(tokenizer: Tokenizer, text: string): Int32Array {
  return Int32Array.from(tokenizer.encode(text));
}

/** The rows fed to one training or evaluation call. */
export interface TokenBatch {
  /** Input ids, `[batch, seq]` row-major. */
  readonly inputs: Int32Array;
  /** Target id of each position, `[batch · seq]`. */
  readonly targets: BigInt64Array;
  /** Weight of each position's loss, `[batch · seq]` (0: not scored). */
  readonly weights: Float32Array;
  /** Positions scored (weight > 0). */
  readonly scored: number;
}

/** Sequences per batch and tokens per sequence. */
export interface BatchShape {
  /** Sequences per batch. */
  readonly batch: number;
  /** Tokens per sequence. */
  readonly seq: number;
}

/** Tokens a window of `seq` positions takes from the stream: `seq + 1` (next-token targets) or `seq` (diffusion). */
export function windowTokens(paradigm: ParadigmKind, seq: number): number {
  return paradigm === 'ar' ? seq + 1 : seq;
}

/** Rows starting at `starts`, with next-token (ar) or masked-token (diffusion) targets, all weights `weight`. */
function rowsAt(
  tokens: Int32Array,
  starts: readonly number[],
  seq: number,
  paradigm: ParadigmKind,
): { inputs: Int32Array; targets: BigInt64Array } {
  const inputs = new Int32Array(starts.length * seq);
  const targets = new BigInt64Array(starts.length * seq);
  const shift = paradigm === 'ar' ? 1 : 0;
  starts.forEach((start, r) => {
    inputs.set(tokens.subarray(start, start + seq), r * seq);
    for (let j = 0; j < seq; j++) targets[r * seq + j] = BigInt(tokens[start + j + shift] as number);
  });
  return { inputs, targets };
}

/**
 * The diffusion form of rows: inputs with tokens masked by {@link maskTokens} (the perplexity task's masking),
 * targets the original tokens, each masked position weighted `scale` (others 0).
 */
function masked(
  rows: { inputs: Int32Array; targets: BigInt64Array },
  shape: BatchShape,
  rng: Rng,
  maskTokenId: number,
  mean: boolean,
): TokenBatch {
  const { noisy, masked: which } = maskTokens(rows.inputs, shape, rng, maskTokenId);
  let scored = 0;
  for (const m of which) scored += m;
  const weight = mean ? 1 / scored : 1;
  const weights = Float32Array.from(which, (m) => m * weight);
  return { inputs: noisy, targets: rows.targets, weights, scored };
}

/**
 * The training batch of one step: `batch` windows whose starts are drawn uniformly (with replacement) by `rng`
 * over the token stream, each scoring every position (ar: the next token; diffusion: the positions
 * {@link maskTokens} masks, drawn by the same `rng` after the starts), weighted so that the loss is the mean over
 * the scored positions.
 */
export function trainingBatch(
  tokens: Int32Array,
  shape: BatchShape,
  paradigm: ParadigmKind,
  rng: Rng,
  maskTokenId: number,
): TokenBatch {
  const span = tokens.length - windowTokens(paradigm, shape.seq) + 1;
  const starts = Array.from({ length: shape.batch }, () => rng.int(span));
  const rows = rowsAt(tokens, starts, shape.seq, paradigm);
  if (paradigm === 'diffusion') return masked(rows, shape, rng, maskTokenId, true);
  const n = shape.batch * shape.seq;
  return { ...rows, weights: new Float32Array(n).fill(1 / n), scored: n };
}

/** The fixed batches validation scores, and what they score. */
export interface ValidationSet {
  /** Batches whose weights are 1 on scored positions and 0 on padding rows, so the loss output is Σ NLL. */
  readonly batches: readonly TokenBatch[];
  /** Positions scored over all batches. */
  readonly tokens: number;
  /** UTF-8 bytes of the scored tokens (ar only: the denominator of bits per byte). */
  readonly bytes?: number;
}

/** Options of {@link validationSet}. */
export interface ValidationOptions {
  /** Batch shape (the training shape). */
  readonly shape: BatchShape;
  /** At most this many batches. */
  readonly maxBatches: number;
  /** Paradigm of the model. */
  readonly paradigm: ParadigmKind;
  /** Tokenizer (for the bytes of the scored tokens). */
  readonly tokenizer: Tokenizer;
  /** Seed of the diffusion masks. */
  readonly seed: number;
  /** Mask token id (diffusion). */
  readonly maskTokenId: number;
}

/**
 * The validation batches of the held-out tokens: consecutive windows at a stride of `seq` tokens (ar windows
 * overlap by one token, so each held-out token from the second on is a target exactly once), at most
 * `maxBatches · batch` of them spread evenly over the text (window k of n kept: ⌊j·n / wanted⌋ for j = 0 …), the
 * last batch padded with weight-0 rows. Diffusion windows are masked by a generator fixed for the run (stream
 * `validation`, step 0), the same at every validation.
 *
 * @throws {@link dantinox!DantinoxError} `INVALID_INPUT` when the held-out text is shorter than one window.
 */
export function validationSet(heldOut: Int32Array, options: ValidationOptions): ValidationSet {
  const { shape, paradigm } = options;
  const { batch, seq } = shape;
  const count = Math.floor((heldOut.length - windowTokens(paradigm, seq)) / seq) + 1;
  if (heldOut.length < windowTokens(paradigm, seq) || count < 1)
    throw new DantinoxError(
      'INVALID_INPUT',
      messages.trainHeldOutTooShort(heldOut.length, windowTokens(paradigm, seq)),
    );
  const wanted = Math.min(count, options.maxBatches * batch);
  const starts = Array.from({ length: wanted }, (_, j) => Math.floor((j * count) / wanted) * seq);
  const rng = trainingRng(options.seed, 'validation', 0);
  const batches: TokenBatch[] = [];
  let tokens = 0;
  let bytes = 0;
  for (let first = 0; first < starts.length; first += batch) {
    const real = starts.slice(first, first + batch);
    const padded = [...real, ...Array.from({ length: batch - real.length }, () => real[0] as number)];
    const rows = rowsAt(heldOut, padded, seq, paradigm);
    const live = (k: number): number => (Math.floor(k / seq) < real.length ? 1 : 0);
    let b: TokenBatch;
    if (paradigm === 'diffusion') {
      const m = masked(rows, shape, rng, options.maskTokenId, false);
      const weights = m.weights.map((w, k) => w * live(k));
      b = { ...m, weights, scored: weights.reduce((s, w) => s + w, 0) };
    } else {
      const weights = Float32Array.from({ length: batch * seq }, (_, k) => live(k));
      b = { ...rows, weights, scored: real.length * seq };
      for (const start of real)
        bytes += scoredBytes(options.tokenizer, heldOut.subarray(start + 1, start + seq + 1));
    }
    tokens += b.scored;
    batches.push(b);
  }
  return { batches, tokens, ...(paradigm === 'ar' ? { bytes } : {}) };
}

/** What a validation measures. */
export interface ValidationMetrics {
  /** Held-out loss, nats per scored token. */
  readonly loss: number;
  /** Held-out bits per byte (ar only). */
  readonly bitsPerByte?: number;
}

/**
 * Validation loss (nats per scored token) and, for ar, bits per byte, from the summed NLL of a set: the perplexity
 * task's `eval_loss` and `bits_per_byte` (`perplexityMetrics`).
 */
export function validationMetrics(set: ValidationSet, sumNll: number): ValidationMetrics {
  const metrics = perplexityMetrics({
    sumNll,
    tokens: set.tokens,
    ...(set.bytes === undefined ? {} : { bytes: set.bytes }),
  });
  const bitsPerByte = metrics['bits_per_byte'];
  return { loss: metrics['eval_loss'] as number, ...(bitsPerByte === undefined ? {} : { bitsPerByte }) };
}
