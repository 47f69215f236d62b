import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { SuiteReport } from '../../src/benchmarking/index.js';
import { ExitCode } from '../../src/cli/index.js';
import { messages } from '../../src/messages.js';
import { fakeRun } from '../benchmarking/compare/fake-runs.js';
import type { CliRun } from './built-cli.js';
import { runCliInProcess } from './capture-io.js';

const cli = (cwd: string, args: string[]): Promise<CliRun> => runCliInProcess(args, cwd);

/** Saves a fake run (of `dtype`, when given) with an environment block starting on 2026-01-<day>. */
function saveRun(cwd: string, day: number, slowdown = 1, dtype?: string): string {
  const r = fakeRun({
    seed: day,
    runId: `tiny-${day}`,
    slowdown,
    ...(dtype === undefined ? {} : { modelMeta: { dtype, threads: 2 } }),
  });
  const env = {
    cpuModel: 'Test CPU',
    logicalCpus: 2,
    totalMemoryBytes: 2 ** 33,
    timestamp: `2026-01-0${day}T10:00:00.000Z`,
  };
  new SuiteReport({
    results: r.results,
    modelMeta: r.modelMeta,
    runId: r.runId as string,
    descriptors: r.descriptors,
    environment: env as never,
  }).save(join(cwd, `run-${day}`, 'results.json'));
  return `run-${day}`;
}

describe('dantinox history', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'dantinox-history-cli-'));
  const runs = [saveRun(cwd, 1), saveRun(cwd, 2, 1.1), saveRun(cwd, 3, 1.2)];

  it('adds runs (once), lists, shows and trends them, with a chart', async () => {
    const add = await cli(cwd, ['history', 'add', ...runs]);
    expect(add.code).toBe(ExitCode.ok);
    expect(add.stdout).toContain('added: tiny-1');
    expect((await cli(cwd, ['history', 'add', 'run-1'])).stdout).toContain('already there: tiny-1');
    const list = await cli(cwd, ['history', 'list']);
    expect(
      list.stdout
        .trim()
        .split('\n')
        .map((l) => l.split(/\s+/)[0]),
    ).toEqual(['run', 'tiny-1', 'tiny-2', 'tiny-3']);
    expect(list.stdout).toContain('Test CPU · 2 CPUs · 8 GiB');
    const show = await cli(cwd, ['history', 'show', 'tiny-2']);
    expect(show.stdout).toContain('run tiny-2');
    expect(show.stdout).toMatch(/throughput {2}seq=16,batch=1 {2}prefill /);
    const trend = await cli(cwd, ['history', 'trend', 'tps_seq16', '--out', 'trend', '--x', 'commit']);
    expect(trend.code).toBe(ExitCode.ok);
    const lines = trend.stdout.trim().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[1]).toMatch(/^tiny-1 .* \[\d+(\.\d+)?, \d+(\.\d+)?\]$/);
    for (const f of ['history-trend.svg', 'history-trend.png', 'history-report.html']) {
      expect(statSync(join(cwd, 'trend', f)).size, f).toBeGreaterThan(500);
    }
    const json = JSON.parse(
      (await cli(cwd, ['history', 'trend', 'p99_ms', '--cell', 'decode@32', '--json'])).stdout,
    );
    expect(json.map((p: { run_id: string }) => p.run_id)).toEqual(['tiny-1', 'tiny-2', 'tiny-3']);
  });

  it('trend prints the model and variant of every row, so two variants of one model are told apart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dantinox-history-variants-'));
    const added = [saveRun(dir, 1, 1, 'fp32'), saveRun(dir, 2, 2, 'q4'), saveRun(dir, 3, 1, 'fp32')];
    expect((await cli(dir, ['history', 'add', ...added])).code).toBe(ExitCode.ok);
    const trend = await cli(dir, ['history', 'trend', 'peak_tps']);
    expect(trend.code).toBe(ExitCode.ok);
    const [head, ...rows] = trend.stdout.trim().split('\n');
    expect(head?.split(/ {2,}/)).toEqual([
      'run',
      'started',
      'commit',
      'model',
      'variant',
      'where',
      'peak_tps (tok/s)',
      '95% CI',
    ]);
    // In time order, each row with the variant the chart's series split by.
    expect(rows.map((r) => r.split(/ {2,}/).slice(0, 1).concat(r.split(/ {2,}/).slice(3, 5)))).toEqual([
      ['tiny-1', 'tiny', 'fp32 · 2 threads · onnxruntime'],
      ['tiny-2', 'tiny', 'q4 · 2 threads · onnxruntime'],
      ['tiny-3', 'tiny', 'fp32 · 2 threads · onnxruntime'],
    ]);
  });

  it('bad input: one clear line, exit 2', async () => {
    mkdirSync(join(cwd, 'adir'), { recursive: true });
    const dir = await cli(cwd, ['history', 'list', '--history', 'adir']);
    expect(dir.code).toBe(ExitCode.usage);
    expect(dir.stderr).toBe(`error: ${messages.historyIsDirectory(join(cwd, 'adir'))}\n`);
    // Reading a history that does not exist says so (before: DuckDB's "Cannot open database … read-only mode").
    const missing = await cli(cwd, ['history', 'list', '--history', 'none.duckdb']);
    expect(missing.stderr).toBe(`error: ${messages.historyMissing(join(cwd, 'none.duckdb'))}\n`);
    expect(missing.code).toBe(ExitCode.usage);
    // An empty DuckDB database (no tables) holds no runs; it is not an old schema to migrate.
    const { DuckDBInstance } = await import('@duckdb/node-api');
    (await DuckDBInstance.create(join(cwd, 'blank.duckdb'))).closeSync();
    const blank = await cli(cwd, ['history', 'list', '--history', 'blank.duckdb']);
    expect(blank.stderr).toBe(`error: ${messages.historyEmpty(join(cwd, 'blank.duckdb'))}\n`);
    expect(blank.code).toBe(ExitCode.usage);
    const unknown = await cli(cwd, ['history', 'show', 'nope']);
    expect(unknown.code).toBe(ExitCode.usage);
    expect(unknown.stderr).toBe(`error: ${messages.historyUnknownRun('results.duckdb', 'nope')}\n`);
    // The command the message suggests works as written.
    const suggested = /"dantinox (history list [^"]+)"/.exec(unknown.stderr)?.[1] ?? '';
    expect((await cli(cwd, suggested.split(' '))).code).toBe(ExitCode.ok);
    const metric = await cli(cwd, ['history', 'trend', 'nope_metric']);
    expect(metric.code).toBe(ExitCode.usage);
    const lastWithout = await cli(cwd, ['bench', '--compare-last']);
    expect(lastWithout.code).toBe(ExitCode.usage);
    expect(lastWithout.stderr).toBe(`error: ${messages.compareLastNeedsHistory()}\n`);
    const benchDir = await cli(cwd, ['bench', '--history', 'adir']);
    expect(benchDir.stderr).toBe(`error: ${messages.historyIsDirectory('adir')}\n`);
  });

  it('a DuckDB database of another program, or a damaged history: one line saying what the file is, exit 2', async () => {
    // Another program's database (valid DuckDB, no dantinox tables), one with a table named like ours.
    for (const table of ['sales', 'runs']) {
      const path = join(cwd, `other-${table}.duckdb`);
      const db = await DuckDBInstance.create(path);
      const c = await db.connect();
      await c.run(`CREATE TABLE ${table} (x INTEGER)`);
      c.closeSync();
      db.closeSync();
      const before = readFileSync(path);
      for (const args of [['list'], ['add', runs[0] as string]]) {
        const r = await cli(cwd, ['history', ...args, '--history', path]);
        expect(r.stderr).toBe(`error: ${messages.historyForeign(path, [`main.${table}`])}\n`);
        expect(r.code).toBe(ExitCode.usage);
      }
      expect(readFileSync(path).equals(before)).toBe(true); // nothing was added to it
    }
    // A dantinox history cut short, or with bytes overwritten past its first block (DuckDB blocks: 256 KiB after
    // a 12 KiB header): found when a query reads them, not at open.
    const good = join(cwd, 'good.duckdb');
    expect((await cli(cwd, ['history', 'add', ...runs, '--history', good])).code).toBe(ExitCode.ok);
    const cut = join(cwd, 'cut.duckdb');
    copyFileSync(good, cut);
    truncateSync(cut, 12_288 + 262_144 + 1000);
    const overwritten = join(cwd, 'overwritten.duckdb');
    const bytes = readFileSync(good);
    for (let block = 12_288 + 262_144; block < bytes.length; block += 262_144)
      bytes.fill(0x5a, block + 64, block + 576);
    writeFileSync(overwritten, bytes);
    for (const path of [cut, overwritten])
      for (const args of [['list'], ['add', runs[0] as string], ['show', 'tiny-1']]) {
        const r = await cli(cwd, ['history', ...args, '--history', path]);
        expect(r.stderr).toMatch(
          /^error: History file ".*" is damaged \(cut short or overwritten\): IO Error: /,
        );
        expect(r.stderr).toContain('pass --history a new path');
        expect(r.stderr.split('\n')).toHaveLength(2);
        expect(r.code).toBe(ExitCode.usage);
      }
  });
});
