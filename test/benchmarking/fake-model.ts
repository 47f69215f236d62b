/**
 * A deterministic fake {@link Model} for benchmarking tests: its logits come from a fixed bigram table (row
 * `prev` holds log P(next | prev)), and every call advances a manual clock by a known cost, so timings,
 * throughputs and losses have exact expected values.
 */

import { silentLogger } from '../../src/benchmarking/logger.js';
import type { BenchmarkContext, CellRecord } from '../../src/benchmarking/task.js';
import type {
  BatchShape,
  DecodeState,
  Logits,
  Model,
  ModelInfo,
  StepResult,
} from '../../src/models/model.js';
import { ModelConfig, type ModelConfigInput } from '../../src/models/model-config.js';
import type { Tokenizer } from '../../src/models/tokenizer.js';
import { createManualClock, type ManualClock } from '../../src/profiling/index.js';

/** Cost model of the fake engine: a call over `tokens` tokens takes `fixedNs + perTokenNs · tokens`. */
export interface FakeCost {
  readonly fixedNs: number;
  readonly perTokenNs: number;
}

export interface FakeModelOptions {
  /** Model config overrides (vocabSize, maxContext, paradigm…). */
  readonly config?: ModelConfigInput;
  /** Bigram table `[vocab][vocab]` of probabilities; default uniform. */
  readonly bigram?: readonly (readonly number[])[];
  readonly tokenizer?: Tokenizer;
  readonly clock?: ManualClock;
  readonly cost?: FakeCost;
  /** Throw from forward when batch·seq exceeds this (simulates out-of-memory). */
  readonly maxTokensPerCall?: number;
  /** {@link ModelInfo} fields over the defaults (name `fake`, dtype `fp32`…). */
  readonly info?: Partial<ModelInfo>;
  /**
   * Each forward pass first fills the logits every earlier one returned with NaN, as an engine that reuses one
   * output buffer overwrites them: a caller still holding a batch's logits after the next forward scores NaN.
   */
  readonly reuseLogits?: boolean;
}

/** One call of a {@link FakeModel}. */
export interface FakeCall {
  readonly kind: 'forward' | 'prefill' | 'decode';
  readonly batch: number;
  readonly seq: number;
  /** Tokens already in the KV cache (decode steps; 0 for forward and prefill). */
  readonly context: number;
  /** The token ids passed in. */
  readonly tokens: Int32Array;
}

class FakeState implements DecodeState {
  constructor(
    readonly batch: number,
    readonly length: number,
  ) {}
  dispose(): void {}
}

/** A fake model: bigram logits, manual-clock costs, optional simulated OOM. */
export class FakeModel implements Model {
  readonly config: ModelConfig;
  readonly info: ModelInfo;
  readonly tokenizer?: Tokenizer;
  readonly clock: ManualClock;
  /** Every model call in order: its kind, shape, cache length before the call and a copy of its token ids. */
  readonly calls: FakeCall[] = [];
  readonly #logTable: Float32Array;
  readonly #cost: FakeCost;
  readonly #maxTokens: number;
  readonly #reuseLogits: boolean;
  /** The logits of the forward passes so far, when `reuseLogits` is set (each is NaN once the next one ran). */
  readonly #returned: Float32Array[] = [];

  constructor(options: FakeModelOptions = {}) {
    this.config = ModelConfig.parse({
      dim: 8,
      nHeads: 2,
      numBlocks: 2,
      vocabSize: 4,
      maxContext: 64,
      ...options.config,
    });
    this.info = { name: 'fake', engine: 'fake-engine 1.0', threads: 1, dtype: 'fp32', ...options.info };
    if (options.tokenizer) this.tokenizer = options.tokenizer;
    this.clock = options.clock ?? createManualClock();
    this.#cost = options.cost ?? { fixedNs: 1_000_000, perTokenNs: 10_000 };
    this.#maxTokens = options.maxTokensPerCall ?? Number.POSITIVE_INFINITY;
    this.#reuseLogits = options.reuseLogits ?? false;
    const v = this.config.vocabSize;
    this.#logTable = new Float32Array(v * v);
    for (let a = 0; a < v; a++) {
      for (let b = 0; b < v; b++) {
        const p = options.bigram?.[a]?.[b] ?? 1 / v;
        this.#logTable[a * v + b] = options.bigram ? Math.log(p) : 0;
      }
    }
  }

  #spend(kind: FakeCall['kind'], tokens: Int32Array, batch: number, seq: number, context = 0): void {
    this.calls.push({ kind, batch, seq, context, tokens: Int32Array.from(tokens) });
    if (batch * seq > this.#maxTokens) throw new Error(`out of memory: ${batch}x${seq} tokens`);
    this.clock.advance(this.#cost.fixedNs + this.#cost.perTokenNs * batch * seq);
  }

  #logits(tokens: Int32Array, batch: number, seq: number): Logits {
    const v = this.config.vocabSize;
    const data = new Float32Array(batch * seq * v);
    for (let i = 0; i < batch * seq; i++)
      data.set(this.#logTable.subarray((tokens[i] ?? 0) * v, ((tokens[i] ?? 0) + 1) * v), i * v);
    return { data, dims: [batch, seq, v] };
  }

  async forward(tokens: Int32Array, shape: BatchShape): Promise<Logits> {
    if (shape.seq > this.config.maxContext) throw new Error(`seq ${shape.seq} > maxContext`);
    this.#spend('forward', tokens, shape.batch, shape.seq);
    const logits = this.#logits(tokens, shape.batch, shape.seq);
    if (this.#reuseLogits) {
      for (const earlier of this.#returned) earlier.fill(Number.NaN);
      this.#returned.push(logits.data);
    }
    return logits;
  }

  async prefill(tokens: Int32Array, shape: BatchShape): Promise<StepResult> {
    this.#spend('prefill', tokens, shape.batch, shape.seq);
    return {
      logits: this.#logits(tokens, shape.batch, shape.seq),
      state: new FakeState(shape.batch, shape.seq),
    };
  }

  async decodeStep(tokens: Int32Array, state: DecodeState): Promise<StepResult> {
    if (state.length + 1 > this.config.maxContext) throw new Error('cache full');
    this.#spend('decode', tokens, state.batch, 1, state.length);
    return {
      logits: this.#logits(tokens, state.batch, 1),
      state: new FakeState(state.batch, state.length + 1),
    };
  }

  async barrier(): Promise<void> {}

  numParameters(): number {
    return 1234;
  }

  async dispose(): Promise<void> {}
}

/** A character tokenizer over a fixed alphabet (id = index in `alphabet`). */
export function charTokenizer(alphabet: string): Tokenizer {
  return {
    name: `chars(${alphabet})`,
    vocabSize: alphabet.length,
    encode: (text) => Array.from(text, (c) => alphabet.indexOf(c)).filter((i) => i >= 0),
    decode: (ids) => ids.map((i) => alphabet[i] ?? '').join(''),
  };
}

/** A task context driven by `model`'s manual clock that collects the recorded cells into `cells`. */
export function contextFor(model: FakeModel, cells: CellRecord[] = []): BenchmarkContext {
  return {
    logger: silentLogger,
    clock: model.clock,
    plan: () => {},
    recordCell: async (c) => void cells.push(c),
  };
}
