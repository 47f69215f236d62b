import { describe, expect, it } from 'vitest';
import { type BenchCliOptions, benchmarkConfig, CLI_BENCH_DEFAULTS } from '../../src/cli/commands/bench.js';
import { messages } from '../../src/messages.js';

/** Parsed flags of `dantinox bench` with `config` fields set (the other options at their defaults). */
const flags = (config: Partial<BenchCliOptions>): BenchCliOptions => ({
  isolation: true,
  repeat: 1,
  charts: true,
  format: 'table',
  calibrate: true,
  calibrationMs: 2000,
  ...config,
});

describe('benchmarkConfig of dantinox bench', () => {
  it('the default run caps a cell at 3 s of timed calls; a file keeps the library default (no cap)', () => {
    expect(CLI_BENCH_DEFAULTS['maxMeasureMs']).toBe(3000);
    expect(benchmarkConfig(flags({}), undefined).maxMeasureMs).toBe(3000);
    expect(benchmarkConfig(flags({}), { seqLens: [64] }).maxMeasureMs).toBe(0);
    expect(benchmarkConfig(flags({ maxMeasureMs: 500 }), undefined).maxMeasureMs).toBe(500);
  });

  it('a --min-measure-ms above the default cap lifts it, one at or below keeps it, an explicit cap below is refused', () => {
    expect(benchmarkConfig(flags({ minMeasureMs: 3001 }), undefined).maxMeasureMs).toBe(0);
    expect(benchmarkConfig(flags({ minMeasureMs: 3000 }), undefined).maxMeasureMs).toBe(3000);
    // In the words of the CLI: flags, not config fields.
    expect(() => benchmarkConfig(flags({ minMeasureMs: 5000, maxMeasureMs: 4000 }), undefined)).toThrow(
      messages.measureCapBelowMinimum(5000, 4000),
    );
    expect(() => benchmarkConfig(flags({ minMeasureMs: 5000 }), { maxMeasureMs: 4000 })).toThrow(
      messages.measureCapBelowMinimum(5000, 4000),
    );
  });
});
