/**
 * Resources are checked before they are spent: sweep cells that cannot fit are skipped with the estimate,
 * perplexity refuses a batch that cannot fit and stops at its time budget, and sweep lists and budgets are
 * validated.
 */
import { freemem } from 'node:os';
import { describe, expect, it } from 'vitest';
import { BenchmarkConfig, MAX_CELL_MS } from '../../src/benchmarking/config.js';
import { PerplexityTask } from '../../src/benchmarking/tasks/perplexity-task.js';
import { ThroughputTask } from '../../src/benchmarking/tasks/throughput-task.js';
import { messages } from '../../src/messages.js';
import { forwardActivationBytes } from '../../src/models/memory-check.js';
import { ARParadigm } from '../../src/models/paradigms/ar-paradigm.js';
import { Rng } from '../../src/rng.js';
import { charTokenizer, contextFor, FakeModel } from './fake-model.js';

describe('resource checks of the benchmark tasks', () => {
  it('a sweep cell that cannot fit in memory is a skipped row with the estimate, and the sweep goes on', async () => {
    const model = new FakeModel();
    const config = BenchmarkConfig.parse({
      seqLens: [8],
      batchSizes: [1, 100_000_000, 2],
      nWarmup: 0,
      nMeasure: 2,
      minWarmupMs: 0,
    });
    const result = await new ThroughputTask().run(
      new ARParadigm(model.config),
      model,
      config,
      new Rng(0),
      contextFor(model),
    );
    expect(String(result.meta?.['failed_cells'])).toMatch(
      /^seq=8,batch=100000000 skipped: Cell seq=8,batch=100000000 needs about [\d.e+]+ GiB of memory, more than the/,
    );
    expect(forwardActivationBytes(model.config, 100_000_000, 8)).toBeGreaterThan(freemem());
    expect(result.metrics['tps_bs1']).toBeGreaterThan(0);
    expect(result.metrics['tps_bs100000000']).toBeUndefined();
  });

  it('perplexity refuses a batch that cannot fit before building it', async () => {
    const model = new FakeModel({ tokenizer: charTokenizer('abcd') });
    const task = new PerplexityTask({ dataSource: { text: 'abcd'.repeat(500), name: 'cycle' } });
    const config = BenchmarkConfig.parse({ evalSeqLen: 16, evalBatchSize: 1_000_000_000, evalBatches: 1 });
    await expect(
      task.run(new ARParadigm(model.config), model, config, new Rng(0), contextFor(model)),
    ).rejects.toThrow(/^A perplexity batch of 1000000000 windows × 17 tokens .* needs about/);
  });

  it('perplexity with a billion batches stops at its time budget and says how many it scored', async () => {
    // Each fake call costs 1 ms + 10 µs per token: a batch of 2 × 17 tokens is 1.34 ms of manual clock.
    const model = new FakeModel({ tokenizer: charTokenizer('abcd') });
    const task = new PerplexityTask({ dataSource: { text: 'abcd'.repeat(500), name: 'cycle' } });
    const config = BenchmarkConfig.parse({
      evalSeqLen: 16,
      evalBatchSize: 2,
      evalBatches: 1_000_000_000,
      maxCellMs: 20,
    });
    const r = await task.run(new ARParadigm(model.config), model, config, new Rng(0), contextFor(model));
    const scored = r.metrics['tokens_scored'] as number;
    expect(scored / 32).toBeGreaterThan(5);
    expect(scored / 32).toBeLessThan(20);
    expect(r.meta?.['eval_truncated']).toBe(messages.evalTruncated(scored / 32, 1_000_000_000, 20));
  });
});

describe('BenchmarkConfig bounds', () => {
  it('rejects duplicate sweep values, naming them', () => {
    expect(() => BenchmarkConfig.parse({ seqLens: [16, 16, 32] })).toThrow(
      `seqLens: ${messages.duplicateSweepValues([16])}`,
    );
    expect(() => BenchmarkConfig.parse({ batch_sizes: [2, 2, 1] })).toThrow(
      `batchSizes: ${messages.duplicateSweepValues([2])}`,
    );
  });

  it('bounds maxCellMs to what Node timers can hold (2^31 − 1 ms) instead of failing every cell', () => {
    expect(BenchmarkConfig.parse({ maxCellMs: MAX_CELL_MS }).maxCellMs).toBe(2 ** 31 - 1);
    expect(() => BenchmarkConfig.parse({ maxCellMs: 2 ** 31 })).toThrow(/maxCellMs: Too big/);
  });

  it('quotes a huge or binary value as a short excerpt', () => {
    let message = '';
    try {
      BenchmarkConfig.parse({ seqLens: 'x'.repeat(1_000_000) });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('1000000 characters in all');
    expect(message.length).toBeLessThan(400);
  });
});
