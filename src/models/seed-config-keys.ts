/**
 * The seed's config vocabulary: its snake_case field names, legacy aliases and sectioned YAML, mapped onto
 * {@link ModelConfig} fields before validation.
 *
 * @packageDocumentation
 */
import type { ValidationIssue } from '../errors.js';
import { messages } from '../messages.js';
import type { ModelConfig } from './model-config.js';

/** Seed snake_case names and legacy aliases → our field names (values are converted where needed). */
const KEY_ALIASES: Record<string, keyof ModelConfig> = {
  n_heads: 'nHeads',
  head_size: 'headSize',
  num_blocks: 'numBlocks',
  n_layers: 'numBlocks',
  vocab_size: 'vocabSize',
  max_context: 'maxContext',
  kv_heads: 'kvHeads',
  n_experts: 'nExperts',
  top_k: 'topK',
  top_k_mlp: 'topK',
  use_swiglu: 'useSwiglu',
  pos_encoding: 'posEncoding',
  sliding_window: 'slidingWindow',
  context_window: 'contextWindow',
  weight_tying: 'weightTying',
  mask_token_id: 'maskTokenId',
  dropout_rate: 'dropout',
  norm_type: 'norm',
  attention_type: 'attention',
};

/** Seed fields that do not change the compute or the runtime of the models we build; accepted and ignored. */
const IGNORED_SEED_KEYS = new Set([
  'tp_size',
  'tpSize',
  'use_flash',
  'use_flash_attention',
  'rope_scale',
  'rope_scale_factor',
  'moe_balance_coeff',
  'alpha_balance',
  'noise_schedule',
  'lambda_init',
  'gradient_checkpointing',
  'inference_mode',
  'inference',
  'down_dim_q',
  'down_dim_kv',
  'rope_dim',
  'moe_latent_dim',
  'bottleneck_dim',
  'flow_n_steps',
  'flow_cfg_scale',
  'elf_n_steps',
  'elf_cfg_scale',
  'sde_gamma',
  't5_model_name',
  'embed_pooling',
  'embed_temperature',
  'lora_rank',
  'lora_alpha',
  'lora_dropout',
  'lora_targets',
  'name',
]);

/** Seed fields that select an architecture we do not build; accepted only at their "off" value. */
const UNSUPPORTED_WHEN_SET: Record<string, (v: unknown) => boolean> = {
  differential: (v) => v === true,
  no_sink: (v) => v === true,
  use_lora: (v) => v === true,
  moe_latent: (v) => v === true,
  use_linear_attention: (v) => v === true,
  embed_dim: (v) => typeof v === 'number' && v > 0,
  mla: (v) => v === true,
};

/**
 * Maps a raw config object's keys onto {@link ModelConfig} fields: our camelCase names (`fields`), the seed's
 * snake_case names and legacy aliases, boolean switches (`use_moe`, `trainable_pos`…) and the seed's value spellings
 * (`discrete`, `layer_norm`…). Unknown keys and architectures we do not build are appended to `issues`; seed fields
 * that change nothing we compute are ignored.
 */
export function normaliseSeedKeys(
  raw: Record<string, unknown>,
  fields: readonly string[],
  issues: ValidationIssue[],
): Partial<Record<keyof ModelConfig, unknown>> {
  const out: Partial<Record<keyof ModelConfig, unknown>> = {};
  const set = (key: keyof ModelConfig, value: unknown, from: string): void => {
    if (key in out && out[key] !== value) {
      issues.push({ path: key, message: messages.conflictingKeys(from, out[key], value) });
      return;
    }
    out[key] = value;
  };
  const known = new Set<string>(fields);
  for (const [key, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    if (value === null && (known.has(key) || Object.hasOwn(KEY_ALIASES, key))) {
      // `max_context:` with nothing after it: an empty value never silently becomes the default.
      issues.push({ path: key, message: messages.emptyConfigValue(key) });
      continue;
    }
    if (value === null) continue;
    if (known.has(key)) {
      set(key as keyof ModelConfig, value, key);
    } else if (Object.hasOwn(KEY_ALIASES, key)) {
      set(KEY_ALIASES[key] as keyof ModelConfig, value, key);
    } else if (key === 'use_moe') {
      if (value === true) set('ffn', 'moe', key);
    } else if (key === 'use_rotary_pos') {
      if (value === true) set('posEncoding', 'rotary', key);
    } else if (key === 'trainable_pos') {
      if (value === true) set('posEncoding', 'learned', key);
    } else if (key === 'absolute_pos') {
      if (value === true) set('posEncoding', 'absolute', key);
    } else if (key === 'model_type' || key === 'modelType') {
      const paradigm = value === 'autoregressive' ? 'ar' : value === 'diffusion' ? 'diffusion' : value;
      set('paradigm', paradigm, key);
    } else if (Object.hasOwn(UNSUPPORTED_WHEN_SET, key)) {
      if (UNSUPPORTED_WHEN_SET[key]?.(value))
        issues.push({ path: key, message: messages.unsupportedFeature(key, value) });
    } else if (!IGNORED_SEED_KEYS.has(key)) {
      issues.push({ path: key, message: messages.unknownKey(key, [...known]) });
    }
  }
  // Seed values with other spellings.
  if (out.paradigm === 'discrete') out.paradigm = 'diffusion';
  if (out.paradigm === 'continuous' || out.paradigm === 'embedder') {
    issues.push({ path: 'paradigm', message: messages.unsupportedFeature('paradigm', out.paradigm) });
    delete out.paradigm;
  }
  if (out.attention === 'mla') {
    issues.push({ path: 'attention', message: messages.unsupportedFeature('attention', 'mla') });
    delete out.attention;
  }
  if (out.norm === 'layer_norm') out.norm = 'layernorm';
  if (out.norm === 'rms_norm') out.norm = 'rmsnorm';
  return out;
}

/** Flattens dict-valued top-level sections (as the seed's `from_yaml` does) so `{model: {dim: 512}}` works. */
export function flattenSections(
  raw: Record<string, unknown>,
  issues: ValidationIssue[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const from: Record<string, string> = {};
  const put = (key: string, value: unknown, path: string): void => {
    if (Object.hasOwn(out, key) && JSON.stringify(out[key]) !== JSON.stringify(value)) {
      // `dim: 32` beside `model: {dim: 64}`: neither silently wins.
      issues.push({ path, message: messages.conflictingKeys(from[key] as string, out[key], value) });
      return;
    }
    out[key] = value;
    from[key] = path;
  };
  for (const [k, v] of Object.entries(raw)) {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      for (const [inner, value] of Object.entries(v)) put(inner, value, `${k}.${inner}`);
    } else put(k, v, k);
  }
  return out;
}
