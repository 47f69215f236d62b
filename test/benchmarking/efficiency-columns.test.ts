import { describe, expect, it } from 'vitest';
import type { Calibration } from '../../src/benchmarking/calibration.js';
import { BenchmarkConfig } from '../../src/benchmarking/config.js';
import {
  ceilingDtype,
  efficiencyIdentity,
  withEfficiency,
} from '../../src/benchmarking/efficiency-columns.js';
import { describeMetric } from '../../src/benchmarking/metric-schema.js';
import type { SuiteReport } from '../../src/benchmarking/report.js';
import { BenchmarkSuite } from '../../src/benchmarking/suite.js';
import type { BenchmarkResult, CellRecord } from '../../src/benchmarking/task.js';
import { LatencyTask } from '../../src/benchmarking/tasks/latency-task.js';
import { ThroughputTask } from '../../src/benchmarking/tasks/throughput-task.js';
import { messages } from '../../src/messages.js';
import type { ModelInfo } from '../../src/models/model.js';
import { ARParadigm } from '../../src/models/paradigms/ar-paradigm.js';
import { type Ceilings, countDecodeFlops, countFlops, memoryFootprint } from '../../src/profiling/index.js';
import { FakeModel } from './fake-model.js';

const config = BenchmarkConfig.parse({
  seqLens: [8, 16],
  batchSizes: [1, 2],
  nWarmup: 1,
  nMeasure: 3,
  minWarmupMs: 0,
  minMeasureMs: 0,
  genTokens: 2,
});

/** A calibration with the given ceilings (a fixture: the numbers are the test's, not a machine's). */
function calibrationWith(ceilings: Omit<Ceilings, 'source'>, theoretical?: Ceilings): Calibration {
  return {
    format: 'dantinox-calibration/1',
    key: '0123456789abcdef',
    fingerprint: {
      cpuModel: 'test CPU',
      cpuFlags: [],
      logicalCpus: 2,
      totalMemoryBytes: 1,
      platform: 'linux x64',
      engine: 'fake-engine 1.0',
      threads: 1,
    },
    measuredAt: '2026-11-30T00:00:00.000Z',
    loadAverage: [0, 0, 0],
    packageVersion: '0.0.0',
    durationMs: 1,
    probes: [],
    ceilings: { source: 'calibrated', ...ceilings },
    ...(theoretical === undefined ? {} : { theoretical: { ceilings: theoretical, basis: 'test' } }),
  };
}

async function run(calibration: Calibration | undefined, info: Partial<ModelInfo> = {}) {
  const model = new FakeModel({ info }); // a call over t tokens costs 1 ms + 0.01 ms · t on the manual clock
  const suite = new BenchmarkSuite({ tasks: [new ThroughputTask(), new LatencyTask()], config });
  const report = await suite.run(new ARParadigm(model.config), model, {
    clock: model.clock,
    jsonl: false,
    ...(calibration === undefined ? {} : { calibration }),
  });
  return { model, report };
}

const report = (r: { report: SuiteReport }) => r.report;

describe('efficiency columns', () => {
  it('MFU and MBU of a fake model on a manual clock equal the hand-computed values', async () => {
    const calibration = calibrationWith(
      { gemmGflops: { fp32: 0.5 }, bandwidthGbs: 0.002 },
      { source: 'theoretical', gemmGflops: { fp32: 2 } },
    );
    const { model, report } = await run(calibration);
    const [throughput, latency] = report.results;
    const c = model.config;
    // seq=16, batch=1: 1 + 0.01·16 = 1.16 ms per call; MFU = FLOPs / 1.16 ms / 0.5 GFLOP/s.
    const flops16 = countFlops(c, { seqLen: 16, batchSize: 1 }).total;
    expect(throughput?.metrics['mfu_seq16']).toBeCloseTo(flops16 / 1.16e-3 / 0.5e9, 12);
    // batch 2 at seq 8: 1 + 0.01·16 = 1.16 ms.
    const flopsBs2 = countFlops(c, { seqLen: 8, batchSize: 2 }).total;
    expect(throughput?.metrics['mfu_bs2']).toBeCloseTo(flopsBs2 / 1.16e-3 / 0.5e9, 12);
    // The throughput row's mfu is its peak cell's (seq=16 has the highest tok/s: 16 / 1.16 ms).
    expect(throughput?.meta?.['profiling_cell']).toBe('seq=16,batch=1');
    expect(throughput?.metrics['mfu']).toBeCloseTo(flops16 / 1.16e-3 / 0.5e9, 12);
    expect(throughput?.metrics['mfu_theoretical']).toBeCloseTo(flops16 / 1.16e-3 / 2e9, 12);
    const fp = memoryFootprint(c);
    expect(throughput?.metrics['intensity_seq16']).toBeCloseTo(
      flops16 / (fp.activeWeightBytes + 16 * fp.kvBytesPerToken),
      12,
    );
    // Latency: prefill at P = 16; decode steps at context 16 cost 1.01 ms each.
    expect(latency?.metrics['mfu']).toBeCloseTo(flops16 / 1.16e-3 / 0.5e9, 12);
    const context = latency?.meta?.['decode_context'] as number;
    const bytes = fp.activeWeightBytes + context * fp.kvBytesPerToken;
    expect(latency?.metrics['mbu']).toBeCloseTo(bytes / 1.01e-3 / 0.002e9, 12);
    const decodeFlops = countDecodeFlops(c, { context }).total;
    expect(latency?.metrics['gflops_per_s_decode']).toBeCloseTo(decodeFlops / 1.01e-3 / 1e9, 9);
    expect(latency?.metrics['intensity_decode']).toBeCloseTo(decodeFlops / bytes, 12);
    // Ceilings are identity columns (for the roofline chart), and the environment holds the calibration.
    expect(report.modelMeta['ceiling_gflops_fp32']).toBe(0.5);
    expect(report.modelMeta['ceiling_bandwidth_gbs']).toBe(0.002);
    expect(report.environment?.calibration).toEqual(calibration);
  });

  it('MBU counts the bytes the engine reads: the run-time dtype of the weights, and the LM head in its own dtype', async () => {
    const calibration = calibrationWith({ gemmGflops: { fp32: 0.5 }, bandwidthGbs: 0.002 });
    const cases: [Partial<ModelInfo>, Parameters<typeof memoryFootprint>[1]][] = [
      // The built-in fp16 graph casts its float16 weights to float32 when the session is created.
      [{ dtype: 'fp16', runtimeDtype: 'fp32' }, { dtype: 'fp32' }],
      [
        { dtype: 'q4', quantization: { dtype: 'q4', headDtype: 'fp32', matrices: {} } },
        { dtype: 'q4', headDtype: 'fp32' },
      ],
      [{ dtype: 'q8' }, { dtype: 'q8' }],
      // A head dtype of the stored weights does not apply once the engine holds them in another dtype.
      [
        {
          dtype: 'fp16',
          runtimeDtype: 'fp32',
          quantization: { dtype: 'fp16', headDtype: 'q8', matrices: {} },
        },
        { dtype: 'fp32' },
      ],
    ];
    for (const [info, footprintOptions] of cases) {
      const { model, report } = await run(calibration, info);
      const latency = report.results[1];
      const fp = memoryFootprint(model.config, footprintOptions);
      const context = latency?.meta?.['decode_context'] as number;
      const bytes = fp.activeWeightBytes + context * fp.kvBytesPerToken;
      expect(latency?.metrics['mbu'], JSON.stringify(info)).toBeCloseTo(bytes / 1.01e-3 / 0.002e9, 12);
    }
  });

  it('a dtype or bandwidth without a ceiling gives the reason, never a number', async () => {
    const { report } = await run(calibrationWith({ gemmGflops: { q8: 10 } }));
    const [throughput, latency] = report.results;
    expect(throughput?.metrics['mfu']).toBeUndefined();
    expect(throughput?.metrics['mfu_seq16']).toBeUndefined();
    expect(throughput?.meta?.['mfu_unavailable']).toBe(messages.noGemmCeiling('calibrated', 'fp32', ['q8']));
    expect(latency?.metrics['mbu']).toBeUndefined();
    expect(latency?.meta?.['mbu_unavailable']).toBe(messages.noBandwidthCeiling('calibrated'));
  });

  it('without a calibration the rows are unchanged (and a simulated run records no RSS)', async () => {
    const { report } = await run(undefined);
    for (const r of report.results) {
      expect(Object.keys(r.metrics).filter((k) => /^(mfu|mbu|intensity|peak_rss)/.test(k))).toEqual([]);
    }
    expect(report.modelMeta['ceiling_gflops_fp32']).toBeUndefined();
  });

  it("MFU is against the ceiling of the model's own dtype: q8 against int8 GEMM, fp32 against fp32", async () => {
    const ceilings = { gemmGflops: { fp32: 100, q8: 400 }, bandwidthGbs: 10 };
    const fp32 = (await run(calibrationWith(ceilings))).report.results[0];
    const q8 = (await run(calibrationWith(ceilings), { dtype: 'q8' })).report.results[0];
    const mfu = (r: typeof fp32) => r?.metrics['mfu'] as number;
    // Same fake calls, same FLOPs: a ceiling 4× higher gives a quarter of the MFU.
    expect(mfu(q8) / mfu(fp32)).toBeCloseTo(0.25, 10);
    expect(
      report(await run(calibrationWith(ceilings), { dtype: 'q8' })).modelMeta['ceilings_probed_with'],
    ).toBe('fake-engine 1.0 kernels');
  });

  it('without a calibration, the timing rows say why MFU and MBU are unavailable', async () => {
    const model = new FakeModel({});
    const suite = new BenchmarkSuite({ tasks: [new ThroughputTask(), new LatencyTask()], config });
    const r = await suite.run(new ARParadigm(model.config), model, {
      clock: model.clock,
      jsonl: false,
      efficiencyUnavailable: messages.noCalibration(),
    });
    for (const row of r.results) {
      expect(row.meta?.['mfu_unavailable']).toBe(messages.noCalibration());
      expect(row.meta?.['mbu_unavailable']).toBe(messages.noCalibration());
    }
  });

  it('every efficiency column has a glossary entry with a unit', () => {
    for (const key of [
      'mfu',
      'mbu',
      'mfu_theoretical',
      'mfu_seq512',
      'mfu_bs4',
      'intensity_bs4',
      'peak_rss_mb',
    ]) {
      expect(describeMetric(key)?.unit, key).toBeTruthy();
    }
  });
});

/** A cell record of `phase` over `seqLen` tokens × `batch`, `meanMs` per call, with the FLOPs of one such call. */
function cellOf(
  model: FakeModel,
  phase: 'prefill' | 'decode',
  seqLen: number,
  batch: number,
  meanMs: number,
  status: CellRecord['status'] = 'completed',
): CellRecord {
  return {
    task: 't',
    cell: `${phase}:seq=${seqLen},batch=${batch}`,
    phase,
    seqLen,
    batch,
    status,
    metrics: { mean_ms: meanMs },
    flops: countFlops(model.config, { seqLen, batchSize: batch }),
  };
}

const MIB = 2 ** 20;

describe('withEfficiency on hand-made rows', () => {
  const model = new FakeModel({});
  const fp = memoryFootprint(model.config);
  const bytes = (context: number, batch: number) =>
    fp.activeWeightBytes + batch * context * fp.kvBytesPerToken;
  const flops = (seqLen: number, batch: number) =>
    countFlops(model.config, { seqLen, batchSize: batch }).total;

  it('maps the raw tensor types to the ceiling keys and leaves dtype-table names alone', () => {
    expect(['float32', 'float16', 'int8', 'uint8', 'fp32', 'q4', 'bf16'].map(ceilingDtype)).toEqual([
      'fp32',
      'fp16',
      'q8',
      'q8',
      'fp32',
      'q4',
      'bf16',
    ]);
  });

  it('without a calibration adds the peak RSS in MiB, and the reasons only to a row with a completed cell that has FLOPs', () => {
    const timed = cellOf(model, 'prefill', 8, 1, 2);
    const row = (cells: CellRecord[], meta?: BenchmarkResult['meta']): BenchmarkResult => ({
      task: 't',
      metrics: { x: 1 },
      cells,
      ...(meta === undefined ? {} : { meta }),
    });
    const plain = withEfficiency(row([timed], { kept: 'yes' }), { model, peakRssBytes: 3 * MIB });
    expect(plain.metrics).toEqual({ x: 1, peak_rss_mb: 3 });
    expect(plain.meta).toEqual({ kept: 'yes' });
    const why = withEfficiency(row([timed], { kept: 'yes' }), { model, unavailable: 'why' });
    expect(why.metrics).toEqual({ x: 1 });
    expect(why.meta).toEqual({ kept: 'yes', mfu_unavailable: 'why', mbu_unavailable: 'why' });
    const noFlops: CellRecord = {
      task: 't',
      cell: 'untimed',
      phase: 'prefill',
      seqLen: 8,
      batch: 1,
      status: 'completed',
      metrics: { mean_ms: 2 },
    };
    for (const cells of [[{ ...timed, status: 'failed' as const }], [noFlops], []]) {
      expect(withEfficiency(row(cells), { model, unavailable: 'why' }).meta).toBeUndefined();
    }
  });

  it('a swept row: MFU and intensity per swept cell (a seq cell at batch 1, a batch cell by its batch), MBU of the completed decode cell, no prefill point', () => {
    const calibration = calibrationWith({ gemmGflops: { fp32: 0.5 }, bandwidthGbs: 0.002 });
    const seq16 = cellOf(model, 'prefill', 16, 1, 4);
    // A decode cell at the same shape (other FLOPs) is not the swept prefill cell.
    const decodeAt16 = {
      ...cellOf(model, 'decode', 16, 1, 1),
      flops: countFlops(model.config, { seqLen: 1 }),
    };
    const cells = [
      cellOf(model, 'decode', 40, 1, 1, 'failed'),
      cellOf(model, 'decode', 20, 1, 2),
      decodeAt16,
      cellOf(model, 'prefill', 16, 2, 9),
      seq16,
      cellOf(model, 'prefill', 8, 3, 7),
    ];
    const out = withEfficiency(
      {
        task: 'throughput',
        metrics: {
          gflops_per_s_seq16: 2,
          gflops_per_s_bs3: 3,
          gflops_per_s_seqx: 5,
          old_gflops_per_s_seq8: 1,
          gflops_per_s_bs2_max: 1,
        },
        meta: { profiling_cell: seq16.cell },
        cells,
      },
      { model, calibration },
    );
    expect(out.metrics['mfu_seq16']).toBeCloseTo(4, 12);
    expect(out.metrics['mfu_bs3']).toBeCloseTo(6, 12);
    expect(out.metrics['intensity_seq16']).toBeCloseTo(flops(16, 1) / bytes(16, 1), 12);
    expect(out.metrics['intensity_bs3']).toBeCloseTo(flops(8, 3) / bytes(8, 3), 12);
    expect(out.metrics['mfu']).toBeCloseTo(flops(16, 1) / 4e-3 / 0.5e9, 12);
    expect(out.metrics['mfu_theoretical']).toBeUndefined();
    expect(out.metrics['mbu']).toBeCloseTo(bytes(20, 1) / 2e-3 / 0.002e9, 12);
    const decodeFlops = countFlops(model.config, { seqLen: 20 }).total;
    expect(out.metrics['gflops_per_s_decode']).toBeCloseTo(decodeFlops / 1e9 / 2e-3, 12);
    expect(out.metrics['intensity_decode']).toBeCloseTo(decodeFlops / bytes(20, 1), 12);
    expect(Object.keys(out.metrics).filter((k) => /prefill|seqx|seq8|bs2/.test(k))).toEqual([
      'gflops_per_s_seqx',
      'old_gflops_per_s_seq8',
      'gflops_per_s_bs2_max',
    ]);
    expect(out.meta).toEqual({ profiling_cell: seq16.cell });
  });

  it('a row without a sweep gets its profiled prefill as a roofline point; a profiled decode cell gives none', () => {
    const calibration = calibrationWith({ gemmGflops: { fp32: 1 }, bandwidthGbs: 1 });
    const prefill = cellOf(model, 'prefill', 12, 2, 5);
    const decode = cellOf(model, 'decode', 30, 2, 3);
    const latency = withEfficiency(
      {
        task: 'latency',
        metrics: { x: 1 },
        meta: { profiling_cell: prefill.cell },
        cells: [prefill, decode],
      },
      { model, calibration },
    );
    expect(latency.metrics['gflops_per_s_prefill']).toBeCloseTo(flops(12, 2) / 1e9 / 5e-3, 12);
    expect(latency.metrics['intensity_prefill']).toBeCloseTo(flops(12, 2) / bytes(12, 2), 12);
    expect(latency.metrics['mbu']).toBeCloseTo(bytes(30, 2) / 3e-3 / 1e9, 12);
    const decodeProfiled = withEfficiency(
      { task: 'latency', metrics: {}, meta: { profiling_cell: decode.cell }, cells: [prefill, decode] },
      { model, calibration },
    );
    expect(decodeProfiled.metrics['gflops_per_s_prefill']).toBeUndefined();
    expect(decodeProfiled.metrics['mfu']).toBeCloseTo(flops(30, 2) / 3e-3 / 1e9, 12);
    // The profiled cell is the one of that name with FLOPs (a record of it without FLOPs is passed over).
    const noFlops = { ...prefill, flops: undefined } as unknown as CellRecord;
    const profiledOnce = withEfficiency(
      {
        task: 'latency',
        metrics: {},
        meta: { profiling_cell: prefill.cell },
        cells: [noFlops, prefill, decode],
      },
      { model, calibration },
    );
    expect(profiledOnce.metrics['mfu']).toBeCloseTo(flops(12, 2) / 5e-3 / 1e9, 12);
    // Everything available and no meta before: the row gets no meta.
    const bare = withEfficiency(
      { task: 'latency', metrics: {}, cells: [prefill, decode] },
      { model, calibration },
    );
    expect(bare.metrics['mbu']).toBeGreaterThan(0);
    expect('meta' in bare).toBe(false);
  });

  it('identity columns: the load cost in ms and MiB, every calibrated ceiling (null when absent) and whose kernels set them', () => {
    const loaded = new FakeModel({ info: { load: { ms: 12, peakRssBytes: 5 * MIB } } });
    const calibration = calibrationWith({ gemmGflops: { fp32: 7, q4: undefined } });
    expect(efficiencyIdentity(loaded, calibration)).toEqual({
      model_load_ms: 12,
      model_load_peak_rss_mb: 5,
      ceiling_gflops_fp32: 7,
      ceiling_gflops_q4: null,
      ceiling_bandwidth_gbs: null,
      ceilings_probed_with: 'fake-engine 1.0 kernels',
    });
    expect(efficiencyIdentity(model, undefined)).toEqual({});
  });
});
