/**
 * Plain progress (logs, pipes): a task with many cells prints about ten of its completed cells, every failed or
 * skipped one, and all of a short task's.
 */
import { describe, expect, it } from 'vitest';
import { createProgress, type ProgressMode, plainProgress } from '../../src/benchmarking/progress.js';
import type { CellRecord } from '../../src/benchmarking/task.js';

const cell = (i: number, status: CellRecord['status'] = 'completed'): CellRecord => ({
  task: 'perplexity',
  cell: `batch=${i}`,
  phase: 'prefill',
  status,
  metrics: { tokens: 512 },
  ...(status === 'completed' ? {} : { error: 'out of time' }),
});

/** The cell lines written for `cells` cells of one task (the failed ones at `failed`). */
function cellLines(cells: number, failed: readonly number[] = [], mode?: ProgressMode): string[] {
  const out: string[] = [];
  const writer = { write: (t: string) => out.push(t) };
  const progress = mode === undefined ? plainProgress(writer) : createProgress(mode, writer);
  progress.taskStart('perplexity', 0, 1);
  progress.plan('perplexity', cells);
  for (let i = 0; i < cells; i++) progress.cell(cell(i, failed.includes(i) ? 'failed' : 'completed'));
  return out.filter((l) => l.startsWith('  perplexity batch='));
}

describe('plainProgress', () => {
  it('prints one completed cell per tenth of a long task, the last included', () => {
    const lines = cellLines(100);
    expect(lines).toHaveLength(10);
    expect(lines[0]).toContain('(10/100)');
    expect(lines.at(-1)).toContain('(100/100)');
    expect(cellLines(610)).toHaveLength(10);
  });

  it('prints every cell of a task of ten or fewer, and every failed cell', () => {
    expect(cellLines(10)).toHaveLength(10);
    expect(cellLines(3)).toHaveLength(3);
    const lines = cellLines(100, [3, 4]);
    expect(lines).toHaveLength(12);
    expect(lines.filter((l) => l.includes('failed: out of time'))).toHaveLength(2);
  });

  it("'every' (bench --verbose) prints every cell; 'plain' and a writer that is not a terminal under 'auto' about ten", () => {
    expect(cellLines(610, [], 'every')).toHaveLength(610);
    expect(cellLines(610, [], 'plain')).toHaveLength(10);
    expect(cellLines(610, [], 'auto')).toHaveLength(10);
  });
});
