/**
 * `TrainingSession`: the training graph of a config on an ONNX Runtime session (and, on first use, its evaluation
 * graph on a second one), fed the current weights at every call.
 *
 * @packageDocumentation
 */
import type { InferenceSession, Tensor } from 'onnxruntime-node';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import { createOrtSession, type OrtModule } from '../models/engines/ort/index.js';
import type { ModelConfig } from '../models/model-config.js';
import type { WeightMap } from '../models/weights.js';
import type { BatchShape, TokenBatch } from './training-data.js';
import { buildTrainingGraph, gradientName, TRAINING_IO, type TrainingGraph } from './training-graph.js';

/** Options of {@link TrainingSession.create}. */
export interface TrainingSessionOptions extends BatchShape {
  /** Intra-op threads of the sessions. @default every available core */
  readonly threads?: number;
}

/** What one training call returns. */
export interface StepOutput {
  /** The batch's loss (mean over its scored positions), nats. */
  readonly loss: number;
  /** The gradient of every weight, by canonical name (fresh arrays the caller owns). */
  readonly grads: ReadonlyMap<string, Float32Array>;
}

/** An ONNX Runtime graph and what it takes. */
interface OpenGraph {
  readonly session: InferenceSession;
  readonly graph: TrainingGraph;
}

/**
 * The training and evaluation graphs of one config and batch shape on ONNX Runtime. One session serves every
 * step: the weights are inputs, so each call feeds the current ones (ONNX Runtime reads the arrays in place).
 */
export class TrainingSession {
  /** The architecture. */
  readonly config: ModelConfig;
  /** The batch shape of every call. */
  readonly shape: BatchShape;
  /** Intra-op threads. */
  readonly threads: number;
  /** Engine label, e.g. `onnxruntime-node 1.30.0 (cpu)`. */
  readonly engine: string;
  readonly #ort: OrtModule;
  readonly #train: OpenGraph;
  #eval: OpenGraph | undefined;

  private constructor(
    config: ModelConfig,
    shape: BatchShape,
    ort: OrtModule,
    train: OpenGraph,
    engine: string,
    threads: number,
  ) {
    this.config = config;
    this.shape = shape;
    this.#ort = ort;
    this.#train = train;
    this.engine = engine;
    this.threads = threads;
  }

  /**
   * Builds the training graph of `config` at `options`' batch shape and opens it.
   *
   * @throws {@link dantinox!DantinoxError} `UNSUPPORTED` for a config the trainer cannot train; `INVALID_OPTION` for a bad
   * thread count or a sequence longer than `maxContext`; `DEPENDENCY_MISSING` without onnxruntime-node;
   * `RUNTIME_ERROR` when ONNX Runtime rejects the graph.
   */
  static async create(config: ModelConfig, options: TrainingSessionOptions): Promise<TrainingSession> {
    const shape = { batch: options.batch, seq: options.seq };
    const opened = await open(config, shape, 'train', options.threads);
    return new TrainingSession(config, shape, opened.ort, opened, opened.engine, opened.threads);
  }

  /** Names of the dropout keep-masks a training call takes (none when the config has no dropout). */
  get dropoutMasks(): readonly string[] {
    return this.#train.graph.dropoutMasks;
  }

  /**
   * Loss and gradients of `batch` under `weights`, with `masks` the dropout keep-masks (1 keeps; one `[B·T·D]`
   * array per {@link TrainingSession.dropoutMasks} entry).
   *
   * @throws {@link dantinox!DantinoxError} `RUNTIME_ERROR` when ONNX Runtime fails.
   */
  async step(weights: WeightMap, batch: TokenBatch, masks: readonly Uint8Array[] = []): Promise<StepOutput> {
    const { dim } = this.config;
    const feeds = this.#feeds(weights, batch);
    this.dropoutMasks.forEach((name, i) => {
      feeds[name] = new this.#ort.Tensor('uint8', masks[i] as Uint8Array, [
        this.shape.batch,
        this.shape.seq,
        dim,
      ]);
    });
    const out = await run(this.#train.session, feeds);
    const grads = new Map<string, Float32Array>();
    for (const name of this.#train.graph.weights) grads.set(name, floats(out, gradientName(name)));
    return { loss: floats(out, TRAINING_IO.loss)[0] as number, grads };
  }

  /**
   * The summed negative log-likelihood (nats) of `batch` under `weights`, weighted by its weights (1 on scored
   * positions, 0 on padding), without dropout.
   *
   * @throws {@link dantinox!DantinoxError} `RUNTIME_ERROR` when ONNX Runtime fails.
   */
  async evaluate(weights: WeightMap, batch: TokenBatch): Promise<number> {
    this.#eval ??= (await open(this.config, this.shape, 'eval', this.threads)) satisfies OpenGraph;
    const out = await run(this.#eval.session, this.#feeds(weights, batch));
    return floats(out, TRAINING_IO.loss)[0] as number;
  }

  /** Releases both sessions; idempotent. */
  async dispose(): Promise<void> {
    const sessions = [this.#train.session, this.#eval?.session];
    this.#eval = undefined;
    for (const s of sessions) await s?.release();
  }

  #feeds(weights: WeightMap, batch: TokenBatch): Record<string, Tensor> {
    const { Tensor } = this.#ort;
    const { batch: b, seq: t } = this.shape;
    const feeds: Record<string, Tensor> = {
      [TRAINING_IO.inputIds]: new Tensor('int32', batch.inputs, [b, t]),
      [TRAINING_IO.targets]: new Tensor('int64', batch.targets, [b * t, 1]),
      [TRAINING_IO.lossWeights]: new Tensor('float32', batch.weights, [b * t, 1]),
    };
    for (const [name, w] of weights) feeds[name] = new Tensor('float32', w.data, w.dims);
    return feeds;
  }
}

async function open(
  config: ModelConfig,
  shape: BatchShape,
  mode: 'train' | 'eval',
  threads: number | undefined,
): Promise<OpenGraph & { ort: OrtModule; engine: string; threads: number }> {
  const graph = buildTrainingGraph(config, { ...shape, mode });
  const opened = await createOrtSession(graph.model, {
    threads,
    externalData: graph.externalData,
    source: `the ${mode === 'train' ? 'training' : 'evaluation'} graph`,
  });
  return { session: opened.session, graph, ort: opened.ort, engine: opened.engine, threads: opened.threads };
}

async function run(
  session: InferenceSession,
  feeds: Record<string, Tensor>,
): Promise<InferenceSession.ReturnType> {
  try {
    return await session.run(feeds);
  } catch (cause) {
    throw new DantinoxError('RUNTIME_ERROR', messages.trainingEngineFailed(cause), { cause });
  }
}

/** The float32 data of output `name`. @throws `RUNTIME_ERROR` when the session did not return it. */
function floats(out: InferenceSession.ReturnType, name: string): Float32Array {
  const tensor = out[name];
  if (tensor === undefined)
    throw new DantinoxError('RUNTIME_ERROR', messages.trainingEngineFailed(`no output "${name}"`));
  return tensor.data as Float32Array;
}
