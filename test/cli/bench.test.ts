import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type CalibrationOutcome, loadOrCalibrate, SuiteReport } from '../../src/benchmarking/index.js';
import { summaryRows } from '../../src/benchmarking/summary-table.js';
import { messages } from '../../src/messages.js';
import { calibrateOrt } from '../../src/models/calibration/calibrate-ort.js';
import { type CliRun, ensureBuilt, runCli } from './built-cli.js';
import { runCliInProcess } from './capture-io.js';

/** A quick sweep on the tiny preset: a few hundred milliseconds of measuring. */
const QUICK = [
  '--config',
  'tiny',
  '--threads',
  '1',
  '--seq-lens',
  '16,32',
  '--batch-sizes',
  '1,2',
  '--n-warmup',
  '1',
  '--n-measure',
  '3',
  '--min-warmup-ms',
  '0',
  '--eval-batches',
  '2',
  '--eval-seq-len',
  '32',
  '--gen-tokens',
  '4',
];

let cwd: string;
let run: CliRun;
let calibrated: CalibrationOutcome;

beforeAll(async () => {
  ensureBuilt();
  cwd = mkdtempSync(join(tmpdir(), 'dantinox-bench-'));
  // This machine's calibration at 1 thread, measured quickly here with tiny probes into a private cache: bench
  // must find it there (same fingerprint) instead of spending its 20 s budget.
  const cacheDir = join(cwd, 'cache');
  calibrated = await loadOrCalibrate({
    threads: 1,
    cacheDir,
    loadAverage: () => [0, 0, 0], // marked as measured on an idle machine, so bench reuses it whatever the load
    measure: (o) => calibrateOrt({ ...o, budgetMs: 700, gemmSize: 64, streamBytes: 2 ** 20 }),
  });
  run = await runCli(['bench', ...QUICK, '--out', 'out'], { cwd, env: { DANTINOX_CACHE_DIR: cacheDir } });
}, 180_000);

describe('dantinox bench (tiny preset, real binary)', () => {
  it('exits 0 and writes results.csv/json/jsonl, charts and report.html that parse', () => {
    expect(run.code, run.stderr).toBe(0);
    const out = join(cwd, 'out');
    const csv = SuiteReport.load(join(out, 'results.csv'));
    expect(csv.results.map((r) => r.task)).toEqual(['throughput', 'latency', 'perplexity']);
    expect(csv.results.every((r) => r.status === 'completed')).toBe(true);
    const json = SuiteReport.load(join(out, 'results.json'));
    expect(json.modelMeta['model']).toBe('tiny');
    expect(json.environment?.commandLine).toContain('dantinox bench --config tiny');
    const lines = readFileSync(join(out, 'results.jsonl'), 'utf8').trim().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { type: string }).type)).toContain('cell');
    const charts = readdirSync(join(out, 'charts'));
    expect(charts).toContain('tiny-throughput.svg');
    expect(charts).toContain('tiny-throughput.png');
    expect(readFileSync(join(out, 'charts', 'tiny-throughput.svg'), 'utf8')).toMatch(/^<svg/);
    expect(
      readFileSync(join(out, 'charts', 'tiny-throughput.png'))
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('<!DOCTYPE html>');
  });

  it('uses the cached calibration of this machine and puts MFU, MBU, peak RSS and load cost on the rows', () => {
    expect(run.stderr).not.toContain('Calibrating');
    const json = SuiteReport.load(join(cwd, 'out', 'results.json'));
    const cal = json.environment?.calibration;
    expect(cal).toEqual(calibrated.calibration);
    expect(cal?.fingerprint.threads).toBe(1);
    expect(cal?.ceilings.gemmGflops['fp32']).toBeGreaterThan(0);
    const [throughput, latency, perplexity] = json.results;
    expect(throughput?.metrics['mfu_seq16']).toBeGreaterThan(0);
    expect(throughput?.metrics['mfu']).toBeGreaterThan(0);
    expect(latency?.metrics['mbu']).toBeGreaterThan(0);
    for (const r of [throughput, latency, perplexity]) expect(r?.metrics['peak_rss_mb']).toBeGreaterThan(0);
    expect(json.modelMeta['model_load_ms']).toBeGreaterThan(0);
    expect(json.modelMeta['model_load_peak_rss_mb']).toBeGreaterThan(0);
    expect(json.modelMeta['ceiling_gflops_fp32']).toBe(cal?.ceilings.gemmGflops['fp32']);
  });

  it('says honestly what ran: the model, its random weights, the engine and the sweep; progress on stderr', () => {
    expect(run.stdout).toMatch(
      /^Model: tiny \(built-in preset, untrained random weights with seed 0\): dim 32/,
    );
    expect(run.stdout).toContain('Engine: onnxruntime-node 1.30.0 (cpu), 1 threads, fp32');
    expect(run.stdout).toContain('Config: seq_lens=16,32 batch_sizes=1,2');
    expect(run.stdout).toContain('Summary: 3 task(s)');
    expect(run.stdout).toContain('Results: out\n');
    expect(run.stderr).toContain('[1/3] throughput');
    expect(run.stdout).not.toContain('[1/3] throughput');
  });

  it('--format json: stdout is the summary rows alone (those of results.json), the rest on stderr; kv keeps the seed lines', async () => {
    const quick = [...QUICK, '--tasks', 'throughput', '--no-charts', '--no-calibrate'];
    const json = await runCli(['bench', ...quick, '--format', 'json', '--out', 'fmt-json'], { cwd });
    expect(json.code, json.stderr).toBe(0);
    const saved = SuiteReport.load(join(cwd, 'fmt-json', 'results.json'));
    expect(JSON.parse(json.stdout)).toEqual(summaryRows([saved]));
    expect(json.stderr).toContain('Model: tiny');
    expect(json.stderr).toContain('Results: fmt-json\n');
    const kv = await runCli(['bench', ...quick, '--format', 'kv', '--out', 'fmt-kv'], { cwd });
    expect(kv.stdout).toMatch(/^ {2}\[throughput\] {2}tps_seq16=\d+\.\d{4} {2}/m);
    const bad = await runCli(['bench', ...quick, '--format', 'yaml'], { cwd });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--format.*yaml.*table, kv, markdown, json, csv/);
  });

  it('plot renders saved results, alone or compared, and report writes one HTML file', async () => {
    const plot = await runCli(['plot', 'out/results.csv', '--out', 'plots', '--format', 'svg,json'], { cwd });
    expect(plot.code, plot.stderr).toBe(0);
    expect(readdirSync(join(cwd, 'plots')).filter((f) => f.endsWith('.svg')).length).toBeGreaterThanOrEqual(
      3,
    );
    const json = readdirSync(join(cwd, 'plots')).find((f) => f.endsWith('-throughput.json'));
    expect(JSON.parse(readFileSync(join(cwd, 'plots', json as string), 'utf8'))).toHaveProperty('$schema');

    const compare = await runCli(
      ['plot', 'out', 'out/results.jsonl', '--charts', 'throughput', '--out', 'cmp'],
      { cwd },
    );
    expect(compare.code, compare.stderr).toBe(0);
    expect(compare.stdout.trim().split('\n')).toEqual([
      'cmp/comparison-throughput.svg',
      'cmp/comparison-throughput.png',
    ]);

    const report = await runCli(['report', 'out', 'out/results.json', '--out', 'reports'], { cwd });
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toBe('reports/report.html\n');
    const html = readFileSync(join(cwd, 'reports', 'report.html'), 'utf8');
    expect(html).toContain('2 runs');
  });

  it('exits 1 when a task fails, and still writes its row', async () => {
    writeFileSync(join(cwd, 'short.txt'), 'too short');
    const failed = await runCli(
      [
        'bench',
        ...QUICK,
        '--tasks',
        'perplexity',
        '--data',
        'short.txt',
        '--no-charts',
        '--quiet',
        '--out',
        'failed',
      ],
      { cwd },
    );
    expect(failed.code).toBe(1);
    const report = SuiteReport.load(join(cwd, 'failed', 'results.csv'));
    expect(report.results[0]).toMatchObject({ task: 'perplexity', status: 'failed' });
    expect(failed.stderr).toContain('1 task(s) did not complete: perplexity (failed)');
  });
});

describe('dantinox bench: newcomer errors exit 2 with one line and the fix, before building anything', () => {
  const expectUsage = (r: CliRun, message: string): void => {
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`error: ${message}\n`);
    expect(r.stdout).toBe('');
  };

  it('unknown task, missing data file, missing model folder, --config with --model', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dantinox-bench-err-'));
    const tasks = ['throughput', 'latency', 'perplexity', 'kld', 'choice'];
    const unknownTask = messages.unknownName(
      'task',
      'latncy',
      tasks,
      messages.addYourOwn('task', 'examples/custom-task.ts'),
    );
    expectUsage(await runCliInProcess(['bench', '--tasks', 'throughput,latncy'], dir), unknownTask);
    expect(unknownTask).toContain('Did you mean "latency"?');
    expect(unknownTask).toContain('--plugin <module>');
    expectUsage(
      await runCliInProcess(['bench', '--data', 'missing.txt'], dir),
      messages.dataFileMissing('missing.txt'),
    );
    expectUsage(
      await runCliInProcess(['bench', '--model', 'models/none'], dir),
      messages.modelFolderMissing('models/none', '--model'),
    );
    expectUsage(
      await runCliInProcess(['bench', '--model', '.', '--config', 'tiny'], dir),
      messages.configAndModel(),
    );
    expect(readdirSync(dir)).toEqual([]);
  });

  it('unwritable output directory, bad YAML bench config, invalid config value', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dantinox-bench-err-'));
    writeFileSync(join(dir, 'file'), '');
    const notDir = await runCliInProcess(['bench', '--config', 'tiny', '--out', 'file/out'], dir);
    expectUsage(notDir, messages.outDirNotWritable('file/out', { code: 'ENOTDIR' }));

    writeFileSync(join(dir, 'bench.yaml'), 'seq_lens: [64, 128\nn_measure: 3\n');
    const yaml = await runCliInProcess(['bench', '--bench-config', 'bench.yaml'], dir);
    expect(yaml.code).toBe(2);
    expect(yaml.stderr).toMatch(/^error: "[^"]*bench\.yaml" is not valid YAML: /);
    expect(yaml.stderr).not.toMatch(/\n\s+at /);

    writeFileSync(join(dir, 'bench2.yaml'), 'n_mesure: 3\n');
    const typo = await runCliInProcess(['bench', '--bench-config', 'bench2.yaml'], dir);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('Did you mean "n_measure"?');

    const badFlag = await runCliInProcess(['bench', '--seq-lens', '64,x'], dir);
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toContain(
      messages.badCliValue('64,x', 'a comma-separated list of positive integers', '64,128,256'),
    );
  });

  it('plot and report: unknown chart, missing results file, unknown format', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dantinox-plot-err-'));
    expectUsage(await runCliInProcess(['plot', 'nope.csv'], dir), messages.resultsFileMissing('nope.csv'));
    expectUsage(await runCliInProcess(['report', 'nope'], dir), messages.resultsFileMissing('nope'));
    expectUsage(await runCliInProcess(['report', '.'], dir), messages.resultsDirEmpty('.'));
    const chart = await runCliInProcess(['plot', 'x.csv', '--charts', 'througput'], dir);
    expect(chart.code).toBe(2);
    expect(chart.stderr).toContain('Unknown chart "througput". Did you mean "throughput"?');
    const format = await runCliInProcess(['plot', 'x.csv', '--format', 'gif'], dir);
    expect(format.code).toBe(2);
    expect(format.stderr).toContain('Unknown format "gif".');
  });
});
