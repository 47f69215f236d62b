import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BenchmarkConfig } from '../../src/benchmarking/config.js';
import { formatCsv, parseCsv } from '../../src/benchmarking/csv.js';
import { SuiteReport } from '../../src/benchmarking/report.js';
import { BenchmarkSuite } from '../../src/benchmarking/suite.js';
import { formatSummary } from '../../src/benchmarking/summary-table.js';
import type { BenchmarkResult, BenchmarkTask } from '../../src/benchmarking/task.js';
import { LatencyTask } from '../../src/benchmarking/tasks/latency-task.js';
import { PerplexityTask } from '../../src/benchmarking/tasks/perplexity-task.js';
import { ThroughputTask } from '../../src/benchmarking/tasks/throughput-task.js';
import { ARParadigm } from '../../src/models/paradigms/ar-paradigm.js';
import { expectGolden } from '../golden.js';
import { FakeModel } from './fake-model.js';

const tmp = (): string => mkdtempSync(join(tmpdir(), 'dx-report-'));

class Boom implements BenchmarkTask {
  readonly name = 'boom';
  async run(): Promise<BenchmarkResult> {
    throw new Error('failed, with "quotes"\nand a newline');
  }
}

/** The default suite + a failing task on the deterministic fake model (manual clock). */
async function fakeRun(): Promise<SuiteReport> {
  const model = new FakeModel({ config: { vocabSize: 256, maxContext: 64 } });
  const config = BenchmarkConfig.parse({
    seqLens: [8, 16, 128],
    batchSizes: [1, 2, 4],
    nWarmup: 1,
    nMeasure: 4,
    minWarmupMs: 0,
    genTokens: 4,
    evalSeqLen: 16,
    evalBatches: 3,
    evalBatchSize: 2,
  });
  const text = 'The quick brown fox jumps over the lazy dog. '.repeat(20);
  const suite = new BenchmarkSuite({
    tasks: [
      new ThroughputTask(),
      new LatencyTask(),
      new PerplexityTask({ dataSource: { text, name: 'fox' } }),
      new Boom(),
    ],
    config,
  });
  return suite.run(new ARParadigm(model.config), model, {
    clock: model.clock,
    jsonl: false,
    runId: 'golden',
  });
}

describe('SuiteReport', () => {
  it('CSV of a deterministic fake-model run matches the golden file (UPDATE_GOLDEN=1 to regenerate)', async () => {
    const csv = (await fakeRun()).toCsv();
    expectGolden('benchmarking/fake-default-suite.csv', csv);
  });

  it('keeps the seed column order, then status/error and model identity columns', async () => {
    const report = await fakeRun();
    const cols = report.columns();
    expect(cols.slice(0, 6)).toEqual([
      'task',
      'status',
      'tps_seq8',
      'gflops_per_s_seq8',
      'tps_seq16',
      'gflops_per_s_seq16',
    ]);
    const i = (c: string): number => cols.indexOf(c);
    expect(i('peak_tps')).toBeLessThan(i('latency_mean_ms'));
    expect(i('latency_mean_ms')).toBeLessThan(i('latency_p99_ms'));
    expect(i('throughput_tps')).toBeLessThan(i('flops_total_g'));
    expect(i('flops_ffn_g')).toBeLessThan(i('profiling_cell'));
    expect(i('profiling_cell')).toBeLessThan(i('prefill_mean_ms'));
    expect(cols.slice(i('error'))).toEqual([
      'error',
      'duration_ms',
      'model',
      'paradigm',
      'params',
      'dim',
      'num_blocks',
      'n_heads',
      'kv_heads',
      'vocab_size',
      'max_context',
      'attention',
      'ffn',
      'engine',
      'threads',
      'dtype',
      'head_dtype',
      'block_size',
      'quantized_matrices',
      'weight_bytes',
      'run_id',
    ]);
    const df = report.toDataFrame();
    expect(df.numRows()).toBe(4);
    expect(df.get('status', 3)).toBe('failed');
    expect(cols).not.toContain('tps_seq128'); // failed cell → no number, listed in failed_cells
    expect(String(df.get('failed_cells', 0))).toMatch(/seq=128,batch=1 failed/);
  });

  it('summary table of a deterministic fake-model run matches the golden file (every format has its rows)', async () => {
    const report = await fakeRun();
    // Without the noise warnings: they depend on this machine's load while the test runs.
    const quiet = { warnings: false };
    expectGolden(
      'benchmarking/fake-default-suite-summary.txt',
      `${formatSummary([report], 'table', quiet)}\n`,
    );
    expectGolden(
      'benchmarking/fake-default-suite-summary.md',
      `${formatSummary([report], 'markdown', quiet)}\n`,
    );
    expect(report.summary()).toContain(formatSummary([report], 'table', quiet));
  });

  it('a metric or meta entry named like a column of the row itself is renamed, never replaces it', () => {
    const report = new SuiteReport({
      results: [
        {
          task: 'custom',
          status: 'completed',
          metrics: { task: 1, error: 2, model: 3, x: 4 },
          meta: { x: 'm', status: 'odd', model: 'other' },
        },
      ],
      modelMeta: { model: 'tiny' },
    });
    const [row] = report.toRows();
    expect(row).toMatchObject({
      task: 'custom',
      status: 'completed',
      error: null,
      model: 'tiny',
      metric_task: 1,
      metric_error: 2,
      metric_model: 3,
      x: 4,
      meta_x: 'm',
      meta_status: 'odd',
      meta_model: 'other',
    });
    const columns = report.columns();
    expect(columns.slice(0, 2)).toEqual(['task', 'status']);
    expect(columns.slice(-3)).toEqual(['error', 'duration_ms', 'model']);
    expect(new Set(columns).size).toBe(columns.length);
    expect(parseCsv(report.toCsv()).rows[0]?.slice(0, 2)).toEqual(['custom', 'completed']);
  });

  it("summary('kv') follows the seed format", () => {
    const report = new SuiteReport({
      results: [
        { task: 'throughput', metrics: { tps_seq64: 1234.56789, peak_tps: 2000 } },
        { task: 'perplexity', status: 'failed', error: 'no data', metrics: {} },
      ],
      modelMeta: { model: 'small', paradigm: 'ar' },
      totalTimeS: 12.345,
    });
    expect(report.summary('kv')).toBe(
      [
        'BenchmarkSuite  —  2 task(s)  (12.3 s total)',
        '  model: model=small, paradigm=ar',
        '  [throughput]  tps_seq64=1234.5679  peak_tps=2000.0000',
        '  [perplexity]  status=failed: no data',
      ].join('\n'),
    );
    expect(String(report)).toBe("SuiteReport(tasks=['throughput', 'perplexity'], time=12.3s)");
  });

  it('round-trips through CSV (equal table) and JSON (everything)', async () => {
    const report = await fakeRun();
    const dir = tmp();
    const fromCsv = SuiteReport.load(report.save(join(dir, 'r.csv')));
    expect(fromCsv.columns()).toEqual(report.columns());
    expect(fromCsv.toDataFrame().objects()).toEqual(report.toDataFrame().objects());
    expect(fromCsv.toCsv()).toBe(report.toCsv());
    const fromJson = SuiteReport.load(report.save(join(dir, 'nested', 'r.json')));
    expect(fromJson.toJSON()).toEqual(report.toJSON());
    expect(fromJson.summary()).toBe(report.summary());
    expect(fromJson.results[0]?.profiling?.p50CiMs).toEqual(report.results[0]?.profiling?.p50CiMs);
    expect(fromJson.environment?.config).toEqual(report.environment?.config);
  });

  it('long format: one row per metric with unit, direction and definition', async () => {
    const long = (await fakeRun()).toLongFormat().objects() as Record<string, unknown>[];
    const row = long.find((r) => r['metric'] === 'tps_seq16');
    expect(row).toMatchObject({
      task: 'throughput',
      status: 'completed',
      unit: 'tok/s',
      higher_is_better: true,
      run_id: 'golden',
    });
    expect(long.find((r) => r['metric'] === 'prefill_p99_ms')).toMatchObject({
      unit: 'ms',
      higher_is_better: false,
    });
    expect(long.find((r) => r['metric'] === 'eval_loss')).toMatchObject({ unit: 'nats/token' });
    expect(long.find((r) => r['metric'] === 'flops_total_g')).toMatchObject({ unit: 'GFLOP' });
    expect(long.find((r) => r['task'] === 'boom')).toMatchObject({ status: 'failed', metric: null });
    // Every numeric column of a built-in task has a descriptor.
    expect(long.filter((r) => r['task'] !== 'boom' && r['unit'] === null).map((r) => r['metric'])).toEqual(
      [],
    );
  });

  it('records the environment block', async () => {
    const env = (await fakeRun()).environment;
    expect(env?.node).toBe(process.version);
    expect(env?.engine).toBe('fake-engine 1.0');
    expect(env?.packageVersion).toMatch(/^\d+\.\d+\.\d+/);
    expect(env?.cpuModel.length).toBeGreaterThan(0);
    expect(env?.seed).toBe(0);
    expect(env?.timer?.['clockName']).toBe('manual');
  });

  it('gives clear errors for unknown formats and foreign files', () => {
    const dir = tmp();
    expect(() => SuiteReport.load(join(dir, 'r.txt'))).toThrow(/use \.csv, \.json or \.jsonl/);
    writeFileSync(join(dir, 'x.json'), '{"a":1}');
    expect(() => SuiteReport.load(join(dir, 'x.json'))).toThrow(/is not a dantinox report/);
    writeFileSync(join(dir, 'x.csv'), 'a,b\n1,2\n');
    expect(() => SuiteReport.load(join(dir, 'x.csv'))).toThrow(/first column is not "task"/);
    const withSamples = (metricSamples: unknown) =>
      JSON.stringify({
        format: 'dantinox-report',
        results: [
          {
            task: 'latency',
            metrics: {},
            cells: [
              {
                task: 'latency',
                cell: 'g',
                phase: 'generate',
                status: 'completed',
                metrics: {},
                metricSamples,
              },
            ],
          },
        ],
      });
    writeFileSync(join(dir, 'bad-samples.json'), withSamples({ ttft_ms: 3 }));
    expect(() => SuiteReport.load(join(dir, 'bad-samples.json'))).toThrow(
      /"metricSamples\.ttft_ms" a number, not an array/,
    );
    writeFileSync(join(dir, 'list-samples.json'), withSamples([1, 2]));
    expect(() => SuiteReport.load(join(dir, 'list-samples.json'))).toThrow(/"metricSamples" .*not an object/);
    writeFileSync(join(dir, 'good-samples.json'), withSamples({ ttft_ms: [1, '2'] }));
    const cell = SuiteReport.load(join(dir, 'good-samples.json')).results[0]?.cells?.[0];
    expect(cell?.metricSamples).toEqual({ ttft_ms: [1, 2] });
  });
});

describe('CSV', () => {
  it('quotes per RFC 4180 and parses back', () => {
    const rows = [
      { a: 'x,y', b: 'say "hi"', c: 'two\nlines', d: 1.5, e: null },
      { a: ' pad', b: '', c: 'plain', d: Number.NaN, e: true },
    ];
    const text = formatCsv(['a', 'b', 'c', 'd', 'e'], rows);
    expect(text).toBe('a,b,c,d,e\n"x,y","say ""hi""","two\nlines",1.5,\n" pad",,plain,,true\n');
    expect(parseCsv(text)).toEqual({
      header: ['a', 'b', 'c', 'd', 'e'],
      rows: [
        ['x,y', 'say "hi"', 'two\nlines', '1.5', undefined],
        [' pad', undefined, 'plain', undefined, 'true'],
      ],
    });
  });
});
