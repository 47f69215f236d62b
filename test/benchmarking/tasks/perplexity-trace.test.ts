import { describe, expect, it } from 'vitest';
import { BenchmarkConfig } from '../../../src/benchmarking/config.js';
import type { CellRecord } from '../../../src/benchmarking/task.js';
import { PerplexityTask } from '../../../src/benchmarking/tasks/perplexity-task.js';
import { ARParadigm } from '../../../src/models/paradigms/ar-paradigm.js';
import { TraceRecorder } from '../../../src/profiling/trace-recorder.js';
import { Rng } from '../../../src/rng.js';
import { charTokenizer, contextFor, FakeModel } from '../fake-model.js';

describe('PerplexityTask with a tracer', () => {
  it('records the tokenization, then one scoring span per batch holding its engine calls', async () => {
    const model = new FakeModel({ tokenizer: charTokenizer('abcd') });
    const tracer = new TraceRecorder(model.clock);
    const cells: CellRecord[] = [];
    const cfg = BenchmarkConfig.parse({ evalSeqLen: 16, evalStride: 8, evalBatchSize: 2, evalBatches: 3 });
    await new PerplexityTask({ dataSource: { text: 'abcd'.repeat(20), name: 'cycle' } }).run(
      new ARParadigm(model.config),
      model,
      cfg,
      new Rng(0),
      { ...contextFor(model, cells), tracer },
    );
    const spans = [...tracer.events()].sort((a, b) => a.ts - b.ts);
    expect(spans[0]?.cat).toBe('tokenize');
    const scoring = spans.filter((e) => e.cat === 'scoring');
    expect(scoring.length).toBeGreaterThan(1);
    expect(scoring.map((e) => e.name)).toEqual(cells.map((_, i) => `score batch ${i}`));
    // The fake engine's calls advance the clock: each scoring span lasts as long as its forward pass.
    for (const s of scoring) expect(s.dur).toBeGreaterThan(0);
  });
});
