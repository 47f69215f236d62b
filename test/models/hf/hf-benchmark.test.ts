/**
 * The three built-in benchmark tasks on tiny Hugging Face folders loaded with loadHfModel (seconds on 2 cores):
 * the HF loader is a complete Model for the suite, and PerplexityTask tokenizes with the folder's tokenizer.json.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { BenchmarkConfig } from '../../../src/benchmarking/config.js';
import { BenchmarkSuite } from '../../../src/benchmarking/suite.js';
import { loadHfModel } from '../../../src/models/hf/hf-model.js';
import { ARParadigm } from '../../../src/models/paradigms/ar-paradigm.js';
import { countFlops } from '../../../src/profiling/index.js';
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
      const report = await BenchmarkSuite.default(config).run(new ARParadigm(model.config), model, {
        jsonl: false,
      });
      expect(report.results.map((r) => `${r.task}:${r.status}`)).toEqual([
        'throughput:completed',
        'latency:completed',
        'perplexity:completed',
      ]);
      const [tp, lat, ppl] = report.results.map((r) => r.metrics);
      expect(tp?.['tps_seq16']).toBeGreaterThan(0);
      expect(tp?.['peak_tps']).toBeGreaterThan(0);
      expect(lat?.['decode_mean_ms']).toBeGreaterThan(0);
      expect(lat?.['ttft_ms']).toBeGreaterThan(0);
      // Random weights and the byte-level tokenizer.json on English text: loss near ln(256) ≈ 5.5 nats.
      expect(ppl?.['eval_loss']).toBeGreaterThan(4);
      expect(ppl?.['eval_loss']).toBeLessThan(8);
      expect(ppl?.['tokens_scored']).toBe(2 * 2 * 24);
      expect(report.modelMeta).toMatchObject({ model: model.info.name, paradigm: 'ar', dim: 32 });
      expect(countFlops(model.config, { seqLen: 16, batchSize: 1 }).total).toBeGreaterThan(0);
    } finally {
      await model.dispose();
    }
  });
});
