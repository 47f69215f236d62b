import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BenchmarkConfig } from '../../../src/benchmarking/config.js';
import { describeMetric } from '../../../src/benchmarking/metric-schema.js';
import {
  PROFILE_METRICS,
  ProfileTask,
  profileBreakdowns,
  profileColumn,
} from '../../../src/benchmarking/tasks/profile-task.js';
import { ARParadigm } from '../../../src/models/paradigms/ar-paradigm.js';
import { DiffusionParadigm } from '../../../src/models/paradigms/diffusion-paradigm.js';
import { Rng } from '../../../src/rng.js';
import { fixture } from '../../visualization/golden.js';
import { FakeModel } from '../fake-model.js';

const trace: unknown = JSON.parse(readFileSync(fixture('ort-profile-small.json'), 'utf8'));
const config = BenchmarkConfig.parse({ seqLens: [8, 16, 64, 128] });

describe('ProfileTask', () => {
  it('ar: profiles a prefill at the longest prompt that leaves room for a decode step (known answer)', async () => {
    const model = new FakeModel(); // maxContext 64 → prompt 16 (64 leaves no room for the decode token)
    const calls: { prompt: number; decode: number | undefined }[] = [];
    const task = new ProfileTask({
      profiler: async ({ promptIds, decodeId }) => {
        calls.push({ prompt: promptIds.length, decode: decodeId?.length });
        return trace;
      },
    });
    const r = await task.run(new ARParadigm(model.config), model, config, new Rng(0));
    expect(calls).toEqual([{ prompt: 16, decode: 1 }]);
    expect(r.meta).toEqual({ profile_prompt: 16 });
    expect(r.metrics[profileColumn('prefill', 'matmul')]).toBeCloseTo(0.4, 12);
    expect(r.metrics[profileColumn('prefill', 'attention')]).toBeCloseTo(0.15, 12);
    expect(r.metrics[profileColumn('prefill', 'kernels')]).toBeCloseTo(0.8, 12);
    expect(r.metrics[profileColumn('prefill', 'run')]).toBe(1);
    expect(r.metrics[profileColumn('decode', 'matmul')]).toBe(0.2);
    expect(r.metrics[profileColumn('decode', 'run')]).toBe(0.5);
    expect(Object.keys(r.metrics)).toHaveLength(14);
    const breakdowns = profileBreakdowns(r.metrics);
    expect(breakdowns.map((b) => b.phase)).toEqual(['prefill', 'decode']);
    expect(breakdowns[1]?.breakdown.categoryMs).toEqual({
      matmul: 0.2,
      attention: 0,
      norm: 0.04,
      softmax: 0,
      other: 0.06,
    });
  });

  it('diffusion: the prefill only (the last run of the trace), no decode token', async () => {
    const model = new FakeModel({ config: { paradigm: 'diffusion' } });
    let decode: Int32Array | undefined = Int32Array.of(1);
    const r = await new ProfileTask({
      profiler: async (calls) => {
        decode = calls.decodeId;
        return trace;
      },
    }).run(new DiffusionParadigm(model.config), model, config, new Rng(0));
    expect(decode).toBeUndefined();
    expect(r.metrics[profileColumn('prefill', 'run')]).toBe(0.5);
    expect(r.metrics[profileColumn('decode', 'run')]).toBeUndefined();
  });

  it('without a profiler: no values, and meta says why', async () => {
    const model = new FakeModel();
    const r = await new ProfileTask({ profiler: { unavailable: 'profile unavailable: no profiler' } }).run(
      new ARParadigm(model.config),
      model,
      config,
      new Rng(0),
    );
    expect(r).toEqual({
      task: 'profile',
      metrics: {},
      meta: { profile_unavailable: 'profile unavailable: no profiler' },
    });
  });

  it('a trace with too few runs is an error naming the count', async () => {
    const model = new FakeModel();
    const one = (trace as { name: string }[]).filter((_, i) => i < 11);
    await expect(
      new ProfileTask({ profiler: async () => one }).run(
        new ARParadigm(model.config),
        model,
        config,
        new Rng(0),
      ),
    ).rejects.toThrow(/1 model_run event/);
  });

  it('declares a unit and a definition for every column it writes', () => {
    for (const phase of ['prefill', 'decode'] as const)
      for (const part of ['matmul', 'attention', 'norm', 'softmax', 'other', 'kernels', 'run'] as const)
        expect(describeMetric(profileColumn(phase, part), PROFILE_METRICS)?.unit).toBe('ms');
  });
});
