/**
 * Token embedding and position encodings of the graph: a `Gather` of the embedding table, plus a learned
 * (`pos.weight`) or sinusoidal (constant table) position vector gathered at `position_ids`. Rotary tables for
 * the attention blocks live here too.
 *
 * @packageDocumentation
 */
import type { ModelConfig } from '../model-config.js';
import type { GraphContext } from './graph-context.js';

/** Rotary base θ shared with the reference model. */
export const ROPE_BASE = 10000;

/** Sinusoidal table `[maxContext, dim]`: PE[p, 2i] = sin(p / 10000^(2i/D)), PE[p, 2i+1] = cos(same). */
export function sinusoidalTable(config: Pick<ModelConfig, 'maxContext' | 'dim'>): Float32Array {
  const { maxContext: n, dim: d } = config;
  const out = new Float32Array(n * d);
  for (let p = 0; p < n; p++) {
    for (let j = 0; j < d; j += 2) {
      const angle = p / 10000 ** (j / d);
      out[p * d + j] = Math.sin(angle);
      if (j + 1 < d) out[p * d + j + 1] = Math.cos(angle);
    }
  }
  return out;
}

/**
 * Rotary cos/sin caches `[maxContext, headSize/2]` for ONNX Runtime's `RotaryEmbedding` (rotate-half layout):
 * angle(p, i) = p · θ^(−2i/headSize).
 */
export function rotaryTables(config: Pick<ModelConfig, 'maxContext' | 'headSize'>): {
  cos: Float32Array;
  sin: Float32Array;
} {
  const { maxContext: n, headSize: hs } = config;
  const half = hs / 2;
  const cos = new Float32Array(n * half);
  const sin = new Float32Array(n * half);
  for (let p = 0; p < n; p++) {
    for (let i = 0; i < half; i++) {
      const angle = p * ROPE_BASE ** (-(2 * i) / hs);
      cos[p * half + i] = Math.cos(angle);
      sin[p * half + i] = Math.sin(angle);
    }
  }
  return { cos, sin };
}

/** Adds the embedding (and additive positions) of `input_ids`; returns the hidden states `[B, T, D]`. */
export function addEmbedding(ctx: GraphContext): string {
  const { g, config, inputs } = ctx;
  const tokens = g.op('Gather', [ctx.weight('embed.weight'), inputs.inputIds], { axis: { int: 0 } });
  if (inputs.positionIds === undefined) return tokens;
  if (config.posEncoding === 'learned') {
    const pos = g.op('Gather', [ctx.weight('pos.weight'), inputs.positionIds], { axis: { int: 0 } });
    return g.op('Add', [tokens, pos]);
  }
  if (config.posEncoding === 'absolute') {
    const table = g.floatInit('sinusoidal_table', [config.maxContext, config.dim], sinusoidalTable(config));
    const pos = g.op('Gather', [table, inputs.positionIds], { axis: { int: 0 } });
    return g.op('Add', [tokens, pos]);
  }
  return tokens;
}
