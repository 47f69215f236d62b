import { describe, expect, it } from 'vitest';
import type { Environment } from '../../src/benchmarking/environment.js';
import {
  formatNoiseWarnings,
  type NoiseSource,
  noiseWarnings,
} from '../../src/benchmarking/noise-warnings.js';
import { type BenchmarkResult, type CellRecord, SERVING_PHASE } from '../../src/benchmarking/task.js';

const env = (over: Partial<Environment>): Environment => ({ logicalCpus: 2, ...over }) as Environment;

const prefill = (task: string, samplesMs: number[], over: Partial<CellRecord> = {}): CellRecord => ({
  task,
  cell: task === 'latency' ? 'prefill@32' : 'seq=32,batch=1',
  phase: 'prefill',
  batch: 1,
  seqLen: 32,
  status: 'completed',
  metrics: {},
  samplesMs,
  ...over,
});

const source = (cells: CellRecord[], over: Partial<NoiseSource> = {}): NoiseSource => ({
  runId: 'tiny-fp32',
  results: [...new Set(cells.map((c) => c.task))].map(
    (task): BenchmarkResult => ({ task, metrics: {}, cells: cells.filter((c) => c.task === task) }),
  ),
  modelMeta: { model: 'tiny', dtype: 'fp32', threads: 2 },
  environment: undefined,
  ...over,
});

const kinds = (sources: NoiseSource[]): string[] => noiseWarnings(sources).map((w) => w.kind);
/** Nine calls around `ms` (±1%, mean `ms`): a tight spread. */
const around = (ms: number): number[] => Array.from({ length: 9 }, (_, i) => ms * (0.99 + (i % 3) * 0.01));

describe('noiseWarnings', () => {
  it('busy: a 1-minute load above half the logical CPUs at the start or the end (not at exactly half)', () => {
    const at = (start: number, end?: number) =>
      kinds([
        source([], {
          environment: env({
            loadAverage: { start: [start, 0, 0], ...(end === undefined ? {} : { end: [end, 0, 0] }) },
          }),
        }),
      ]);
    expect(at(1.0)).toEqual([]);
    expect(at(1.01)).toEqual(['busy']);
    expect(at(0.2, 1.5)).toEqual(['busy']);
    // The run's own threads are part of the load at its end: 2 threads account for up to 2.
    const own = (end: number) =>
      kinds([
        source([], {
          environment: env({ threads: 2, loadAverage: { start: [0.2, 0, 0], end: [end, 0, 0] } }),
        }),
      ]);
    expect(own(3.0)).toEqual([]);
    expect(own(3.01)).toEqual(['busy']);
  });

  it('busy, measured: other processes kept more than half the CPUs busy — decides over the load average', () => {
    const at = (othersCpus: number, load = 0) =>
      kinds([source([], { environment: env({ othersCpus, loadAverage: { start: [load, 0, 0] } }) })]);
    expect(at(1.0)).toEqual([]);
    expect(at(1.01)).toEqual(['busy']);
    expect(at(0.1, 5)).toEqual([]); // the load was our own build or calibration
  });

  it('calibration: ceilings measured at a load above half the CPUs of their fingerprint', () => {
    const calibration = (load: number, end?: number) => ({
      loadAverage: [load, 0, 0],
      ...(end === undefined ? {} : { loadAverageEnd: [end, 0, 0] }),
      fingerprint: { logicalCpus: 4, threads: 4 },
    });
    const at = (load: number) =>
      kinds([source([], { environment: env({ calibration: calibration(load) as never }) })]);
    expect(at(2)).toEqual([]);
    expect(at(2.5)).toEqual(['calibration']);
    const withEnd = (end: number) =>
      kinds([source([], { environment: env({ calibration: calibration(0.5, end) as never }) })]);
    expect(withEnd(6)).toEqual([]); // 4 probe threads of its own: others ≈ 2
    expect(withEnd(6.5)).toEqual(['calibration']);
  });

  it('clock: the mean clock at the end below 90% of the start (not at exactly 90%)', () => {
    const at = (end: number) =>
      kinds([source([], { environment: env({ cpuMhz: { start: [2000, 2000], end: [end, end] } }) })]);
    expect(at(1800)).toEqual([]);
    expect(at(1799)).toEqual(['clock']);
    expect(kinds([source([], { environment: env({ cpuMhz: { start: [2000] } }) })])).toEqual([]); // no end yet
  });

  it('tail: a p99 more than 3× the median over at least 5 calls', () => {
    const cell = (last: number, n = 5) =>
      kinds([source([prefill('throughput', [...Array(n - 1).fill(1), last])])]);
    // sorted [1,1,1,1,x]: p99 = 1 + 0.96·(x − 1)
    expect(cell(3.08)).toEqual([]); // 2.997×
    expect(cell(3.09)).toEqual(['tail']); // 3.006×
    expect(cell(100, 4)).toEqual([]); // too few calls to speak of a tail
    const gen = source([
      {
        ...prefill('latency', [5, 5, 5, 5, 5]),
        cell: 'generate@32+4',
        phase: 'generate',
        metricSamples: { ttft_ms: [1, 1, 1, 1, 9] },
      },
    ]);
    expect(noiseWarnings([gen])[0]?.message).toMatch(
      /^latency generate@32\+4 ttft_ms: its p99 is 8\.7× its median/,
    );
  });

  it('tail: never for a serving cell, whose spread is the queueing it measures', () => {
    const cell = (phase: string) => ({
      ...prefill('serving', []),
      cell: 'concurrency=4,rate=inf',
      phase,
      metricSamples: { ttft_ms: [1, 1, 1, 1, 9] },
    });
    expect(kinds([source([cell(SERVING_PHASE)])])).toEqual([]);
    expect(kinds([source([cell('generate')])])).toEqual(['tail']);
  });

  it('siblings: one prefill shape timed by two tasks more than 25% and 4 standard errors apart', () => {
    expect(kinds([source([prefill('throughput', around(1)), prefill('latency', around(1.3))])])).toEqual([
      'siblings',
    ]);
    expect(kinds([source([prefill('throughput', around(1)), prefill('latency', around(1.2))])])).toEqual([]); // 20%
    const wide = [0.3, 1.7, 0.3, 1.7, 0.3, 1.7]; // mean 1, sd ≈ 0.77: 30% is within 4 standard errors
    expect(
      kinds([
        source([
          prefill('throughput', wide),
          prefill(
            'latency',
            wide.map((x) => x * 1.3),
          ),
        ]),
      ]),
    ).toEqual([]);
    const [w] = noiseWarnings([source([prefill('throughput', around(1)), prefill('latency', around(1.3))])]);
    expect(w?.message).toMatch(
      /took 1 ms in throughput seq=32,batch=1 and 1\.3 ms in latency prefill@32 \(\+30%/,
    );
  });

  it('siblings across runs: the same variant measured twice, never two different variants', () => {
    const first = source([prefill('throughput', around(1))], { runId: 'round-1' });
    const again = source([prefill('throughput', around(2))], { runId: 'round-2' });
    expect(noiseWarnings([first, again])).toEqual([
      expect.objectContaining({
        kind: 'siblings',
        variant: 'round-2',
        message: expect.stringContaining('round-1 throughput'),
      }),
    ]);
    const q8 = source([prefill('throughput', around(2))], {
      runId: 'q8',
      modelMeta: { model: 'tiny', dtype: 'q8', threads: 2 },
    });
    expect(noiseWarnings([first, q8])).toEqual([]);
  });

  it('validation: each failed self-check of a cell is a warning line, its message as written; passed ones are not', () => {
    const check = (name: string, ok: boolean) => ({
      name,
      ok,
      value: 1,
      limit: 0,
      message: `${name} said so`,
    });
    const point: CellRecord = {
      task: 'serving',
      cell: 'concurrency=1,rate=inf',
      phase: SERVING_PHASE,
      status: 'completed',
      metrics: {},
      validation: [check('e2e_parts', true), check('token_counts', false), check('tokens_confirmed', false)],
    };
    const warnings = noiseWarnings([source([point])]);
    expect(warnings).toEqual([
      { kind: 'validation', variant: 'tiny-fp32', message: 'token_counts said so' },
      { kind: 'validation', variant: 'tiny-fp32', message: 'tokens_confirmed said so' },
    ]);
  });

  it('formatNoiseWarnings: a heading and one line per warning, named by run when there are several', () => {
    expect(formatNoiseWarnings([])).toBe('');
    const text = formatNoiseWarnings([
      { kind: 'busy', variant: 'a', message: 'm1' },
      { kind: 'tail', variant: 'b', message: 'm2' },
    ]);
    expect(text).toBe('Warnings (timings to read with care):\n  - a: m1\n  - b: m2');
  });
});
