/**
 * Signals and process lifecycle of `dantinox bench`, on the real binary (launcher + worker): Ctrl-C and SIGTERM
 * keep every measured cell in every output and exit 130/143 (a variant cut short is unfinished: `--resume`
 * measures it again), a second signal quits at once, the worker dies with its launcher, a killed worker is
 * reported, a crashed run still loads everywhere, and a closed stdout is a normal end.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { SuiteReport } from '../../src/benchmarking/index.js';
import { runState } from '../../src/benchmarking/matrix/matrix-report.js';
import { BIN, ensureBuilt, runCli } from './built-cli.js';

/** A sweep whose cells take a second or so each on tiny: long enough to be interrupted mid-task. */
const SLOW = [
  'bench',
  '--config',
  'tiny',
  '--threads',
  '1',
  '--seq-lens',
  '16,32,64',
  '--batch-sizes',
  '1,2',
  '--n-warmup',
  '1',
  '--n-measure',
  '300',
  '--min-warmup-ms',
  '0',
];

let cwd: string;

beforeAll(() => {
  ensureBuilt();
  cwd = mkdtempSync(join(tmpdir(), 'dantinox-signals-'));
});

interface Started {
  readonly child: ChildProcess;
  readonly stderr: () => string;
  readonly stdout: () => string;
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts the binary as the leader of its own process group (as a shell starts a foreground job). */
function start(args: readonly string[]): Started {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  let out = '';
  child.stderr?.setEncoding('utf8').on('data', (s: string) => {
    err += s;
  });
  child.stdout?.setEncoding('utf8').on('data', (s: string) => {
    out += s;
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  return { child, stderr: () => err, stdout: () => out, exit };
}

/** Resolves once `predicate` holds (polled every 50 ms), failing after 60 s. */
async function until(predicate: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The pid of the launcher's worker (its only child). */
function workerOf(pid: number): number {
  const out = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' }).trim();
  return Number(out.split('\n')[0]);
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const firstCellDone = (s: Started) => (): boolean => s.stderr().includes('(1/');

// One run at a time: six concurrent runs on a 2-core machine stretch the launcher's reaction times until a signal
// test measures the machine's load instead of the signal handling.
describe('dantinox bench under signals', () => {
  it("Ctrl-C (SIGINT to the process group) mid-task: the interrupted task's finished cells reach the CSV, JSON, charts and report; exit 130", async () => {
    const run = start([...SLOW, '--out', 'int']);
    await until(firstCellDone(run), 'the first cell');
    process.kill(-(run.child.pid as number), 'SIGINT');
    const { code } = await run.exit;
    expect(code, run.stderr()).toBe(130);
    expect(run.stderr()).toContain('Ctrl-C: stopping after the current engine call');
    const dir = join(cwd, 'int');
    for (const file of ['results.csv', 'results.json']) {
      const report = SuiteReport.load(join(dir, file));
      const throughput = report.results[0];
      expect(throughput?.status).toBe('completed');
      expect(throughput?.metrics['tps_seq16']).toBeGreaterThan(0);
      expect(String(throughput?.meta?.['interrupted'])).toMatch(/interrupted .* 1 cell\(s\) measured/);
      expect(report.results.slice(1).map((r) => r.status)).toEqual(['skipped', 'skipped']);
    }
    expect(readdirSync(join(dir, 'charts'))).toContain('tiny-throughput.svg');
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toContain('tps_seq16');
    expect(run.stdout()).toMatch(/throughput {2}seq=16,batch=1 {2}prefill /);
  });

  it('SIGTERM to the launcher (docker stop, CI cancel) is treated like Ctrl-C and exits 143', async () => {
    const run = start([...SLOW, '--no-charts', '--out', 'term']);
    await until(firstCellDone(run), 'the first cell');
    // A second process on the same folder is refused while the first writes it, --force or not.
    const second = await runCli([...SLOW, '--no-charts', '--out', 'term', '--force'], { cwd });
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(
      /^error: --out "term" is being written by another dantinox process \(pid \d+ on [^\n]+\n$/,
    );
    run.child.kill('SIGTERM');
    const { code } = await run.exit;
    expect(code, run.stderr()).toBe(143);
    expect(run.stderr()).toContain('SIGTERM: stopping after the current engine call');
    const report = SuiteReport.load(join(cwd, 'term', 'results.csv'));
    expect(report.results[0]?.metrics['tps_seq16']).toBeGreaterThan(0);
    expect(existsSync(join(cwd, 'term', '.dantinox.lock'))).toBe(false); // released on the way out
  });

  it('SIGTERM during a task that never returns ends the run within seconds, its files written; exit 143', async () => {
    // A plugin task that waits on a timer of 12 days: before, SIGTERM waited for it (a run outlived 11 minutes).
    writeFileSync(
      join(cwd, 'sleepy.mjs'),
      "export default ({ tasks }) => tasks.register('sleepy', () => ({ name: 'sleepy', run: () => new Promise((r) => setTimeout(r, 2 ** 30)) }));\n",
    );
    const run = start([
      'bench',
      '--config',
      'tiny',
      '--threads',
      '1',
      '--no-calibrate',
      '--no-charts',
      '--plugin',
      './sleepy.mjs',
      '--tasks',
      'sleepy,latency',
      '--out',
      'sleepy',
    ]);
    await until(() => run.stderr().includes('sleepy …'), 'the task to start');
    const sent = Date.now();
    run.child.kill('SIGTERM');
    const { code } = await run.exit;
    expect(Date.now() - sent).toBeLessThan(15_000);
    expect(code, run.stderr()).toBe(143);
    const report = SuiteReport.load(join(cwd, 'sleepy', 'results.csv'));
    expect(report.results.map((r) => [r.task, r.status])).toEqual([
      ['sleepy', 'failed'],
      ['latency', 'skipped'],
    ]);
  });

  it('a matrix variant cut short by SIGTERM is unfinished: --resume with the same flags measures it again', async () => {
    // Two throughput cells per variant: the first measured when the signal comes, the run short enough to resume.
    const flags = [
      ...['bench', '--config', 'tiny', '--threads', '1', '--dtype', 'fp32,q8', '--tasks', 'throughput'],
      ...['--seq-lens', '16,32', '--batch-sizes', '1', '--n-warmup', '1', '--n-measure', '300'],
      ...['--min-warmup-ms', '0', '--no-charts', '--no-calibrate', '--out', 'mterm'],
    ];
    const run = start(flags);
    await until(firstCellDone(run), 'the first cell');
    run.child.kill('SIGTERM');
    const { code } = await run.exit;
    expect(code, run.stderr()).toBe(143);
    const variant = join(cwd, 'mterm', 'tiny-fp32-t1');
    expect(SuiteReport.load(join(variant, 'results.json')).results[0]?.meta?.['interrupted']).toBeDefined();
    expect(runState(variant)).toBe('unfinished');
    const resumed = await runCli([...flags, '--resume'], { cwd });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('--resume: 0 of 2 variant(s) already complete');
    expect(resumed.stderr).not.toContain('tiny-fp32-t1: complete in an earlier run');
    const row = SuiteReport.load(join(variant, 'results.json')).results[0];
    expect(row?.meta?.['interrupted']).toBeUndefined();
    expect(row?.metrics['tps_seq32']).toBeGreaterThan(0);
    expect(runState(variant)).toBe('completed');
  });

  it('a second Ctrl-C quits at once, with exit 130, and says where the measured cells are', async () => {
    // A plugin task that, once the run is stopped, holds the process for 20 s (a long engine call would): the
    // second press always lands while it still runs, however loaded the machine (a run that stops within
    // milliseconds could finish between the two presses).
    writeFileSync(
      join(cwd, 'holds.mjs'),
      `export default ({ tasks }) => tasks.register('holds', () => ({
        name: 'holds',
        async run(_p, _m, _c, _r, context) {
          while (!context.signal.aborted) await new Promise((r) => setTimeout(r, 20));
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20_000);
          return { task: 'holds', metrics: {} };
        },
      }));\n`,
    );
    const run = start([...SLOW, '--plugin', './holds.mjs', '--tasks', 'throughput,holds', '--out', 'twice']);
    await until(() => run.stderr().includes('holds …'), 'the task that holds the process');
    const group = -(run.child.pid as number);
    process.kill(group, 'SIGINT');
    // Two presses closer than the launcher's reaction merge into one pending signal (POSIX does not queue
    // them), and the notice comes from the worker, which may have seen the first press before the launcher did
    // on a loaded machine: press again once the notice is out, then every half second until it quits, as a user
    // does (at most 10 presses).
    await until(() => run.stderr().includes('stopping after the current engine call'), 'the first notice');
    const pressed = Date.now();
    let exited = false;
    const exit = run.exit.finally(() => {
      exited = true;
    });
    for (let press = 0; press < 10 && !exited; press++) {
      try {
        process.kill(group, 'SIGINT');
      } catch {
        break; // the group is gone: it quit
      }
      await Promise.race([exit, new Promise((r) => setTimeout(r, 500))]);
    }
    const { code } = await exit;
    expect(Date.now() - pressed).toBeLessThan(10_000); // not after the task's 20 s
    expect(code, run.stderr()).toBe(130);
    expect(run.stderr()).toContain(
      'Ctrl-C again: quit at once. The cells measured so far are in twice/results.jsonl',
    );
    expect(readFileSync(join(cwd, 'twice', 'results.jsonl'), 'utf8')).toContain('"type":"cell"');
  });

  it('the worker dies with its launcher (SIGKILL of the launcher alone)', async () => {
    const run = start([...SLOW, '--no-charts', '--out', 'orphan']);
    await until(firstCellDone(run), 'the first cell');
    const worker = workerOf(run.child.pid as number);
    expect(alive(worker)).toBe(true);
    run.child.kill('SIGKILL');
    await until(() => !alive(worker), 'the worker to exit');
    // It stopped like on SIGTERM: what it measured is in the outputs.
    expect(SuiteReport.load(join(cwd, 'orphan', 'results.csv')).results[0]?.status).toBe('completed');
  });

  it('a worker killed by SIGKILL (the OOM killer) is reported with the likely cause; report and plot still show what it measured', async () => {
    const run = start([...SLOW, '--no-charts', '--out', 'oom']);
    await until(firstCellDone(run), 'the first cell');
    process.kill(workerOf(run.child.pid as number), 'SIGKILL');
    const { code } = await run.exit;
    expect(code).toBe(137);
    expect(run.stderr()).toContain('killed by SIGKILL (most likely the out-of-memory killer');
    expect(existsSync(join(cwd, 'oom', 'results.csv'))).toBe(false);
    // The killed worker held the folder's lock: it stays, naming a dead pid, and the next run takes it over.
    expect(existsSync(join(cwd, 'oom', '.dantinox.lock'))).toBe(true);
    const report = await runCli(['report', 'oom', '--out', 'oom-report'], { cwd });
    expect(report.code, report.stderr).toBe(0);
    const html = readFileSync(join(cwd, 'oom-report', 'report.html'), 'utf8');
    expect(html).toContain('tps_seq16');
    expect(html).toContain('the process ended during this task');
    const plot = await runCli(['plot', 'oom', '--out', 'oom-plot', '--charts', 'throughput'], { cwd });
    expect(plot.code, plot.stderr).toBe(0);
    expect(readdirSync(join(cwd, 'oom-plot')).some((f) => f.endsWith('throughput.svg'))).toBe(true);
    const quick = ['--seq-lens', '8', '--batch-sizes', '1', '--n-measure', '1', '--tasks', 'throughput'];
    const again = await runCli(
      [...SLOW, ...quick, '--no-charts', '--no-calibrate', '--out', 'oom', '--force'],
      {
        cwd,
      },
    );
    expect(again.code, again.stderr).toBe(0);
    expect(existsSync(join(cwd, 'oom', '.dantinox.lock'))).toBe(false);
  });

  it('a matrix worker killed by SIGKILL names the variant folder whose stream holds the cells; merge refuses that variant', async () => {
    const run = start([...SLOW, '--dtype', 'fp32,q8', '--no-charts', '--no-calibrate', '--out', 'mkill']);
    await until(firstCellDone(run), 'the first cell');
    process.kill(workerOf(run.child.pid as number), 'SIGKILL');
    const { code } = await run.exit;
    expect(code).toBe(137);
    expect(run.stderr()).toContain(
      'The cells measured so far are in mkill/tiny-fp32-t1/results.jsonl; `dantinox report mkill/tiny-fp32-t1` renders them.',
    );
    expect(existsSync(join(cwd, 'mkill', 'results.jsonl'))).toBe(false);
    expect(readFileSync(join(cwd, 'mkill', 'tiny-fp32-t1', 'results.jsonl'), 'utf8')).toContain(
      '"type":"cell"',
    );
    const merge = await runCli(['merge', 'mkill', '--out', 'mkill-merged'], { cwd });
    expect(merge.code).toBe(2);
    expect(merge.stderr).toContain(
      `variant tiny-fp32-t1: unfinished in ${join(cwd, 'mkill')}/tiny-fp32-t1 (cut short`,
    );
  });

  it('a closed stdout is a normal end (dantinox --help | head -1): exit 0, no stack trace', async () => {
    const child = spawn(process.execPath, [BIN, '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (s: string) => {
      stderr += s;
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});
