/**
 * `ModelConfig`: the validated description of a transformer that every layer reads. Pure data: this file imports
 * no runtime, so the profiling layer (FLOPs, bytes) can use it without loading ONNX Runtime.
 *
 * @packageDocumentation
 */
import { extname } from 'node:path';
import { z } from 'zod';
import { DantinoxError, ValidationError, type ValidationIssue } from '../errors.js';
import { excerpt, messages } from '../messages.js';
import { readTextFile } from '../text-file.js';
import { parseYamlText } from '../yaml-text.js';
import { PRESETS, type PresetName } from './presets.js';
import { flattenSections, normaliseSeedKeys } from './seed-config-keys.js';
import { isTrainedPreset, TRAINED_PRESETS, trainedPresetConfigFile } from './trained-presets.js';

/** Attention kind: multi-head (`mha`) or grouped-query (`gqa`, `kvHeads` < `nHeads`). */
export type AttentionKind = 'mha' | 'gqa';
/** Feed-forward kind: a dense MLP or a top-k routed mixture of experts. */
export type FfnKind = 'mlp' | 'moe';
/** Activation of the MLP when SwiGLU is off. */
export type Activation = 'gelu' | 'silu' | 'relu';
/** Normalisation layer. */
export type NormKind = 'rmsnorm' | 'layernorm';
/** Position encoding: rotary, learned table, sinusoidal (`absolute`) or none. */
export type PosEncoding = 'rotary' | 'learned' | 'absolute' | 'none';
/** Generation paradigm: autoregressive (causal) or masked diffusion (bidirectional). */
export type ParadigmKind = 'ar' | 'diffusion';

/** A resolved, validated model configuration. Every field is present; derived fields are already computed. */
export interface ModelConfig {
  /** Hidden size D. */
  readonly dim: number;
  /** Number of query heads H. */
  readonly nHeads: number;
  /** Per-head size; always `dim / nHeads`. */
  readonly headSize: number;
  /** Number of transformer blocks L. */
  readonly numBlocks: number;
  /** Vocabulary size V. */
  readonly vocabSize: number;
  /** Longest sequence the model accepts, in tokens (positions table and KV cache size). */
  readonly maxContext: number;
  /** `mha` when `kvHeads === nHeads`, else `gqa`. */
  readonly attention: AttentionKind;
  /** Number of key/value heads; divides `nHeads`. */
  readonly kvHeads: number;
  /** Feed-forward kind. */
  readonly ffn: FfnKind;
  /** Number of experts (MoE only; 1 for a dense MLP). */
  readonly nExperts: number;
  /** Experts used per token (MoE only; 1 for a dense MLP). */
  readonly topK: number;
  /** FFN hidden width multiplier E: the hidden width is `expansion · dim`. */
  readonly expansion: number;
  /** SwiGLU MLP (three matrices: gate, up, down) instead of activation(up)·down. */
  readonly useSwiglu: boolean;
  /** Activation of the non-SwiGLU MLP. */
  readonly activation: Activation;
  /** Normalisation layer. */
  readonly norm: NormKind;
  /** Position encoding. */
  readonly posEncoding: PosEncoding;
  /** Generation paradigm. */
  readonly paradigm: ParadigmKind;
  /** Causal attention mask; `true` for `ar`, `false` for `diffusion`. */
  readonly causal: boolean;
  /** Band attention: a query sees keys with `0 ≤ q − k ≤ contextWindow` (causal) or `|q − k| ≤ contextWindow`. */
  readonly slidingWindow: boolean;
  /** Sliding-window radius in tokens (used only when `slidingWindow`). */
  readonly contextWindow: number;
  /** LM head shares the token-embedding matrix. */
  readonly weightTying: boolean;
  /** Token id of `[MASK]` for masked diffusion; defaults to `vocabSize − 1`. */
  readonly maskTokenId: number;
  /** Dropout probability used in training; inference and benchmarks always run deterministically. */
  readonly dropout: number;
}

export type { PresetName } from './presets.js';

/** What {@link ModelConfig.parse} accepts: any subset of the fields, in camelCase or the seed's snake_case. */
export type ModelConfigInput = Partial<Record<keyof ModelConfig, unknown>> & Record<string, unknown>;

const DEFAULTS = {
  dim: 512,
  nHeads: 16,
  numBlocks: 12,
  vocabSize: 50257,
  maxContext: 512,
  ffn: 'mlp',
  nExperts: 4,
  topK: 2,
  expansion: 4,
  useSwiglu: true,
  activation: 'gelu',
  norm: 'rmsnorm',
  posEncoding: 'rotary',
  paradigm: 'ar',
  slidingWindow: false,
  contextWindow: 4,
  weightTying: true,
  dropout: 0,
} as const;

/** Every field a config may set in camelCase (derived fields included: they are checked against the derivation). */
const FIELD_NAMES = [...Object.keys(DEFAULTS), 'headSize', 'attention', 'kvHeads', 'causal', 'maskTokenId'];

const positiveInt = z.number().int().positive();
const schema = z.object({
  dim: positiveInt,
  nHeads: positiveInt,
  headSize: positiveInt.optional(),
  numBlocks: positiveInt,
  vocabSize: z.number().int().min(2),
  maxContext: positiveInt,
  attention: z.enum(['mha', 'gqa']).optional(),
  kvHeads: positiveInt.optional(),
  ffn: z.enum(['mlp', 'moe']),
  nExperts: positiveInt,
  topK: positiveInt,
  expansion: z.number().positive(),
  useSwiglu: z.boolean(),
  activation: z.enum(['gelu', 'silu', 'relu']),
  norm: z.enum(['rmsnorm', 'layernorm']),
  posEncoding: z.enum(['rotary', 'learned', 'absolute', 'none']),
  paradigm: z.enum(['ar', 'diffusion']),
  causal: z.boolean().optional(),
  slidingWindow: z.boolean(),
  contextWindow: z.number().int().min(0),
  weightTying: z.boolean(),
  maskTokenId: z.number().int().min(0).optional(),
  dropout: z.number().min(0).max(1),
});

function zodIssueMessage(issue: z.core.$ZodIssue, input: Record<string, unknown>): string {
  const key = String(issue.path[0] ?? '');
  return `${issue.message.replace(/^Invalid input: /, '')} (received ${excerpt(input[key])})`;
}

function resolve(raw: Record<string, unknown>, issues: ValidationIssue[]): ModelConfig {
  const keyed = normaliseSeedKeys(raw, FIELD_NAMES, issues);
  const merged = { ...DEFAULTS, ...keyed };
  const parsed = schema.safeParse(merged);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      issues.push({ path: issue.path.join('.'), message: zodIssueMessage(issue, merged) });
    }
    throw new ValidationError('INVALID_MODEL_CONFIG', messages.invalidModelConfig(issues.length), issues);
  }
  const c = parsed.data;
  if (c.dim % c.nHeads !== 0)
    issues.push({ path: 'nHeads', message: `nHeads (${c.nHeads}) must divide dim (${c.dim})` });
  const headSize = Math.floor(c.dim / c.nHeads);
  if (c.headSize !== undefined && c.headSize * c.nHeads !== c.dim) {
    issues.push({
      path: 'headSize',
      message: `headSize (${c.headSize}) × nHeads (${c.nHeads}) must equal dim (${c.dim}); omit headSize to derive it`,
    });
  }
  if (c.posEncoding === 'rotary' && headSize % 2 !== 0) {
    issues.push({
      path: 'posEncoding',
      message: `rotary positions need an even headSize, got ${headSize} (dim / nHeads)`,
    });
  }
  const kvHeads = c.kvHeads ?? c.nHeads;
  if (c.nHeads % kvHeads !== 0)
    issues.push({ path: 'kvHeads', message: `kvHeads (${kvHeads}) must divide nHeads (${c.nHeads})` });
  if (c.attention === 'mha' && c.kvHeads !== undefined && c.kvHeads !== c.nHeads) {
    issues.push({
      path: 'attention',
      message: `attention "mha" needs kvHeads == nHeads (${c.nHeads}), got ${c.kvHeads}; use attention "gqa"`,
    });
  }
  const moe = c.ffn === 'moe';
  if (moe && c.topK > c.nExperts)
    issues.push({ path: 'topK', message: `topK (${c.topK}) must be ≤ nExperts (${c.nExperts})` });
  if (!Number.isInteger(c.expansion * c.dim)) {
    issues.push({
      path: 'expansion',
      message: `expansion (${c.expansion}) × dim (${c.dim}) must be a whole number of units`,
    });
  }
  const causal = c.paradigm === 'ar';
  if (c.causal !== undefined && c.causal !== causal) {
    issues.push({
      path: 'causal',
      message: `causal (${c.causal}) contradicts paradigm "${c.paradigm}" (ar is causal, diffusion is bidirectional); omit causal`,
    });
  }
  const maskTokenId = c.maskTokenId ?? c.vocabSize - 1;
  if (maskTokenId >= c.vocabSize) {
    issues.push({
      path: 'maskTokenId',
      message: `maskTokenId (${maskTokenId}) must be < vocabSize (${c.vocabSize})`,
    });
  }
  if (issues.length > 0)
    throw new ValidationError('INVALID_MODEL_CONFIG', messages.invalidModelConfig(issues.length), issues);
  return Object.freeze({
    dim: c.dim,
    nHeads: c.nHeads,
    headSize,
    numBlocks: c.numBlocks,
    vocabSize: c.vocabSize,
    maxContext: c.maxContext,
    attention: kvHeads === c.nHeads ? 'mha' : 'gqa',
    kvHeads,
    ffn: c.ffn,
    nExperts: moe ? c.nExperts : 1,
    topK: moe ? c.topK : 1,
    expansion: c.expansion,
    useSwiglu: c.useSwiglu,
    activation: c.activation,
    norm: c.norm,
    posEncoding: c.posEncoding,
    paradigm: c.paradigm,
    causal,
    slidingWindow: c.slidingWindow,
    contextWindow: c.contextWindow,
    weightTying: c.weightTying,
    maskTokenId,
    dropout: c.dropout,
  });
}

/**
 * Companion of the {@link ModelConfig} type: parsing, loading and presets.
 *
 * @example
 * ```ts
 * const a = ModelConfig.parse({ dim: 256, n_heads: 8, num_blocks: 4, vocab_size: 8000 }); // seed snake_case
 * const b = ModelConfig.preset('gpt2-small');
 * const c = ModelConfig.load('configs/small.yaml');
 * ```
 */
export const ModelConfig = {
  /**
   * Validates a config object (camelCase, the seed's snake_case and its legacy aliases, or nested YAML
   * sections) and resolves derived values once: `headSize = dim / nHeads`, `kvHeads` defaults to `nHeads`,
   * `attention` follows from `kvHeads`, `causal` from `paradigm`, `maskTokenId` defaults to `vocabSize − 1`.
   *
   * @throws {@link ValidationError} with code `INVALID_MODEL_CONFIG`, listing every problem found.
   */
  parse(input: unknown): ModelConfig {
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      throw new ValidationError('INVALID_MODEL_CONFIG', messages.invalidModelConfig(1), [
        { path: '', message: `expected an object of config fields, received ${excerpt(input)}` },
      ]);
    }
    const issues: ValidationIssue[] = [];
    const flat = flattenSections(input as Record<string, unknown>, issues);
    return resolve(flat, issues);
  },

  /**
   * Reads a config from a `.json`, `.yaml` or `.yml` file and validates it with {@link ModelConfig.parse}.
   *
   * @throws {@link dantinox!DantinoxError} with code `IO` when the file cannot be read or parsed.
   */
  load(path: string): ModelConfig {
    const text = readTextFile(path, 'model config');
    let raw: unknown;
    try {
      raw = extname(path).toLowerCase() === '.json' ? JSON.parse(text) : parseYamlText(text);
    } catch (cause) {
      throw new DantinoxError(
        'IO',
        messages.malformedFile(path, extname(path) === '.json' ? 'JSON' : 'YAML', cause),
        {
          cause,
        },
      );
    }
    if (raw === null || raw === undefined)
      throw new DantinoxError(
        'INVALID_MODEL_CONFIG',
        messages.emptyModelConfig(path, ModelConfig.presetNames()),
      );
    return ModelConfig.parse(raw);
  },

  /** Names of the built-in presets: the random-weight ones, then the trained ones. */
  presetNames(): PresetName[] {
    return [...Object.keys(PRESETS), ...Object.keys(TRAINED_PRESETS)] as PresetName[];
  },

  /**
   * A built-in preset, optionally with fields overridden. A trained preset's config is read from the `model.yaml`
   * shipped with its weights (`trained-presets.ts`); this returns the config alone — `--config <name>` and
   * `openModel` run it with its trained weights and tokenizer.
   *
   * @throws {@link dantinox!DantinoxError} with code `INVALID_OPTION` for an unknown preset name; `IO` when a trained
   * preset's shipped config is missing.
   */
  preset(name: string, overrides: ModelConfigInput = {}): ModelConfig {
    if (isTrainedPreset(name)) {
      const config = ModelConfig.load(trainedPresetConfigFile(name));
      if (Object.keys(overrides).length === 0) return config;
      const fields = Object.fromEntries(
        Object.keys(DEFAULTS).map((k) => [k, config[k as keyof ModelConfig]]),
      );
      return ModelConfig.parse({ ...fields, ...overrides });
    }
    if (!Object.hasOwn(PRESETS, name)) {
      throw new DantinoxError(
        'INVALID_OPTION',
        messages.unknownName('preset', name, ModelConfig.presetNames()),
      );
    }
    return ModelConfig.parse({ ...PRESETS[name as keyof typeof PRESETS], ...overrides });
  },

  /** Resolves `nameOrPath`: a preset name, or a path to a JSON/YAML config file. */
  resolve(nameOrPath: string): ModelConfig {
    return ModelConfig.presetNames().includes(nameOrPath as PresetName)
      ? ModelConfig.preset(nameOrPath)
      : ModelConfig.load(nameOrPath);
  },

  /** The config as a plain object with the seed's snake_case keys (for YAML/CSV interchange with the seed). */
  toSnakeCase(config: ModelConfig): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(config)) out[k.replace(/[A-Z]/g, (m) => `_${m.toLowerCase()}`)] = v;
    return out;
  },
} as const;
