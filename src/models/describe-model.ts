/**
 * One-line, human-readable descriptions of a model config, so every command says what model it ran.
 *
 * @packageDocumentation
 */
import type { ModelConfig } from './model-config.js';

/**
 * Describes the architecture of `config` in one line, e.g.
 * `dim 512, 8 heads, 12 blocks, vocab 50257, context 512, SwiGLU MLP ×4, rmsnorm, rotary, ar`.
 */
export function describeModel(config: ModelConfig): string {
  const heads =
    config.kvHeads === config.nHeads
      ? `${config.nHeads} heads`
      : `${config.nHeads} heads (${config.kvHeads} kv)`;
  const mlp = config.useSwiglu ? 'SwiGLU' : config.activation.toUpperCase();
  const ffn =
    config.ffn === 'moe'
      ? `MoE ${config.nExperts} experts top-${config.topK} (${mlp} ×${config.expansion})`
      : `${mlp} MLP ×${config.expansion}`;
  const window = config.slidingWindow ? `, sliding window ${config.contextWindow}` : '';
  return [
    `dim ${config.dim}`,
    heads,
    `${config.numBlocks} blocks`,
    `vocab ${config.vocabSize}`,
    `context ${config.maxContext}`,
    ffn,
    config.norm,
    config.posEncoding,
    `${config.paradigm}${window}`,
  ].join(', ');
}
