/**
 * Scoring of logit rows in ONNX Runtime instead of JavaScript: two small graphs, run on the logits a model
 * returned (the arrays are handed to the session without a copy), reduce every `[rows, vocab]` block to a few
 * numbers per row in native, multi-threaded code:
 *
 * - **nll**: `logsumexp(logits) − logits[target]` (max-subtracted, so huge logits stay finite) and the row's
 *   arg-max;
 * - **kl**: for reference logits P and model logits Q, `lp = LogSoftmax(P)`, `lq = LogSoftmax(Q)`,
 *   `KL(P ‖ Q) = Σ exp(lp) · (lp − lq)` (nats; exactly 0 when P and Q are equal), both rows' NLL of the target
 *   and both arg-maxes (the first index on ties, as `ArgMax` with `select_last_index = 0`).
 *
 * A block is scored {@link SCORER_BLOCK_ELEMENTS} logits at a time (whole rows; each row's result does not depend
 * on the rows beside it), so the graphs' float64 `[rows, vocab]` intermediates — several times the logits' own
 * size — take tens of MB whatever the batch, instead of gigabytes for a batch of 4 × 256 rows of 50,257 logits.
 *
 * The exponentials run in float32 (vectorized; the slow part in double precision) and every sum, logarithm and
 * difference in float64, so the results are within about 1e-7 nats of the all-float64 JavaScript reference
 * (`logSumExp`) — tested — at a fraction of its cost (`npm run bench:quant`, "scoring").
 *
 * @packageDocumentation
 */

import type { InferenceSession, Tensor } from 'onnxruntime-node';
import { TENSOR_TYPES } from '../../dtype.js';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { createOrtSession, type OrtModule, ortEngineLabel } from '../engines/ort/index.js';
import { GraphBuilder } from './graph-builder.js';

/**
 * Logits per ONNX Runtime call of the scorer, in values (2^21: 41 rows of GPT-2's 50,257-word vocabulary): each
 * float64 `[rows, vocab]` intermediate of the graphs is then at most 16 MiB.
 */
export const SCORER_BLOCK_ELEMENTS = 2 ** 21;

/** Per-row negative log-likelihood and arg-max of one logits block. */
export interface NllRows {
  /** NLL of each row's target, in nats. */
  readonly nll: Float64Array;
  /** Index of each row's largest logit. */
  readonly argmax: BigInt64Array;
}

/** Per-row comparison of a model's logits with a reference's. */
export interface KlRows {
  /** KL(reference ‖ model) of each row, in nats (≥ 0; rounding below 0 is clamped). */
  readonly kl: Float64Array;
  /** NLL of each row's target under the reference, in nats. */
  readonly referenceNll: Float64Array;
  /** NLL of each row's target under the model, in nats. */
  readonly modelNll: Float64Array;
  /** Arg-max of each reference row. */
  readonly referenceArgmax: BigInt64Array;
  /** Arg-max of each model row. */
  readonly modelArgmax: BigInt64Array;
}

/** `x` as float64. */
function toDouble(g: GraphBuilder, x: string): string {
  return g.op('Cast', [x], { to: { int: TENSOR_TYPES.float64.onnx } });
}

/** A row-wise log-sum-exp of float32 logits, with the exponentials it was summed from. */
interface RowLse {
  /** `log Σ exp(x)` per row, float64, `[rows, 1]`. */
  readonly lse: string;
  /** `exp(x − max)` per entry as float64, `[rows, vocab]`. */
  readonly exps: string;
  /** `Σ exp(x − max)` per row, float64, `[rows, 1]`. */
  readonly sum: string;
}

/**
 * Adds the log-sum-exp of each row of `logits` (float32): the exponentials `exp(x − max)` are taken in float32
 * (each within 1e-7 relative; the max is exact), summed and logged in float64. Only the exponentials run in single
 * precision — the slow part in double — so NLL and KL carry errors of about 1e-7 nats, far below what float32
 * logits themselves resolve.
 */
function addRowLse(g: GraphBuilder, logits: string): RowLse {
  const max = g.op('ReduceMax', [logits, g.int64([-1])], { keepdims: { int: 1 } });
  const exps = toDouble(g, g.op('Exp', [g.op('Sub', [logits, max])]));
  const sum = g.op('ReduceSum', [exps, g.int64([-1])], { keepdims: { int: 1 } });
  const lse = g.op('Add', [toDouble(g, max), g.op('Log', [sum])]);
  return { lse, exps, sum };
}

/** Adds `lse − logits[target]` per row (float64, `[rows]`) under the name `output`. */
function addNll(g: GraphBuilder, lse: string, logits64: string, targets: string, output: string): void {
  const index = g.op('Unsqueeze', [targets, g.int64([1])]);
  const picked = g.op('GatherElements', [logits64, index], { axis: { int: 1 } });
  g.op('Squeeze', [g.op('Sub', [lse, picked]), g.int64([1])], {}, { output });
}

function nllGraph(): Uint8Array {
  const g = new GraphBuilder();
  const logits = g.input('logits', 'float32', ['rows', 'vocab']);
  const targets = g.input('targets', 'int64', ['rows']);
  const { lse } = addRowLse(g, logits);
  // Only the target's logit is needed in float64: gather it first, then cast the one value per row.
  const index = g.op('Unsqueeze', [targets, g.int64([1])]);
  const picked = toDouble(g, g.op('GatherElements', [logits, index], { axis: { int: 1 } }));
  g.op('Squeeze', [g.op('Sub', [lse, picked]), g.int64([1])], {}, { output: 'nll' });
  g.op('ArgMax', [logits], { axis: { int: -1 }, keepdims: { int: 0 } }, { output: 'argmax' });
  g.output('nll', 'float64');
  g.output('argmax', 'int64');
  return g.encode();
}

function klGraph(): Uint8Array {
  const g = new GraphBuilder();
  const p32 = g.input('reference', 'float32', ['rows', 'vocab']);
  const q32 = g.input('model', 'float32', ['rows', 'vocab']);
  const targets = g.input('targets', 'int64', ['rows']);
  const p = addRowLse(g, p32);
  const q = addRowLse(g, q32);
  const [p64, q64] = [toDouble(g, p32), toDouble(g, q32)];
  // KL(P ‖ Q) = Σ P · (log P − log Q) with log P − log Q = (p − q) − (lse_p − lse_q), P = exp(p − max_p) / Σ.
  const probs = g.op('Div', [p.exps, p.sum]);
  const logRatio = g.op('Sub', [g.op('Sub', [p64, q64]), g.op('Sub', [p.lse, q.lse])]);
  const kl = g.op('ReduceSum', [g.op('Mul', [probs, logRatio]), g.int64([-1])], { keepdims: { int: 0 } });
  g.op('Max', [kl, g.double([0])], {}, { output: 'kl' });
  addNll(g, p.lse, p64, targets, 'reference_nll');
  addNll(g, q.lse, q64, targets, 'model_nll');
  const argmax = { axis: { int: -1 }, keepdims: { int: 0 } };
  g.op('ArgMax', [p32], argmax, { output: 'reference_argmax' });
  g.op('ArgMax', [q32], argmax, { output: 'model_argmax' });
  for (const name of ['kl', 'reference_nll', 'model_nll']) g.output(name, 'float64');
  for (const name of ['reference_argmax', 'model_argmax']) g.output(name, 'int64');
  return g.encode();
}

/**
 * Scores logit blocks with ONNX Runtime (see the module description). Get the shared instance with
 * {@link logitScorer}.
 */
export class LogitScorer {
  readonly #ort: OrtModule;
  readonly #nll: InferenceSession;
  readonly #kl: InferenceSession;
  readonly #engine: string;

  /** Use {@link logitScorer}. */
  constructor(ort: OrtModule, nll: InferenceSession, kl: InferenceSession) {
    this.#ort = ort;
    this.#nll = nll;
    this.#kl = kl;
    this.#engine = `${ortEngineLabel(ort, 'cpu')}, logit scorer`;
  }

  /**
   * NLL of `targets[r]` and arg-max of each row `r` of `logits` (`rows × vocab` values, row-major).
   *
   * @throws {@link dantinox!DantinoxError} `RUNTIME_ERROR` if ONNX Runtime fails.
   */
  async nll(logits: Float32Array, vocab: number, targets: BigInt64Array): Promise<NllRows> {
    const rows = targets.length;
    const nll = new Float64Array(rows);
    const argmax = new BigInt64Array(rows);
    for (const [from, to] of rowBlocks(rows, vocab)) {
      const out = await run(this.#engine, this.#nll, {
        logits: this.#block(logits, vocab, from, to),
        targets: this.#targets(targets, from, to),
      });
      nll.set(out['nll'] as Float64Array, from);
      argmax.set(out['argmax'] as BigInt64Array, from);
    }
    return { nll, argmax };
  }

  /**
   * KL(reference ‖ model), both NLLs of `targets[r]` and both arg-maxes of each row `r` (`rows × vocab` values
   * each, row-major).
   *
   * @throws {@link dantinox!DantinoxError} `RUNTIME_ERROR` if ONNX Runtime fails.
   */
  async kl(
    reference: Float32Array,
    model: Float32Array,
    vocab: number,
    targets: BigInt64Array,
  ): Promise<KlRows> {
    const rows = targets.length;
    const result: KlRows = {
      kl: new Float64Array(rows),
      referenceNll: new Float64Array(rows),
      modelNll: new Float64Array(rows),
      referenceArgmax: new BigInt64Array(rows),
      modelArgmax: new BigInt64Array(rows),
    };
    for (const [from, to] of rowBlocks(rows, vocab)) {
      const out = await run(this.#engine, this.#kl, {
        reference: this.#block(reference, vocab, from, to),
        model: this.#block(model, vocab, from, to),
        targets: this.#targets(targets, from, to),
      });
      result.kl.set(out['kl'] as Float64Array, from);
      result.referenceNll.set(out['reference_nll'] as Float64Array, from);
      result.modelNll.set(out['model_nll'] as Float64Array, from);
      result.referenceArgmax.set(out['reference_argmax'] as BigInt64Array, from);
      result.modelArgmax.set(out['model_argmax'] as BigInt64Array, from);
    }
    return result;
  }

  /** Rows `[from, to)` of row-major `[rows, vocab]` logits as a tensor viewing `data` (no copy). */
  #block(data: Float32Array, vocab: number, from: number, to: number): Tensor {
    return new this.#ort.Tensor('float32', data.subarray(from * vocab, to * vocab), [to - from, vocab]);
  }

  /** Targets `[from, to)` as a tensor viewing `targets` (no copy). */
  #targets(targets: BigInt64Array, from: number, to: number): Tensor {
    return new this.#ort.Tensor('int64', targets.subarray(from, to), [to - from]);
  }
}

/**
 * `[from, to)` row ranges covering `rows` rows of `vocab` logits, each at most {@link SCORER_BLOCK_ELEMENTS} values
 * (at least one row).
 */
export function* rowBlocks(rows: number, vocab: number): Generator<readonly [number, number]> {
  const step = Math.max(1, Math.floor(SCORER_BLOCK_ELEMENTS / vocab));
  for (let from = 0; from < rows; from += step) yield [from, Math.min(rows, from + step)];
}

async function run(
  engine: string,
  session: InferenceSession,
  feeds: InferenceSession.FeedsType,
): Promise<Record<string, unknown>> {
  try {
    const results = await session.run(feeds);
    return Object.fromEntries(Object.entries(results).map(([k, v]) => [k, v.data]));
  } catch (cause) {
    throw new DantinoxError('RUNTIME_ERROR', messages.engineFailed(engine, cause), { cause });
  }
}

let shared: Promise<LogitScorer> | undefined;

/**
 * The process-wide {@link LogitScorer} (its two sessions are created on first use, with every core).
 *
 * @throws {@link dantinox!DantinoxError} `DEPENDENCY_MISSING` without `onnxruntime-node`; `RUNTIME_ERROR` if a session
 * cannot be created.
 */
export function logitScorer(): Promise<LogitScorer> {
  shared ??= (async () => {
    const [nll, kl] = await Promise.all([
      createOrtSession(nllGraph(), { source: 'the logit scorer (NLL graph)' }),
      createOrtSession(klGraph(), { source: 'the logit scorer (KL graph)' }),
    ]);
    return new LogitScorer(nll.ort, nll.session, kl.session);
  })().catch((error: unknown) => {
    shared = undefined;
    throw error;
  });
  return shared;
}
