/**
 * Parameter counts of a {@link ModelConfig}, from the weight list of the shared architecture conventions.
 */
import type { ModelConfig } from '../models/model-config.js';
import { checkConfigNumbers } from './option-checks.js';

/** Parameter counts of a model, in parameters (not bytes). */
export interface ParameterCount {
  /** Every stored weight, the tied LM head counted once. */
  readonly total: number;
  /** Weights used per token: `total` minus the experts a token is not routed to (MoE); equals `total` otherwise. */
  readonly active: number;
  /** Token embedding table, learned position table (if any) and an untied LM head (if any). */
  readonly embedding: number;
  /** `total − embedding`: attention, FFN/MoE (router included) and norm weights. */
  readonly nonEmbedding: number;
}

/**
 * Counts the parameters of a model built from `config`, in parameters: `embed.weight` [V, D]; `pos.weight`
 * [maxContext, D] with learned positions; per block two norms (D weights, plus D biases for LayerNorm),
 * Q [D, H·hs], K and V [D, kvH·hs], O [H·hs, D], and either an MLP (gate, up, down with SwiGLU; up, down
 * otherwise; width F = expansion·dim) or a MoE (router [D, nExperts] plus nExperts such MLPs); the final
 * norm; and `lm_head.weight` [D, V] only when `weightTying` is off. Linear layers have no bias.
 *
 * `active` counts the router and `topK` experts per MoE block (the weights a token touches); sinusoidal and
 * rotary positions have no parameters.
 *
 * @example
 * ```ts
 * countParameters(ModelConfig.preset('gpt2-small')).total; // 124_356_864 (GPT-2 small without linear biases)
 * ```
 */
export function countParameters(config: ModelConfig): ParameterCount {
  checkConfigNumbers(config);
  const d = config.dim;
  const f = Math.round(config.expansion * d);
  const qWidth = config.nHeads * config.headSize;
  const kvWidth = config.kvHeads * config.headSize;
  const norm = config.norm === 'layernorm' ? 2 * d : d;
  const attention = d * qWidth + 2 * d * kvWidth + qWidth * d;
  const mlp = (config.useSwiglu ? 3 : 2) * d * f;
  const isMoe = config.ffn === 'moe';
  const router = isMoe ? d * config.nExperts : 0;
  const ffnTotal = isMoe ? router + config.nExperts * mlp : mlp;
  const ffnActive = isMoe ? router + config.topK * mlp : mlp;
  const tokenTable = config.vocabSize * d;
  const positions = config.posEncoding === 'learned' ? config.maxContext * d : 0;
  const head = config.weightTying ? 0 : d * config.vocabSize;
  const embedding = tokenTable + positions + head;
  const blocks = config.numBlocks * (2 * norm + attention + ffnTotal);
  const total = embedding + blocks + norm;
  const active = total - config.numBlocks * (ffnTotal - ffnActive);
  return Object.freeze({ total, active, embedding, nonEmbedding: total - embedding });
}
