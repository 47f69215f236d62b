import { describe, expect, it } from 'vitest';
import { parseCsv } from '../../src/benchmarking/csv.js';
import {
  formatSummary,
  glanceLine,
  type SummarySource,
  summaryRows,
} from '../../src/benchmarking/summary-table.js';
import type { BenchmarkResult, CellRecord } from '../../src/benchmarking/task.js';

const cell = (over: Partial<CellRecord>): CellRecord => ({
  task: 'throughput',
  cell: 'seq=8,batch=1',
  phase: 'prefill',
  status: 'completed',
  metrics: {},
  ...over,
});

const source = (results: BenchmarkResult[], runId = 'tiny-fp32'): SummarySource => ({
  runId,
  results,
  modelMeta: { model: 'tiny' },
  totalTimeS: 1.25,
  environment: undefined,
  descriptors: [
    { key: 'tps_seq{L}', unit: 'tok/s', description: 'per shape' },
    { key: 'peak_tps', unit: 'tok/s', description: 'peak' },
    { key: 'prefill_mean_ms', unit: 'ms', description: 'mean' },
    { key: 'ttft_ms', unit: 'ms', description: 'ttft' },
    { key: 'perplexity', unit: '1', description: 'ppl' },
  ],
});

const throughput: BenchmarkResult = {
  task: 'throughput',
  metrics: { tps_seq8: 3200, peak_tps: 3200 },
  cells: [
    cell({ samplesMs: [1, 2, 3, 4], metrics: { tps: 3200 } }),
    cell({ cell: 'seq=512,batch=16', status: 'skipped', error: 'over --max-cell-ms', metrics: {} }),
  ],
};
const latency: BenchmarkResult = {
  task: 'latency',
  metrics: { prefill_mean_ms: 2.5, ttft_ms: 0.5 },
  cells: [
    cell({
      task: 'latency',
      cell: 'generate@8+4',
      phase: 'generate',
      samplesMs: [9, 9],
      metricSamples: { ttft_ms: [0.4, 0.6] },
    }),
  ],
};
const perplexity: BenchmarkResult = {
  task: 'perplexity',
  metrics: { perplexity: 257.5, eval_ms: 3 },
  cells: [cell({ task: 'perplexity', cell: 'batch=0', phase: 'eval', metrics: { sum_nll: 1 } })],
};
const failed: BenchmarkResult = { task: 'kld', status: 'failed', error: 'no reference', metrics: {} };

describe('summaryRows', () => {
  const rows = summaryRows([source([throughput, latency, perplexity, failed])]);

  it('a timed cell: mean and sample standard deviation (n − 1) of its calls, in ms, with its tok/s and n', () => {
    expect(rows[0]).toMatchObject({
      kind: 'cell',
      task: 'throughput',
      measure: 'prefill',
      value: 2.5,
      unit: 'ms',
      n: 4,
    });
    expect(rows[0]?.sd).toBeCloseTo(Math.sqrt(5 / 3), 12); // Σ(x − 2.5)² = 5, over n − 1 = 3
    expect(rows[0]?.tokensPerS).toBe(3200);
  });

  it('a cell with per-call measures gives one row per measure, not its call time', () => {
    const generate = rows.filter((r) => r.cell === 'generate@8+4');
    expect(generate).toEqual([expect.objectContaining({ measure: 'ttft_ms', value: 0.5, unit: 'ms', n: 2 })]);
    expect(generate[0]?.sd).toBeCloseTo(Math.sqrt(0.02), 12);
  });

  it('task metrics: not the per-shape ones, not the timings of a task with timed cells; an untimed task keeps all', () => {
    const metrics = rows.filter((r) => r.kind === 'metric').map((r) => `${r.task}.${r.measure}`);
    expect(metrics).toEqual(['throughput.peak_tps', 'perplexity.perplexity', 'perplexity.eval_ms']);
  });

  it('an untimed cell gives no row; skipped cells and failed tasks come last with their reason', () => {
    expect(rows.some((r) => r.cell === 'batch=0')).toBe(false);
    expect(rows.slice(-2)).toEqual([
      expect.objectContaining({
        kind: 'skipped',
        cell: 'seq=512,batch=16',
        reason: 'over --max-cell-ms',
        value: null,
      }),
      expect.objectContaining({ kind: 'failed', task: 'kld', cell: '', reason: 'no reference' }),
    ]);
  });

  it('one call: no standard deviation', () => {
    const one = summaryRows([
      source([{ task: 't', metrics: {}, cells: [cell({ task: 't', samplesMs: [7] })] }]),
    ]);
    expect(one[0]).toMatchObject({ value: 7, sd: null, n: 1 });
  });
});

describe('formatSummary', () => {
  const sources = [source([throughput, latency, failed])];

  it('table: a header line, aligned columns (mean ± sd with the unit), then what did not complete', () => {
    const lines = formatSummary(sources).split('\n').slice(1); // under the At a glance line
    expect(lines[0]).toBe('Summary: 3 task(s), 1.3 s (mean ± sd over the timed calls)');
    expect(lines[1]).toMatch(/^ {2}task +cell +measure +mean ± sd +tok\/s +n$/);
    const [header, ...body] = lines.slice(1, 5);
    const at = (line: string | undefined, text: string): number => (line ?? '').indexOf(text);
    expect(at(body[0], '2.5 ± 1.3 ms')).toBe(at(header, 'mean ± sd'));
    expect(body[0]?.length).toBe(header?.length); // n is right-aligned under its header
    expect(body[1]).toMatch(/^ {2}throughput +peak_tps +3,200 tok\/s$/); // each task: its cells, then its metrics
    expect(body[2]).toMatch(/^ {2}latency +generate@8\+4 +ttft_ms +0\.5 ± 0\.14 ms +2$/);
    expect(lines.slice(-2)).toEqual([
      '  throughput  seq=512,batch=16  skipped: over --max-cell-ms',
      '  kld  failed: no reference',
    ]);
  });

  it('a variant column only when several runs are summarised', () => {
    expect(formatSummary(sources)).not.toContain('variant');
    const two = formatSummary([...sources, source([throughput], 'tiny-q8')]);
    expect(two.split('\n')[3]).toMatch(/^ {2}variant +task/); // under two At a glance lines and the header
    expect(two).toMatch(/^ {2}tiny-q8 +throughput +seq=8,batch=1 /m);
    expect(two.split('\n')[2]).toBe('Summary: 2 runs, 4 task(s), 2.5 s (mean ± sd over the timed calls)');
  });

  it('markdown: one table row per summary row, numbers right-aligned, pipes escaped', () => {
    const md = formatSummary([source([{ ...failed, error: 'a | b' }])], 'markdown').split('\n');
    expect(md[0]).toBe('| task | cell | measure | mean ± sd | tok/s | n |');
    expect(md[1]).toBe('|---|---|---|---|---:|---:|');
    expect(md[2]).toBe('| kld |  |  | failed: a \\| b |  |  |');
  });

  it('json and csv carry the rows exactly', () => {
    const rows = summaryRows(sources);
    expect(JSON.parse(formatSummary(sources, 'json'))).toEqual(rows);
    const csv = parseCsv(formatSummary(sources, 'csv'));
    expect(csv.header).toEqual([
      'variant',
      'task',
      'kind',
      'cell',
      'measure',
      'value',
      'sd',
      'unit',
      'n',
      'tokens_per_s',
      'reason',
    ]);
    expect(csv.rows).toHaveLength(rows.length);
    expect(csv.rows[0]?.[5]).toBe('2.5');
  });

  it('kv: the seed lines of each run', () => {
    expect(formatSummary(sources, 'kv').split('\n').slice(0, 3)).toEqual([
      'BenchmarkSuite  —  3 task(s)  (1.3 s total)',
      '  model: model=tiny',
      '  [throughput]  tps_seq8=3200.0000  peak_tps=3200.0000',
    ]);
  });
});

describe('the At a glance line', () => {
  it('gives peak tok/s, TTFT, decode tok/s and perplexity in that order, each with its unit, above the table', () => {
    const withDecode: BenchmarkResult = { ...latency, metrics: { ...latency.metrics, decode_tps: 1234.4 } };
    const decodeUnit = { key: 'decode_tps', unit: 'tok/s', description: 'decode' };
    const of = (results: BenchmarkResult[]): SummarySource => {
      const s = source(results);
      return { ...s, descriptors: [...s.descriptors, decodeUnit] };
    };
    // The rows' order does not matter: the line's order is fixed, each value with 4 significant digits.
    expect(glanceLine(of([perplexity, withDecode, throughput]))).toBe(
      'At a glance: peak 3,200 tok/s · TTFT 0.5 ms · decode 1,234 tok/s · perplexity 257.5',
    );
    const table = formatSummary([of([throughput, withDecode, perplexity])], 'table', { warnings: false });
    expect(table.split('\n').slice(0, 2)).toEqual([
      'At a glance: peak 3,200 tok/s · TTFT 0.5 ms · decode 1,234 tok/s · perplexity 257.5',
      'Summary: 3 task(s), 1.3 s (mean ± sd over the timed calls)',
    ]);
  });

  it('leaves out what no completed row holds as a number, and is absent when nothing is left', () => {
    const failedPpl: BenchmarkResult = { ...perplexity, status: 'failed', error: 'x' };
    const nanPeak: BenchmarkResult = { ...throughput, metrics: { peak_tps: Number.NaN } };
    expect(glanceLine(source([nanPeak, latency, failedPpl]))).toBe('At a glance: TTFT 0.5 ms');
    expect(glanceLine(source([failed]))).toBeUndefined();
    expect(formatSummary([source([failed])], 'table', { warnings: false })).toMatch(/^Summary: /);
  });

  it('names each run when several are summarized together, one line each, in their order', () => {
    const lines = formatSummary(
      [source([throughput], 'tiny-fp32'), source([perplexity], 'tiny-q8')],
      'table',
      { warnings: false },
    ).split('\n');
    expect(lines.slice(0, 3)).toEqual([
      'At a glance, tiny-fp32: peak 3,200 tok/s',
      'At a glance, tiny-q8: perplexity 257.5',
      'Summary: 2 runs, 2 task(s), 2.5 s (mean ± sd over the timed calls)',
    ]);
  });
});
