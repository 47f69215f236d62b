import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode, runCli } from '../../src/cli/index.js';
import { messages } from '../../src/messages.js';
import { type FakeRunOptions, fakeRun } from '../benchmarking/compare/fake-runs.js';
import { captureIo } from './capture-io.js';

/** Writes a fake run as `<cwd>/<name>/results.json` (the layout of a bench run folder). */
function saveRun(cwd: string, name: string, options: FakeRunOptions, file = 'results.json'): string {
  fakeRun({ runId: name, ...options }).save(join(cwd, name, file));
  return name;
}

async function compare(cwd: string, args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo(cwd);
  const code = await runCli(['compare', ...args], io);
  return { code, out: io.out.join(''), err: io.err.join('') };
}

describe('dantinox compare', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'dantinox-compare-'));
  saveRun(cwd, 'main', { seed: 1 });
  saveRun(cwd, 'same', { seed: 2 });
  saveRun(cwd, 'slower', { seed: 3, slowdown: 1.1 });
  saveRun(cwd, 'slightly', { seed: 4, slowdown: 1.01 });
  saveRun(cwd, 'gpt2', { seed: 5, modelMeta: { model: 'gpt2', dim: 768 } });

  it('passes the gate for the same workload measured twice (exit 0) and prints a table', async () => {
    const r = await compare(cwd, ['main', 'same', '--fail-on-regression']);
    expect(r.code).toBe(ExitCode.ok);
    expect(r.out).toMatch(/^same vs main \(baseline\): .*no significant change/);
    expect(r.out).not.toContain('regressed');
    expect(r.out).not.toContain('\x1b[');
  });

  it('fails the gate on a 10% slowdown (exit 1), and only with --fail-on-regression', async () => {
    const gated = await compare(cwd, ['main', 'slower', '--fail-on-regression']);
    expect(gated.code).toBe(1);
    expect(gated.out).toContain('regressed');
    expect((await compare(cwd, ['main', 'slower'])).code).toBe(ExitCode.ok);
  });

  it('does not gate a 1% change under the default 5% threshold, nor a 10% one under --threshold 20%', async () => {
    expect((await compare(cwd, ['main', 'slightly', '--fail-on-regression'])).code).toBe(ExitCode.ok);
    const tight = await compare(cwd, ['main', 'slower', '--threshold', '20%', '--fail-on-regression']);
    expect(tight.code).toBe(ExitCode.ok);
  });

  it('compares several candidates and writes markdown, JSON, the chart and the HTML report with --out', async () => {
    const r = await compare(cwd, ['main', 'same', 'slower', '--format', 'markdown', '--out', 'cmp']);
    expect(r.code).toBe(ExitCode.ok);
    expect(r.out).toContain('### `same` vs `main` (baseline)');
    expect(r.out).toContain('### `slower` vs `main` (baseline)');
    for (const f of [
      'comparison.md',
      'comparison.json',
      'comparison-compare.svg',
      'comparison-compare.png',
      'comparison-report.html',
    ]) {
      expect(statSync(join(cwd, 'cmp', f)).size, f).toBeGreaterThan(500);
    }
    expect(readFileSync(join(cwd, 'cmp', 'comparison.md'), 'utf8')).toBe(r.out);
    const json = JSON.parse(readFileSync(join(cwd, 'cmp', 'comparison.json'), 'utf8'));
    expect(json.comparisons.map((c: { candidate: { label: string } }) => c.candidate.label)).toEqual([
      'same',
      'slower',
    ]);
    expect(readFileSync(join(cwd, 'cmp', 'comparison-report.html'), 'utf8')).toContain('"change"');
  });

  it('reads CSV results (no samples: interval n/a, the threshold decides)', async () => {
    saveRun(cwd, 'csv-main', { seed: 1 }, 'results.csv');
    saveRun(cwd, 'csv-slow', { seed: 2, slowdown: 1.2 }, 'results.csv');
    const r = await compare(cwd, [
      'csv-main/results.csv',
      'csv-slow',
      '--format',
      'json',
      '--fail-on-regression',
    ]);
    expect(r.code).toBe(1);
    const row = JSON.parse(r.out).comparisons[0].rows.find(
      (x: { metric: string }) => x.metric === 'tps_seq16',
    );
    expect(row.changeCi).toEqual([null, null]);
    expect(row.verdict).toBe('regressed');
  });

  describe('bad input: one clear line, exit 2', () => {
    const expectUsage = (r: { code: number; err: string }, text: string) => {
      expect(r.code).toBe(ExitCode.usage);
      expect(r.err.trim().split('\n')).toHaveLength(1);
      expect(r.err).toContain(text);
    };

    it('runs of different models without --allow-different-models', async () => {
      expectUsage(await compare(cwd, ['main', 'gpt2']), 'model: tiny ≠ gpt2');
      const allowed = await compare(cwd, ['main', 'gpt2', '--allow-different-models']);
      expect(allowed.code).toBe(ExitCode.ok);
      expect(allowed.out).toContain('Different models: model: tiny ≠ gpt2; dim: 64 ≠ 768.');
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

    it('a bad threshold or format', async () => {
      expectUsage(await compare(cwd, ['main', 'same', '--threshold', 'five']), messages.badThreshold('five'));
      expectUsage(
        await compare(cwd, ['main', 'same', '--format', 'html']),
        '--format must be one of text, markdown, json',
      );
    });
  });
});
