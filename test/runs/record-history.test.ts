/**
 * `recordHistory` with `--compare-last`: the baseline is the last run of the same variant, never another variant
 * of the same model — a q4 run at 2 threads after an fp32 run at 1 thread is not "regressed", it names the fields
 * that differ — and with enough earlier runs of the variant, their spread decides.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ResultsHistory } from '../../src/benchmarking/history/results-history.js';
import { trendRows, writeTrendChart } from '../../src/runs/history-trend.js';
import { addRunsToHistory, recordHistory } from '../../src/runs/record-history.js';
import { fakeRun } from '../benchmarking/compare/fake-runs.js';

const variant = (dtype: string, threads: number) => ({
  dtype,
  threads,
  head_dtype: dtype,
  weights: 'seed 0',
});

describe('recordHistory --compare-last', () => {
  it('names the differing fields instead of comparing another variant', async () => {
    const history = join(mkdtempSync(join(tmpdir(), 'dantinox-history-')), 'h.duckdb');
    const options = { history, compareLast: true };
    const fp32 = fakeRun({ seed: 1, runId: 'fp32-t1', modelMeta: variant('fp32', 1) });
    expect((await recordHistory(fp32, options, tmpdir())).status).toBe('no-previous-run');
    const q4 = fakeRun({ seed: 2, runId: 'q4-t2', slowdown: 1.5, modelMeta: variant('q4', 2) });
    const record = await recordHistory(q4, options, tmpdir());
    expect(record).toMatchObject({
      status: 'no-previous-run',
      nearest: {
        runId: 'fp32-t1',
        differences: [
          { field: 'dtype', baseline: 'fp32', candidate: 'q4' },
          { field: 'head_dtype', baseline: 'fp32', candidate: 'q4' },
          { field: 'threads', baseline: 1, candidate: 2 },
        ],
      },
    });
    // The next q4 run at 2 threads has its baseline: the q4 one, not the later-added fp32 one.
    const again = fakeRun({ seed: 3, runId: 'q4-t2-b', modelMeta: variant('q4', 2) });
    const compared = await recordHistory(again, options, tmpdir());
    expect(compared.status).toBe('compared');
    if (compared.status === 'compared') expect(compared.comparison.baseline.label).toBe('q4-t2');
  }, 60_000);

  it('learns the noise from the earlier runs of the variant', async () => {
    const history = join(mkdtempSync(join(tmpdir(), 'dantinox-history-')), 'h.duckdb');
    const options = { history, compareLast: true };
    for (const seed of [1, 2, 3, 4])
      await recordHistory(
        fakeRun({ seed, runId: `r${seed}`, modelMeta: variant('fp32', 2) }),
        options,
        tmpdir(),
      );
    const slower = fakeRun({ seed: 9, runId: 'slow', slowdown: 1.5, modelMeta: variant('fp32', 2) });
    const record = await recordHistory(slower, options, tmpdir());
    expect(record.status).toBe('compared');
    if (record.status !== 'compared') return;
    expect(record.comparison.earlierRuns).toBe(3);
    expect(record.comparison.counts.regressed).toBeGreaterThan(0);
  }, 60_000);
});

describe('addRunsToHistory and the trend of a metric', () => {
  it('adds runs once (again: already there), and draws the metric over them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dantinox-history-add-'));
    for (const seed of [1, 2])
      fakeRun({ seed, runId: `run-${seed}` }).save(join(dir, `run-${seed}`, 'results.json'));
    const first = await addRunsToHistory(['run-1', 'run-2'], 'h.duckdb', dir);
    expect(first.added.map((a) => [a.status, a.runId])).toEqual([
      ['added', 'run-1'],
      ['added', 'run-2'],
    ]);
    expect(first.notes).toEqual([]);
    const again = await addRunsToHistory(['run-2'], 'h.duckdb', dir);
    expect(again.added.map((a) => a.status)).toEqual(['exists']);
    const history = await ResultsHistory.open(join(dir, 'h.duckdb'), { readOnly: true });
    const metric = Object.keys(fakeRun({ seed: 1 }).results[0]?.metrics ?? {})[0] as string;
    const points = await history.trend(metric, {}).finally(() => history.close());
    const rows = trendRows(points, metric);
    expect(rows.map((r) => r.run_id)).toEqual(['run-1', 'run-2']);
    expect(rows.map((r) => r.value)).toEqual(points.map((p) => p.value));
    const chart = await writeTrendChart(points, metric, 'trend', { cwd: dir });
    expect(chart.files).toEqual(['history-trend.svg', 'history-trend.png', 'history-report.html']);
  }, 60_000);
});
