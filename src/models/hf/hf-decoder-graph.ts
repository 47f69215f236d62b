/**
 * The ONNX graph of a built-in decoder with the Hugging Face decoder-with-past I/O (what
 * `optimum-cli export onnx --task text-generation-with-past` produces and transformers.js runs):
 *
 * - inputs `input_ids` int64 `[batch_size, sequence_length]`, `attention_mask` int64
 *   `[batch_size, total_sequence_length]`, `position_ids` int64 `[batch_size, sequence_length]`,
 *   `past_key_values.{i}.key/.value` float32 `[batch_size, kvHeads, past_sequence_length, headSize]`;
 * - outputs `logits` float32 `[batch_size, sequence_length, vocab]` and `present.{i}.key/.value`
 *   `[batch_size, kvHeads, total_sequence_length, headSize]` (past followed by the new keys/values).
 *
 * The computation follows the shared architecture conventions exactly (no biases, `[in, out]` weights, pre-norm
 * blocks, eps 1e-5, rotate-half RoPE base 10000 at `position_ids`, learned positions gathered at `position_ids`,
 * exact-erf GELU, SwiGLU = down(silu(x@gate) · x@up) whatever `activation` says, causal mask with optional sliding window, GQA by broadcasting each KV head over its query group),
 * so its logits equal the reference model's. Initializers keep the canonical weight names.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import type { ModelConfig } from '../model-config.js';
import type { WeightMap } from '../weights.js';
import { GraphBuilder, onnx } from './graph-builder.js';

const EPS = 1e-5;
const MASKED = -1e9;
const ROPE_BASE = 10000;

/** Why `config` has no Hugging Face decoder layout, or `undefined` when it can be exported. */
export function hfExportBlocker(config: ModelConfig): string | undefined {
  if (config.paradigm !== 'ar') return `paradigm "${config.paradigm}" is not autoregressive`;
  if (config.ffn !== 'mlp') return 'the FFN is a mixture of experts';
  if (config.posEncoding === 'learned') {
    if (config.norm !== 'layernorm' || config.useSwiglu)
      return 'learned positions need LayerNorm and a plain MLP (gpt2)';
    if (config.slidingWindow) return 'gpt2 has no sliding window';
    if (config.kvHeads !== config.nHeads) return 'gpt2 has no grouped-query attention';
    return undefined;
  }
  if (config.posEncoding === 'rotary') {
    if (config.norm !== 'rmsnorm' || !config.useSwiglu)
      return 'rotary positions need RMSNorm and a gated (SwiGLU) MLP (llama)';
    return undefined;
  }
  return `position encoding "${config.posEncoding}" has no Hugging Face model type`;
}

/** Mutable build state: the graph and the tensors every block reads. */
interface Ctx {
  readonly g: GraphBuilder;
  readonly config: ModelConfig;
  readonly weights: WeightMap;
  readonly mask: string;
  readonly cos?: string;
  readonly sin?: string;
}

function weight(ctx: Ctx, name: string): string {
  const t = ctx.weights.get(name);
  if (t === undefined) throw new DantinoxError('INVALID_INPUT', `${name}: ${messages.missingWeight([])}`);
  return ctx.g.float(name, t.dims, t.data);
}

function norm(ctx: Ctx, x: string, prefix: string): string {
  const { g } = ctx;
  if (ctx.config.norm === 'layernorm') {
    const inputs = [x, weight(ctx, `${prefix}.weight`), weight(ctx, `${prefix}.bias`)];
    return g.op('LayerNormalization', inputs, { axis: -1, epsilon: { float: EPS } });
  }
  const ms = g.op('ReduceMean', [g.op('Pow', [x, g.floatConst([2])])], { axes: [-1], keepdims: 1 });
  const rms = g.op('Sqrt', [g.op('Add', [ms, g.floatConst([EPS])])]);
  return g.op('Mul', [g.op('Div', [x, rms]), weight(ctx, `${prefix}.weight`)]);
}

/** Applies rotate-half RoPE to `x` `[B, heads, T, hs]`. */
function rope(ctx: Ctx, x: string): string {
  const { g } = ctx;
  const half = ctx.config.headSize / 2;
  const axis = g.intConst([-1]);
  const lo = g.op('Slice', [x, g.intConst([0]), g.intConst([half]), axis]);
  const hi = g.op('Slice', [x, g.intConst([half]), g.intConst([2 * half]), axis]);
  const rotated = g.op('Concat', [g.op('Neg', [hi]), lo], { axis: -1 });
  return g.op('Add', [g.op('Mul', [x, ctx.cos ?? '']), g.op('Mul', [rotated, ctx.sin ?? ''])]);
}

function attention(ctx: Ctx, h: string, i: number): string {
  const { g, config } = ctx;
  const { nHeads, kvHeads, headSize: hs } = config;
  const b = `blocks.${i}.attn`;
  const heads = (w: string, n: number): string =>
    g.op(
      'Transpose',
      [g.op('Reshape', [g.op('MatMul', [h, weight(ctx, `${b}.${w}.weight`)]), g.intConst([0, 0, n, hs])])],
      {
        perm: [0, 2, 1, 3],
      },
    );
  let q = heads('q', nHeads);
  let k = heads('k', kvHeads);
  const v = heads('v', kvHeads);
  if (config.posEncoding === 'rotary') {
    q = rope(ctx, q);
    k = rope(ctx, k);
  }
  const fdims = ['batch_size', kvHeads, 'total_sequence_length', hs];
  // Concat writes the graph outputs directly (no Identity copy): present = past followed by the new rows.
  g.op('Concat', [`past_key_values.${i}.key`, k], { axis: 2 }, `present.${i}.key`);
  g.op('Concat', [`past_key_values.${i}.value`, v], { axis: 2 }, `present.${i}.value`);
  g.output(`present.${i}.key`, `present.${i}.key`, onnx.TensorProto.DataType.FLOAT, fdims);
  g.output(`present.${i}.value`, `present.${i}.value`, onnx.TensorProto.DataType.FLOAT, fdims);
  const scaledQ = g.op('Mul', [q, g.floatConst([1 / Math.sqrt(hs)])]);
  const group = nHeads / kvHeads;
  let ctxOut: string;
  if (group === 1) {
    const kT = g.op('Transpose', [`present.${i}.key`], { perm: [0, 1, 3, 2] });
    const scores = g.op('Add', [g.op('MatMul', [scaledQ, kT]), ctx.mask]);
    ctxOut = g.op('MatMul', [g.op('Softmax', [scores], { axis: -1 }), `present.${i}.value`]);
  } else {
    // q [B, kvH, group, T, hs] against k/v [B, kvH, 1, S, hs]: MatMul broadcasts each KV head over its group.
    const q5 = g.op('Reshape', [scaledQ, g.intConst([0, kvHeads, group, -1, hs])]);
    const axis2 = g.intConst([2]);
    const k5 = g.op('Transpose', [g.op('Unsqueeze', [`present.${i}.key`, axis2])], { perm: [0, 1, 2, 4, 3] });
    const v5 = g.op('Unsqueeze', [`present.${i}.value`, axis2]);
    const mask5 = g.op('Unsqueeze', [ctx.mask, g.intConst([1])]);
    const scores = g.op('Add', [g.op('MatMul', [q5, k5]), mask5]);
    const out5 = g.op('MatMul', [g.op('Softmax', [scores], { axis: -1 }), v5]);
    ctxOut = g.op('Reshape', [out5, g.intConst([0, nHeads, -1, hs])]);
  }
  const merged = g.op('Reshape', [
    g.op('Transpose', [ctxOut], { perm: [0, 2, 1, 3] }),
    g.intConst([0, 0, nHeads * hs]),
  ]);
  return g.op('MatMul', [merged, weight(ctx, `${b}.o.weight`)]);
}

function mlp(ctx: Ctx, h: string, i: number): string {
  const { g, config } = ctx;
  const b = `blocks.${i}.mlp`;
  const up = g.op('MatMul', [h, weight(ctx, `${b}.up.weight`)]);
  const silu = (x: string): string => g.op('Mul', [x, g.op('Sigmoid', [x])]);
  const act = (x: string): string => {
    if (config.activation === 'relu') return g.op('Relu', [x]);
    if (config.activation === 'silu') return silu(x);
    // Exact GELU: x · ½ · (1 + erf(x / √2)), the pattern ONNX Runtime fuses into one Gelu kernel.
    const erf = g.op('Erf', [g.op('Div', [x, g.floatConst([Math.SQRT2])])]);
    return g.op('Mul', [g.op('Mul', [x, g.op('Add', [erf, g.floatConst([1])])]), g.floatConst([0.5])]);
  };
  const hidden = config.useSwiglu
    ? g.op('Mul', [silu(g.op('MatMul', [h, weight(ctx, `${b}.gate.weight`)])), up])
    : act(up);
  return g.op('MatMul', [hidden, weight(ctx, `${b}.down.weight`)]);
}

/** Additive attention mask `[B, 1, T, S]`: 0 where query t (absolute position S−T+t) may see key s, else −1e9. */
function buildMask(g: GraphBuilder, config: ModelConfig): string {
  const scalar = (v: number): string => g.intConst([v], []);
  const dimOf = (x: string): string => g.op('Gather', [g.op('Shape', [x]), scalar(1)], { axis: 0 });
  const t = dimOf('input_ids');
  const s = dimOf('attention_mask');
  const qpos = g.op('Range', [g.op('Sub', [s, t]), s, scalar(1)]);
  const kpos = g.op('Range', [scalar(0), s, scalar(1)]);
  const diff = g.op('Sub', [
    g.op('Unsqueeze', [qpos, g.intConst([1])]),
    g.op('Unsqueeze', [kpos, g.intConst([0])]),
  ]);
  let allowed = g.op('GreaterOrEqual', [diff, scalar(0)]);
  if (config.slidingWindow) {
    allowed = g.op('And', [allowed, g.op('LessOrEqual', [diff, scalar(config.contextWindow)])]);
  }
  const keep = g.op('Cast', ['attention_mask'], { to: onnx.TensorProto.DataType.BOOL });
  const both = g.op('And', [
    g.op('Unsqueeze', [allowed, g.intConst([0])]),
    g.op('Unsqueeze', [keep, g.intConst([1])]),
  ]);
  const additive = g.op('Where', [both, g.floatConst([0]), g.floatConst([MASKED])]);
  return g.op('Unsqueeze', [additive, g.intConst([1])]);
}

/** Rotary tables `[maxContext, headSize]` gathered at `position_ids` and unsqueezed to `[B, 1, T, hs]`. */
function ropeTables(g: GraphBuilder, config: ModelConfig): { cos: string; sin: string } {
  const { maxContext: n, headSize: hs } = config;
  const half = hs / 2;
  const cos = new Float32Array(n * hs);
  const sin = new Float32Array(n * hs);
  for (let p = 0; p < n; p++) {
    for (let j = 0; j < hs; j++) {
      const angle = p * ROPE_BASE ** (-(2 * (j % half)) / hs);
      cos[p * hs + j] = Math.cos(angle);
      sin[p * hs + j] = Math.sin(angle);
    }
  }
  const at = (name: string, table: Float32Array): string =>
    g.op('Unsqueeze', [
      g.op('Gather', [g.float(name, [n, hs], table), 'position_ids'], { axis: 0 }),
      g.intConst([1]),
    ]);
  return { cos: at('rope.cos', cos), sin: at('rope.sin', sin) };
}

/**
 * Builds the decoder graph of `config` with `weights` (canonical names, checked by the caller).
 *
 * @throws {@link DantinoxError} `UNSUPPORTED` when the architecture has no Hugging Face layout
 *   (see {@link hfExportBlocker}).
 */
export function buildHfDecoderGraph(config: ModelConfig, weights: WeightMap): GraphBuilder {
  const blocker = hfExportBlocker(config);
  if (blocker !== undefined) throw new DantinoxError('UNSUPPORTED', messages.hfExportUnsupported(blocker));
  const g = new GraphBuilder(17);
  const { INT64, FLOAT } = onnx.TensorProto.DataType;
  g.input('input_ids', INT64, ['batch_size', 'sequence_length']);
  g.input('attention_mask', INT64, ['batch_size', 'total_sequence_length']);
  g.input('position_ids', INT64, ['batch_size', 'sequence_length']);
  for (let i = 0; i < config.numBlocks; i++) {
    for (const kind of ['key', 'value']) {
      g.input(`past_key_values.${i}.${kind}`, FLOAT, [
        'batch_size',
        config.kvHeads,
        'past_sequence_length',
        config.headSize,
      ]);
    }
  }
  const mask = buildMask(g, config);
  const tables = config.posEncoding === 'rotary' ? ropeTables(g, config) : undefined;
  const ctx: Ctx = { g, config, weights, mask, ...tables };
  let x = g.op('Gather', [weight(ctx, 'embed.weight'), 'input_ids'], { axis: 0 });
  if (config.posEncoding === 'learned') {
    x = g.op('Add', [x, g.op('Gather', [weight(ctx, 'pos.weight'), 'position_ids'], { axis: 0 })]);
  }
  for (let i = 0; i < config.numBlocks; i++) {
    x = g.op('Add', [x, attention(ctx, norm(ctx, x, `blocks.${i}.norm1`), i)]);
    x = g.op('Add', [x, mlp(ctx, norm(ctx, x, `blocks.${i}.norm2`), i)]);
  }
  const h = norm(ctx, x, 'norm_f');
  const head = config.weightTying
    ? g.op('Transpose', ['embed.weight'], { perm: [1, 0] })
    : weight(ctx, 'lm_head.weight');
  g.op('MatMul', [h, head], {}, 'logits');
  g.output('logits', 'logits', FLOAT, ['batch_size', 'sequence_length', config.vocabSize]);
  return g;
}
