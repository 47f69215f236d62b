/**
 * `ReferenceModel`: a plain-TypeScript forward pass over a {@link WeightMap}, the correctness oracle the ONNX
 * graph and the paradigms are tested against. It follows the shared architecture conventions exactly (see
 * `weights.ts`), accumulates in float64 and is meant for tiny configs only (it runs at well under 1 GFLOP/s).
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import type { BatchShape, DecodeState, Logits, Model, ModelInfo, StepResult } from './model.js';
import type { ModelConfig } from './model-config.js';
import {
  activate,
  applyRotary,
  matmul,
  matmulTransposed,
  normRows,
  silu,
  sinusoidal,
  softmaxInPlace,
} from './reference/tensor-ops.js';
import { checkTokenBatch, claimDecodeState } from './token-checks.js';
import type { Tokenizer } from './tokenizer.js';
import { builtinTokenizer } from './tokenizers/builtin-tokenizer.js';
import { checkWeights, countParameters, initWeights, type WeightMap } from './weights.js';

/** Options of {@link ReferenceModel.create}. */
export interface ReferenceModelOptions {
  /** Seed of the random initialisation (ignored when `weights` is given). @default 0 */
  readonly seed?: number;
  /** Weights to use instead of a random initialisation; checked against the config. */
  readonly weights?: WeightMap;
  /** Name reported in {@link ModelInfo.name}. @default 'reference' */
  readonly name?: string;
}

/** Per-layer key/value rows of one sequence: `keys[layer][position]` is a `[kvHeads · headSize]` vector. */
interface SequenceCache {
  readonly keys: Float64Array[][];
  readonly values: Float64Array[][];
}

/** The reference model's KV cache. */
class ReferenceDecodeState implements DecodeState {
  consumed = false;
  disposed = false;

  constructor(
    readonly owner: ReferenceModel,
    readonly batch: number,
    readonly length: number,
    readonly caches: SequenceCache[],
  ) {}

  dispose(): void {
    this.disposed = true;
  }
}

/**
 * A transformer forward pass in plain TypeScript (float64 accumulation, float32 logits), implementing every
 * architecture option of {@link ModelConfig} and a real incremental KV cache.
 *
 * @example
 * ```ts
 * const model = ReferenceModel.create(ModelConfig.preset('tiny'), { seed: 0 });
 * const logits = await model.forward(Int32Array.from([1, 2, 3]), { batch: 1, seq: 3 });
 * ```
 */
export class ReferenceModel implements Model {
  /** The architecture of this model. */
  readonly config: ModelConfig;
  /** Identity: engine `reference (TypeScript)`, 1 thread, float32 weights. */
  readonly info: ModelInfo;
  /** Byte or GPT-2 tokenizer chosen from the vocabulary size, when one fits. */
  readonly tokenizer?: Tokenizer;
  readonly #weights: WeightMap;

  private constructor(config: ModelConfig, weights: WeightMap, name: string) {
    this.config = config;
    this.#weights = weights;
    this.info = { name, engine: 'reference (TypeScript)', threads: 1, dtype: 'fp32' };
    const tokenizer = builtinTokenizer(config);
    if (tokenizer !== undefined) this.tokenizer = tokenizer;
  }

  /**
   * Builds a reference model from `config` with seeded random weights or the given ones.
   *
   * @throws {@link dantinox!ValidationError} `INVALID_INPUT` when `weights` does not match the config.
   */
  static create(config: ModelConfig, options: ReferenceModelOptions = {}): ReferenceModel {
    const weights = options.weights ?? initWeights(config, options.seed ?? 0);
    checkWeights(config, weights);
    return new ReferenceModel(config, weights, options.name ?? 'reference');
  }

  /** The weights this model runs. */
  get weights(): WeightMap {
    return this.#weights;
  }

  /** Full forward pass: logits `[batch, seq, vocab]` for every position. */
  async forward(tokens: Int32Array, shape: BatchShape): Promise<Logits> {
    checkTokenBatch(this.config, tokens, shape, 0, 'forward');
    return this.#run(tokens, shape.batch, shape.seq, this.#emptyCaches(shape.batch), 0);
  }

  /** Forward pass over a prompt that also returns its KV cache. */
  async prefill(tokens: Int32Array, shape: BatchShape): Promise<StepResult> {
    checkTokenBatch(this.config, tokens, shape, 0, 'prefill');
    const caches = this.#emptyCaches(shape.batch);
    const logits = this.#run(tokens, shape.batch, shape.seq, caches, 0);
    return { logits, state: new ReferenceDecodeState(this, shape.batch, shape.seq, caches) };
  }

  /** One incremental step: one new token per sequence attends over the cache plus itself. Consumes `state`. */
  async decodeStep(tokens: Int32Array, state: DecodeState): Promise<StepResult> {
    const taken = claimDecodeState(this.config, tokens, state, ReferenceDecodeState, this);
    const logits = this.#run(tokens, taken.batch, 1, taken.caches, taken.length);
    return { logits, state: new ReferenceDecodeState(this, taken.batch, taken.length + 1, taken.caches) };
  }

  /** Resolves immediately: the reference model computes synchronously. */
  async barrier(): Promise<void> {}

  /** Number of parameters (tied matrices counted once). */
  numParameters(): number {
    return countParameters(this.config);
  }

  /** Nothing to free; present for the {@link Model} contract. */
  async dispose(): Promise<void> {}

  #emptyCaches(batch: number): SequenceCache[] {
    const layers = this.config.numBlocks;
    return Array.from({ length: batch }, () => ({
      keys: Array.from({ length: layers }, () => []),
      values: Array.from({ length: layers }, () => []),
    }));
  }

  #w(name: string): Float32Array {
    const t = this.#weights.get(name);
    if (t === undefined) throw new DantinoxError('INVALID_INPUT', messages.missingWeight([]));
    return t.data;
  }

  #wOpt(name: string): Float32Array | undefined {
    return this.#weights.get(name)?.data;
  }

  /** Runs `seq` new tokens per sequence at positions `past…past+seq−1`, appending to `caches`. */
  #run(tokens: Int32Array, batch: number, seq: number, caches: SequenceCache[], past: number): Logits {
    const { dim: d, vocabSize: v } = this.config;
    const out = new Float32Array(batch * seq * v);
    for (let b = 0; b < batch; b++) {
      const cache = caches[b] as SequenceCache;
      let x = this.#embed(tokens.subarray(b * seq, (b + 1) * seq), past);
      for (let layer = 0; layer < this.config.numBlocks; layer++) x = this.#block(layer, x, seq, cache, past);
      const h = this.#norm('norm_f', x, seq);
      const logits = this.config.weightTying
        ? matmulTransposed(h, seq, this.#w('embed.weight'), d, v)
        : matmul(h, seq, this.#w('lm_head.weight'), d, v);
      out.set(logits, b * seq * v);
    }
    return { data: out, dims: [batch, seq, v] };
  }

  #embed(ids: Int32Array, past: number): Float64Array {
    const d = this.config.dim;
    const table = this.#w('embed.weight');
    const x = new Float64Array(ids.length * d);
    for (let t = 0; t < ids.length; t++) {
      const id = ids[t] ?? 0;
      for (let j = 0; j < d; j++) x[t * d + j] = table[id * d + j] ?? 0;
      const p = past + t;
      if (this.config.posEncoding === 'learned') {
        const pos = this.#w('pos.weight');
        for (let j = 0; j < d; j++) x[t * d + j] = (x[t * d + j] ?? 0) + (pos[p * d + j] ?? 0);
      } else if (this.config.posEncoding === 'absolute') {
        const pe = sinusoidal(p, d);
        for (let j = 0; j < d; j++) x[t * d + j] = (x[t * d + j] ?? 0) + (pe[j] ?? 0);
      }
    }
    return x;
  }

  #norm(prefix: string, x: Float64Array, n: number): Float64Array {
    return normRows(
      this.config.norm,
      x,
      n,
      this.config.dim,
      this.#w(`${prefix}.weight`),
      this.#wOpt(`${prefix}.bias`),
    );
  }

  #block(layer: number, x: Float64Array, seq: number, cache: SequenceCache, past: number): Float64Array {
    const p = `blocks.${layer}`;
    const attn = this.#attention(layer, this.#norm(`${p}.norm1`, x, seq), seq, cache, past);
    const x1 = add(x, attn);
    const h = this.#norm(`${p}.norm2`, x1, seq);
    const ffn = this.config.ffn === 'moe' ? this.#moe(p, h, seq) : this.#mlp(`${p}.mlp`, h, seq);
    return add(x1, ffn);
  }

  #attention(layer: number, h: Float64Array, seq: number, cache: SequenceCache, past: number): Float64Array {
    const { dim: d, nHeads, kvHeads, headSize: hs, causal, slidingWindow, contextWindow } = this.config;
    const p = `blocks.${layer}.attn`;
    const q = matmul(h, seq, this.#w(`${p}.q.weight`), d, nHeads * hs);
    const k = matmul(h, seq, this.#w(`${p}.k.weight`), d, kvHeads * hs);
    const vv = matmul(h, seq, this.#w(`${p}.v.weight`), d, kvHeads * hs);
    const keys = cache.keys[layer] as Float64Array[];
    const values = cache.values[layer] as Float64Array[];
    for (let t = 0; t < seq; t++) {
      const kRow = k.slice(t * kvHeads * hs, (t + 1) * kvHeads * hs);
      if (this.config.posEncoding === 'rotary') applyRotary(kRow, kvHeads, hs, past + t);
      keys.push(kRow);
      values.push(vv.slice(t * kvHeads * hs, (t + 1) * kvHeads * hs));
    }
    const total = keys.length;
    const group = nHeads / kvHeads;
    const scale = 1 / Math.sqrt(hs);
    const out = new Float64Array(seq * nHeads * hs);
    for (let t = 0; t < seq; t++) {
      const qi = past + t;
      const qRow = q.subarray(t * nHeads * hs, (t + 1) * nHeads * hs);
      if (this.config.posEncoding === 'rotary') applyRotary(qRow, nHeads, hs, qi);
      const visible: number[] = [];
      for (let kj = 0; kj < total; kj++) {
        const delta = qi - kj;
        if (causal && delta < 0) continue;
        if (slidingWindow && Math.abs(delta) > contextWindow) continue;
        visible.push(kj);
      }
      for (let head = 0; head < nHeads; head++) {
        const g = Math.floor(head / group);
        const scores = new Float64Array(visible.length);
        visible.forEach((kj, i) => {
          const kr = keys[kj] as Float64Array;
          let s = 0;
          for (let j = 0; j < hs; j++) s += (qRow[head * hs + j] ?? 0) * (kr[g * hs + j] ?? 0);
          scores[i] = s * scale;
        });
        softmaxInPlace(scores);
        const o = (t * nHeads + head) * hs;
        visible.forEach((kj, i) => {
          const vr = values[kj] as Float64Array;
          const w = scores[i] ?? 0;
          for (let j = 0; j < hs; j++) out[o + j] = (out[o + j] ?? 0) + w * (vr[g * hs + j] ?? 0);
        });
      }
    }
    return matmul(out, seq, this.#w(`${p}.o.weight`), nHeads * hs, d);
  }

  #mlp(prefix: string, h: Float64Array, n: number): Float64Array {
    const d = this.config.dim;
    const f = this.config.expansion * d;
    const up = matmul(h, n, this.#w(`${prefix}.up.weight`), d, f);
    if (this.config.useSwiglu) {
      const gate = matmul(h, n, this.#w(`${prefix}.gate.weight`), d, f);
      for (let i = 0; i < up.length; i++) up[i] = silu(gate[i] ?? 0) * (up[i] ?? 0);
    } else {
      activate(this.config.activation, up);
    }
    return matmul(up, n, this.#w(`${prefix}.down.weight`), f, d);
  }

  #moe(prefix: string, h: Float64Array, n: number): Float64Array {
    const { dim: d, nExperts, topK } = this.config;
    const router = matmul(h, n, this.#w(`${prefix}.moe.router.weight`), d, nExperts);
    const out = new Float64Array(n * d);
    for (let t = 0; t < n; t++) {
      const probs = softmaxInPlace(router.slice(t * nExperts, (t + 1) * nExperts));
      // Top-k by probability; ties go to the lower expert index (a stable sort keeps index order).
      const chosen = [...probs.keys()].sort((a, b) => (probs[b] ?? 0) - (probs[a] ?? 0)).slice(0, topK);
      let total = 0;
      for (const e of chosen) total += probs[e] ?? 0;
      const row = h.slice(t * d, (t + 1) * d);
      for (const e of chosen) {
        const y = this.#mlp(`${prefix}.moe.experts.${e}`, row, 1);
        const w = (probs[e] ?? 0) / total;
        for (let j = 0; j < d; j++) out[t * d + j] = (out[t * d + j] ?? 0) + w * (y[j] ?? 0);
      }
    }
    return out;
  }
}

function add(a: Float64Array, b: Float64Array): Float64Array {
  const out = new Float64Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = (a[i] ?? 0) + (b[i] ?? 0);
  return out;
}
