import { describe, expect, it } from 'vitest';
import { BenchmarkConfig } from '../../../src/benchmarking/config.js';
import type { CellRecord } from '../../../src/benchmarking/task.js';
import { ThroughputTask } from '../../../src/benchmarking/tasks/throughput-task.js';
import { ARParadigm } from '../../../src/models/paradigms/ar-paradigm.js';
import { countFlops } from '../../../src/profiling/index.js';
import { Rng } from '../../../src/rng.js';
import { contextFor, FakeModel } from '../fake-model.js';

const config = BenchmarkConfig.parse({
  seqLens: [8, 16, 100],
  batchSizes: [1, 2, 4, 8],
  nWarmup: 2,
  nMeasure: 4,
  minWarmupMs: 0,
});

describe('ThroughputTask', () => {
  // Fake cost: 1 ms + 10 µs per token per call, on a manual clock → exact throughputs.
  const ms = (tokens: number): number => 1 + 0.01 * tokens;

  it('measures the seq and batch sweeps exactly, records failed cells and goes on', async () => {
    const model = new FakeModel({ maxTokensPerCall: 20 });
    const cells: CellRecord[] = [];
    const r = await new ThroughputTask().run(
      new ARParadigm(model.config),
      model,
      config,
      new Rng(0),
      contextFor(model, cells),
    );
    expect(r.metrics['tps_seq8']).toBeCloseTo(8 / (ms(8) / 1000), 6);
    expect(r.metrics['tps_seq16']).toBeCloseTo(16 / (ms(16) / 1000), 6);
    expect(r.metrics['tps_seq100']).toBeUndefined(); // 100 > maxContext 64: a failed cell, not a dead task
    expect(r.metrics['tps_bs1']).toBe(r.metrics['tps_seq8']); // same cell (batch 1 at seqLens[0])
    expect(r.metrics['tps_bs2']).toBeCloseTo(16 / (ms(16) / 1000), 6);
    expect(r.metrics['tps_bs4']).toBeUndefined(); // 32 tokens: simulated out-of-memory
    const flops8 = countFlops(model.config, { seqLen: 8, batchSize: 1 }).total;
    expect(r.metrics['gflops_per_s_seq8']).toBeCloseTo(flops8 / 1e9 / (ms(8) / 1000), 9);
    expect(r.metrics['peak_tps']).toBeCloseTo(16 / (ms(16) / 1000), 6);
    // Cells: seq 8, 16, 100 (failed), batch 2, 4 (failed), 8 (skipped after 4 failed).
    expect(cells.map((c) => `${c.cell}:${c.status}`)).toEqual([
      'seq=8,batch=1:completed',
      'seq=16,batch=1:completed',
      'seq=100,batch=1:failed',
      'seq=8,batch=2:completed',
      'seq=8,batch=4:failed',
      'seq=8,batch=8:skipped',
    ]);
    expect(cells[2]?.error).toMatch(/exceeds the model's maxContext 64/);
    expect(cells[4]?.error).toMatch(/out of memory/);
    expect(String(r.meta?.['failed_cells'])).toMatch(/seq=100,batch=1 failed/);
    // profiling and flops describe the same stated cell.
    expect(r.meta?.['profiling_cell']).toBe('seq=16,batch=1');
    expect(r.meta?.['flops_shape']).toBe('seq=16,batch=1');
    expect(r.flops?.seqLen).toBe(16);
    expect(r.flops?.batchSize).toBe(1);
    expect(r.profiling?.meanMs).toBeCloseTo(ms(16), 9);
    expect(r.profiling?.nSamples).toBe(4);
  });

  it('feeds each cell fresh ids drawn from the task rng, the same ids to every call of a cell, and warms up by count', async () => {
    const model = new FakeModel({ config: { vocabSize: 50 } });
    const cfg = BenchmarkConfig.parse({
      seqLens: [8, 12],
      batchSizes: [1, 3],
      nWarmup: 3,
      nMeasure: 5,
      minWarmupMs: 0,
    });
    await new ThroughputTask().run(
      new ARParadigm(model.config),
      model,
      cfg,
      new Rng(7),
      contextFor(model, []),
    );
    // Cells seq=8 batch=1, seq=12 batch=1, seq=8 batch=3: 3 warm-up + 5 timed calls each.
    expect(model.calls.map((c) => `${c.kind} ${c.batch}x${c.seq}`)).toEqual([
      ...Array<string>(8).fill('forward 1x8'),
      ...Array<string>(8).fill('forward 1x12'),
      ...Array<string>(8).fill('forward 3x8'),
    ]);
    const expected = new Rng(7);
    const inputs = [expected.integers(50, 8), expected.integers(50, 12), expected.integers(50, 24)];
    model.calls.forEach((c, i) => {
      expect(c.tokens, `call ${i}`).toEqual(inputs[Math.floor(i / 8)]);
    });
    // The draws are real random ids over the vocabulary, not a constant.
    expect(new Set(inputs[2]).size).toBeGreaterThan(10);
  });

  it('warms up by time as well as by count', async () => {
    const model = new FakeModel(); // 1.08 ms per call at seq 8
    const cfg = BenchmarkConfig.parse({
      seqLens: [8],
      batchSizes: [1],
      nWarmup: 1,
      nMeasure: 2,
      minWarmupMs: 5,
    });
    await new ThroughputTask().run(
      new ARParadigm(model.config),
      model,
      cfg,
      new Rng(0),
      contextFor(model, []),
    );
    expect(model.calls.length).toBe(5 + 2); // ceil(5 / 1.08) = 5 warm-up calls, then 2 timed
  });

  it('skips a cell whose warm-up predicts it would exceed maxCellMs, and larger ones after it', async () => {
    const model = new FakeModel({ cost: { fixedNs: 0, perTokenNs: 1_000_000 } }); // 1 ms per token
    const cfg = BenchmarkConfig.parse({
      seqLens: [4, 32, 48],
      batchSizes: [1],
      nWarmup: 1,
      nMeasure: 4,
      minWarmupMs: 0,
      maxCellMs: 100,
    });
    const cells: CellRecord[] = [];
    const r = await new ThroughputTask().run(
      new ARParadigm(model.config),
      model,
      cfg,
      new Rng(0),
      contextFor(model, cells),
    );
    expect(cells.map((c) => c.status)).toEqual(['completed', 'skipped', 'skipped']);
    expect(cells[1]?.error).toMatch(/predicts 160 ms, over --max-cell-ms 100 \(maxCellMs\)/);
    expect(cells[2]?.error).toMatch(/seq=32,batch=1 of this sweep already failed/);
    expect(r.metrics['peak_tps']).toBeCloseTo(1000, 9);
  });

  it('fails the task when no cell completes', async () => {
    const model = new FakeModel();
    const cfg = BenchmarkConfig.parse({ seqLens: [100], batchSizes: [1], minWarmupMs: 0 });
    await expect(
      new ThroughputTask().run(new ARParadigm(model.config), model, cfg, new Rng(0), contextFor(model, [])),
    ).rejects.toThrow(/no cell completed: seq=100,batch=1 failed/);
  });
});
