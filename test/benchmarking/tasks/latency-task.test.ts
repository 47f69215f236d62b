import { describe, expect, it } from 'vitest';
import { BenchmarkConfig } from '../../../src/benchmarking/config.js';
import type { CellRecord } from '../../../src/benchmarking/task.js';
import { LatencyTask } from '../../../src/benchmarking/tasks/latency-task.js';
import { ARParadigm } from '../../../src/models/paradigms/ar-paradigm.js';
import { DiffusionParadigm } from '../../../src/models/paradigms/diffusion-paradigm.js';
import { Rng } from '../../../src/rng.js';
import { contextFor, FakeModel } from '../fake-model.js';

const config = BenchmarkConfig.parse({
  seqLens: [8, 16, 128],
  nWarmup: 1,
  nMeasure: 3,
  minWarmupMs: 0,
  genTokens: 4,
  diffusionSteps: 5,
});
const ms = (tokens: number): number => 1 + 0.01 * tokens; // fake cost per call

describe('LatencyTask', () => {
  it('ar: prefill at the prompt length, real KV decode, TTFT/TPOT from a timed generation', async () => {
    const model = new FakeModel(); // maxContext 64 → prompt = 16 (128 does not fit)
    const cells: CellRecord[] = [];
    const r = await new LatencyTask().run(
      new ARParadigm(model.config),
      model,
      config,
      new Rng(0),
      contextFor(model, cells),
    );
    expect(r.metrics['prefill_mean_ms']).toBeCloseTo(ms(16), 9);
    expect(r.metrics['prefill_p50_ms']).toBeCloseTo(ms(16), 9);
    expect(r.metrics['prefill_p99_ms']).toBeCloseTo(ms(16), 9);
    expect(r.metrics['decode_mean_ms']).toBeCloseTo(ms(1), 9);
    expect(r.metrics['decode_tps']).toBeCloseTo(1000 / ms(1), 6);
    expect(r.metrics['ttft_ms']).toBeCloseTo(ms(16), 9); // prefill of the 16-token prompt
    expect(r.metrics['tpot_ms']).toBeCloseTo(ms(1), 9); // (e2e − ttft) / (4 − 1)
    expect(r.metrics['e2e_ms']).toBeCloseTo(ms(16) + 3 * ms(1), 9);
    expect(cells.map((c) => c.cell)).toEqual(['prefill@16', 'decode@16', 'generate@16+4']);
    // One TTFT, TPOT and E2E per timed generation, rounded to 1 µs, so a comparison judges them from samples.
    const round = (x: number) => Math.round(x * 1000) / 1000;
    expect(cells[2]?.metricSamples).toEqual({
      ttft_ms: [round(ms(16)), round(ms(16)), round(ms(16))],
      tpot_ms: [round(ms(1)), round(ms(1)), round(ms(1))],
      e2e_ms: Array(3).fill(round(ms(16) + 3 * ms(1))),
    });
    expect(cells[0]?.metricSamples).toBeUndefined();
    // Every call of the run, in order: the prefill cell (1 warm-up + 3 timed forwards over the prompt), then the
    // decode cell: an untimed prefill of the 16-token context, one warm-up step, a fresh untimed prefill, and the
    // 3 timed steps — real cache steps at context 16, 17, 18, never a cache-less forward — then the generations
    // (1 warm-up + 3 timed), each one prefill and genTokens − 1 = 3 cache steps.
    const generation = ['prefill16', 'decode@16', 'decode@17', 'decode@18'];
    expect(
      model.calls.map((c) => (c.kind === 'decode' ? `decode@${c.context}` : `${c.kind}${c.seq}`)),
    ).toEqual([
      ...['forward16', 'forward16', 'forward16', 'forward16'],
      ...['prefill16', 'decode@16', 'prefill16', 'decode@16', 'decode@17', 'decode@18'],
      ...generation,
      ...generation,
      ...generation,
      ...generation,
    ]);
    expect(model.calls.every((c) => c.batch === 1)).toBe(true);
    // The timed steps decode one token over the cache the untimed prefill just built.
    const [, , refill, ...timed] = model.calls.slice(4, 10);
    expect(refill?.tokens.length).toBe(16);
    expect(timed.map((c) => c.tokens.length)).toEqual([1, 1, 1]);
    expect(r.meta?.['profiling_cell']).toBe('prefill@16');
    expect(r.flops?.seqLen).toBe(16);
    expect(r.meta?.['decode']).toBeUndefined();
  });

  it('ar: caps the decode context so the timed steps fit in maxContext', async () => {
    const model = new FakeModel({ config: { maxContext: 16 } });
    const r = await new LatencyTask().run(
      new ARParadigm(model.config),
      model,
      config,
      new Rng(0),
      contextFor(model, []),
    );
    expect(r.meta?.['decode_context']).toBe(13); // 16 − nMeasure
    expect(r.metrics['decode_mean_ms']).toBeCloseTo(ms(1), 9);
  });

  it('diffusion: denoising pass and generation latency, and says why decode is absent', async () => {
    const model = new FakeModel({ config: { paradigm: 'diffusion' } });
    const cells: CellRecord[] = [];
    const r = await new LatencyTask().run(
      new DiffusionParadigm(model.config),
      model,
      config,
      new Rng(0),
      contextFor(model, cells),
    );
    expect(r.metrics['decode_mean_ms']).toBeUndefined();
    expect(r.meta?.['decode']).toBe('not applicable (diffusion has no KV-cache decode)');
    expect(r.metrics['diffusion_step_mean_ms']).toBeCloseTo(ms(20), 9); // canvas = 16 prompt + 4 generated
    expect(r.metrics['gen_e2e_ms']).toBeCloseTo(5 * ms(20), 9); // diffusionSteps full passes
    expect(cells.map((c) => c.cell)).toEqual(['prefill@16', 'diffusion_step@20', 'generate@16+4x5']);
  });

  it('ar: generations stop at half the cell budget instead of being skipped', async () => {
    const model = new FakeModel();
    const cfg = { ...config, nMeasure: 10, maxCellMs: 20 }; // one generation = 1.16 + 3 × 1.01 = 4.19 ms
    const cells: CellRecord[] = [];
    const r = await new LatencyTask().run(
      new ARParadigm(model.config),
      model,
      cfg,
      new Rng(0),
      contextFor(model, cells),
    );
    expect(cells[2]?.status).toBe('completed');
    expect(r.meta?.['gen_samples']).toBe(2); // warm-up 4.19 ms, then timed calls until ≥ 10 ms have passed
    expect(r.metrics['ttft_ms']).toBeCloseTo(ms(16), 9);
  });

  it('fails clearly when no sequence length fits', async () => {
    const model = new FakeModel({ config: { maxContext: 4 } });
    await expect(
      new LatencyTask().run(new ARParadigm(model.config), model, config, new Rng(0), contextFor(model, [])),
    ).rejects.toThrow(
      /no sequence length in --seq-lens \(seqLens: 8, 16, 128\) fits the model's maxContext 4/,
    );
  });
});
