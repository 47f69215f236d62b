/**
 * `repeat` (`bench --repeat N`): N runs of each variant interleaved in rounds, each round a complete run in
 * `run-<r>/` that `compare` reads as repeated runs (N per side, decided on run-level statistics); the history records
 * every round and `--compare-last` compares the N new runs with N earlier ones; a stop between rounds keeps the
 * finished rounds and `resume` completes the rest; `shard` and bad values are refused. Real runs of `tiny`.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DantinoxError } from '../../src/errors.js';
import { messages } from '../../src/messages.js';
import { compareRuns } from '../../src/runs/compare-runs.js';
import { loadRunGroup } from '../../src/runs/load-report.js';
import { runMatrix } from '../../src/runs/run-matrix.js';
import { recorder, tinyPlan } from './tiny-plan.js';

describe('runMatrix with repeat', () => {
  it('interleaves 3 rounds of 2 variants; compare reads each folder as 3 runs per side, run-level', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dantinox-repeat-'));
    const axes = { config: ['tiny'], dtype: ['fp32', 'q8'] };
    const events: string[] = [];
    const result = await runMatrix(tinyPlan(cwd, 'base', { axes, repeat: 3 }), { hooks: recorder(events) });
    expect(events).toEqual([
      'round 1/3',
      'start tiny-fp32',
      'start tiny-q8',
      'round 2/3',
      'start tiny-fp32',
      'start tiny-q8',
      'round 3/3',
      'start tiny-fp32',
      'start tiny-q8',
    ]);
    expect(result).toMatchObject({ status: 'completed', layout: 'repeat', failedTasks: [], notRun: [] });
    expect(result.files).toEqual(['run-1/', 'run-2/', 'run-3/']);
    expect(result.rounds?.map((r) => r.layout)).toEqual(['matrix', 'matrix', 'matrix']);
    // Each round is a complete matrix run; the folder reads as 3 runs of each variant, round ids kept apart.
    const runs = loadRunGroup('base', cwd);
    expect(runs.map((r) => `${r.variant} ${r.report.runId}`)).toEqual([
      'tiny-fp32 tiny-fp32-run-1',
      'tiny-q8 tiny-q8-run-1',
      'tiny-fp32 tiny-fp32-run-2',
      'tiny-q8 tiny-q8-run-2',
      'tiny-fp32 tiny-fp32-run-3',
      'tiny-q8 tiny-q8-run-3',
    ]);
    await runMatrix(tinyPlan(cwd, 'head', { axes, repeat: 3 }));
    const { comparisons } = await compareRuns([['base'], ['head']], { cwd });
    expect(comparisons.map((c) => [c.baseline.label, c.baseline.runs, c.candidate.runs])).toEqual([
      ['base (3 runs) · tiny-fp32', 3, 3],
      ['base (3 runs) · tiny-q8', 3, 3],
    ]);
    for (const c of comparisons) expect(c.methods).toEqual(['welch', 'none']);
  }, 120_000);

  it('records every round in the history; compare-last compares the new runs with as many earlier ones', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dantinox-repeat-'));
    const history = { history: 'h.duckdb', compareLast: true };
    const first = await runMatrix(tinyPlan(cwd, 'a', { axes: { config: ['tiny'] }, repeat: 2, history }));
    expect(first.layout).toBe('repeat');
    expect(first.history).toHaveLength(1);
    expect(first.history[0]).toMatchObject({ status: 'no-previous-run' });
    const ids = first.history[0]?.status === 'not-recorded' ? [] : (first.history[0]?.runIds ?? []);
    expect(ids.map((id) => id.replace(/-\d{4}-\d\d-\d\d_\d\d-\d\d-\d\d/, ''))).toEqual([
      'tiny-run-1',
      'tiny-run-2',
    ]);
    const second = await runMatrix(tinyPlan(cwd, 'b', { axes: { config: ['tiny'] }, repeat: 2, history }));
    const record = second.history[0];
    expect(record?.status).toBe('compared');
    if (record?.status !== 'compared') return;
    expect(record.comparison.baseline.runIds).toEqual(ids);
    expect(record.comparison.candidate.runs).toBe(2);
    expect(record.comparison.methods).toContain('welch');
  }, 120_000);

  it('stops between rounds keeping the finished round; resume runs the others', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dantinox-repeat-'));
    const controller = new AbortController();
    const history = { history: 'h.duckdb' };
    const stopped = await runMatrix(tinyPlan(cwd, 'r', { axes: { config: ['tiny'] }, repeat: 3, history }), {
      signal: controller.signal,
      hooks: { onVariantEnd: () => controller.abort() },
    });
    expect(stopped).toMatchObject({ status: 'stopped', notRun: ['run-2', 'run-3'], history: [] });
    expect(loadRunGroup('r', cwd).map((r) => r.report.results[0]?.status)).toEqual(['completed']);
    expect(existsSync(join(cwd, 'r/run-2'))).toBe(false);
    // A stopped repeated run is no single run, and a single run is not resumed as repeated runs.
    expect(() => tinyPlan(cwd, 'r', { axes: { config: ['tiny'] }, resume: true })).toThrow(
      messages.resumeRepeatMismatch('r', true),
    );
    const events: string[] = [];
    const resumed = await runMatrix(
      tinyPlan(cwd, 'r', { axes: { config: ['tiny'] }, repeat: 3, resume: true }),
      {
        hooks: recorder(events),
      },
    );
    expect(events).toEqual(['round 1/3', 'skip tiny', 'round 2/3', 'start tiny', 'round 3/3', 'start tiny']);
    expect(resumed.status).toBe('completed');
    expect(loadRunGroup('r', cwd)).toHaveLength(3);
    // A new run into the folder is refused (the rounds are a run), unless forced.
    expect(() => tinyPlan(cwd, 'r', { axes: { config: ['tiny'] }, repeat: 3 })).toThrow(
      messages.outDirHoldsRun('r', ['run-1/', 'run-2/', 'run-3/']),
    );
  }, 120_000);

  it('refuses a repeat that is not an integer ≥ 1, and repeat with a shard', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dantinox-repeat-'));
    for (const repeat of [0, 1.5, -2, Number.NaN])
      expect(() => tinyPlan(cwd, 'x', { repeat })).toThrow(
        new DantinoxError('INVALID_OPTION', messages.badRepeat(repeat)),
      );
    const shard = { index: 0, count: 2, source: '--shard' as const };
    expect(() => tinyPlan(cwd, 'x', { repeat: 2, shard })).toThrow(messages.repeatWithShard());
  });
});
