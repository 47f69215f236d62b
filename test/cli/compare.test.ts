import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/cli/index.js';
import { markRunSeparator, RUN_SEPARATOR } from '../../src/cli/run-separator.js';
import { messages } from '../../src/messages.js';
import { type FakeRunOptions, fakeRun } from '../benchmarking/compare/fake-runs.js';
import type { CliRun } from './built-cli.js';
import { runCliInProcess } from './capture-io.js';

/** Writes a fake run as `<cwd>/<name>/results.json` (the layout of a bench run folder). */
function saveRun(cwd: string, name: string, options: FakeRunOptions, file = 'results.json'): string {
  fakeRun({ runId: name.replace(/\//g, '-'), ...options }).save(join(cwd, name, file));
  return name;
}

/** Writes `count` repeated runs as `<cwd>/<folder>/<i>/results.json` (seeds `seed`, `seed + 1`, …). */
function saveRuns(cwd: string, folder: string, count: number, options: FakeRunOptions): string[] {
  return Array.from({ length: count }, (_, i) =>
    saveRun(cwd, `${folder}/${i + 1}`, { ...options, seed: options.seed + i }),
  );
}

const compare = (cwd: string, args: string[]): Promise<CliRun> => runCliInProcess(['compare', ...args], cwd);

const DRIFT = { drift: 0.03, generation: true } as const;

describe('dantinox compare', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'dantinox-compare-'));
  const base = saveRuns(cwd, 'base', 5, { seed: 100, ...DRIFT });
  const same = saveRuns(cwd, 'same', 5, { seed: 200, ...DRIFT });
  const slow = saveRuns(cwd, 'slow', 5, { seed: 300, ...DRIFT, slowdown: 1.1 });
  saveRun(cwd, 'main', { seed: 1 });
  saveRun(cwd, 'slower', { seed: 3, slowdown: 1.2 });
  saveRun(cwd, 'again', { seed: 2 });
  saveRun(cwd, 'gpt2', { seed: 5, modelMeta: { model: 'gpt2', dim: 768 } });

  it('several runs per side with "--": Welch decides; the same code passes the gate, a 10% slowdown fails it', async () => {
    const aa = await compare(cwd, [...base, '--', ...same, '--fail-on-regression']);
    expect(aa.code, aa.stderr).toBe(ExitCode.ok);
    expect(aa.stdout.startsWith('same-1 … same-5 (5 runs) vs base-1 … base-5 (5 runs) (baseline): ')).toBe(
      true,
    );
    expect(aa.stdout).not.toContain(' regressed');
    expect(aa.stdout).toContain('Runs per side: 5 baseline, 5 candidate');
    expect(aa.stdout).toContain("welch: Welch's t-test on per-run values");
    const gated = await compare(cwd, [...base, '--', ...slow, '--fail-on-regression']);
    expect(gated.code).toBe(ExitCode.regression);
    expect(gated.stdout).toMatch(/ttft_ms \(ms\) .* 5\+5 +welch +regressed/);
    expect((await compare(cwd, [...base, '--', ...slow])).code).toBe(ExitCode.ok);
  });

  it('folders of repeated runs, options after "--" included', async () => {
    const r = await compare(cwd, ['base', 'slow', '--format', 'json']);
    expect(r.code, r.stderr).toBe(ExitCode.ok);
    const c = JSON.parse(r.stdout).comparisons[0];
    expect(c.baseline).toMatchObject({ label: 'base (5 runs)', runs: 5 });
    expect(c.candidate.runIds).toEqual(['slow-1', 'slow-2', 'slow-3', 'slow-4', 'slow-5']);
    const tpot = c.rows.find(
      (x: { metric: string; cell: string | null }) => x.metric === 'tpot_ms' && x.cell === null,
    );
    expect(tpot).toMatchObject({ verdict: 'regressed', method: 'welch', runs: [5, 5] });
    const dashed = await compare(cwd, ['base', '--', 'slow', '--fail-on-regression']);
    expect(dashed.code).toBe(ExitCode.regression);
  });

  it('one run per side: inconclusive with the runs needed, never a failed gate, unless a noise floor decides', async () => {
    const r = await compare(cwd, ['main', 'slower', '--fail-on-regression']);
    expect(r.code).toBe(ExitCode.ok);
    expect(r.stdout).toMatch(/inconclusive: \d+ runs per side needed/);
    expect(r.stdout).toContain(
      'one run per side cannot tell a change from run-to-run drift without a noise floor',
    );
    const floor = await compare(cwd, ['main', 'slower', '--noise-floor', '8%', '--fail-on-regression']);
    expect(floor.code).toBe(ExitCode.regression);
    expect(floor.stdout).toMatch(/noise floor +regressed/);
    expect(floor.stdout).toContain('noise floor 8% (given)');
    const fine = await compare(cwd, ['main', 'again', '--noise-floor', '8%', '--fail-on-regression']);
    expect(fine.code).toBe(ExitCode.ok);
    // A floor where no comparison has one run per side is said to be unused.
    const unused = await compare(cwd, ['base', 'same', '--noise-floor', '8%']);
    expect(unused.stderr).toBe(`note: ${messages.noiseFloorUnused()}\n`);
  });

  it('one run per side with --history: the earlier runs of the baseline variant there give the noise', async () => {
    const earlier = saveRuns(cwd, 'earlier', 4, { seed: 400, ...DRIFT });
    expect((await runCliInProcess(['history', 'add', ...earlier, '--history', 'h.duckdb'], cwd)).code).toBe(
      ExitCode.ok,
    );
    const r = await compare(cwd, ['main', 'slower', '--history', 'h.duckdb', '--fail-on-regression']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/earlier runs +regressed/);
    expect(r.code).toBe(ExitCode.regression);
    const unused = await compare(cwd, ['base', 'same', '--history', 'h.duckdb']);
    expect(unused.stderr).toBe(`note: ${messages.historyUnused(false)}\n`);
  });

  it('a baseline and several candidates, markdown, and --out with the chart and the HTML report', async () => {
    const r = await compare(cwd, ['base', 'same', 'slow', '--format', 'markdown', '--out', 'cmp']);
    expect(r.code).toBe(ExitCode.ok);
    expect(r.stdout).toContain('### `same (5 runs)` vs `base (5 runs)` (baseline)');
    expect(r.stdout).toContain('### `slow (5 runs)` vs `base (5 runs)` (baseline)');
    for (const f of [
      'comparison.md',
      'comparison.json',
      'comparison-compare.svg',
      'comparison-compare.png',
      'comparison-report.html',
    ]) {
      expect(statSync(join(cwd, 'cmp', f)).size, f).toBeGreaterThan(500);
    }
    expect(readFileSync(join(cwd, 'cmp', 'comparison.md'), 'utf8')).toBe(r.stdout);
    // The files listed are the ones written (writeComparison's list, from dantinox/runs).
    expect(r.stderr).toContain(
      `wrote ${join(cwd, 'cmp')}/{comparison.md,comparison.json,comparison-compare.svg,comparison-compare.png,comparison-report.html}`,
    );
    expect(readFileSync(join(cwd, 'cmp', 'comparison-report.html'), 'utf8')).toContain('"change"');
  });

  it('reads CSV results: no samples, so one run per side is inconclusive, never regressed by the threshold', async () => {
    saveRun(cwd, 'csv-main', { seed: 1 }, 'results.csv');
    saveRun(cwd, 'csv-slow', { seed: 2, slowdown: 1.2 }, 'results.csv');
    const r = await compare(cwd, [
      'csv-main/results.csv',
      'csv-slow',
      '--format',
      'json',
      '--fail-on-regression',
    ]);
    expect(r.code).toBe(ExitCode.ok);
    const row = JSON.parse(r.stdout).comparisons[0].rows.find(
      (x: { metric: string }) => x.metric === 'tps_seq16',
    );
    expect(row.changeCi).toEqual([null, null]);
    expect(row.verdict).toBe('inconclusive');
  });

  it('marks only the first "--" of a compare invocation', () => {
    expect(markRunSeparator(['compare', 'a', '--', 'b', '--x'])).toEqual([
      'compare',
      'a',
      RUN_SEPARATOR,
      'b',
      '--x',
    ]);
    expect(markRunSeparator(['--verbose', 'compare', 'a', '--', 'b'])).toEqual([
      '--verbose',
      'compare',
      'a',
      RUN_SEPARATOR,
      'b',
    ]);
    expect(markRunSeparator(['bench', '--', 'x'])).toEqual(['bench', '--', 'x']);
  });

  describe('bad input: one clear line, exit 2', () => {
    const expectUsage = (r: CliRun, text: string) => {
      expect(r.code).toBe(ExitCode.usage);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(text);
    };

    it('different variants without --allow-different', async () => {
      expectUsage(await compare(cwd, ['main', 'gpt2']), 'model tiny → gpt2');
      const allowed = await compare(cwd, ['main', 'gpt2', '--allow-different']);
      expect(allowed.code).toBe(ExitCode.ok);
      expect(allowed.stdout).toContain(
        'Different variants (--allow-different): model tiny → gpt2, dim 64 → 768.',
      );
    });

    it('repeated runs of different variants on one side', async () => {
      saveRun(cwd, 'mixed/1', { seed: 1, modelMeta: { dtype: 'fp32' } });
      saveRun(cwd, 'mixed/2', { seed: 2, modelMeta: { dtype: 'q4' } });
      expectUsage(await compare(cwd, ['mixed', 'main']), 'dtype fp32 → q4');
    });

    it('an empty side, two "--", a single run, an empty folder', async () => {
      expectUsage(await compare(cwd, ['--', 'main']), messages.compareEmptySide('baseline'));
      expectUsage(await compare(cwd, ['main', '--']), messages.compareEmptySide('candidate'));
      expectUsage(
        await compare(cwd, ['main', '--', 'again', '--', 'slower']),
        messages.compareTwoSeparators(),
      );
      expectUsage(await compare(cwd, ['main']), messages.compareNeedsTwoRuns());
      mkdirSync(join(cwd, 'empty'), { recursive: true });
      expectUsage(await compare(cwd, ['main', 'empty']), messages.runFolderEmpty('empty'));
    });

    it('an empty file, a corrupt file, a report without results, a missing run', async () => {
      mkdirSync(join(cwd, 'bad'), { recursive: true });
      writeFileSync(join(cwd, 'bad', 'empty.json'), '');
      writeFileSync(join(cwd, 'bad', 'corrupt.jsonl'), '{"type":"run"\n{{{\n');
      writeFileSync(
        join(cwd, 'bad', 'none.json'),
        JSON.stringify({ format: 'dantinox-report', results: [] }),
      );
      expectUsage(await compare(cwd, ['main', 'bad/empty.json']), 'bad/empty.json');
      expectUsage(await compare(cwd, ['main', 'bad/corrupt.jsonl']), 'corrupt.jsonl');
      expectUsage(
        await compare(cwd, ['main', 'bad/none.json']),
        messages.reportHasNoResults('bad/none.json'),
      );
      expectUsage(await compare(cwd, ['main', 'nowhere']), messages.resultsFileMissing('nowhere'));
      expect(existsSync(join(cwd, 'nowhere'))).toBe(false);
    });

    it('a bad threshold, noise floor or format, naming the flag', async () => {
      expectUsage(
        await compare(cwd, ['main', 'again', '--threshold', 'five']),
        messages.badThreshold('five'),
      );
      expectUsage(
        await compare(cwd, ['main', 'again', '--noise-floor', '-3%']),
        messages.badNoiseFloor('-3%'),
      );
      expectUsage(
        await compare(cwd, ['main', 'again', '--noise-floor', 'x']),
        '--noise-floor must be a percentage',
      );
      expectUsage(
        await compare(cwd, ['main', 'again', '--format', 'html']),
        '--format must be one of text, markdown, json',
      );
    });
  });
});
