/**
 * Benchmark matrices end to end, on the real binary and the `tiny` preset: the Kubernetes Indexed Job and the
 * Slurm array of docs/ run with their exact commands (a `dantinox` on PATH that is this build) and the scheduler
 * variables set, one process per shard; their merges must equal one unsharded run (same variants, same
 * non-timing columns); `--resume`; the report in Chromium; and the bad-input lines (exit 2).
 *
 * The study files of docs/ measure `small` and `gpt2-small` with full sweeps (hours); the tests run the same
 * commands on a tiny version of them: the `config` axis is `tiny` (so 2 variants for 4 shards: two shards have
 * nothing to run and must still count for the merge), and the sweep is a few calls per cell.
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { parseCsv } from '../../src/benchmarking/csv.js';
import { runCli as runInProcess } from '../../src/cli/index.js';
import { messages } from '../../src/messages.js';
import { BUILTIN_DTYPES } from '../../src/models/onnx/precision.js';
import { launchChromium } from '../visualization/chromium.js';
import { type CliRun, ensureBuilt, ROOT, runCli, runProcess } from './built-cli.js';
import { captureIo } from './capture-io.js';
import { dantinoxOnPath, runSlurmArray } from './slurm-array.js';

const TINY_SWEEP = {
  seq_lens: [8, 16],
  batch_sizes: [1, 2],
  n_warmup: 0,
  n_measure: 2,
  min_warmup_ms: 0,
  eval_batches: 1,
  eval_seq_len: 16,
  eval_batch_size: 2,
  gen_tokens: 2,
  diffusion_steps: 2,
};
const VARIANTS = ['tiny-t1', 'tiny-t2'];

/** The study file of docs/ on `tiny`: same axes, the model axis on `tiny`, a tiny sweep. */
function tinyVersion(studyYaml: string): string {
  const study = parseYaml(studyYaml) as { matrix: Record<string, unknown> };
  return stringifyYaml({
    ...TINY_SWEEP,
    matrix: { ...study.matrix, config: ['tiny'] },
  });
}

/** Runs `command` (its first word `dantinox` is this build) in `cwd` with extra environment variables. */
function run(command: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<CliRun> {
  return runCli(command.slice(1), { cwd, env });
}

/** The rows of a combined results.csv as objects. */
function csvRows(path: string): Record<string, string | undefined>[] {
  const { header, rows } = parseCsv(readFileSync(path, 'utf8'));
  return rows.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]])));
}

/**
 * Columns whose values are measured times or rates, or describe the fastest cell (the throughput row's
 * `profiling_cell`, `flops_shape` and FLOPs are those of its peak cell): they differ from run to run.
 */
/** Columns measured by the clock or the process's memory (they differ between two runs of the same variant). */
const TIMING =
  /(^|_)ms($|_)|tps|gflops|duration|latency|throughput|_s$|samples|profiling_cell|flops|^mfu|^mbu|rss|gbs|ceiling/;

/** The non-timing part of a combined results.csv. */
function nonTiming(path: string): Record<string, string | undefined>[] {
  return csvRows(path).map((row) => Object.fromEntries(Object.entries(row).filter(([k]) => !TIMING.test(k))));
}

/** A parsed Kubernetes document (only the paths read here). */
// biome-ignore lint/suspicious/noExplicitAny: the shape of a Kubernetes manifest is checked by the assertions
type Manifest = Record<string, any>;

let tmp: string;
let unsharded: CliRun;
const k8s = { runs: [] as CliRun[], merge: undefined as CliRun | undefined };

beforeAll(async () => {
  ensureBuilt();
  tmp = mkdtempSync(join(tmpdir(), 'dantinox-matrix-'));
  // The Kubernetes Job: the ConfigMap's matrix.yaml (tiny version) at /config, the shared volume at /results.
  const docs = parseAllDocuments(
    readFileSync(join(ROOT, 'docs/kubernetes/dantinox-matrix.yaml'), 'utf8'),
  ).map((d) => d.toJS() as Manifest);
  const configMap = docs.find((d) => d['kind'] === 'ConfigMap')!;
  const job = docs.find((d) => d['kind'] === 'Job')!;
  const mount = (path: string): string =>
    path.replace(/^\/config/, join(tmp, 'config')).replace(/^\/results/, join(tmp, 'results'));
  mkdirSync(join(tmp, 'config'), { recursive: true });
  writeFileSync(join(tmp, 'config/matrix.yaml'), tinyVersion(configMap['data']['matrix.yaml']));
  const command = (job['spec']['template']['spec']['containers'][0]['command'] as string[]).map(mount);
  const completions = Number(job['spec']['completions']);
  const [shards, reference] = await Promise.all([
    Promise.all(
      Array.from({ length: completions }, (_, i) => run(command, tmp, { JOB_COMPLETION_INDEX: String(i) })),
    ),
    run(
      ['dantinox', 'bench', '--bench-config', join(tmp, 'config/matrix.yaml'), '--out', 'unsharded', '-q'],
      tmp,
    ),
  ]);
  k8s.runs = shards;
  unsharded = reference;
  const mergeJob = parseYaml(readFileSync(join(ROOT, 'docs/kubernetes/dantinox-merge.yaml'), 'utf8'));
  k8s.merge = await run((mergeJob.spec.template.spec.containers[0].command as string[]).map(mount), tmp);
}, 300_000);

describe('the Kubernetes Indexed Job of docs/ (exact commands, JOB_COMPLETION_INDEX set)', () => {
  it('every shard exits 0 and writes its own folder; the merge Job combines them', () => {
    for (const r of k8s.runs) expect(r.code, r.stderr).toBe(0);
    expect(unsharded.code, unsharded.stderr).toBe(0);
    expect(k8s.merge?.code, k8s.merge?.stderr).toBe(0);
    expect(k8s.merge?.stdout).toContain('Merged 2 of 2 variant(s) from 4 folder(s)');
    const manifest = JSON.parse(readFileSync(join(tmp, 'results/study/shard-1-of-4/matrix.json'), 'utf8'));
    expect(manifest.shard).toEqual({ index: 1, count: 4, source: 'JOB_COMPLETION_INDEX' });
    expect(manifest.assigned).toEqual([VARIANTS[1]]);
    expect(k8s.runs[3]?.stdout).toContain('Nothing to run in this shard');
  });

  it('the merged run has the same variants and non-timing columns as one unsharded run', () => {
    const merged = join(tmp, 'results/study-merged/results.csv');
    const whole = join(tmp, 'unsharded/results.csv');
    expect([...new Set(csvRows(merged).map((r) => r['variant']))]).toEqual(VARIANTS);
    expect(nonTiming(merged)).toEqual(nonTiming(whole));
    // Perplexity is seeded, so it is a non-timing column that must agree to the last digit.
    expect(csvRows(merged).map((r) => r['perplexity'])).toEqual(csvRows(whole).map((r) => r['perplexity']));
    for (const id of VARIANTS) {
      const env = JSON.parse(
        readFileSync(join(tmp, 'results/study-merged', id, 'results.json'), 'utf8'),
      ).environment;
      expect(env.hostname, 'each variant keeps the machine it ran on').toBeTypeOf('string');
      expect(env.commandLine).toContain('--shards 4');
    }
  });
});

describe('the Slurm array of docs/ (the sbatch scripts run by bash, SLURM_ARRAY_* set)', () => {
  it('runs every array task, then the merge script, into the same variants as one unsharded run', async () => {
    const dir = join(tmp, 'slurm');
    const path = dantinoxOnPath(dir);
    writeFileSync(
      join(dir, 'matrix.yaml'),
      tinyVersion(readFileSync(join(ROOT, 'docs/slurm/matrix.yaml'), 'utf8')),
    );
    const env = { PATH: path, RESULTS: join(dir, 'results') };
    const tasks = await runSlurmArray(join(ROOT, 'docs/slurm/dantinox-matrix.sbatch'), dir, env);
    for (const t of tasks) expect(t.code, t.stderr).toBe(0);
    const merge = await runProcess('bash', [join(ROOT, 'docs/slurm/dantinox-merge.sbatch')], {
      cwd: dir,
      env,
    });
    expect(merge.code, merge.stderr).toBe(0);
    expect(nonTiming(join(dir, 'results/study-merged/results.csv'))).toEqual(
      nonTiming(join(tmp, 'unsharded/results.csv')),
    );
  }, 240_000);

  it('names only flags that exist', async () => {
    const help = (await runCli(['bench', '--help'])).stdout + (await runCli(['merge', '--help'])).stdout;
    const files = [
      'kubernetes/dantinox-matrix.yaml',
      'kubernetes/dantinox-merge.yaml',
      'slurm/dantinox-matrix.sbatch',
      'slurm/dantinox-merge.sbatch',
    ];
    for (const file of files) {
      const text = readFileSync(join(ROOT, 'docs', file), 'utf8');
      const commands = text.split('\n').filter((l) => /^\s*(- )?dantinox\b|^\s*- --/.test(l));
      expect(commands.length, file).toBeGreaterThan(0);
      for (const flag of commands.join(' ').match(/--[a-z][a-z-]*/g) ?? [])
        expect(help, `${file}: ${flag}`).toContain(flag);
    }
  });
});

describe('--resume', () => {
  it('skips completed variants, reruns an unfinished one, and refuses a folder of another matrix', async () => {
    const dir = join(tmp, 'unsharded');
    rmSync(join(dir, VARIANTS[1]!, 'results.json'));
    rmSync(join(dir, VARIANTS[1]!, 'results.csv'));
    const again = await run(
      ['dantinox', 'bench', '--bench-config', 'config/matrix.yaml', '--out', 'unsharded', '--resume'],
      tmp,
    );
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('--resume: 1 of 2 variant(s) already complete');
    expect(again.stderr).toContain(
      `Variant [1/2] ${VARIANTS[0]}: complete in an earlier run, skipped (--resume)`,
    );
    expect(again.stderr).toContain(`Variant [2/2] ${VARIANTS[1]}\n`);
    expect(again.stderr.match(/Building the model/g)).toHaveLength(1);
    expect(csvRows(join(dir, 'results.csv')).map((r) => r['variant'])).toContain(VARIANTS[1]);
    const other = await run(
      [
        'dantinox',
        'bench',
        '--bench-config',
        'config/matrix.yaml',
        '--seq-lens',
        '8',
        '--out',
        'unsharded',
        '--resume',
      ],
      tmp,
    );
    // The variant folders there were measured with --seq-lens 8,16: the first one is named, with the flag.
    expect(other).toMatchObject({
      code: 2,
      stderr: `error: ${messages.resumeRunMismatch(join('unsharded', VARIANTS[0]!), [{ flag: '--seq-lens', there: '8,16', here: '8' }])}\n`,
    });
  }, 120_000);
});

describe('the report of a matrix, in Chromium', () => {
  it('opens with the comparison (best values, Pareto-optimal variants), then the chart grid, environments folded', async () => {
    const page = join(tmp, 'results/study-merged/report.html');
    const browser = await launchChromium();
    try {
      const tab = await (
        await browser.newContext({ viewport: { width: 1400, height: 900 }, offline: true })
      ).newPage();
      const problems: string[] = [];
      tab.on('pageerror', (e) => problems.push(e.message));
      tab.on('console', (m) => {
        if (m.type() === 'error') problems.push(m.text());
      });
      await tab.goto(pathToFileURL(page).href);
      await tab.waitForSelector('body[data-charts-done="true"]', { timeout: 60_000 });
      expect(problems).toEqual([]);
      const headings = await tab.locator('h2').allTextContents();
      expect(headings.slice(0, 3)).toEqual(['Comparison', 'Charts', 'Environment']);
      expect(await tab.locator('table.summary tbody th').allTextContents()).toEqual(VARIANTS);
      expect(await tab.locator('table.summary td.best').count()).toBeGreaterThan(0);
      expect(await tab.locator('p.pareto').textContent()).toMatch(
        /^Pareto-optimal \(Perplexity ↓ vs Peak tok\/s ↑\): tiny-/,
      );
      // Two charts side by side at 1400 px, each as wide as its cell (legend inside); charts drawn at their own
      // size (labels placed for it: pareto, roofline) get a row of their own. None overflows.
      const boxes = await tab.locator('.charts figure').evaluateAll((els) =>
        els.map((e) => ({
          x: e.getBoundingClientRect().x,
          fixed: e.classList.contains('fixed'),
          overflow: e.scrollWidth - e.clientWidth,
        })),
      );
      expect(new Set(boxes.filter((b) => !b.fixed).map((b) => Math.round(b.x))).size).toBe(2);
      expect(boxes.some((b) => b.fixed)).toBe(true);
      for (const b of boxes) expect(b.overflow).toBeLessThanOrEqual(0);
      expect(await tab.locator('details.env').count()).toBe(2);
      expect(await tab.locator('details.env[open]').count()).toBe(0);
      const dir = process.env['SCREENSHOT_DIR'] ?? join(tmpdir(), 'dantinox-report-screenshots');
      await tab.screenshot({ path: join(dir, 'report-matrix.png'), fullPage: true });
    } finally {
      await browser.close();
    }
  }, 90_000);
});

describe('bad input: one clear line, exit 2', () => {
  const QUICK = ['--config', 'tiny', '--tasks', 'throughput', '--seq-lens', '8', '--batch-sizes', '1', '-q'];
  const cases: [string, string[], Record<string, string>, string][] = [
    [
      'an empty axis',
      ['bench', ...QUICK, '--threads', ','],
      {},
      messages.matrixEmptyAxis('--threads', '1,2'),
    ],
    [
      'a variant id collision',
      ['bench', ...QUICK, '--config', 'a/tiny.yaml,b/tiny.yaml'],
      {},
      messages.variantIdCollision('tiny', 'config=a/tiny.yaml', 'config=b/tiny.yaml'),
    ],
    ['--shard 3/2', ['bench', ...QUICK, '--out', 'x', '--shard', '3/2'], {}, messages.badShard('3/2')],
    [
      'a shard index variable that is not a number',
      ['bench', ...QUICK, '--out', 'x', '--shards', '2'],
      { JOB_COMPLETION_INDEX: 'two' },
      messages.badShardVariable('JOB_COMPLETION_INDEX', 'two'),
    ],
    ['a shard without --out', ['bench', ...QUICK, '--shard', '0/2'], {}, messages.shardWithoutOut()],
    [
      'a dtype the built-in engine cannot run',
      ['bench', ...QUICK, '--dtype', 'fp32,bnb4'],
      {},
      messages.dtypeNotAvailable('bnb4', 'the built-in ONNX models', BUILTIN_DTYPES),
    ],
  ];
  // In process (usage errors end before any model is built; a process start each cost seconds of the suite), with
  // the scheduler's variables set for the call.
  for (const [what, args, env, message] of cases) {
    it(what, async () => {
      const io = captureIo(tmp);
      Object.assign(process.env, env);
      try {
        const code = await runInProcess(args, io);
        expect({ code, stderr: io.err.join('') }).toEqual({ code: 2, stderr: `error: ${message}\n` });
      } finally {
        for (const name of Object.keys(env)) delete process.env[name];
      }
    });
  }

  it('merging runs of different matrices, a duplicated shard, a missing shard (and --allow-partial)', async () => {
    const shards = join(tmp, 'results/study');
    const other = join(tmp, 'other');
    cpSync(join(shards, 'shard-0-of-4'), other, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(other, 'matrix.json'), 'utf8'));
    writeFileSync(join(other, 'matrix.json'), JSON.stringify({ ...manifest, key: '0123456789abcdef' }));
    const s = (i: number): string => join(shards, `shard-${i}-of-4`);
    const mismatch = await runCli(['merge', s(1), other, '--out', 'm1'], { cwd: tmp });
    expect(mismatch).toMatchObject({ code: 2, stderr: `error: ${messages.matrixMismatch(s(1), other)}\n` });
    const twice = await runCli(['merge', s(0), s(0), '--out', 'm2'], { cwd: tmp });
    expect(twice).toMatchObject({
      code: 2,
      stderr: `error: ${messages.duplicateShard(VARIANTS[0]!, [s(0), s(0)])}\n`,
    });
    const missing = await runCli(['merge', s(0), s(2), s(3), '--out', 'm3'], { cwd: tmp });
    const line = messages.shardsMissing([VARIANTS[1]!], ['shard-1-of-4']);
    expect(missing).toMatchObject({ code: 2, stderr: `error: ${messages.mergeIncomplete([line])}\n` });
    const partial = await runCli(
      ['merge', s(0), s(2), s(3), '--out', 'm4', '--allow-partial', '--no-charts'],
      { cwd: tmp },
    );
    expect(partial.code, partial.stderr).toBe(0);
    expect(partial.stderr).toBe(`missing (--allow-partial): ${line}\n`);
    expect(csvRows(join(tmp, 'm4/results.csv')).map((r) => r['variant'])).not.toContain(VARIANTS[1]);
  }, 60_000);

  it('merge --out onto a bench run or an earlier merge: refused, untouched; --force leaves nothing of the old run', async () => {
    const s = (i: number): string => join(tmp, `results/study/shard-${i}-of-4`);
    const all = [s(0), s(1), s(2), s(3)];
    // A single bench run's folder: its stream would stay beside the merged results.
    mkdirSync(join(tmp, 'bench-run'));
    for (const f of ['results.jsonl', 'results.json', 'results.csv'])
      writeFileSync(join(tmp, 'bench-run', f), `old ${f}\n`);
    writeFileSync(join(tmp, 'bench-run', 'notes.txt'), 'mine');
    const refused = await runCli(['merge', ...all, '--out', 'bench-run', '--no-charts'], { cwd: tmp });
    const found = ['results.jsonl', 'results.json', 'results.csv'];
    expect(refused).toMatchObject({
      code: 2,
      stderr: `error: ${messages.outDirHoldsRun('bench-run', found)}\n`,
    });
    expect(readFileSync(join(tmp, 'bench-run/results.csv'), 'utf8')).toBe('old results.csv\n');
    const forced = await runCli(['merge', ...all, '--out', 'bench-run', '--no-charts', '--force'], {
      cwd: tmp,
    });
    expect(forced.code, forced.stderr).toBe(0);
    expect(readdirSync(join(tmp, 'bench-run')).sort()).toEqual(
      ['matrix.json', 'notes.txt', 'results.csv', 'results.json', ...VARIANTS].sort(),
    );
    expect(csvRows(join(tmp, 'bench-run/results.csv')).map((r) => r['variant'])).toContain(VARIANTS[1]);
    // An earlier (partial) merge: a file left in one of its variant folders must not survive into the new one.
    const partial = ['merge', s(0), s(2), s(3), '--out', 'again', '--allow-partial', '--no-charts'];
    expect((await runCli(partial, { cwd: tmp })).code).toBe(0);
    writeFileSync(join(tmp, 'again', VARIANTS[0]!, 'stale.txt'), 'old');
    const again = await runCli(['merge', ...all, '--out', 'again', '--no-charts'], { cwd: tmp });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(
      /^error: --out "again" already holds a run \(results\.json, results\.csv, matrix\.json\)/,
    );
    // While another live process (this test's) holds the folder's lock, even --force is refused, nothing touched.
    const lock = join(tmp, 'again', '.dantinox.lock');
    const since = '2026-01-31T04:05:09.000Z';
    writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname(), since, token: 'abc' }));
    const force = ['merge', ...all, '--out', 'again', '--no-charts', '--force'];
    expect(await runCli(force, { cwd: tmp })).toMatchObject({
      code: 2,
      stderr: `error: ${messages.outDirLocked('again', process.pid, hostname(), since, lock)}\n`,
    });
    expect(existsSync(join(tmp, 'again', VARIANTS[0]!, 'stale.txt'))).toBe(true);
    rmSync(lock);
    const replaced = await runCli(force, { cwd: tmp });
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(existsSync(join(tmp, 'again', VARIANTS[0]!, 'stale.txt'))).toBe(false);
    expect(readdirSync(join(tmp, 'again')).sort()).toEqual(
      ['matrix.json', 'results.csv', 'results.json', ...VARIANTS].sort(),
    );
  }, 60_000);
});
