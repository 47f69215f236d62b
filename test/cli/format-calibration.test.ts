import { describe, expect, it } from 'vitest';
import type { Calibration } from '../../src/benchmarking/index.js';
import { formatCalibration } from '../../src/cli/format-calibration.js';

const probe = (id: string, measures: string, value: number) =>
  ({
    id,
    measures,
    description: `${id} shape`,
    unit: 'GFLOP/s',
    value,
    medianMs: 2,
    p10Ms: 1,
    p90Ms: 3,
    n: 5,
  }) as const;

const calibration: Calibration = {
  format: 'dantinox-calibration/1',
  key: '0123456789abcdef',
  fingerprint: {
    cpuModel: 'Test CPU',
    cpuFlags: ['avx2'],
    logicalCpus: 2,
    totalMemoryBytes: 2 ** 30,
    platform: 'linux x64',
    engine: 'e 1',
    threads: 2,
  },
  measuredAt: '2026-12-01T00:00:00.000Z',
  loadAverage: [0.5, 0.25, 0.125],
  packageVersion: '9.9.9',
  durationMs: 1500,
  probes: [
    probe('gemm-fp32', 'fp32', 100),
    probe('gemm-fp32-wide', 'fp32', 130),
    probe('gemm-q8-dynamic-wide', 'q8', 300),
  ],
  ceilings: { source: 'calibrated', gemmGflops: { fp32: 130, q8: 300 } },
  theoreticalUnavailable: 'no clock',
};

describe('formatCalibration', () => {
  it('aligns every probe row under its header, however long the id, and names the best probe per dtype', () => {
    const lines = formatCalibration({ calibration, cached: false, path: '/c/k.json' }).split('\n');
    const header = lines.findIndex((l) => l.startsWith('probe '));
    const rows = lines.slice(header + 1, header + 4);
    expect(rows.map((r) => r.split(/\s+/)[0])).toEqual([
      'gemm-fp32',
      'gemm-fp32-wide',
      'gemm-q8-dynamic-wide',
    ]);
    // The rate starts where the header's "rate" does, on every row (the longest id is 20 characters).
    const rateAt = lines[header]?.indexOf('rate');
    expect(rateAt).toBe(21);
    for (const r of rows) expect(r.slice(rateAt), r).toMatch(/^\d+\.\d GFLOP\/s /);
    // The rate is that of the fast runs: the timing column leads with their 10th-percentile time.
    expect(lines[header]).toContain('p10 ms (median, p90, n)');
    for (const r of rows) expect(r, r).toContain('1.00 (2.00, 3.00, 5)');
    expect(lines).toContain('Calibrated ceilings (the best probe of each dtype):');
    expect(lines).toContain('  GEMM fp32: 130.0 GFLOP/s');
  });

  it('starts every description under "what", however long the timings', () => {
    const long = {
      ...probe('copy', 'bandwidth', 26.4),
      unit: 'GB/s',
      p10Ms: 10.18,
      medianMs: 10.63,
      p90Ms: 111.9,
      n: 1590,
    } as const;
    const lines = formatCalibration({
      calibration: { ...calibration, probes: [...calibration.probes, long] },
      cached: false,
      path: '/c/k.json',
    }).split('\n');
    const header = lines.findIndex((l) => l.startsWith('probe '));
    const whatAt = lines[header]?.indexOf('what') as number;
    const rows = lines.slice(header + 1, header + 5);
    for (const r of rows) expect(r.slice(whatAt), r).toMatch(/^\S+ shape$/);
    expect(rows[3]).toContain('10.18 (10.63, 111.90, 1590)');
  });
});
