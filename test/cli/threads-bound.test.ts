/**
 * `--threads` far beyond the machine is refused before anything is built or written: the bound (4 per core) is
 * accepted by planRun, the bound + 1 refused by bench (an axis value) and calibrate with exit 2 and one line.
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createWriterLogger } from '../../src/benchmarking/logger.js';
import { ExitCode, runCli } from '../../src/cli/index.js';
import { messages } from '../../src/messages.js';
import { maxThreads } from '../../src/models/engines/threads.js';
import { planRun } from '../../src/runs/plan-run.js';
import { captureIo } from './capture-io.js';

const bound = maxThreads();
const tooMany = messages.threadsAboveBound(bound + 1, bound, availableParallelism());

describe('--threads above 4 per core', () => {
  it('planRun accepts the bound itself', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dx-threads-'));
    const io = captureIo(cwd);
    const plan = planRun({
      dir: 'out',
      cwd,
      axes: { config: ['tiny'], threads: [String(bound)] },
      tasks: ['throughput'],
      calibration: false,
      logger: createWriterLogger(io.stderr, 'warn'),
    });
    plan.lock?.release();
    expect(plan.matrix.variants).toHaveLength(1);
    expect(io.err.join('')).toContain(`--threads ${bound} is more than the`); // the warning above the cores only
  });

  it('bench --threads 1,<bound + 1>: exit 2, one line naming --threads and the bound, no --out folder', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dx-threads-'));
    const io = captureIo(cwd);
    const args = ['bench', '--config', 'tiny', '--threads', `1,${bound + 1}`, '--out', 'o'];
    expect(await runCli(args, io)).toBe(ExitCode.usage);
    expect(io.err.join('')).toBe(`error: ${tooMany}\n`);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('bench --threads 100000 is refused at once', async () => {
    const io = captureIo(mkdtempSync(join(tmpdir(), 'dx-threads-')));
    const started = Date.now();
    expect(await runCli(['bench', '--config', 'tiny', '--threads', '100000'], io)).toBe(ExitCode.usage);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(io.err.join('')).toBe(
      `error: ${messages.threadsAboveBound(100_000, bound, availableParallelism())}\n`,
    );
  });

  it('calibrate --threads <bound + 1>: exit 2 and one line, nothing measured', async () => {
    const io = captureIo(mkdtempSync(join(tmpdir(), 'dx-threads-')));
    expect(await runCli(['calibrate', '--threads', String(bound + 1)], io)).toBe(ExitCode.usage);
    expect(io.err.join('')).toBe(`error: ${tooMany}\n`);
    expect(io.out).toEqual([]);
  });
});
