import { describe, expect, it } from 'vitest';
import type { Environment } from '../../src/benchmarking/environment.js';
import {
  formatNoiseWarnings,
  type NoiseSource,
  noiseWarnings,
} from '../../src/benchmarking/noise-warnings.js';
import { type BenchmarkResult, type CellRecord, SERVING_PHASE } from '../../src/benchmarking/task.js';
import { messages } from '../../src/messages.js';

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

  describe('direction: sibling variants ordered against expectation, beyond their spread', () => {
    const decode = (samplesMs: number[]): CellRecord => ({
      task: 'latency',
      cell: 'decode@32',
      phase: 'decode',
      status: 'completed',
      metrics: {},
      samplesMs,
    });
    const variant = (
      runId: string,
      meta: Record<string, string | number>,
      cells: CellRecord[],
    ): NoiseSource =>
      source(cells, { runId, modelMeta: { model: 'tiny', dtype: 'fp32', threads: 1, ...meta } });
    const threads = (t: number, prefillMs: number, decodeMs = 1): NoiseSource =>
      variant(`tiny-t${t}`, { threads: t }, [
        prefill('throughput', around(prefillMs)),
        decode(around(decodeMs)),
      ]);

    it('more threads slower by more than 25% in a prefill or decode cell: one warning naming both variants', () => {
      // 127 against 14,700 tok/s, as a matrix once showed with no warning.
      const warnings = noiseWarnings([threads(1, 1), threads(2, 14_700 / 127)]);
      expect(warnings).toEqual([
        {
          kind: 'direction',
          variant: 'tiny-t2',
          message: messages.variantsOutOfOrder(
            'threads',
            'tiny-t2 (2 threads)',
            'tiny-t1 (1 thread)',
            'throughput seq=32,batch=1',
            14_700 / 127,
            1,
          ),
        },
      ]);
      expect(warnings[0]?.message).toMatch(
        /^tiny-t2 \(2 threads\) is slower than tiny-t1 \(1 thread\): throughput seq=32,batch=1 took 116 ms against 1 ms \(\+11475%/,
      );
      // The order of the runs does not matter; the decode cell counts too.
      expect(kinds([threads(2, 1, 1.3), threads(1, 1, 1)])).toEqual(['direction']);
    });

    it('not at 25% or less, not within 4 standard errors, not when more threads are faster', () => {
      expect(kinds([threads(1, 1), threads(2, 1.25)])).toEqual([]);
      expect(kinds([threads(1, 1), threads(2, 1.26)])).toEqual(['direction']);
      expect(kinds([threads(1, 1.3), threads(2, 1)])).toEqual([]);
      const wide = [0.3, 1.7, 0.3, 1.7, 0.3, 1.7]; // sd ≈ 0.77: 30% is within 4 standard errors
      const t1 = variant('a', { threads: 1 }, [prefill('throughput', wide)]);
      const t2 = variant('b', { threads: 2 }, [
        prefill(
          'throughput',
          wide.map((x) => x * 1.3),
        ),
      ]);
      expect(kinds([t1, t2])).toEqual([]);
    });

    it('q4 slower than fp32 in decode by more than 25%: a warning; in prefill, or q8, or another difference: none', () => {
      const fp32 = variant('tiny-fp32', {}, [prefill('throughput', around(1)), decode(around(1))]);
      const q4 = (prefillMs: number, decodeMs: number, meta: Record<string, string | number> = {}) =>
        variant('tiny-q4', { dtype: 'q4', block_size: 32, ...meta }, [
          prefill('throughput', around(prefillMs)),
          decode(around(decodeMs)),
        ]);
      expect(noiseWarnings([fp32, q4(1, 1.3)])).toEqual([
        {
          kind: 'direction',
          variant: 'tiny-q4',
          message: messages.variantsOutOfOrder(
            'q4',
            'tiny-q4 (q4)',
            'tiny-fp32 (fp32)',
            'latency decode@32',
            1.3,
            1,
          ),
        },
      ]);
      expect(kinds([fp32, q4(1, 1.25)])).toEqual([]);
      expect(kinds([fp32, q4(2, 1)])).toEqual([]); // q4's prefill may be slower (dequantization)
      const q8 = variant('tiny-q8', { dtype: 'q8' }, [decode(around(2))]);
      expect(kinds([fp32, q8])).toEqual([]);
      expect(kinds([fp32, q4(1, 2, { threads: 2 })])).toEqual([]); // dtype and threads differ: not siblings
    });

    it('repeats of a variant are pooled, and the variant named is its first run', () => {
      const runs = [
        threads(1, 1),
        { ...threads(2, 1.5), runId: 'tiny-t2-r1' },
        { ...threads(2, 1.5), runId: 'tiny-t2-r2' },
      ];
      const warnings = noiseWarnings(runs).filter((w) => w.kind === 'direction');
      expect(warnings.map((w) => w.variant)).toEqual(['tiny-t2-r1']);
    });
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
