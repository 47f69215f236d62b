import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BenchmarkConfig } from '../../src/benchmarking/config.js';
import { othersCpus, readCpuMhz, readCpuTimes } from '../../src/benchmarking/environment.js';
import { SuiteReport } from '../../src/benchmarking/report.js';
import { BenchmarkSuite } from '../../src/benchmarking/suite.js';
import { ThroughputTask } from '../../src/benchmarking/tasks/throughput-task.js';
import { ARParadigm } from '../../src/models/paradigms/ar-paradigm.js';
import { FakeModel } from './fake-model.js';

/** A fake `/` holding `files`; returns its path with a trailing slash. */
const tree = (files: Record<string, string>): string => {
  const root = `${mkdtempSync(join(tmpdir(), 'dx-env-'))}/`;
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
};

describe('readCpuMhz', () => {
  it('cpufreq in kHz per CPU first, then the cpu MHz lines of /proc/cpuinfo, else undefined', () => {
    const sysfs = (cpu: number, khz: string) => ({
      [`sys/devices/system/cpu/cpu${cpu}/cpufreq/scaling_cur_freq`]: khz,
    });
    const cpuinfo = {
      'proc/cpuinfo': 'processor\t: 0\ncpu MHz\t\t: 2096.023\nprocessor\t: 1\ncpu MHz\t\t: 3000\n',
    };
    expect(readCpuMhz(tree({ ...sysfs(0, '3700000\n'), ...sysfs(1, '1500000\n'), ...cpuinfo }))).toEqual([
      3700, 1500,
    ]);
    expect(readCpuMhz(tree(cpuinfo))).toEqual([2096.023, 3000]);
    expect(readCpuMhz(tree({ 'proc/cpuinfo': 'processor\t: 0\n' }))).toBeUndefined();
  });
});

describe('readCpuTimes and othersCpus', () => {
  it("the machine's busy time is user + nice + system + irq + softirq + steal, in ticks of 1/100 s", () => {
    // user nice system idle iowait irq softirq steal guest guest_nice
    const t = readCpuTimes(
      tree({ 'proc/stat': 'cpu  100 20 30 5000 7 1 2 40 0 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n' }),
    );
    expect(t?.machineBusyS).toBeCloseTo(1.93, 12);
    expect(t?.ownS).toBeGreaterThan(0);
    expect(readCpuTimes(tree({ 'proc/stat': 'intr 1 2\n' }))).toBeUndefined();
    expect(readCpuTimes(tree({}))).toBeUndefined();
  });

  it('others = (machine busy − own) ÷ wall time, never below 0', () => {
    const at = (machineBusyS: number, ownS: number, wallS: number) => ({ machineBusyS, ownS, wallS });
    expect(othersCpus(at(100, 10, 1000), at(130, 25, 1010))).toBeCloseTo(1.5, 12); // (30 − 15) / 10
    expect(othersCpus(at(100, 10, 1000), at(110, 25, 1010))).toBe(0);
    expect(othersCpus(at(0, 0, 5), at(1, 0, 5))).toBe(0); // no wall time
  });
});

describe('the end-of-run samples', () => {
  it('are in the report and come back from the JSONL stream exactly', async () => {
    const model = new FakeModel({ config: { vocabSize: 64, maxContext: 32 } });
    const outDir = mkdtempSync(join(tmpdir(), 'dx-env-run-'));
    const suite = new BenchmarkSuite({
      tasks: [new ThroughputTask()],
      config: BenchmarkConfig.parse({
        seqLens: [8],
        batchSizes: [1],
        nWarmup: 0,
        nMeasure: 2,
        minWarmupMs: 0,
        outputDir: outDir,
      }),
    });
    const report = await suite.run(new ARParadigm(model.config), model, { clock: model.clock, runId: 'env' });
    const env = report.environment;
    expect(env?.loadAverage?.end).toHaveLength(3);
    expect(env?.othersCpus).toBeGreaterThanOrEqual(0); // Linux: /proc/stat is readable
    const jsonl = join(outDir, 'env.jsonl');
    expect(readFileSync(jsonl, 'utf8')).toContain('"othersCpus"');
    const again = SuiteReport.load(jsonl).environment;
    expect(again?.othersCpus).toBe(env?.othersCpus);
    expect(again?.loadAverage).toEqual(env?.loadAverage);
    expect(again?.cpuMhz).toEqual(env?.cpuMhz);
  });
});
