/**
 * Hugging Face `config.json` → {@link ModelConfig}: the architecture of a user's model, so `countFlops`, the
 * bytes model and MFU work for it exactly as for a built-in model.
 *
 * Mapping (per `model_type`):
 * - `gpt2`: `n_embd`, `n_head`, `n_layer`, `vocab_size`, `n_positions` (or `n_ctx`), `n_inner` (default
 *   4·`n_embd`), `activation_function`; LayerNorm, learned positions, plain MLP, tied head unless
 *   `tie_word_embeddings: false`.
 * - `llama`, `mistral`, `qwen2`, `phi3`: `hidden_size`, `num_attention_heads`, `num_key_value_heads` (default
 *   the head count), `num_hidden_layers`, `vocab_size`, `max_position_embeddings`, `intermediate_size`,
 *   `hidden_act`; RMSNorm, rotary positions, gated MLP (SwiGLU), untied head unless `tie_word_embeddings: true`;
 *   `sliding_window` (mistral, phi3, and qwen2 with `use_sliding_window: true`) becomes
 *   `slidingWindow` with `contextWindow = sliding_window − 1` (HF lets a query see the `sliding_window` most
 *   recent keys including itself; our radius counts the keys before it).
 *
 * What the mapping does not carry, because no FLOPs count depends on it: biases (GPT-2 and Qwen2 have some; ours
 * have none — biases are additions, not matrix-product FLOPs), norm epsilons, `rope_theta` and partial rotary
 * factors, GELU flavours (`gelu_new`, `gelu_pytorch_tanh` → `gelu`). A gated MLP whose activation is not SiLU
 * (GeGLU) keeps `useSwiglu: true` with that activation: the matrices and FLOPs are the same.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { readTextFile } from '../../text-file.js';
import { type Activation, ModelConfig } from '../model-config.js';

/** The `model_type` values of `config.json` that dantinox maps to a {@link ModelConfig}. */
export const HF_MODEL_TYPES = ['gpt2', 'llama', 'mistral', 'qwen2', 'phi3'] as const;

/** A supported Hugging Face `model_type`. */
export type HfModelType = (typeof HF_MODEL_TYPES)[number];

/** A parsed `config.json`: its model type, the mapped architecture and the raw JSON. */
export interface HfConfig {
  /** `model_type` of the file. */
  readonly modelType: HfModelType;
  /** The architecture as a dantinox {@link ModelConfig}. */
  readonly config: ModelConfig;
  /** The file's JSON object, unchanged. */
  readonly raw: Readonly<Record<string, unknown>>;
}

const ACTIVATIONS: Record<string, Activation> = {
  gelu: 'gelu',
  gelu_new: 'gelu',
  gelu_fast: 'gelu',
  gelu_pytorch_tanh: 'gelu',
  gelu_python: 'gelu',
  gelu_accurate: 'gelu',
  quick_gelu: 'gelu',
  silu: 'silu',
  swish: 'silu',
  relu: 'relu',
};

function isHfModelType(type: unknown): type is HfModelType {
  return typeof type === 'string' && (HF_MODEL_TYPES as readonly string[]).includes(type);
}

/** Reads fields of one config object, naming the file and field in every error. */
class FieldReader {
  constructor(
    private readonly raw: Record<string, unknown>,
    private readonly path: string,
    private readonly modelType: string,
  ) {}

  has(key: string): boolean {
    return this.raw[key] !== undefined && this.raw[key] !== null;
  }

  /** A positive integer: the first of `keys` present, else `fallback`, else an error naming all of `keys`. */
  int(keys: readonly string[], fallback?: number): number {
    for (const key of keys) {
      if (!this.has(key)) continue;
      const value = this.raw[key];
      if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
        throw new DantinoxError(
          'INVALID_MODEL_CONFIG',
          messages.hfBadConfigValue(this.path, key, value, 'a positive integer'),
        );
      }
      return value;
    }
    if (fallback !== undefined) return fallback;
    throw new DantinoxError(
      'INVALID_MODEL_CONFIG',
      messages.hfMissingConfigField(this.path, keys, this.modelType),
    );
  }

  bool(key: string, fallback: boolean): boolean {
    if (!this.has(key)) return fallback;
    const value = this.raw[key];
    if (typeof value !== 'boolean') {
      throw new DantinoxError(
        'INVALID_MODEL_CONFIG',
        messages.hfBadConfigValue(this.path, key, value, 'true or false'),
      );
    }
    return value;
  }

  activation(key: string, fallback: string): Activation {
    const value = this.has(key) ? this.raw[key] : fallback;
    const act = typeof value === 'string' ? ACTIVATIONS[value] : undefined;
    if (act === undefined) {
      throw new DantinoxError(
        'UNSUPPORTED',
        messages.hfBadConfigValue(this.path, key, value, `one of ${Object.keys(ACTIVATIONS).join(', ')}`),
      );
    }
    return act;
  }
}

function gpt2Fields(f: FieldReader): Record<string, unknown> {
  const dim = f.int(['n_embd', 'hidden_size']);
  const hidden = f.int(['n_inner'], 4 * dim);
  return {
    dim,
    nHeads: f.int(['n_head', 'num_attention_heads']),
    numBlocks: f.int(['n_layer', 'num_hidden_layers']),
    vocabSize: f.int(['vocab_size']),
    maxContext: f.int(['n_positions', 'n_ctx', 'max_position_embeddings']),
    expansion: hidden / dim,
    useSwiglu: false,
    activation: f.activation('activation_function', 'gelu_new'),
    norm: 'layernorm',
    posEncoding: 'learned',
    weightTying: f.bool('tie_word_embeddings', true),
  };
}

function llamaLikeFields(f: FieldReader, modelType: HfModelType, path: string): Record<string, unknown> {
  const dim = f.int(['hidden_size']);
  const nHeads = f.int(['num_attention_heads']);
  if (f.has('head_dim') && f.int(['head_dim']) * nHeads !== dim) {
    throw new DantinoxError(
      'UNSUPPORTED',
      messages.hfHeadDimMismatch(path, f.int(['head_dim']), dim, nHeads),
    );
  }
  const maxContext = f.int(['max_position_embeddings']);
  const slidingAllowed = modelType !== 'qwen2' || f.bool('use_sliding_window', false);
  const hasWindow = modelType !== 'llama' && slidingAllowed && f.has('sliding_window');
  const window = hasWindow ? f.int(['sliding_window']) : 0;
  return {
    dim,
    nHeads,
    kvHeads: f.int(['num_key_value_heads'], nHeads),
    numBlocks: f.int(['num_hidden_layers']),
    vocabSize: f.int(['vocab_size']),
    maxContext,
    expansion: f.int(['intermediate_size']) / dim,
    useSwiglu: true,
    activation: f.activation('hidden_act', 'silu'),
    norm: 'rmsnorm',
    posEncoding: 'rotary',
    slidingWindow: hasWindow,
    ...(hasWindow ? { contextWindow: window - 1 } : {}),
    weightTying: f.bool('tie_word_embeddings', false),
  };
}

/**
 * Maps the JSON object of a Hugging Face `config.json` to a {@link ModelConfig} (see the module notes for the
 * field mapping). `path` only names the file in errors.
 *
 * @throws {@link dantinox!DantinoxError} `UNSUPPORTED` for a `model_type` outside {@link HF_MODEL_TYPES} or an unknown
 *   activation; `INVALID_MODEL_CONFIG` for a missing or malformed field or an architecture dantinox cannot
 *   represent.
 */
export function hfConfigFromJson(json: unknown, path = 'config.json'): HfConfig {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new DantinoxError(
      'INVALID_MODEL_CONFIG',
      messages.hfBadConfigValue(path, '', json, 'a JSON object'),
    );
  }
  const raw = json as Record<string, unknown>;
  const modelType = raw['model_type'];
  if (!isHfModelType(modelType)) {
    throw new DantinoxError('UNSUPPORTED', messages.hfUnsupportedModelType(path, modelType, HF_MODEL_TYPES));
  }
  const f = new FieldReader(raw, path, modelType);
  const fields = modelType === 'gpt2' ? gpt2Fields(f) : llamaLikeFields(f, modelType, path);
  let config: ModelConfig;
  try {
    config = ModelConfig.parse({ ...fields, ffn: 'mlp', paradigm: 'ar', dropout: 0 });
  } catch (cause) {
    throw new DantinoxError(
      'INVALID_MODEL_CONFIG',
      messages.hfUnrepresentable(path, cause instanceof Error ? cause.message : String(cause)),
      { cause },
    );
  }
  return { modelType, config, raw };
}

/**
 * Reads and maps a `config.json` file with {@link hfConfigFromJson}.
 *
 * @throws {@link dantinox!DantinoxError} `IO` when the file cannot be read or is not JSON; otherwise as
 *   {@link hfConfigFromJson}.
 */
export function readHfConfig(path: string): HfConfig {
  const text = readTextFile(path, 'Hugging Face config');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new DantinoxError('IO', messages.malformedFile(path, 'JSON', cause), { cause });
  }
  return hfConfigFromJson(json, path);
}
