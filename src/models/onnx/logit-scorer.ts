/**
 * Scoring of logit rows in ONNX Runtime instead of JavaScript: two small graphs, run on the logits a model
 * returned (the arrays are handed to the session without a copy), reduce every `[rows, vocab]` block to a few
 * numbers per row in native, multi-threaded code:
 *
 * - **nll**: `ReduceLogSumExp(logits) − logits[target]` (max-subtracted, so huge logits stay finite) and the
 *   row's arg-max;
 * - **kl**: for reference logits P and model logits Q, `lp = LogSoftmax(P)`, `lq = LogSoftmax(Q)`,
 *   `KL(P ‖ Q) = Σ exp(lp) · (lp − lq)` (nats; exactly 0 when P and Q are equal), both rows' NLL of the target
 *   and both arg-maxes (the first index on ties, as `ArgMax` with `select_last_index = 0`).
 *
 * The logits are cast to float64 inside the graph and every reduction runs in float64, as the JavaScript
 * reference (`logSumExp`) does.
 *
 * @packageDocumentation
 */

import type { InferenceSession } from 'onnxruntime-node';
import { TENSOR_TYPES } from '../../dtype.js';
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { createOrtSession, type OrtModule, ortEngineLabel } from '../engines/ort/index.js';
import { GraphBuilder } from './graph-builder.js';

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

/** `x` as float64 (the reductions run in double precision). */
function toDouble(g: GraphBuilder, x: string): string {
  return g.op('Cast', [x], { to: { int: TENSOR_TYPES.float64.onnx } });
}

function nllGraph(): Uint8Array {
  const g = new GraphBuilder();
  const logits = g.input('logits', 'float32', ['rows', 'vocab']);
  const targets = g.input('targets', 'int64', ['rows']);
  addNll(g, toDouble(g, logits), targets, 'nll');
  g.op('ArgMax', [logits], { axis: { int: -1 }, keepdims: { int: 0 } }, { output: 'argmax' });
  g.output('nll', 'float64');
  g.output('argmax', 'int64');
  return g.encode();
}

/** Adds `logsumexp(row) − row[target]` per row under the name `output`. */
function addNll(g: GraphBuilder, logits: string, targets: string, output: string): void {
  const lse = g.op('ReduceLogSumExp', [logits, g.int64([-1])], { keepdims: { int: 0 } });
  const index = g.op('Unsqueeze', [targets, g.int64([1])]);
  const picked = g.op('GatherElements', [logits, index], { axis: { int: 1 } });
  const target = g.op('Squeeze', [picked, g.int64([1])]);
  g.op('Sub', [lse, target], {}, { output });
}

function klGraph(): Uint8Array {
  const g = new GraphBuilder();
  const p32 = g.input('reference', 'float32', ['rows', 'vocab']);
  const q32 = g.input('model', 'float32', ['rows', 'vocab']);
  const [p, q] = [toDouble(g, p32), toDouble(g, q32)];
  const targets = g.input('targets', 'int64', ['rows']);
  const lp = g.op('LogSoftmax', [p], { axis: { int: -1 } });
  const lq = g.op('LogSoftmax', [q], { axis: { int: -1 } });
  const terms = g.op('Mul', [g.op('Exp', [lp]), g.op('Sub', [lp, lq])]);
  const kl = g.op('ReduceSum', [terms, g.int64([-1])], { keepdims: { int: 0 } });
  g.op('Max', [kl, g.double([0])], {}, { output: 'kl' });
  addNll(g, p, targets, 'reference_nll');
  addNll(g, q, targets, 'model_nll');
  const argmax = { axis: { int: -1 }, keepdims: { int: 0 } };
  g.op('ArgMax', [p], argmax, { output: 'reference_argmax' });
  g.op('ArgMax', [q], argmax, { output: 'model_argmax' });
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
   * @throws {@link DantinoxError} `RUNTIME_ERROR` if ONNX Runtime fails.
   */
  async nll(logits: Float32Array, vocab: number, targets: BigInt64Array): Promise<NllRows> {
    const { Tensor } = this.#ort;
    const rows = targets.length;
    const out = await run(this.#engine, this.#nll, {
      logits: new Tensor('float32', logits.subarray(0, rows * vocab), [rows, vocab]),
      targets: new Tensor('int64', targets, [rows]),
    });
    return { nll: out['nll'] as Float64Array, argmax: out['argmax'] as BigInt64Array };
  }

  /**
   * KL(reference ‖ model), both NLLs of `targets[r]` and both arg-maxes of each row `r` (`rows × vocab` values
   * each, row-major).
   *
   * @throws {@link DantinoxError} `RUNTIME_ERROR` if ONNX Runtime fails.
   */
  async kl(
    reference: Float32Array,
    model: Float32Array,
    vocab: number,
    targets: BigInt64Array,
  ): Promise<KlRows> {
    const { Tensor } = this.#ort;
    const rows = targets.length;
    const block = (data: Float32Array) =>
      new Tensor('float32', data.subarray(0, rows * vocab), [rows, vocab]);
    const out = await run(this.#engine, this.#kl, {
      reference: block(reference),
      model: block(model),
      targets: new Tensor('int64', targets, [rows]),
    });
    return {
      kl: out['kl'] as Float64Array,
      referenceNll: out['reference_nll'] as Float64Array,
      modelNll: out['model_nll'] as Float64Array,
      referenceArgmax: out['reference_argmax'] as BigInt64Array,
      modelArgmax: out['model_argmax'] as BigInt64Array,
    };
  }
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
 * @throws {@link DantinoxError} `DEPENDENCY_MISSING` without `onnxruntime-node`; `RUNTIME_ERROR` if a session
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
