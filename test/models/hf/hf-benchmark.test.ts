/**
 * The three built-in benchmark tasks on tiny Hugging Face folders loaded with loadHfModel (seconds on 2 cores):
 * the HF loader is a complete Model for the suite, and PerplexityTask tokenizes with the folder's tokenizer.json.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { BenchmarkConfig } from '../../../src/benchmarking/config.js';
import { BenchmarkSuite } from '../../../src/benchmarking/suite.js';
import { LatencyTask } from '../../../src/benchmarking/tasks/latency-task.js';
import { PerplexityTask } from '../../../src/benchmarking/tasks/perplexity-task.js';
import { ThroughputTask } from '../../../src/benchmarking/tasks/throughput-task.js';
import { loadHfModel } from '../../../src/models/hf/hf-model.js';
import { ARParadigm } from '../../../src/models/paradigms/ar-paradigm.js';
import { countFlops } from '../../../src/profiling/index.js';
import {
  expectConsistentLatency,
  expectConsistentPerplexity,
  expectConsistentThroughput,
} from '../../benchmarking/report-relations.js';
import { type TinyHfModel, type TinyLayout, writeTinyHfModel } from './fixtures.js';

const config = BenchmarkConfig.parse({
  seqLens: [16, 32],
  batchSizes: [1, 2],
  nWarmup: 1,
  nMeasure: 3,
  minWarmupMs: 0,
  genTokens: 6,
  evalBatches: 2,
  evalSeqLen: 24,
  evalBatchSize: 2,
});

/**
 * Forward FLOPs at T = 16, B = 1 of the two tiny folders (D = 32, 2 blocks, 4 heads of 8, V = 256), by hand:
 * - gpt2: Q, K, V, O 4 · 2·T·D·D = 131 072 + QKᵀ and AV 2 · 2·T·T·D = 32 768 per block; MLP (F = 4D = 128)
 *   2 · 2·T·D·F = 262 144 per block; LM head 2·T·D·V = 262 144.
 * - llama: 2 KV heads, so K and V are 2·T·D·16 = 16 384 each, Q and O 32 768 each → 98 304 + 32 768 per block;
 *   SwiGLU (F = 2.75 · 32 = 88) 3 · 2·T·D·F = 270 336 per block; untied head 262 144.
 * Order: [attention, ffn, embedding (LM head), total].
 */
const HAND_COUNT: Record<TinyLayout, number[]> = {
  gpt2: [2 * (131_072 + 32_768), 2 * 262_144, 262_144, 2 * (131_072 + 32_768 + 262_144) + 262_144],
  llama: [2 * (98_304 + 32_768), 2 * 270_336, 262_144, 2 * (98_304 + 32_768 + 270_336) + 262_144],
};

const made: TinyHfModel[] = [];
afterAll(() => {
  for (const f of made) f.cleanup();
});

describe.each<TinyLayout>(['gpt2', 'llama'])('%s folder: throughput, latency and perplexity', (layout) => {
  test('every task completes with plausible numbers', async () => {
    const fixture = writeTinyHfModel(layout);
    made.push(fixture);
    const model = await loadHfModel(fixture.dir, { threads: 1 });
    try {
      // Perplexity on a short English text (tokenizing all of Brown with tokenizer.json takes most of a minute).
      const text =
        'The quick brown fox jumps over the lazy dog. Pack my box with five dozen liquor jugs. '.repeat(8);
      const tasks = [
        new ThroughputTask(),
        new LatencyTask(),
        new PerplexityTask({ dataSource: { text, name: 'fox' } }),
      ];
      const report = await new BenchmarkSuite({ tasks, config }).run(new ARParadigm(model.config), model, {
        jsonl: false,
      });
      expect(report.results.map((r) => `${r.task}:${r.status}`)).toEqual([
        'throughput:completed',
        'latency:completed',
        'perplexity:completed',
      ]);
      const ppl = report.results[2]?.metrics;
      expectConsistentThroughput(report, config, model.config);
      expectConsistentLatency(report, config, model.config);
      expectConsistentPerplexity(report, config);
      // Random weights and the byte-level tokenizer.json on English text: loss near ln(256) ≈ 5.5 nats.
      expect(report.results[2]?.meta?.['tokenizer']).toMatch(/^hf:/); // the folder's tokenizer.json
      expect(ppl?.['eval_loss']).toBeGreaterThan(4);
      expect(ppl?.['eval_loss']).toBeLessThan(8);
      expect(report.modelMeta).toMatchObject({ model: model.info.name, paradigm: 'ar', dim: 32 });
      // The FLOPs of the loaded folder's config, counted by hand for T = 16 tokens (see HAND_COUNT).
      const flops = countFlops(model.config, { seqLen: 16, batchSize: 1 });
      expect([flops.attention, flops.ffn, flops.embedding, flops.total]).toEqual(HAND_COUNT[layout]);
    } finally {
      await model.dispose();
    }
  });
});
