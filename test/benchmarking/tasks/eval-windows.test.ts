/** `EvalBudget` frees each batch's buffers before the next batch: a full collection after every loop body. */
import { describe, expect, it, vi } from 'vitest';
import { EvalBudget } from '../../../src/benchmarking/tasks/eval-windows.js';
import { createManualClock } from '../../../src/profiling/index.js';

const events = vi.hoisted((): string[] => []);
vi.mock('../../../src/models/onnx/model-files.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../../src/models/onnx/model-files.js')>()),
  collectGarbage: () => events.push('gc'),
}));

describe('EvalBudget', () => {
  it('collects garbage after each batch’s loop body, before the next batch starts', () => {
    const budget = new EvalBudget(createManualClock(), 60_000);
    const batch = { starts: [0], length: 8, scoreFrom: 0 };
    for (const [i] of budget.batches([batch, batch, batch])) events.push(`batch ${i}`);
    expect(events).toEqual(['batch 0', 'gc', 'batch 1', 'gc', 'batch 2', 'gc']);
  });
});
