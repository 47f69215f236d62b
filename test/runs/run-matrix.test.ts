/**
 * `dantinox/runs` from a plain Node script: `planRun` + `runMatrix` run a two-variant matrix on `tiny` and write
 * the folder layout `dantinox bench` writes for the same matrix (same files, same variants, same rows), with the
 * progress hooks called in order and the outcome returned as data.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT, runCli, runProcess } from '../cli/built-cli.js';
import { TINY_SWEEP } from '../cli/tiny-sweep.js';
import { TINY_CONFIG } from './tiny-plan.js';

const SWEEP = { ...TINY_CONFIG, genTokens: 2 };

/** Every file under `dir`, relative to it, sorted. */
function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

const SCRIPT = `
import { planRun, runMatrix } from 'dantinox/runs';

const events = [];
const plan = planRun({
  dir: 'lib-run',
  axes: { config: ['tiny'], threads: ['1', '2'] },
  config: ${JSON.stringify(SWEEP)},
  tasks: ['throughput', 'latency'],
  calibration: false,
});
const result = await runMatrix(plan, {
  hooks: {
    onVariantStart: (s) => events.push(\`start \${s.variant.id} \${s.index + 1}/\${s.total}\`),
    onVariantEnd: (o) => events.push(\`end \${o.variant.id} \${o.report.results.map((r) => r.status).join(',')}\`),
  },
});
console.log(JSON.stringify({ status: result.status, layout: result.layout, files: result.files,
  failedTasks: result.failedTasks, notRun: result.notRun, events }));
`;

describe('runMatrix from a plain Node script', () => {
  let tmp: string;
  beforeAll(() => {
    ensureBuilt();
    tmp = mkdtempSync(join(tmpdir(), 'dantinox-runs-'));
    // The script imports the package by name, as a user's project does.
    mkdirSync(join(tmp, 'node_modules'));
    symlinkSync(ROOT, join(tmp, 'node_modules/dantinox'), 'dir');
    writeFileSync(join(tmp, 'run.mjs'), SCRIPT);
  });

  it('runs both variants and writes the layout the CLI writes for the same matrix', async () => {
    const lib = await runProcess(process.execPath, ['run.mjs'], { cwd: tmp });
    expect(lib.stderr.split('\n').filter((l) => /error/i.test(l))).toEqual([]);
    expect(lib.code).toBe(0);
    const out = JSON.parse(lib.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
    expect(out).toMatchObject({ status: 'completed', layout: 'matrix', failedTasks: [], notRun: [] });
    expect(out['events']).toEqual([
      'start tiny-t1 1/2',
      'end tiny-t1 completed,completed',
      'start tiny-t2 2/2',
      'end tiny-t2 completed,completed',
    ]);
    const cli = await runCli(
      [
        'bench',
        '--config',
        'tiny',
        '--threads',
        '1,2',
        '--tasks',
        'throughput,latency',
        ...TINY_SWEEP,
        '--gen-tokens',
        '2',
        '--no-calibrate',
        '--out',
        'cli-run',
      ],
      { cwd: tmp },
    );
    expect(cli.code).toBe(0);
    // The CLI ends with what to do next: the report, the compare command, each variant against the first.
    expect(cli.stdout).toMatch(/^Open: file:\/\/\S+\/cli-run\/report\.html$/m);
    expect(cli.stdout).toContain(
      'Compare a later run with this one: dantinox compare cli-run <later run folder>',
    );
    expect(cli.stdout).toMatch(/^ {2}tiny-t2: throughput [\d.,]+×, decode [\d.,]+×$/m); // any ratio: the machine may be busy
    const libFiles = tree(join(tmp, 'lib-run'));
    expect(libFiles).toEqual(tree(join(tmp, 'cli-run')));
    expect(libFiles).toEqual(
      expect.arrayContaining(['matrix.json', 'results.csv', 'report.html', 'tiny-t1/results.jsonl']),
    );
    // The files the result lists are the ones on disk (folders listed with a trailing slash).
    for (const f of out['files'] as string[])
      expect(libFiles.some((g) => g === f || g.startsWith(f))).toBe(true);
    const header = (dir: string): string =>
      readFileSync(join(tmp, dir, 'results.csv'), 'utf8').split('\n')[0] ?? '';
    expect(header('lib-run')).toBe(header('cli-run'));
  }, 240_000);

  it('compare and history add take matrix folders: variant by variant, matched by identity', async () => {
    const compared = await runCli(['compare', 'cli-run', 'lib-run', '--threshold', '50'], { cwd: tmp });
    expect(compared.code, compared.stderr).toBe(0);
    expect(compared.stdout).toContain('cli-run · tiny-t1');
    expect(compared.stdout).toContain('cli-run · tiny-t2');
    const added = await runCli(['history', 'add', 'cli-run', '--history', 'h.duckdb'], { cwd: tmp });
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout.match(/^added: tiny-t[12]-\d{4}-\d\d-\d\d_/gm)).toHaveLength(2);
    // Added again: the same run ids, already there.
    const again = await runCli(['history', 'add', 'cli-run', '--history', 'h.duckdb'], { cwd: tmp });
    expect(again.stdout.match(/^already there: /gm)).toHaveLength(2);
  }, 120_000);
});
