/**
 * Model weights: the named float32 tensors of a {@link ModelConfig}, their canonical names and shapes
 * ({@link weightSpecs}), seeded initialisation ({@link initWeights}) and validation ({@link checkWeights}).
 *
 * The names and layouts are shared by the ONNX graph builder, the TypeScript reference model, the safetensors
 * files and the parameter count: linear weights are `[in, out]` row-major (y = x @ W), no biases except the
 * LayerNorm ones.
 *
 * @packageDocumentation
 */
import { DantinoxError, ValidationError, type ValidationIssue } from '../errors.js';
import { messages } from '../messages.js';
import { Rng, xoshiro128 } from '../rng.js';
import type { ModelConfig } from './model-config.js';

/** One weight tensor: float32 values, row-major over `dims`. */
export interface WeightTensor {
  /** Shape, outermost first. */
  readonly dims: readonly number[];
  /** Row-major values; `data.length` is the product of `dims`. */
  readonly data: Float32Array;
}

/** A model's weights by canonical name (see {@link weightSpecs}). */
export type WeightMap = ReadonlyMap<string, WeightTensor>;

/**
 * How a tensor is initialised: `normal` is N(0, 0.02²); `scaled-normal` is N(0, (0.02/√(2·numBlocks))²), used by
 * the output projections that write into the residual stream (GPT-2's scheme); `ones` and `zeros` for norm
 * weights and biases.
 */
export type WeightInit = 'normal' | 'ones' | 'zeros' | 'scaled-normal';

/** Name, shape and initialisation of one weight tensor of a config. */
export interface WeightSpec {
  /** Canonical name, e.g. `blocks.0.attn.q.weight`. */
  readonly name: string;
  /** Shape, outermost first. */
  readonly dims: readonly number[];
  /** Initialisation scheme. */
  readonly init: WeightInit;
}

/** Standard deviation of `normal` initialisation. */
export const INIT_STD = 0.02;

/** Number of elements of a tensor of shape `dims`. */
export function numElements(dims: readonly number[]): number {
  let n = 1;
  for (const d of dims) n *= d;
  return n;
}

function normSpecs(prefix: string, config: ModelConfig): WeightSpec[] {
  const specs: WeightSpec[] = [{ name: `${prefix}.weight`, dims: [config.dim], init: 'ones' }];
  if (config.norm === 'layernorm') specs.push({ name: `${prefix}.bias`, dims: [config.dim], init: 'zeros' });
  return specs;
}

function mlpSpecs(prefix: string, config: ModelConfig): WeightSpec[] {
  const d = config.dim;
  const f = config.expansion * config.dim;
  const specs: WeightSpec[] = [];
  if (config.useSwiglu) specs.push({ name: `${prefix}.gate.weight`, dims: [d, f], init: 'normal' });
  specs.push({ name: `${prefix}.up.weight`, dims: [d, f], init: 'normal' });
  specs.push({ name: `${prefix}.down.weight`, dims: [f, d], init: 'scaled-normal' });
  return specs;
}

/**
 * The weight tensors of `config`, in canonical order: `embed.weight` `[V, D]`; `pos.weight` `[maxContext, D]`
 * (learned positions only); per block i: `blocks.{i}.norm1.weight` (+ `.bias` for LayerNorm),
 * `blocks.{i}.attn.{q,k,v,o}.weight`, `blocks.{i}.norm2.weight` (+ `.bias`), then either
 * `blocks.{i}.mlp.{gate,up,down}.weight` (gate only with SwiGLU) or `blocks.{i}.moe.router.weight` `[D, nExperts]`
 * and `blocks.{i}.moe.experts.{e}.{gate,up,down}.weight`; `norm_f.weight` (+ `.bias`); `lm_head.weight` `[D, V]`
 * when the head is not tied.
 */
export function weightSpecs(config: ModelConfig): WeightSpec[] {
  const { dim: d, vocabSize: v, nHeads, kvHeads, headSize: hs } = config;
  const specs: WeightSpec[] = [{ name: 'embed.weight', dims: [v, d], init: 'normal' }];
  if (config.posEncoding === 'learned') {
    specs.push({ name: 'pos.weight', dims: [config.maxContext, d], init: 'normal' });
  }
  for (let i = 0; i < config.numBlocks; i++) {
    const b = `blocks.${i}`;
    specs.push(...normSpecs(`${b}.norm1`, config));
    specs.push({ name: `${b}.attn.q.weight`, dims: [d, nHeads * hs], init: 'normal' });
    specs.push({ name: `${b}.attn.k.weight`, dims: [d, kvHeads * hs], init: 'normal' });
    specs.push({ name: `${b}.attn.v.weight`, dims: [d, kvHeads * hs], init: 'normal' });
    specs.push({ name: `${b}.attn.o.weight`, dims: [nHeads * hs, d], init: 'scaled-normal' });
    specs.push(...normSpecs(`${b}.norm2`, config));
    if (config.ffn === 'moe') {
      specs.push({ name: `${b}.moe.router.weight`, dims: [d, config.nExperts], init: 'normal' });
      for (let e = 0; e < config.nExperts; e++) specs.push(...mlpSpecs(`${b}.moe.experts.${e}`, config));
    } else {
      specs.push(...mlpSpecs(`${b}.mlp`, config));
    }
  }
  specs.push(...normSpecs('norm_f', config));
  if (!config.weightTying) specs.push({ name: 'lm_head.weight', dims: [d, v], init: 'normal' });
  return specs;
}

/** Number of parameters of `config` (tied matrices counted once): the sum of {@link weightSpecs} sizes. */
export function countParameters(config: ModelConfig): number {
  let n = 0;
  for (const s of weightSpecs(config)) n += numElements(s.dims);
  return n;
}

/** FNV-1a 64-bit hash of a string's UTF-16 code units (names are ASCII). */
function fnv1a64(text: string): bigint {
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i++) {
    h ^= BigInt(text.charCodeAt(i));
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h;
}

/**
 * Fills `out` with N(0, std²) samples from a {@link xoshiro128} stream seeded by `rng` (Marsaglia's polar method:
 * no trigonometry, about twice as fast as Box–Muller). The bigint {@link Rng} only seeds the stream: drawing
 * millions of weights through it would take tens of seconds.
 */
function fillNormalFast(out: Float32Array, std: number, rng: Rng): void {
  const bits = xoshiro128(rng);
  /** A uniform float in [−1, 1). */
  const next = (): number => bits() / 2147483648;
  for (let i = 0; i < out.length; i += 2) {
    let u: number;
    let v: number;
    let s: number;
    do {
      u = next();
      v = next();
      s = u * u + v * v;
    } while (s >= 1 || s === 0);
    const f = Math.sqrt((-2 * Math.log(s)) / s) * std;
    out[i] = u * f;
    if (i + 1 < out.length) out[i + 1] = v * f;
  }
}

/** The generator of tensor `name` under `seed`: depends only on both, so tensors never shift each other. */
function tensorRng(seed: number, name: string): Rng {
  return new Rng(BigInt.asUintN(64, BigInt(seed)) ^ fnv1a64(name));
}

/**
 * Freshly initialised weights for `config`, deterministic in `seed`: the same seed gives bit-identical tensors in
 * every process. Each tensor draws from its own generator derived from `(seed, name)`, so changing one tensor's
 * shape (or adding a tensor) leaves the values of every other tensor unchanged. Normal weights have standard
 * deviation {@link INIT_STD}; output projections (`attn.o`, `down`) 0.02/√(2·numBlocks); norm weights 1,
 * biases 0.
 *
 * @param seed - integer seed. @default 0
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` when `seed` is not a safe integer.
 */
export function initWeights(config: ModelConfig, seed = 0): WeightMap {
  return new Map(seededWeights(config, seed));
}

/**
 * The weights of {@link initWeights} generated on demand: each `get` (and each step of an iteration) computes one
 * tensor afresh, bit-identical to `initWeights(config, seed)`'s, and keeps no reference to it. Memory is one
 * tensor at a time as long as the caller drops each before asking for the next (e.g. while streaming them into a
 * file); a tensor asked for twice is computed twice.
 *
 * @param seed - integer seed. @default 0
 * @throws {@link dantinox!DantinoxError} `INVALID_OPTION` when `seed` is not a safe integer.
 */
export function seededWeights(config: ModelConfig, seed = 0): WeightMap {
  if (!Number.isSafeInteger(seed)) {
    throw new DantinoxError('INVALID_OPTION', messages.invalidSeed(seed));
  }
  return new SeededWeights(config, seed);
}

/** Values of one tensor of `spec` under `seed` (`scaledStd` for `scaled-normal`). */
function initTensor(spec: WeightSpec, seed: number, scaledStd: number): WeightTensor {
  const data = new Float32Array(numElements(spec.dims));
  if (spec.init === 'ones') data.fill(1);
  else if (spec.init === 'normal') fillNormalFast(data, INIT_STD, tensorRng(seed, spec.name));
  else if (spec.init === 'scaled-normal') fillNormalFast(data, scaledStd, tensorRng(seed, spec.name));
  return { dims: [...spec.dims], data };
}

/** The lazy map of {@link seededWeights}: holds the specs only. */
class SeededWeights implements ReadonlyMap<string, WeightTensor> {
  readonly #specs: ReadonlyMap<string, WeightSpec>;
  readonly #seed: number;
  readonly #scaledStd: number;

  constructor(config: ModelConfig, seed: number) {
    this.#specs = new Map(weightSpecs(config).map((s) => [s.name, s]));
    this.#seed = seed;
    this.#scaledStd = INIT_STD / Math.sqrt(2 * config.numBlocks);
  }

  get size(): number {
    return this.#specs.size;
  }

  get(name: string): WeightTensor | undefined {
    const spec = this.#specs.get(name);
    return spec === undefined ? undefined : initTensor(spec, this.#seed, this.#scaledStd);
  }

  has(name: string): boolean {
    return this.#specs.has(name);
  }

  forEach(
    callback: (value: WeightTensor, key: string, map: ReadonlyMap<string, WeightTensor>) => void,
    thisArg?: unknown,
  ): void {
    for (const [name, tensor] of this) callback.call(thisArg, tensor, name, this);
  }

  *entries(): MapIterator<[string, WeightTensor]> {
    for (const spec of this.#specs.values()) yield [spec.name, initTensor(spec, this.#seed, this.#scaledStd)];
  }

  keys(): MapIterator<string> {
    return this.#specs.keys();
  }

  *values(): MapIterator<WeightTensor> {
    for (const [, tensor] of this) yield tensor;
  }

  [Symbol.iterator](): MapIterator<[string, WeightTensor]> {
    return this.entries();
  }
}

/**
 * Checks that `weights` holds exactly the tensors of `config` with the right shapes and data lengths.
 *
 * @throws {@link dantinox!ValidationError} with code `INVALID_INPUT` listing every missing, extra or mis-shaped tensor.
 */
export function checkWeights(config: ModelConfig, weights: WeightMap): void {
  const issues: ValidationIssue[] = [];
  const expected = new Set<string>();
  for (const spec of weightSpecs(config)) {
    expected.add(spec.name);
    const t = weights.get(spec.name);
    if (t === undefined) {
      issues.push({ path: spec.name, message: messages.missingWeight(spec.dims) });
    } else if (t.dims.length !== spec.dims.length || t.dims.some((d, i) => d !== spec.dims[i])) {
      issues.push({ path: spec.name, message: messages.weightShape(t.dims, spec.dims) });
    } else if (t.data.length !== numElements(spec.dims)) {
      issues.push({ path: spec.name, message: messages.weightLength(t.data.length, spec.dims) });
    }
  }
  for (const name of weights.keys()) {
    if (!expected.has(name)) issues.push({ path: name, message: messages.extraWeight() });
  }
  if (issues.length > 0) {
    throw new ValidationError('INVALID_INPUT', messages.invalidWeights(issues.length), issues);
  }
}
