/**
 * Perplexity known answer in the browser: a `tiny`-shaped ONNX model whose weights make it an exact bigram model
 * (blocks silenced by zero output projections, one-hot embeddings, the head holding log-probabilities) gives the
 * analytic perplexity of the bigram on a cyclic text, in the browser as on Node, through the real PerplexityTask.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BenchmarkConfig } from '../../../../src/benchmarking/config.js';
import { PerplexityTask } from '../../../../src/benchmarking/tasks/perplexity-task.js';
import { standaloneContext } from '../../../../src/benchmarking/tasks/task-context.js';
import {
  type BrowserModel,
  createBrowserModel,
} from '../../../../src/models/engines/browser/browser-model.js';
import { createModel, type Model, ModelConfig } from '../../../../src/models/index.js';
import { ARParadigm } from '../../../../src/models/paradigms/ar-paradigm.js';
import { initWeights, type WeightMap, type WeightTensor } from '../../../../src/models/weights.js';
import { Rng } from '../../../../src/rng.js';

const config = ModelConfig.parse({ ...ModelConfig.preset('tiny'), weightTying: false });
const V = config.vocabSize;
const D = config.dim;
// The cyclic text abcdabcd… (byte tokens 97–100) only uses a→b, b→c, c→d, d→a.
const NEXT: Readonly<Record<number, readonly [number, number]>> = {
  97: [98, 0.5],
  98: [99, 0.8],
  99: [100, 0.25],
  100: [97, 0.97],
};
const cycleLoss = -(Math.log(0.5) + Math.log(0.8) + Math.log(0.25) + Math.log(0.97)) / 4;

/**
 * Weights of an exact bigram: every block adds zero (zero attention output and MLP down projections), token t's
 * embedding is 100·e_slot(t) — RMSNorm turns it into √D·e_slot(t) (ε = 1e-5 changes it by ~2e-8) — and the head's
 * row slot(t) holds log P(· | t) / √D, so the logits are log P(· | t) exactly.
 */
function bigramWeights(): WeightMap {
  const weights = new Map<string, WeightTensor>(initWeights(config, 0));
  const zeros = (name: string): void => {
    const w = weights.get(name) as WeightTensor;
    weights.set(name, { dims: w.dims, data: new Float32Array(w.data.length) });
  };
  for (let i = 0; i < config.numBlocks; i++) {
    zeros(`blocks.${i}.attn.o.weight`);
    zeros(`blocks.${i}.mlp.down.weight`);
  }
  weights.set('norm_f.weight', { dims: [D], data: new Float32Array(D).fill(1) });
  const slot = (t: number): number => (NEXT[t] === undefined ? 4 : t - 97);
  const embed = new Float32Array(V * D);
  for (let t = 0; t < V; t++) embed[t * D + slot(t)] = 100;
  weights.set('embed.weight', { dims: [V, D], data: embed });
  const head = new Float32Array(D * V);
  for (const [t, [next, p]] of Object.entries(NEXT)) {
    for (let j = 0; j < V; j++)
      head[slot(Number(t)) * V + j] = Math.log(j === next ? p : (1 - p) / (V - 1)) / Math.sqrt(D);
  }
  weights.set('lm_head.weight', { dims: [D, V], data: head });
  return weights;
}

let node: Model;
let browser: BrowserModel;
beforeAll(async () => {
  const weights = bigramWeights();
  node = await createModel(config, { weights, threads: 1, name: 'bigram' });
  browser = await createBrowserModel(config, { weights, threads: 1, name: 'bigram' });
}, 120_000);
afterAll(async () => {
  await browser?.dispose();
  await node?.dispose();
});

describe('perplexity in the browser (analytic bigram)', () => {
  it('equals the analytic perplexity, and Node’s', async () => {
    const cfg = BenchmarkConfig.parse({ evalSeqLen: 16, evalBatchSize: 2, evalBatches: 5 });
    const run = (model: Model) =>
      new PerplexityTask({ dataSource: { text: 'abcd'.repeat(500), name: 'cycle' } }).run(
        new ARParadigm(model.config),
        model,
        cfg,
        new Rng(0),
        standaloneContext(),
      );
    const [n, b] = [await run(node), await run(browser)];
    // Windows of 16 targets cover each transition 4 times. Float32 logits of magnitude ≤ 6 carry ~5e-7 absolute
    // error, so the mean loss matches the float64 analytic value to well within 1e-5.
    expect(b.metrics['eval_loss']).toBeCloseTo(cycleLoss, 5);
    expect(n.metrics['eval_loss']).toBeCloseTo(cycleLoss, 5);
    expect(Math.abs((b.metrics['perplexity'] as number) - (n.metrics['perplexity'] as number))).toBeLessThan(
      1e-5,
    );
    expect(b.metrics['tokens_scored']).toBe(n.metrics['tokens_scored']);
  });
});
