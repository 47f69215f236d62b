import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BenchmarkConfig } from '../../src/benchmarking/config.js';
import { ValidationError } from '../../src/errors.js';

const tmp = (): string => mkdtempSync(join(tmpdir(), 'dx-config-'));

describe('BenchmarkConfig', () => {
  it('has the seed defaults plus ours', () => {
    const c = BenchmarkConfig.parse({});
    expect(c.seqLens).toEqual([64, 128, 256, 512]);
    expect(c.batchSizes).toEqual([1, 4, 16, 64, 128]);
    expect([c.nWarmup, c.nMeasure, c.evalBatches, c.evalSeqLen, c.evalBatchSize, c.seed]).toEqual([
      5, 20, 50, 256, 4, 0,
    ]);
    expect(c.outputDir).toBe('benchmark_results');
    expect(c.minWarmupMs).toBe(1000);
    expect(c.evalStride).toBeNull();
  });

  it('accepts the seed snake_case and camelCase', () => {
    const a = BenchmarkConfig.parse({
      seq_lens: [128, 256],
      n_measure: 30,
      eval_seq_len: 64,
      min_warmup_ms: 0,
    });
    const b = BenchmarkConfig.parse({ seqLens: [128, 256], nMeasure: 30, evalSeqLen: 64, minWarmupMs: 0 });
    expect(a).toEqual(b);
    expect(a.nMeasure).toBe(30);
  });

  it('lists every problem at once, with did-you-mean for unknown keys', () => {
    let error: unknown;
    try {
      BenchmarkConfig.parse({ seq_lenz: [1], nMeasure: 0, batchSizes: [1.5], seed: -1, n_measure: 5 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    const v = error as ValidationError;
    expect(v.code).toBe('INVALID_OPTION');
    const paths = v.issues.map((i) => i.path);
    expect(paths).toContain('seq_lenz');
    expect(paths).toContain('nMeasure'); // given twice with different values
    expect(paths.some((p) => p.startsWith('batchSizes'))).toBe(true);
    expect(paths).toContain('seed');
    expect(v.message).toMatch(/Did you mean "seq_lens"\?/);
  });

  it('rejects a stride longer than the window', () => {
    expect(() => BenchmarkConfig.parse({ evalSeqLen: 64, evalStride: 65 })).toThrow(
      /evalStride: must be ≤ evalSeqLen/,
    );
    expect(BenchmarkConfig.parse({ evalSeqLen: 64, evalStride: 64 }).evalStride).toBe(64);
  });

  it('caps timed phases only when asked, and never below the minimum measured time', () => {
    expect(BenchmarkConfig.defaults().maxMeasureMs).toBe(0);
    expect(BenchmarkConfig.parse({ max_measure_ms: 3000 }).maxMeasureMs).toBe(3000);
    expect(() => BenchmarkConfig.parse({ minMeasureMs: 3001, maxMeasureMs: 3000 })).toThrow(
      /minMeasureMs: must be ≤ maxMeasureMs \(3000\), the cap on a cell's timed phase \(0: no cap\), received 3001/,
    );
    expect(BenchmarkConfig.parse({ minMeasureMs: 3000, maxMeasureMs: 3000 }).minMeasureMs).toBe(3000);
    expect(BenchmarkConfig.parse({ minMeasureMs: 5000, maxMeasureMs: 0 }).minMeasureMs).toBe(5000);
    expect(() => BenchmarkConfig.parse({ maxMeasureMs: -1 })).toThrow(/maxMeasureMs/);
  });

  it('saves and loads YAML and JSON; an empty file gives the defaults', () => {
    const dir = tmp();
    const c = BenchmarkConfig.parse({ seqLens: [32], evalStride: 16, threads: 2 });
    BenchmarkConfig.save(c, join(dir, 'c.yaml'));
    BenchmarkConfig.save(c, join(dir, 'sub', 'c.json'));
    expect(BenchmarkConfig.load(join(dir, 'c.yaml'))).toEqual(c);
    expect(BenchmarkConfig.load(join(dir, 'sub', 'c.json'))).toEqual(c);
    writeFileSync(join(dir, 'empty.yaml'), '');
    expect(BenchmarkConfig.load(join(dir, 'empty.yaml'))).toEqual(BenchmarkConfig.defaults());
  });

  it('reports unreadable and malformed files with code IO', () => {
    const dir = tmp();
    expect(() => BenchmarkConfig.load(join(dir, 'missing.yaml'))).toThrow(/Cannot read benchmark config/);
    writeFileSync(join(dir, 'bad.json'), '{ nope');
    expect(() => BenchmarkConfig.load(join(dir, 'bad.json'))).toThrow(/is not valid JSON/);
  });
});
