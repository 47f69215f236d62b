import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RUN_FILES, RunDirectory } from '../../src/benchmarking/run-directory.js';
import { BenchmarkSuite } from '../../src/benchmarking/suite.js';
import { ThroughputTask } from '../../src/benchmarking/tasks/throughput-task.js';
import { messages } from '../../src/messages.js';
import { ARParadigm } from '../../src/models/paradigms/ar-paradigm.js';
import { FakeModel } from './fake-model.js';

const tmp = (): string => mkdtempSync(join(tmpdir(), 'dx-rundir-'));

/** A quick throughput run on the fake model written through a run directory's sinks. */
async function writeRun(dir: RunDirectory) {
  const model = new FakeModel();
  const suite = new BenchmarkSuite({
    tasks: [new ThroughputTask()],
    config: { seqLens: [8], batchSizes: [1], nWarmup: 1, nMeasure: 2, minWarmupMs: 0 },
  });
  return suite.run(new ARParadigm(model.config), model, {
    clock: model.clock,
    runId: 'fake-run',
    jsonl: false,
    sinks: dir.sinks(),
  });
}

describe('RunDirectory', () => {
  it("owns the layout: results.csv/json/jsonl, charts/, report.html, a load's requests.csv/jsonl", () => {
    const cwd = tmp();
    const dir = new RunDirectory('runs/a', cwd);
    expect(dir.path).toBe(join(cwd, 'runs', 'a'));
    const files = [
      'results.csv',
      'results.json',
      'results.jsonl',
      'charts',
      'report.html',
      'requests.csv',
      'requests.jsonl',
    ];
    expect(Object.values(RUN_FILES)).toEqual(files);
    const paths = [dir.csvPath, dir.jsonPath, dir.jsonlPath, dir.chartsDir, dir.reportPath];
    expect([...paths, dir.requestsCsvPath, dir.requestsJsonlPath]).toEqual(
      files.map((f) => join(cwd, 'runs', 'a', f)),
    );
  });

  it('its sinks write the three results files, which load back as the same run', async () => {
    const cwd = tmp();
    const dir = new RunDirectory('run', cwd);
    const report = await writeRun(dir);
    expect(dir.resultFiles()).toEqual(['results.csv', 'results.json', 'results.jsonl']);
    expect(dir.missingResultFiles()).toEqual([]);
    expect(RunDirectory.load('run', cwd).toJSON()).toEqual(report.toJSON()); // the folder → results.json
    expect(RunDirectory.load(dir.jsonlPath).toJSON()).toEqual(report.toJSON());
    expect(RunDirectory.load(dir.csvPath).toCsv()).toBe(report.toCsv());
  });

  it('reads a folder by preference: results.json, else results.jsonl (a crashed run), else results.csv', async () => {
    const cwd = tmp();
    const dir = new RunDirectory('run', cwd);
    await writeRun(dir);
    expect(RunDirectory.locate('run', cwd)).toBe(dir.jsonPath);
    rmSync(dir.jsonPath);
    expect(RunDirectory.locate('run', cwd)).toBe(dir.jsonlPath);
    expect(dir.missingResultFiles()).toEqual(['results.json']);
    rmSync(dir.jsonlPath);
    expect(RunDirectory.locate('run', cwd)).toBe(dir.csvPath);
    expect(RunDirectory.locate('run/results.csv', cwd)).toBe(dir.csvPath);
    rmSync(dir.csvPath);
    expect(() => RunDirectory.locate('run', cwd)).toThrow(messages.resultsDirEmpty('run'));
    expect(() => RunDirectory.locate('nowhere', cwd)).toThrow(messages.resultsFileMissing('nowhere'));
  });

  it('read: a folder whose results.json is empty or torn is read from its stream, with a note naming both', async () => {
    const dir = new RunDirectory(tmp());
    await writeRun(dir);
    const whole = readFileSync(dir.jsonPath, 'utf8');
    for (const text of ['', whole.slice(0, whole.length / 2)]) {
      writeFileSync(dir.jsonPath, text);
      const run = RunDirectory.read(dir.path);
      expect(run.path).toBe(dir.jsonlPath);
      expect(run.report.runId).toBe('fake-run');
      expect(run.note).toBe(messages.resultsJsonUnreadable(dir.jsonPath, dir.jsonlPath));
      // The file named itself is read as it is: no fallback.
      expect(() => RunDirectory.read(dir.jsonPath)).toThrow(dir.jsonPath);
    }
    // A readable results.json needs no note; a stream that is unreadable too leaves the JSON's error.
    writeFileSync(dir.jsonPath, whole);
    expect(RunDirectory.read(dir.path)).toEqual({ report: expect.anything(), path: dir.jsonPath });
    writeFileSync(dir.jsonPath, '');
    writeFileSync(dir.jsonlPath, 'not json\n{}\n');
    expect(() => RunDirectory.read(dir.path)).toThrow(messages.emptyDataFile(dir.jsonPath));
  });

  it('names a run after its directory, or after a loose file', async () => {
    const cwd = tmp();
    const dir = new RunDirectory('laptop', cwd);
    await writeRun(dir);
    mkdirSync(join(cwd, 'loose'));
    copyFileSync(dir.csvPath, join(cwd, 'loose', 'server.csv'));
    expect(RunDirectory.nameOf(dir.jsonlPath)).toBe('laptop');
    expect(RunDirectory.nameOf(join(cwd, 'loose', 'server.csv'))).toBe('server');
    writeFileSync(join(cwd, 'loose', 'notes.json'), '{"a":1}');
    expect(() => RunDirectory.load('loose/notes.json', cwd)).toThrow(/is not a dantinox report/);
    expect(readFileSync(dir.jsonlPath, 'utf8').split('\n')[0]).toMatch(/^\{"type":"run","runId":"fake-run"/);
  });
});
