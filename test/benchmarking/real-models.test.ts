/**
 * Real runs of the built-in tasks: the ONNX Runtime model and the pure-TypeScript reference model, both on the
 * `tiny` preset with a short config (seconds on 2 cores).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { BenchmarkConfig } from '../../src/benchmarking/config.js';
import { BenchmarkSuite } from '../../src/benchmarking/suite.js';
import { ModelConfig } from '../../src/models/model-config.js';
import { createModel, type OnnxModel } from '../../src/models/onnx/onnx-model.js';
import { ARParadigm } from '../../src/models/paradigms/ar-paradigm.js';
import { DiffusionParadigm } from '../../src/models/paradigms/diffusion-paradigm.js';
import { ReferenceModel } from '../../src/models/reference-model.js';
import {
  expectConsistentLatency,
  expectConsistentPerplexity,
  expectConsistentThroughput,
} from './report-relations.js';

const config = BenchmarkConfig.parse({
  seqLens: [16, 64, 256], // 256 > tiny's maxContext 128: must become a failed cell, not a dead task
  batchSizes: [1, 4],
  nWarmup: 2,
  nMeasure: 5,
  minWarmupMs: 0,
  genTokens: 8,
  diffusionSteps: 4,
  evalBatches: 3,
  evalSeqLen: 32,
  evalBatchSize: 2,
});

describe('built-in tasks on real models (tiny preset)', () => {
  const models: OnnxModel[] = [];
  afterAll(async () => {
    for (const m of models) await m.dispose();
  });

  it('ONNX ar: the default suite completes every task with plausible numbers', async () => {
    const model = await createModel('tiny', { threads: 1 });
    models.push(model);
    const report = await BenchmarkSuite.default(config).run(new ARParadigm(model.config), model, {
      jsonl: false,
    });
    expect(report.results.map((r) => `${r.task}:${r.status}`)).toEqual([
      'throughput:completed',
      'latency:completed',
      'perplexity:completed',
    ]);
    const [tp, , ppl] = report.results.map((r) => r.metrics);
    expect(Object.keys(tp ?? {}).filter((k) => k.startsWith('tps_'))).toEqual([
      'tps_seq16',
      'tps_seq64',
      'tps_bs1',
      'tps_bs4',
    ]);
    expect(String(report.results[0]?.meta?.['failed_cells'])).toMatch(
      /seq=256,batch=1 failed: seq_len 256 exceeds/,
    );
    // Every figure recomputed from the others and from the analytical FLOPs of its cell.
    expectConsistentThroughput(report, config, model.config);
    expectConsistentLatency(report, config, model.config);
    expectConsistentPerplexity(report, config);
    // Random weights, byte tokenizer on Brown text: the loss is finite and near ln(256).
    expect(ppl?.['eval_loss']).toBeGreaterThan(4);
    expect(ppl?.['eval_loss']).toBeLessThan(8);
    expect(ppl?.['bits_per_byte']).toBeCloseTo((ppl?.['eval_loss'] ?? 0) / Math.LN2, 1); // ASCII: ~1 byte/token
    expect(report.modelMeta).toMatchObject({ model: 'tiny', paradigm: 'ar', dim: 32 });
    expect(report.environment?.engine).toMatch(/onnxruntime-node/);
  });

  it('ONNX diffusion: latency says decode is not applicable and reports denoising passes', async () => {
    const model = await createModel(ModelConfig.preset('tiny', { paradigm: 'diffusion' }), { threads: 1 });
    models.push(model);
    const suite = BenchmarkSuite.default(config);
    const report = await suite.run(new DiffusionParadigm(model.config), model, { jsonl: false });
    const lat = report.results[1];
    expect(lat?.status).toBe('completed');
    expect(lat?.meta?.['decode']).toBe('not applicable (diffusion has no KV-cache decode)');
    expect(lat?.metrics['gen_e2e_ms']).toBeGreaterThan(lat?.metrics['diffusion_step_mean_ms'] ?? 0);
    expect(report.results[2]?.status).toBe('completed');
  });

  it('reference model: throughput and achieved FLOP/s on the pure-TypeScript oracle', async () => {
    const model = ReferenceModel.create(ModelConfig.preset('tiny'));
    const quick = { ...config, seqLens: [8, 16], batchSizes: [1, 2], nMeasure: 3 };
    const report = await BenchmarkSuite.throughputOnly(quick).run(new ARParadigm(model.config), model, {
      jsonl: false,
    });
    expect(report.results[0]?.status).toBe('completed');
    expectConsistentThroughput(report, quick, model.config);
  });
});
