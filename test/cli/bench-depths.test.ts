/**
 * `dantinox bench --depths --trace` end to end on the tiny preset: the depth cells and columns in results.json, the
 * skip line for depths beyond maxContext, the depth chart, the trace; and one clear usage error per bad value.
 */

import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/messages.js';
import { LATENCY_PART_LABELS, UNEXPLAINED_OP } from '../../src/profiling/latency-parts.js';
import { chromeTraceProblems } from '../profiling/trace-schema.js';
import { ensureBuilt, runCli } from './built-cli.js';

beforeAll(() => ensureBuilt(), 180_000);

describe('dantinox bench --depths (tiny preset, real binary)', () => {
  it('times prefill and decode at each depth that fits, skips the others in one line, and draws the chart', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dantinox-depths-'));
    const args = ['--config', 'tiny', '--threads', '1', '--tasks', 'latency', '--seq-lens', '16'];
    const quick = ['--n-warmup', '1', '--n-measure', '3', '--min-warmup-ms', '0', '--gen-tokens', '2'];
    const run = await runCli(
      ['bench', ...args, ...quick, '--depths', '0,64,120,200', '--no-calibrate', '--trace', '--out', 'out'],
      { cwd },
    );
    expect(run.code, run.stderr).toBe(0);
    const skipped = messages.depthsSkipped('tiny', [120, 200], 128, 16, [120]);
    expect(run.stderr.split('\n').filter((l) => l.includes('--depths'))).toEqual([`[warn] ${skipped}`]);
    const report = JSON.parse(readFileSync(join(cwd, 'out', 'results.json'), 'utf8'));
    const row = report.results.find((r: { task: string }) => r.task === 'latency');
    for (const key of ['prefill_ms_d0', 'prefill_ms_d64', 'decode_ms_d0', 'decode_ms_d64', 'decode_ms_d120'])
      expect(row.metrics[key], key).toBeGreaterThan(0);
    expect(row.metrics['prefill_ms_d120']).toBeUndefined();
    expect(row.metrics['decode_attn_gflop_d64']).toBeGreaterThan(row.metrics['decode_attn_gflop_d0']);
    expect(row.metrics['decode_depth_fit_r2']).toBeGreaterThanOrEqual(0);
    expect(row.meta['depths_skipped']).toBe(skipped);
    expect(existsSync(join(cwd, 'out', 'charts', 'tiny-depth.svg'))).toBe(true);
    // --trace: one trace.json that imports, with ONNX Runtime's kernel events of the timed calls.
    const trace = JSON.parse(readFileSync(join(cwd, 'out', 'trace.json'), 'utf8'));
    expect(chromeTraceProblems(trace)).toEqual([]);
    expect(trace.otherData.timed_calls_with_kernels).toBeGreaterThan(0);
    expect(run.stderr).toMatch(/Trace: .*trace\.json/);
    // The per-operator table of the same calls: operators.csv, the operators row (reconciled, with the
    // profiler's overhead, also in the trace), the operator roofline chart and report.html's table.
    expect(trace.otherData.profiler_overhead.rounds).toBe(5);
    const csv = readFileSync(join(cwd, 'out', 'operators.csv'), 'utf8').split('\n');
    expect(csv[0]).toMatch(/^phase,op,category,input_shapes,share,calls,/);
    expect(csv.some((l) => l.startsWith('decode,MatMul,matmul,'))).toBe(true);
    // The remainder split into the named parts and the unexplained rest, per phase (built-in ORT model).
    for (const label of [...Object.values(LATENCY_PART_LABELS), UNEXPLAINED_OP])
      expect(
        csv.filter((l) => l.includes(`,${label},remainder,`)),
        label,
      ).toHaveLength(2);
    const ops = report.results.find((r: { task: string }) => r.task === 'operators');
    for (const phase of ['prefill', 'decode']) {
      expect(ops.metrics[`operators_${phase}_kernel_fraction`], phase).toBeGreaterThan(0);
      expect(ops.metrics[`profiler_overhead_${phase}`], phase).toBeGreaterThan(0);
      expect(ops.metrics[`operators_${phase}_explained_fraction`], phase).toBeGreaterThan(0);
      expect(ops.meta[`operators_${phase}_explained_goal_met`], phase).toBeTypeOf('boolean');
    }
    expect(ops.meta['operators_uncosted_kernels']).toBeUndefined();
    expect(existsSync(join(cwd, 'out', 'charts', 'tiny-operator_roofline.svg'))).toBe(true);
    expect(readFileSync(join(cwd, 'out', 'report.html'), 'utf8')).toContain('<h2>Per-operator table</h2>');
  }, 120_000);

  it('refuses a negative or fractional depth, and --depths without the latency task', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dantinox-depths-err-'));
    for (const bad of ['0,-5', '1.5', 'x']) {
      const r = await runCli(['bench', '--config', 'tiny', '--depths', bad], { cwd });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`option '--depths <list>' argument '${bad}' is invalid`);
      expect(r.stderr).toContain('a comma-separated list of non-negative integers, e.g. 0,512,1024');
    }
    const r = await runCli(['bench', '--config', 'tiny', '--tasks', 'throughput', '--depths', '0,64'], {
      cwd,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(messages.depthsWithoutLatency(['throughput']));
  }, 60_000);
});
