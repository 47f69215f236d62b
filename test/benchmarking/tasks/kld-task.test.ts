import { describe, expect, it } from 'vitest';
import { BenchmarkConfig } from '../../../src/benchmarking/config.js';
import type { CellRecord } from '../../../src/benchmarking/task.js';
import { KldTask, kldDistribution } from '../../../src/benchmarking/tasks/kld-task.js';
import { messages } from '../../../src/messages.js';
import type { BatchShape, ModelInfo } from '../../../src/models/model.js';
import { createModel } from '../../../src/models/onnx/onnx-model.js';
import { ARParadigm } from '../../../src/models/paradigms/ar-paradigm.js';
import { DiffusionParadigm } from '../../../src/models/paradigms/diffusion-paradigm.js';
import { createManualClock } from '../../../src/profiling/index.js';
import { Rng } from '../../../src/rng.js';
import { charTokenizer, contextFor, FakeModel } from '../fake-model.js';

const small = BenchmarkConfig.parse({ evalSeqLen: 16, evalBatchSize: 2, evalBatches: 5 });
const cycle = { text: 'abcd'.repeat(500), name: 'cycle' };

/** A bigram row over 4 tokens: `next` has probability p, the others share the rest. */
const rowOf = (next: number, p: number): number[] => [0, 1, 2, 3].map((j) => (j === next ? p : (1 - p) / 3));
const P = [rowOf(1, 0.5), rowOf(2, 0.8), rowOf(3, 0.4), rowOf(0, 0.97)];
// Q disagrees with P on the arg-max of row c: 0.1 < (1 − 0.1)/3, so its arg-max is the first other token, a.
const Q = [rowOf(1, 0.6), rowOf(2, 0.5), rowOf(3, 0.1), rowOf(0, 0.9)];
const kl = (p: readonly number[], q: readonly number[]): number =>
  p.reduce((s, pi, i) => s + pi * Math.log(pi / (q[i] as number)), 0);
const argmax = (r: readonly number[]): number => r.indexOf(Math.max(...r));

describe('KldTask known answers', () => {
  it('a model against itself: KL exactly 0, agreement 1, ppl ratio 1', async () => {
    const model = new FakeModel({ tokenizer: charTokenizer('abcd'), bigram: P });
    const task = new KldTask({ reference: model, dataSource: cycle });
    const r = await task.run(new ARParadigm(model.config), model, small, new Rng(0), contextFor(model));
    for (const key of ['kld_mean', 'kld_median', 'kld_p99', 'kld_max']) expect(r.metrics[key]).toBe(0);
    expect(r.metrics['top1_agreement']).toBe(1);
    expect(r.metrics['ppl_ratio']).toBe(1);
    expect(r.metrics['tokens_scored']).toBe(5 * 2 * 16);
  });

  it('two bigram models: the analytic KL, percentiles, agreement and perplexity ratio (1e-6)', async () => {
    const reference = new FakeModel({ tokenizer: charTokenizer('abcd'), bigram: P });
    const model = new FakeModel({ tokenizer: charTokenizer('abcd'), bigram: Q });
    const cells: CellRecord[] = [];
    const r = await new KldTask({ reference, dataSource: cycle }).run(
      new ARParadigm(model.config),
      model,
      small,
      new Rng(0),
      contextFor(model, cells),
    );
    // Windows of 16 targets over the cycle hold each of the 4 rows exactly 4 times: 40 positions per row.
    const rows = [0, 1, 2, 3].map((a) => kl(P[a] as number[], Q[a] as number[]));
    const sorted = [...rows].sort((x, y) => x - y);
    expect(r.metrics['kld_mean']).toBeCloseTo(rows.reduce((s, x) => s + x, 0) / 4, 6);
    // 160 sorted values, 40 of each: the median interpolates between the 2nd and 3rd row values.
    expect(r.metrics['kld_median']).toBeCloseTo(((sorted[1] as number) + (sorted[2] as number)) / 2, 6);
    expect(r.metrics['kld_p99']).toBeCloseTo(sorted[3] as number, 6);
    expect(r.metrics['kld_max']).toBeCloseTo(sorted[3] as number, 6);
    const agree = [0, 1, 2, 3].filter((a) => argmax(P[a] as number[]) === argmax(Q[a] as number[])).length;
    expect(agree).toBe(3);
    expect(r.metrics['top1_agreement']).toBe(agree / 4);
    // Targets follow the cycle a→b→c→d→a: NLL of each row's "next" token.
    const nll = (t: number[][]): number =>
      -[0, 1, 2, 3].reduce((s, a) => s + Math.log(t[a]?.[(a + 1) % 4] as number), 0) / 4;
    expect(r.metrics['ppl_ratio']).toBeCloseTo(Math.exp(nll(Q) - nll(P)), 6);
    expect(r.metrics['reference_perplexity']).toBeCloseTo(Math.exp(nll(P)), 6);
    expect(cells.map((c) => c.metrics['tokens'])).toEqual([32, 32, 32, 32, 32]);
  });

  it('bootstrap intervals over windows: zero width when every window is alike, ordered around the estimate', async () => {
    const reference = new FakeModel({ tokenizer: charTokenizer('abcd'), bigram: P });
    const model = new FakeModel({ tokenizer: charTokenizer('abcd'), bigram: Q });
    const run = (text: string, config = small) =>
      new KldTask({ reference, dataSource: { text, name: 't' } }).run(
        new ARParadigm(model.config),
        model,
        config,
        new Rng(0),
        contextFor(model),
      );
    // Windows of 16 targets over the 4-cycle hold the same positions: every resample gives the estimate.
    const same = await run(cycle.text);
    for (const key of ['kld_mean', 'top1_agreement', 'ppl_ratio']) {
      expect(same.metrics[`${key}_lo`]).toBe(same.metrics[key]);
      expect(same.metrics[`${key}_hi`]).toBe(same.metrics[key]);
    }
    expect(same.meta?.['ci_method']).toBe(
      '95% percentile bootstrap over scored windows (1000 resamples, seeded)',
    );
    // An irregular text: windows differ, so the intervals have width and hold the estimate.
    const text = Array.from({ length: 600 }, (_, i) => 'abcd'[(i * i + (i >> 3)) % 4]).join('');
    const varied = await run(text, BenchmarkConfig.parse({ ...small, ciLevel: 0.9, ciResamples: 300 }));
    for (const key of ['kld_mean', 'top1_agreement', 'ppl_ratio']) {
      const [lo, point, hi] = [`${key}_lo`, key, `${key}_hi`].map((k) => varied.metrics[k] as number) as [
        number,
        number,
        number,
      ];
      expect(lo).toBeLessThan(hi);
      expect(lo).toBeLessThanOrEqual(point);
      expect(point).toBeLessThanOrEqual(hi);
    }
    expect(varied.meta?.['ci_method']).toBe(
      '90% percentile bootstrap over scored windows (300 resamples, seeded)',
    );
    // Seeded: the same run gives the same intervals.
    expect((await run(text)).metrics).toEqual((await run(text)).metrics);
  });

  it('streams: each batch is scored before the next forward pass of either model (metrics unchanged)', async () => {
    // reuseLogits: a forward pass turns every earlier logits array of that model into NaN, so holding a batch's
    // logits (or every window's reference logits) past the next forward would make the metrics NaN.
    const run = (reuseLogits: boolean) => {
      const reference = new FakeModel({ tokenizer: charTokenizer('abcd'), bigram: P, reuseLogits });
      const model = new FakeModel({ tokenizer: charTokenizer('abcd'), bigram: Q, reuseLogits });
      return new KldTask({ reference, dataSource: cycle }).run(
        new ARParadigm(model.config),
        model,
        small,
        new Rng(0),
        contextFor(model),
      );
    };
    const [fresh, reused] = [await run(false), await run(true)];
    expect(reused.metrics).toEqual(fresh.metrics);
    expect(Number.isFinite(reused.metrics['kld_mean'])).toBe(true);
  });

  it('runs both models one window at a time, a cell still holding evalBatchSize windows', async () => {
    const reference = new FakeModel({ tokenizer: charTokenizer('abcd'), bigram: P });
    const model = new FakeModel({ tokenizer: charTokenizer('abcd'), bigram: Q });
    const batches: number[] = [];
    for (const m of [model, reference]) {
      const forward = m.forward.bind(m);
      m.forward = (ids: Int32Array, shape: BatchShape) => {
        batches.push(shape.batch);
        return forward(ids, shape);
      };
    }
    const cells: CellRecord[] = [];
    const r = await new KldTask({ reference, dataSource: cycle }).run(
      new ARParadigm(model.config),
      model,
      small,
      new Rng(0),
      contextFor(model, cells),
    );
    // 5 cells of 2 windows, each window through both models: 20 forward passes of one row.
    expect(batches).toEqual(new Array(20).fill(1));
    expect(cells.map((c) => c.batch)).toEqual([2, 2, 2, 2, 2]);
    expect(r.metrics['tokens_scored']).toBe(5 * 2 * 16);
  });

  it('sliding windows score every position once', async () => {
    const reference = new FakeModel({ tokenizer: charTokenizer('abcd'), bigram: P });
    const model = new FakeModel({ tokenizer: charTokenizer('abcd'), bigram: Q });
    const cfg = BenchmarkConfig.parse({ evalSeqLen: 16, evalStride: 5, evalBatchSize: 3, evalBatches: 50 });
    const r = await new KldTask({ reference, dataSource: { text: 'abcd'.repeat(50), name: 'c' } }).run(
      new ARParadigm(model.config),
      model,
      cfg,
      new Rng(0),
      contextFor(model),
    );
    expect(r.metrics['tokens_scored']).toBe(199);
    expect(r.meta?.['eval_mode']).toBe('sliding (stride 5)');
  });

  it('counts a sliding window by its scored positions, not its context: a model against itself agrees on all', async () => {
    const model = new FakeModel({ tokenizer: charTokenizer('abcd'), bigram: Q });
    const cfg = BenchmarkConfig.parse({ evalSeqLen: 16, evalStride: 5, evalBatchSize: 3, evalBatches: 50 });
    const r = await new KldTask({ reference: model, dataSource: { text: 'abcd'.repeat(50), name: 'c' } }).run(
      new ARParadigm(model.config),
      model,
      cfg,
      new Rng(0),
      contextFor(model),
    );
    expect(r.metrics).toMatchObject({
      top1_agreement: 1,
      top1_agreement_lo: 1,
      top1_agreement_hi: 1,
      ppl_ratio: 1,
    });
  });

  it('calls a reference factory once and disposes what it made', async () => {
    const model = new FakeModel({ tokenizer: charTokenizer('abcd'), bigram: P });
    let made = 0;
    let disposed = 0;
    const task = new KldTask({
      dataSource: cycle,
      reference: async () => {
        made++;
        const m = new FakeModel({ tokenizer: charTokenizer('abcd'), bigram: P });
        m.dispose = async () => {
          disposed++;
        };
        return m;
      },
    });
    const r = await task.run(new ARParadigm(model.config), model, small, new Rng(0), contextFor(model));
    expect([made, disposed, r.metrics['kld_max']]).toEqual([1, 1, 0]);
  });

  it('rejects a reference with another vocabulary', async () => {
    const model = new FakeModel({ tokenizer: charTokenizer('abcd') });
    const reference = new FakeModel({ config: { vocabSize: 8 } });
    await expect(
      new KldTask({ reference, dataSource: cycle }).run(
        new ARParadigm(model.config),
        model,
        small,
        new Rng(0),
        contextFor(model),
      ),
    ).rejects.toThrow(messages.kldVocabMismatch(4, 8));
  });

  it('q8 and q4 built-in models against fp32 of the same seed: small KL, fp32 against itself exactly 0', async () => {
    const cfg = BenchmarkConfig.parse({ evalSeqLen: 32, evalBatchSize: 1, evalBatches: 2 });
    const reference = await createModel('tiny', { seed: 3, threads: 1 });
    const text = { text: 'the quick brown fox jumps over the lazy dog. '.repeat(40), name: 'fox' };
    try {
      const self = await new KldTask({ reference, dataSource: text }).run(
        new ARParadigm(reference.config),
        reference,
        cfg,
        new Rng(0),
      );
      expect(self.metrics['kld_max']).toBe(0);
      for (const dtype of ['q8', 'q4'] as const) {
        const model = await createModel('tiny', { seed: 3, threads: 1, dtype });
        const r = await new KldTask({ reference, dataSource: text }).run(
          new ARParadigm(model.config),
          model,
          cfg,
          new Rng(0),
        );
        await model.dispose();
        expect(r.metrics['kld_mean']).toBeGreaterThan(0);
        expect(r.metrics['kld_mean']).toBeLessThan(0.05);
        expect(r.metrics['top1_agreement']).toBeGreaterThan(0.5);
      }
    } finally {
      await reference.dispose();
    }
  });
});

describe('KldTask cells, meta and bounds', () => {
  const pair = (options: { costMs?: number; info?: Partial<ModelInfo> } = {}) => {
    const clock = createManualClock();
    const cost = { fixedNs: (options.costMs ?? 1) * 1e6, perTokenNs: 0 };
    const reference = new FakeModel({
      tokenizer: charTokenizer('abcd'),
      bigram: P,
      clock,
      cost,
      ...(options.info ? { info: options.info } : {}),
    });
    const model = new FakeModel({ tokenizer: charTokenizer('abcd'), bigram: Q, clock, cost });
    return { reference, model };
  };

  it('records a cell per batch whose KL sums make the mean, and describes the comparison in meta', async () => {
    const { reference, model } = pair({ info: { name: 'ref', dtype: 'fp16', engine: 'other 2.0' } });
    const cells: CellRecord[] = [];
    const r = await new KldTask({ reference, dataSource: cycle, name: 'kld-q8' }).run(
      new ARParadigm(model.config),
      model,
      small,
      new Rng(0),
      contextFor(model, cells),
    );
    expect(r.task).toBe('kld-q8');
    expect(
      cells.map(({ task, cell, phase, batch, seqLen, status }) => [task, cell, phase, batch, seqLen, status]),
    ).toEqual([0, 1, 2, 3, 4].map((i) => ['kld-q8', `batch=${i}`, 'eval', 2, 17, 'completed']));
    const sumKl = cells.reduce((s, c) => s + (c.metrics['sum_kl'] as number), 0);
    expect(sumKl / 160).toBeCloseTo(r.metrics['kld_mean'] as number, 9);
    expect(r.meta).toEqual({
      reference: 'ref (fp16)',
      reference_engine: 'other 2.0',
      data_source: 'cycle',
      tokenizer: 'chars(abcd)',
      eval_mode: 'random windows',
      eval_seq_len: 16,
      ci_method: '95% percentile bootstrap over scored windows (1000 resamples, seeded)',
    });
    const named = await new KldTask({ reference, dataSource: cycle, referenceName: 'fp32 baseline' }).run(
      new ARParadigm(model.config),
      model,
      small,
      new Rng(0),
      contextFor(model),
    );
    expect([named.task, named.meta?.['reference']]).toEqual(['kld', 'fp32 baseline']);
  });

  it('stops at the cell budget, saying how many batches were scored', async () => {
    // Each window runs both models at 10 ms each: 40 ms a batch of 2, so a budget of 80 ms scores 2 of 5.
    const { reference, model } = pair({ costMs: 10 });
    const cells: CellRecord[] = [];
    const config = BenchmarkConfig.parse({ evalSeqLen: 16, evalBatchSize: 2, evalBatches: 5, maxCellMs: 80 });
    const r = await new KldTask({ reference, dataSource: cycle }).run(
      new ARParadigm(model.config),
      model,
      config,
      new Rng(0),
      contextFor(model, cells),
    );
    expect([cells.length, r.metrics['tokens_scored']]).toEqual([2, 64]);
    expect(r.meta?.['eval_truncated']).toBe(messages.evalTruncated(2, 5, 80));
  });

  it('sliding windows: cells hold the targets each window scores for the first time', async () => {
    const { reference, model } = pair();
    const cells: CellRecord[] = [];
    const cfg = BenchmarkConfig.parse({ evalSeqLen: 16, evalStride: 5, evalBatchSize: 3, evalBatches: 50 });
    const r = await new KldTask({ reference, dataSource: { text: 'abcd'.repeat(50), name: 'c' } }).run(
      new ARParadigm(model.config),
      model,
      cfg,
      new Rng(0),
      contextFor(model, cells),
    );
    const tokens = cells.map((c) => c.metrics['tokens'] as number);
    // The first window scores its 16 targets alone (the others start scoring at index 11), then three windows
    // a cell, each the 5 targets its stride adds.
    expect(tokens.slice(0, 2)).toEqual([16, 3 * 5]);
    expect(tokens.reduce((s, n) => s + n, 0)).toBe(199);
    expect(r.metrics['tokens_scored']).toBe(199);
    expect(r.meta?.['eval_seq_len']).toBe(16);
  });

  it('refuses a diffusion model before making the reference, and disposes a made reference when the run fails', async () => {
    const { model } = pair();
    let made = 0;
    let disposed = 0;
    const factory = async () => {
      made++;
      const m = new FakeModel({ config: { vocabSize: 8 } });
      m.dispose = async () => void disposed++;
      return m;
    };
    const task = new KldTask({ reference: factory, dataSource: cycle });
    await expect(
      task.run(new DiffusionParadigm(model.config), model, small, new Rng(0), contextFor(model)),
    ).rejects.toThrow(messages.decodeNotApplicable('diffusion'));
    expect(made).toBe(0);
    await expect(
      task.run(new ARParadigm(model.config), model, small, new Rng(0), contextFor(model)),
    ).rejects.toThrow(messages.kldVocabMismatch(4, 8));
    expect([made, disposed]).toEqual([1, 1]);
  });

  it('stops with the abort reason when the run is cancelled, before any cell', async () => {
    const { reference, model } = pair();
    const cells: CellRecord[] = [];
    const controller = new AbortController();
    controller.abort(new Error('Ctrl-C'));
    await expect(
      new KldTask({ reference, dataSource: cycle }).run(
        new ARParadigm(model.config),
        model,
        small,
        new Rng(0),
        {
          ...contextFor(model, cells),
          signal: controller.signal,
        },
      ),
    ).rejects.toThrow('Ctrl-C');
    expect([cells.length, model.calls.length]).toEqual([0, 0]);
  });
});

describe('kldDistribution', () => {
  it('is the mean, the median, the 99th percentile (interpolated) and the maximum of the per-position KLs', () => {
    // 0, 1, …, 200 shuffled: the q-quantile of 201 evenly spaced values is 200·q exactly.
    const kls = Array.from({ length: 201 }, (_, i) => (i * 37) % 201);
    expect(kldDistribution(kls)).toEqual({ kld_mean: 100, kld_median: 100, kld_p99: 198, kld_max: 200 });
    // Between order statistics: 0…10 has its 99th percentile at 9.9.
    expect(kldDistribution(Array.from({ length: 11 }, (_, i) => i)).kld_p99).toBeCloseTo(9.9, 12);
  });

  it('is NaN in every column for no positions', () => {
    expect(Object.values(kldDistribution([]))).toEqual([Number.NaN, Number.NaN, Number.NaN, Number.NaN]);
  });
});
