import { describe, expect, it } from 'vitest';
import type { Calibration } from '../../src/benchmarking/calibration.js';
import { BenchmarkConfig } from '../../src/benchmarking/config.js';
import { describeMetric } from '../../src/benchmarking/metric-schema.js';
import type { SuiteReport } from '../../src/benchmarking/report.js';
import { BenchmarkSuite } from '../../src/benchmarking/suite.js';
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
