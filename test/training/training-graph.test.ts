/**
 * The training graph computes the model's loss and its exact gradient, for every architecture option the trainer
 * supports: its loss equals the float64 reference model's cross-entropy on the same batch, and each weight's
 * gradient matches central finite differences of the reference model's loss (float64 accumulation, so the
 * differences are not float32 noise). Each weight tensor is perturbed at six coordinates at once, ±h, with the
 * perturbation measured in float32 as stored. The per-operator rules are checked tightly in
 * `autodiff/op-rules.test.ts`; this checks that the graph composes them into the model's gradient.
 */
import type { Tensor } from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { loadOrt } from '../../src/models/engines/ort/index.js';
import { ModelConfig, type ModelConfigInput } from '../../src/models/model-config.js';
import { crossEntropy } from '../../src/models/paradigms/log-probs.js';
import { ReferenceModel } from '../../src/models/reference-model.js';
import { initWeights, type WeightMap } from '../../src/models/weights.js';
import { dropoutMasks } from '../../src/training/trainer.js';
import {
  buildTrainingGraph,
  gradientName,
  TRAINING_IO,
  trainingAttentionMask,
  trainingBlocker,
} from '../../src/training/training-graph.js';
import { thrown } from '../thrown.js';

/** Architectures covering every option the trainer supports at least once. */
const ARCHITECTURES: readonly (readonly [string, ModelConfigInput])[] = [
  ['tiny: RMSNorm, SwiGLU, rotary, tied head', {}],
  [
    'LayerNorm, GELU, learned positions, untied head',
    { norm: 'layernorm', useSwiglu: false, activation: 'gelu', posEncoding: 'learned', weightTying: false },
  ],
  [
    'GQA, sliding window, ReLU, sinusoidal positions',
    {
      kvHeads: 2,
      slidingWindow: true,
      contextWindow: 3,
      useSwiglu: false,
      activation: 'relu',
      posEncoding: 'absolute',
    },
  ],
  [
    'diffusion (bidirectional), SiLU, no positions',
    { paradigm: 'diffusion', useSwiglu: false, activation: 'silu', posEncoding: 'none' },
  ],
  [
    'GQA with one KV head, LayerNorm, SwiGLU, rotary, sliding window',
    { kvHeads: 1, norm: 'layernorm', slidingWindow: true, contextWindow: 2 },
  ],
];

const B = 2;
const T = 8;

/** A fixed batch: inputs, next-token targets, loss weights summing to 1 (the mean). */
function batch(config: ModelConfig): { inputs: Int32Array; targets: BigInt64Array; weights: Float32Array } {
  const stream = Int32Array.from({ length: B * (T + 1) }, (_, i) => (i * 37 + 11) % config.vocabSize);
  const inputs = new Int32Array(B * T);
  const targets = new BigInt64Array(B * T);
  for (let r = 0; r < B; r++)
    for (let j = 0; j < T; j++) {
      inputs[r * T + j] = stream[r * (T + 1) + j] as number;
      targets[r * T + j] = BigInt(stream[r * (T + 1) + j + 1] as number);
    }
  return { inputs, targets, weights: new Float32Array(B * T).fill(1 / (B * T)) };
}

/** Weights of `config` made far from initialisation (norm weights not 1, larger matrices). */
function weightsOf(config: ModelConfig): WeightMap {
  const w = initWeights(config, 1);
  for (const [name, t] of w)
    for (let i = 0; i < t.data.length; i++)
      t.data[i] = (t.data[i] as number) * 2 + (name.includes('norm') ? 0.1 * Math.sin(i + 1) : 0);
  return w;
}

async function referenceLoss(
  config: ModelConfig,
  weights: WeightMap,
  b: ReturnType<typeof batch>,
): Promise<number> {
  const logits = await ReferenceModel.create(config, { weights }).forward(b.inputs, { batch: B, seq: T });
  let s = 0;
  for (let i = 0; i < B * T; i++)
    s += crossEntropy(logits.data, i * config.vocabSize, config.vocabSize, Number(b.targets[i]));
  return s / (B * T);
}

/** Runs the graph of `config` once per entry of `weightSets` (one session), with the dropout keep-`masks`. */
async function runGraphs(
  config: ModelConfig,
  weightSets: readonly WeightMap[],
  b: ReturnType<typeof batch>,
  mode: 'train' | 'eval',
  masks: readonly Uint8Array[] = [],
) {
  const graph = buildTrainingGraph(config, { batch: B, seq: T, mode });
  const ort = await loadOrt();
  const session = await ort.InferenceSession.create(graph.model, {
    intraOpNumThreads: 1,
    externalData: graph.externalData.map((e) => ({ path: e.path, data: e.data })),
  });
  const outs = [];
  for (const weights of weightSets) {
    const feeds: Record<string, Tensor> = {
      [TRAINING_IO.inputIds]: new ort.Tensor('int32', b.inputs, [B, T]),
      [TRAINING_IO.targets]: new ort.Tensor('int64', b.targets, [B * T, 1]),
      [TRAINING_IO.lossWeights]: new ort.Tensor('float32', b.weights, [B * T, 1]),
    };
    for (const [name, t] of weights) feeds[name] = new ort.Tensor('float32', t.data, t.dims);
    graph.dropoutMasks.forEach((name, i) => {
      feeds[name] = new ort.Tensor('uint8', masks[i] as Uint8Array, [B, T, config.dim]);
    });
    outs.push(await session.run(feeds));
  }
  await session.release();
  return outs;
}

async function runGraph(
  config: ModelConfig,
  weights: WeightMap,
  b: ReturnType<typeof batch>,
  mode: 'train' | 'eval',
) {
  return (await runGraphs(config, [weights], b, mode))[0] as Awaited<ReturnType<typeof runGraphs>>[number];
}

describe('the training graph', () => {
  it.each(ARCHITECTURES)(
    '%s: loss = the reference cross-entropy, gradients = finite differences',
    async (_name, over) => {
      const config = ModelConfig.preset('tiny', over);
      const weights = weightsOf(config);
      const b = batch(config);
      const out = await runGraph(config, weights, b, 'train');
      const loss = (out[TRAINING_IO.loss] as Tensor).data[0] as number;
      expect(Math.abs(loss - (await referenceLoss(config, weights, b)))).toBeLessThan(1e-5);
      // Central differences of the float64 reference loss (its float32 logits add ≈ 3·10⁻⁹ of noise: the floor).
      // A perturbation that crosses a ReLU kink shows as a second difference far from 0 (a smooth loss's is O(h²)):
      // such a draw of coordinates is replaced by the next one.
      const h = 3e-3;
      const mid = await referenceLoss(config, weights, b);
      let worst = 0;
      const checked: string[] = [];
      for (const [name, tensor] of weights) {
        const grad = out[gradientName(name)]?.data as Float32Array;
        const orig = tensor.data.slice();
        for (let draw = 0; draw < 5; draw++) {
          const at = Array.from({ length: 6 }, (_, j) =>
            Math.floor(Math.abs(Math.sin(j * 78.233 + draw * 12.9898 + name.length)) * tensor.data.length),
          );
          const perturbed = async (sign: number): Promise<{ loss: number; data: Float32Array }> => {
            at.forEach((k, j) => {
              tensor.data[k] = (orig[k] as number) + sign * (j % 2 ? h : -h);
            });
            const data = tensor.data.slice();
            const loss = await referenceLoss(config, weights, b);
            tensor.data.set(orig);
            return { loss, data };
          };
          const up = await perturbed(1);
          const down = await perturbed(-1);
          const numeric = up.loss - down.loss;
          if (Math.abs(up.loss + down.loss - 2 * mid) > 0.02 * Math.abs(numeric) + 3e-9) continue;
          let analytic = 0;
          for (const k of new Set(at))
            analytic += (grad[k] as number) * ((up.data[k] as number) - (down.data[k] as number));
          const rel = Math.abs(analytic - numeric) / (Math.abs(numeric) + Math.abs(analytic) + 1e-8);
          worst = Math.max(worst, rel);
          checked.push(name);
          break;
        }
      }
      // ONNX Runtime's float32 gradients of small elements (sums with cancellation) are good to about 1%.
      expect(worst).toBeLessThan(2e-2);
      // Every weight tensor was checked (none skipped for five draws crossing kinks).
      expect(checked).toEqual([...weights.keys()]);
    },
  );

  it("with dropout (fixed keep-masks): along each weight's gradient, the loss changes as the gradient says", async () => {
    // The reference model has no dropout, so the check is the graph's own float32 loss: central differences along
    // g_w / |g_w| for each weight w, with a step large enough that the change (≥ 2·10⁻³) dwarfs float32 rounding.
    const config = ModelConfig.preset('tiny', { dropout: 0.25 });
    const weights = weightsOf(config);
    const b = batch(config);
    const masks = dropoutMasks(5, B * T * config.dim, { dropout: 0.25, seed: 1 }, 0);
    const [out] = (await runGraphs(config, [weights], b, 'train', masks)) as Record<string, Tensor>[];
    const lossOf = (o: Record<string, Tensor> | undefined): number =>
      o?.[TRAINING_IO.loss]?.data[0] as number;
    const moved = (name: string, by: number, direction: Float32Array): WeightMap => {
      const copy = new Map([...weights].map(([n, t]) => [n, { dims: t.dims, data: t.data.slice() }]));
      const data = copy.get(name)?.data as Float32Array;
      for (let i = 0; i < data.length; i++) data[i] = (data[i] as number) + by * (direction[i] as number);
      return copy;
    };
    let worst = 0;
    for (const name of weights.keys()) {
      const g = out?.[gradientName(name)]?.data as Float32Array;
      const norm = Math.hypot(...g);
      const unit = g.map((v) => v / norm);
      const h = Math.min(0.1, 1e-2 / norm);
      const [up, down] = await runGraphs(
        config,
        [moved(name, h, unit), moved(name, -h, unit)],
        b,
        'train',
        masks,
      );
      const numeric = (lossOf(up) - lossOf(down)) / (2 * h);
      worst = Math.max(worst, Math.abs(numeric - norm) / norm);
    }
    expect(worst).toBeLessThan(2e-2);
    // The masks matter: without them (all kept) the loss differs.
    const [kept] = await runGraphs(
      config,
      [weights],
      b,
      'train',
      masks.map((m) => m.map(() => 1)),
    );
    expect(lossOf(kept)).not.toBeCloseTo(lossOf(out), 3);
  });

  it('eval mode outputs the summed loss only', async () => {
    const config = ModelConfig.preset('tiny');
    const weights = weightsOf(config);
    const b = { ...batch(config), weights: new Float32Array(B * T).fill(1) };
    const out = await runGraph(config, weights, b, 'eval');
    expect(Object.keys(out)).toEqual([TRAINING_IO.loss]);
    const sum = (out[TRAINING_IO.loss] as Tensor).data[0] as number;
    expect(sum / (B * T)).toBeCloseTo(await referenceLoss(config, weights, b), 4);
  });

  it('takes every weight as an input (a session serves every step) and dropout masks only with dropout', () => {
    const config = ModelConfig.preset('tiny');
    const plain = buildTrainingGraph(config, { batch: 1, seq: 4, mode: 'train' });
    expect(plain.weights).toEqual([...initWeights(config, 0).keys()]);
    expect(plain.dropoutMasks).toEqual([]);
    const dropped = buildTrainingGraph(ModelConfig.preset('tiny', { dropout: 0.1 }), {
      batch: 1,
      seq: 4,
      mode: 'train',
    });
    expect(dropped.dropoutMasks).toEqual(['dropout.0', 'dropout.1', 'dropout.2', 'dropout.3', 'dropout.4']);
    expect(
      buildTrainingGraph(ModelConfig.preset('tiny', { dropout: 0.1 }), { batch: 1, seq: 4, mode: 'eval' })
        .dropoutMasks,
    ).toEqual([]);
  });

  it('masks the attention pattern of the config, one row block per query head of a KV group', () => {
    const config = ModelConfig.preset('tiny', { kvHeads: 2, slidingWindow: true, contextWindow: 1 });
    const mask = trainingAttentionMask(config, 3);
    const visible = Array.from(mask, (v) => (v === 0 ? 1 : 0));
    // Causal with a window of 1: q sees q − 1 and q. Two query heads per KV head: the 3 × 3 block twice.
    const block = [1, 0, 0, 1, 1, 0, 0, 1, 1];
    expect(visible).toEqual([...block, ...block]);
    const bidirectional = trainingAttentionMask(ModelConfig.preset('tiny', { paradigm: 'diffusion' }), 2);
    expect(Array.from(bidirectional)).toEqual([0, 0, 0, 0]);
  });

  it('refuses a mixture of experts and a sequence longer than the context', () => {
    const moe = ModelConfig.preset('tiny', { ffn: 'moe' });
    expect(trainingBlocker(moe)).toMatch(/--config/);
    expect(thrown(() => buildTrainingGraph(moe, { batch: 1, seq: 4, mode: 'train' })).code).toBe(
      'UNSUPPORTED',
    );
    const long = thrown(() =>
      buildTrainingGraph(ModelConfig.preset('tiny'), { batch: 1, seq: 129, mode: 'train' }),
    );
    expect(long.code).toBe('INVALID_OPTION');
    expect(long.message).toMatch(/--seq-len 128/);
  });
});
