import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SuiteReport } from '../../src/benchmarking/index.js';
import { messages } from '../../src/messages.js';
import { opProfiler } from '../../src/runs/open-model.js';
import { type CliRun, ensureBuilt, runCli } from './built-cli.js';

let cwd: string;
let run: CliRun;

beforeAll(async () => {
  ensureBuilt();
  cwd = mkdtempSync(join(tmpdir(), 'dantinox-bench-profile-'));
  run = await runCli(
    [
      'bench',
      ...['--config', 'tiny', '--threads', '1', '--tasks', 'latency', '--seq-lens', '16'],
      ...['--n-warmup', '1', '--n-measure', '3', '--min-warmup-ms', '0', '--gen-tokens', '4'],
      ...['--no-calibrate', '--profile', '--out', 'out'],
    ],
    { cwd },
  );
}, 180_000);

describe('dantinox bench --profile (tiny preset, real binary)', () => {
  it('adds a profile row, prints the breakdown table and draws the time_breakdown chart', () => {
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Where the time goes \(ONNX Runtime profiler.*prompt 16\):/);
    expect(run.stdout).toMatch(/^\s+matmul\s+attention\s+norm\s+softmax\s+other\s+kernels\s+run$/m);
    expect(run.stdout).toMatch(/^prefill\s+[\d.]+ ms \(\d+%\)/m);
    expect(run.stdout).toMatch(/^decode\s+[\d.]+ ms \(\d+%\)/m);
    const out = join(cwd, 'out');
    const report = SuiteReport.load(join(out, 'results.json'));
    expect(report.results.map((r) => r.task)).toEqual(['latency', 'profile']);
    const profile = report.results[1]!;
    expect(profile.status).toBe('completed');
    expect(profile.metrics['profile_prefill_matmul_ms']).toBeGreaterThan(0);
    expect(profile.metrics['profile_decode_kernels_ms']).toBeGreaterThan(0);
    expect(profile.meta?.['profile_prompt']).toBe(16);
    expect(readFileSync(join(out, 'results.csv'), 'utf8')).toContain('profile_decode_softmax_ms');
    expect(readdirSync(join(out, 'charts'))).toContain('tiny-time_breakdown.png');
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).toContain('Where the time goes');
    expect(html).toContain('profile_prefill_matmul_ms');
  });
});

describe('opProfiler', () => {
  it('says why an engine without an operator profiler has no profile', () => {
    expect(opProfiler({ config: 'tiny', engine: 'llama.cpp', seed: 0 }, process.cwd())).toEqual({
      unavailable: messages.profileUnavailable('llama.cpp'),
    });
    expect(typeof opProfiler({ config: 'tiny', seed: 0 }, process.cwd())).toBe('function');
  });
});
