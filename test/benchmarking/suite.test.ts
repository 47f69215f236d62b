import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BenchmarkConfig } from '../../src/benchmarking/config.js';
import { SuiteReport } from '../../src/benchmarking/report.js';
import type { ResultSink } from '../../src/benchmarking/result-sink.js';
import { BenchmarkSuite } from '../../src/benchmarking/suite.js';
import type { BenchmarkContext, BenchmarkResult, BenchmarkTask } from '../../src/benchmarking/task.js';
import { LatencyTask } from '../../src/benchmarking/tasks/latency-task.js';
import { ThroughputTask } from '../../src/benchmarking/tasks/throughput-task.js';
import { messages } from '../../src/messages.js';
import type { Model } from '../../src/models/model.js';
import type { Paradigm } from '../../src/models/paradigm.js';
import { ARParadigm } from '../../src/models/paradigms/ar-paradigm.js';
import type { Rng } from '../../src/rng.js';
import { loadRun } from '../../src/runs/load-runs.js';
import { FakeModel } from './fake-model.js';

const tmp = (): string => mkdtempSync(join(tmpdir(), 'dx-suite-'));
const quick = BenchmarkConfig.parse({
  seqLens: [8, 16],
  batchSizes: [1, 2],
  nWarmup: 1,
  nMeasure: 3,
  minWarmupMs: 0,
});

/** A user task written like the seed's MyTask: only `name` and `run`. */
class MyTask implements BenchmarkTask {
  readonly name = 'my_task';
  draws: number[] = [];
  async run(_p: Paradigm, model: Model, _c: BenchmarkConfig, rng: Rng): Promise<BenchmarkResult> {
    this.draws.push(rng.next());
    return { task: this.name, metrics: { score: model.config.dim / 2 } };
  }
}

class Boom implements BenchmarkTask {
  readonly name = 'boom';
  async run(): Promise<BenchmarkResult> {
    throw new Error('engine exploded');
  }
}

describe('BenchmarkSuite', () => {
  it('rejects an empty task list and duplicate names', () => {
    expect(() => new BenchmarkSuite({ tasks: [] })).toThrow(/requires at least one task/);
    expect(() => new BenchmarkSuite({ tasks: [new MyTask(), new MyTask()] })).toThrow(
      /Two tasks of the suite are named "my_task"/,
    );
  });

  it('builds the default and throughput-only suites', () => {
    expect(String(BenchmarkSuite.default())).toBe(
      "BenchmarkSuite(tasks=['throughput', 'latency', 'perplexity'])",
    );
    expect(BenchmarkSuite.throughputOnly({ n_measure: 7 }).config.nMeasure).toBe(7);
  });

  it('runs a user task with no change to the library; a failing task becomes a failed row and the suite goes on', async () => {
    const model = new FakeModel();
    const mine = new MyTask();
    const ended: string[] = [];
    const suite = new BenchmarkSuite({ tasks: [new Boom(), mine, new ThroughputTask()], config: quick });
    const report = await suite.run(new ARParadigm(model.config), model, {
      clock: model.clock,
      jsonl: false,
      sinks: [{ onTask: (r) => void ended.push(`${r.task}:${r.status}`) }],
    });
    expect(ended).toEqual(['boom:failed', 'my_task:completed', 'throughput:completed']);
    expect(report.results[0]).toMatchObject({
      task: 'boom',
      status: 'failed',
      error: 'engine exploded',
      metrics: {},
    });
    expect(report.results[1]?.metrics).toEqual({ score: 4 });
    expect(report.failedCount).toBe(1);
    expect(report.summary()).toMatch(/^ {2}boom {2}failed: engine exploded$/m);
    expect(report.summary('kv')).toContain('  [boom]  status=failed: engine exploded');
    expect(report.toDataFrame().numRows()).toBe(3);
  });

  it('a task that throws a value with no string form is a failed row like any other, and the files are written', async () => {
    /** Throws `value`: `Object.create(null)` and a `toString` that throws cannot become a string. */
    const throwing = (name: string, value: unknown): BenchmarkTask => ({
      name,
      run: async () => {
        throw value;
      },
    });
    const toStringThrows = {
      toString(): string {
        throw new Error('no');
      },
    };
    const model = new FakeModel();
    const dir = tmp();
    const suite = new BenchmarkSuite({
      tasks: [throwing('bare', Object.create(null)), throwing('hostile', toStringThrows), new MyTask()],
      config: quick,
    });
    const report = await suite.run(new ARParadigm(model.config), model, {
      clock: model.clock,
      outDir: dir,
      runId: 'r',
      saveCsv: true,
      saveJson: true,
    });
    const unprintable = messages.unprintableThrown('[object Object]');
    expect(report.results.map((r) => [r.task, r.status, r.error])).toEqual([
      ['bare', 'failed', unprintable],
      ['hostile', 'failed', unprintable],
      ['my_task', 'completed', undefined],
    ]);
    const saved = SuiteReport.load(join(dir, 'r.json'));
    expect(saved.results.map((r) => r.status)).toEqual(['failed', 'failed', 'completed']);
    expect(readFileSync(join(dir, 'r.csv'), 'utf8')).toContain(unprintable);
    expect(readFileSync(join(dir, 'r.jsonl'), 'utf8')).toContain(unprintable);
  });

  it('a task that never returns is given up after twice --max-cell-ms, unless it keeps finishing cells', async () => {
    const config = BenchmarkConfig.parse({ ...quick, maxCellMs: 100 });
    const never: BenchmarkTask = { name: 'never', run: () => new Promise<BenchmarkResult>(() => {}) };
    /** Finishes a cell every 60 ms for 600 ms: never quiet for 200 ms, so never taken for hung. */
    const steady: BenchmarkTask = {
      name: 'steady',
      run: async (_p, _m, _c, _r, context) => {
        for (let i = 0; i < 10; i++) {
          await new Promise((r) => setTimeout(r, 60));
          await context?.recordCell({
            task: 'steady',
            cell: `c${i}`,
            phase: 'p',
            status: 'completed',
            metrics: {},
          });
        }
        return { task: 'steady', metrics: { cells: 10 } };
      },
    };
    const model = new FakeModel();
    const dir = tmp();
    const suite = new BenchmarkSuite({ tasks: [never, steady, new MyTask()], config });
    const report = await suite.run(new ARParadigm(model.config), model, {
      clock: model.clock,
      outDir: dir,
      runId: 'r',
      saveJson: true,
    });
    expect(report.results.map((r) => [r.task, r.status, r.error])).toEqual([
      ['never', 'failed', messages.taskHung(200)],
      ['steady', 'completed', undefined],
      ['my_task', 'completed', undefined],
    ]);
    expect(SuiteReport.load(join(dir, 'r.json')).results).toHaveLength(3);
  });

  it('a stop signal ends a task that never returns at once: its row is kept, the rest skipped', async () => {
    const never: BenchmarkTask = { name: 'never', run: () => new Promise<BenchmarkResult>(() => {}) };
    const model = new FakeModel();
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('SIGTERM')), 50);
    const suite = new BenchmarkSuite({ tasks: [never, new MyTask()], config: quick }); // maxCellMs 60 s
    const start = Date.now();
    const report = await suite.run(new ARParadigm(model.config), model, {
      clock: model.clock,
      jsonl: false,
      signal: controller.signal,
    });
    expect(Date.now() - start).toBeLessThan(5_000);
    expect(report.results.map((r) => [r.task, r.status])).toEqual([
      ['never', 'failed'],
      ['my_task', 'skipped'],
    ]);
    expect(report.results[0]?.error).toBe(messages.benchAborted('never'));
  });

  it('can re-throw instead with throwOnError', async () => {
    const model = new FakeModel();
    const suite = new BenchmarkSuite({ tasks: [new Boom()], config: quick });
    await expect(
      suite.run(new ARParadigm(model.config), model, { jsonl: false, throwOnError: true }),
    ).rejects.toThrow('engine exploded');
  });

  it('gives each task its own split of the seeded generator (same seed → same draws)', async () => {
    const draws = async (seed: number): Promise<number[]> => {
      const a = new MyTask();
      const b = Object.assign(new MyTask(), { name: 'other' as 'my_task' });
      const model = new FakeModel();
      await new BenchmarkSuite({ tasks: [a, b], config: { ...quick, seed } }).run(
        new ARParadigm(model.config),
        model,
        { jsonl: false },
      );
      return [...a.draws, ...b.draws];
    };
    const x = await draws(0);
    expect(await draws(0)).toEqual(x);
    expect(x[0]).not.toBe(x[1]);
    expect(await draws(1)).not.toEqual(x);
  });

  it('appends every cell to the JSONL file as soon as it finishes, and the stream loads back', async () => {
    const dir = tmp();
    const model = new FakeModel();
    const seenAtCell: number[] = [];
    const suite = new BenchmarkSuite({ tasks: [new ThroughputTask()], config: { ...quick, outputDir: dir } });
    const report = await suite.run(new ARParadigm(model.config), model, {
      clock: model.clock,
      runId: 'run1',
      sinks: [
        {
          onCell: (cell) => {
            // Read the file mid-run: this cell's line is already there.
            const lines = readFileSync(join(dir, 'run1.jsonl'), 'utf8')
              .trim()
              .split('\n')
              .map((l) => JSON.parse(l));
            const last = lines[lines.length - 1];
            expect(last).toMatchObject({ type: 'cell', cell: cell.cell, status: cell.status });
            seenAtCell.push(lines.length);
          },
        },
      ],
    });
    expect(seenAtCell).toEqual([2, 3, 4]); // run header, then one line per cell (seq 8, seq 16, batch 2)
    const loaded = SuiteReport.load(join(dir, 'run1.jsonl'));
    expect(loaded.toJSON()).toEqual(report.toJSON());
  });

  it('keeps every timed call as a raw sample (ms, 1 µs) and round-trips them through JSON and JSONL', async () => {
    const dir = tmp();
    // 1 ms + 10.123 µs per token: a seq-8 call takes 1.080984 ms, kept as 1.081.
    const model = new FakeModel({ cost: { fixedNs: 1_000_000, perTokenNs: 10_123 } });
    const config = { ...quick, nMeasure: 4, minMeasureMs: 0, outputDir: dir };
    const suite = new BenchmarkSuite({ tasks: [new ThroughputTask(), new MyTask()], config });
    const report = await suite.run(new ARParadigm(model.config), model, {
      clock: model.clock,
      runId: 'samples',
      saveJson: true,
    });
    const cells = report.results[0]?.cells ?? [];
    expect(cells.map((c) => c.samplesMs)).toEqual([
      [1.081, 1.081, 1.081, 1.081], // seq 8
      [1.162, 1.162, 1.162, 1.162], // seq 16: 1.161968 ms
      [1.162, 1.162, 1.162, 1.162], // batch 2 × seq 8: 16 tokens too
    ]);
    expect(cells.map((c) => c.cell)).toEqual(['seq=8,batch=1', 'seq=16,batch=1', 'seq=8,batch=2']);
    expect(cells[0]?.profiling?.nSamples).toBe(4);
    const json = readFileSync(join(dir, 'samples.json'), 'utf8');
    expect(json).toContain('"samplesMs": [1.081,1.081,1.081,1.081]'); // one line per cell
    for (const file of ['samples.json', 'samples.jsonl']) {
      const loaded = SuiteReport.load(join(dir, file));
      expect(loaded.results[0]?.cells?.map((c) => c.samplesMs)).toEqual(cells.map((c) => c.samplesMs));
      expect(loaded.toJSON()).toEqual(report.toJSON());
    }
    // The JSONL task line does not repeat the streamed cells: each sample is written once.
    const jsonl = readFileSync(join(dir, 'samples.jsonl'), 'utf8');
    expect(jsonl.match(/"samplesMs"/g)?.length).toBe(3);
  });

  it('round-trips the per-generation TTFT, TPOT and E2E samples of the latency task through JSON and JSONL', async () => {
    const dir = tmp();
    const model = new FakeModel();
    const config = { ...quick, nMeasure: 3, minMeasureMs: 0, genTokens: 4, outputDir: dir };
    const suite = new BenchmarkSuite({ tasks: [new LatencyTask()], config });
    const report = await suite.run(new ARParadigm(model.config), model, {
      clock: model.clock,
      runId: 'gen',
      saveJson: true,
    });
    const gen = report.results[0]?.cells?.find((c) => c.phase === 'generate');
    expect(Object.keys(gen?.metricSamples ?? {})).toEqual(['ttft_ms', 'tpot_ms', 'e2e_ms']);
    expect(gen?.metricSamples?.['ttft_ms']).toHaveLength(3);
    expect(readFileSync(join(dir, 'gen.json'), 'utf8')).toMatch(/"ttft_ms": \[[\d.]+,[\d.]+,[\d.]+\]/);
    for (const file of ['gen.json', 'gen.jsonl']) {
      const loaded = SuiteReport.load(join(dir, file));
      const back = loaded.results[0]?.cells?.find((c) => c.phase === 'generate');
      expect(back?.metricSamples, file).toEqual(gen?.metricSamples);
    }
  });

  it("keeps the interrupted task's finished cells in its row (abort → row from its cells, later tasks skipped)", async () => {
    const dir = tmp();
    const model = new FakeModel();
    const controller = new AbortController();
    const suite = new BenchmarkSuite({ tasks: [new ThroughputTask(), new MyTask()], config: quick });
    const report = await suite.run(new ARParadigm(model.config), model, {
      clock: model.clock,
      jsonl: join(dir, 'a.jsonl'),
      signal: controller.signal,
      sinks: [{ onCell: () => controller.abort() }],
    });
    expect(report.results.map((r) => `${r.task}:${r.status}`)).toEqual([
      'throughput:completed',
      'my_task:skipped',
    ]);
    const first = report.results[0];
    expect(first?.cells?.length).toBe(1);
    expect(first?.metrics['tps_seq8']).toBe(first?.cells?.[0]?.metrics['tps']);
    expect(first?.metrics['tps_seq16']).toBeUndefined();
    expect(first?.meta?.['interrupted']).toBe(messages.taskInterrupted('signal', 1));
    expect(report.toCsv()).toContain('tps_seq8');
    const lines = readFileSync(join(dir, 'a.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.filter((l) => l.type === 'cell').length).toBe(1);
    expect(lines[lines.length - 1]).toMatchObject({ type: 'end', aborted: true });
  });

  it('an abort before any finished cell still fails the task with the abort message', async () => {
    const model = new FakeModel();
    const controller = new AbortController();
    // The signal fires as the task starts, before its first call.
    const aborting: BenchmarkTask = {
      name: 'throughput',
      run: (p, m, c, r, ctx) => {
        controller.abort();
        return new ThroughputTask().run(p, m, c, r, ctx);
      },
    };
    const report = await new BenchmarkSuite({
      tasks: [aborting, new MyTask()],
      config: quick,
    }).run(new ARParadigm(model.config), model, {
      clock: model.clock,
      jsonl: false,
      signal: controller.signal,
    });
    expect(report.results.map((r) => r.status)).toEqual(['failed', 'skipped']);
    expect(report.results[0]?.error).toBe(messages.benchAborted('throughput'));
  });

  it('honours an abort that arrives during the very last call (the end record says aborted)', async () => {
    const dir = tmp();
    const model = new FakeModel();
    const controller = new AbortController();
    const suite = new BenchmarkSuite({ tasks: [new ThroughputTask()], config: quick });
    let cells = 0;
    await suite.run(new ARParadigm(model.config), model, {
      clock: model.clock,
      jsonl: join(dir, 'last.jsonl'),
      signal: controller.signal,
      // The last cell (seq 16 batch 2) is being recorded: a signal delivered after the loop ends.
      sinks: [
        {
          onCell: () => {
            cells += 1;
            if (cells === 3) setImmediate(() => controller.abort());
          },
        },
      ],
    });
    const lines = readFileSync(join(dir, 'last.jsonl'), 'utf8').trim().split('\n');
    expect(JSON.parse(lines[lines.length - 1] as string)).toMatchObject({ type: 'end', aborted: true });
  });

  it('rebuilds a report from a JSONL stream cut short by a crash', async () => {
    const dir = tmp();
    const model = new FakeModel();
    let n = 0;
    /** The throughput task, with the process "dying" right after its second cell reached the sinks. */
    const crashing: BenchmarkTask = {
      name: 'throughput',
      run: (paradigm, m, config, rng, context) =>
        new ThroughputTask().run(paradigm, m, config, rng, {
          ...(context as BenchmarkContext),
          recordCell: async (cell) => {
            await context?.recordCell(cell);
            n += 1;
            if (n === 2) throw new Error('simulated crash');
          },
        }),
    };
    const suite = new BenchmarkSuite({ tasks: [crashing, new MyTask()], config: quick });
    await expect(
      suite.run(new ARParadigm(model.config), model, {
        clock: model.clock,
        jsonl: join(dir, 'crash.jsonl'),
        throwOnError: true,
      }),
    ).rejects.toThrow('simulated crash');
    const loaded = SuiteReport.load(join(dir, 'crash.jsonl'));
    // The task cut short keeps a row built from its two cells; the task never reached is listed as not run.
    const [throughput, mine] = loaded.results;
    expect(throughput).toMatchObject({ task: 'throughput', status: 'completed' });
    expect(throughput?.cells?.map((c) => c.cell)).toEqual(['seq=8,batch=1', 'seq=16,batch=1']);
    expect(throughput?.metrics['tps_seq8']).toBe(throughput?.cells?.[0]?.metrics['tps']);
    expect(throughput?.metrics['tps_seq16']).toBe(throughput?.cells?.[1]?.metrics['tps']);
    expect(throughput?.meta?.['interrupted']).toBe(messages.taskInterrupted('crash', 2));
    expect(mine).toMatchObject({ task: 'my_task', status: 'skipped', error: messages.taskNeverRan() });
    expect(loaded.toCsv()).toContain('tps_seq16');
  });

  it('refuses two runs concatenated into one JSONL file instead of merging them under one id', async () => {
    const dir = tmp();
    const model = new FakeModel();
    const suite = new BenchmarkSuite({ tasks: [new MyTask()], config: quick });
    for (const runId of ['a', 'b'])
      await suite.run(new ARParadigm(model.config), model, { clock: model.clock, runId, outDir: dir });
    const both = join(dir, 'both.jsonl');
    writeFileSync(
      both,
      readFileSync(join(dir, 'a.jsonl'), 'utf8') + readFileSync(join(dir, 'b.jsonl'), 'utf8'),
    );
    expect(() => SuiteReport.load(both)).toThrow(messages.severalRunsInJsonl(both, ['a', 'b']));
    // plot and report read it through loadRun: refused too, never drawn as a table of mixed rows.
    await expect(loadRun(both, dir)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: messages.severalRunsInJsonl(both, ['a', 'b']),
    });
  });

  it('reports a throwing sink on stderr when no logger is given (the default level shows it)', async () => {
    const model = new FakeModel();
    const suite = new BenchmarkSuite({ tasks: [new MyTask()], config: quick });
    const written: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => {
      written.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    try {
      await suite.run(new ARParadigm(model.config), model, {
        clock: model.clock,
        jsonl: false,
        sinks: [{ name: 'upload', onEnd: () => Promise.reject(new Error('refused')) }],
      });
    } finally {
      process.stderr.write = write;
    }
    expect(written.join('')).toContain(messages.sinkFailed('sink', 'upload', 'onEnd', new Error('refused')));
  });

  it('reports a sink that throws and goes on: the other sinks, the files and the report are complete', async () => {
    const dir = tmp();
    const model = new FakeModel();
    const logged: string[] = [];
    const seen: string[] = [];
    const broken: ResultSink = {
      name: 'broken',
      onStart: () => {
        throw new Error('cannot connect');
      },
      onCell: async () => {
        throw new Error('upload refused');
      },
    };
    const suite = new BenchmarkSuite({ tasks: [new ThroughputTask(), new MyTask()], config: quick });
    const report = await suite.run(new ARParadigm(model.config), model, {
      clock: model.clock,
      outDir: dir,
      runId: 'sinks',
      saveCsv: true,
      logger: { log: (level, message) => void logged.push(`${level}: ${message}`) },
      sinks: [
        broken,
        {
          onStart: (run) => void seen.push(`start ${run.runId} ${run.tasks.join(',')}`),
          onCell: (cell, elapsedS) => void seen.push(`cell ${cell.cell} ${elapsedS > 0}`),
          onTask: (result) => void seen.push(`task ${result.task} ${result.cells?.length}`),
          onEnd: (r, end) => void seen.push(`end ${r.results.length} aborted=${end.aborted}`),
        },
      ],
    });
    expect(seen).toEqual([
      'start sinks throughput,my_task',
      'cell seq=8,batch=1 true',
      'cell seq=16,batch=1 true',
      'cell seq=8,batch=2 true',
      'task throughput 3',
      'task my_task 0',
      'end 2 aborted=false',
    ]);
    expect(logged).toEqual([
      `error: ${messages.sinkFailed('sink', 'broken', 'onStart', new Error('cannot connect'))}`,
      ...Array(3).fill(
        `error: ${messages.sinkFailed('sink', 'broken', 'onCell', new Error('upload refused'))}`,
      ),
    ]);
    expect(report.failedCount).toBe(0);
    expect(SuiteReport.load(join(dir, 'sinks.jsonl')).toJSON()).toEqual(report.toJSON());
    expect(SuiteReport.load(join(dir, 'sinks.csv')).toCsv()).toBe(report.toCsv());
  });

  it('an unwritable report file is logged, and the run still returns its report', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'file'), '');
    const model = new FakeModel();
    const logged: string[] = [];
    const suite = new BenchmarkSuite({ tasks: [new MyTask()], config: quick });
    const report = await suite.run(new ARParadigm(model.config), model, {
      jsonl: false,
      saveCsv: join(dir, 'file', 'r.csv'), // a directory that is a file
      logger: { log: (level, message) => void logged.push(`${level}: ${message}`) },
    });
    expect(report.results[0]?.metrics).toEqual({ score: 4, peak_rss_mb: expect.any(Number) }); // a real-clock run
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain(
      `error: result sink "${join(dir, 'file', 'r.csv')}" failed in onEnd: Cannot write`,
    );
  });

  it('writes plain progress lines to an injected writer, and nothing without one', async () => {
    const model = new FakeModel();
    let out = '';
    const suite = new BenchmarkSuite({ tasks: [new ThroughputTask()], config: quick });
    await suite.run(new ARParadigm(model.config), model, {
      clock: model.clock,
      jsonl: false,
      progress: 'auto', // not a TTY → plain lines
      writer: { write: (t: string) => (out += t) },
    });
    expect(out).toContain('[1/1] throughput …');
    expect(out).toMatch(/throughput seq=8,batch=1 \(1\/3\): [\d.]+ tok\/s, mean 1\.08 ms/);
    expect(out).toMatch(/throughput done in [\d.]+ s/);
    let silent = '';
    await suite.run(new ARParadigm(model.config), model, {
      clock: model.clock,
      jsonl: false,
      progress: 'silent',
      writer: { write: (t: string) => (silent += t) },
    });
    expect(silent).toBe('');
  });

  it('saves CSV and JSON reports where asked, under outDir for `true`', async () => {
    const dir = tmp();
    const model = new FakeModel();
    const suite = new BenchmarkSuite({ tasks: [new MyTask()], config: quick });
    await suite.run(new ARParadigm(model.config), model, {
      outDir: dir,
      runId: 'r',
      saveCsv: true,
      saveJson: join(dir, 'x', 'r.json'),
    });
    // A real-clock run also records the process's peak RSS during the task.
    expect(readFileSync(join(dir, 'r.csv'), 'utf8')).toMatch(
      /^task,status,score,peak_rss_mb,error,duration_ms,model,/,
    );
    const metrics = SuiteReport.load(join(dir, 'x', 'r.json')).results[0]?.metrics;
    expect(metrics).toEqual({ score: 4, peak_rss_mb: expect.any(Number) });
    expect(metrics?.['peak_rss_mb']).toBeGreaterThan(process.memoryUsage().heapUsed / 2 ** 20);
    expect(readFileSync(join(dir, 'r.jsonl'), 'utf8').split('\n')[0]).toMatch(/"type":"run"/);
  });
});

describe('a browser session with nodes off the requested provider', () => {
  it('warns in one line naming the count and op types, and records them in the identity', async () => {
    const off = { count: 8, opTypes: 'FusedMatMul×8', total: 89 };
    const model = new FakeModel({
      info: {
        target: 'browser',
        browser: {
          name: 'chromium 1',
          crossOriginIsolated: true,
          hardwareConcurrency: 2,
          threadsUsed: 1,
          threadsAsked: 1,
          timerResolutionMs: 0.005,
          provider: 'webgpu',
          offProvider: off,
        },
      },
    });
    const logged: string[] = [];
    const suite = new BenchmarkSuite({ tasks: [new MyTask()], config: quick });
    const report = await suite.run(new ARParadigm(model.config), model, {
      jsonl: false,
      progress: 'silent',
      logger: { log: (level, message) => void logged.push(`${level}: ${message}`) },
    });
    expect(logged).toEqual([`warn: ${messages.nodesOffProvider(off, 'webgpu')}`]);
    expect(logged[0]).toContain('8 of 89 nodes');
    expect(logged[0]).toContain('FusedMatMul×8');
    expect(logged[0]).not.toContain('\n');
    expect(report.modelMeta['nodes_off_provider']).toBe(8);
    expect(report.modelMeta['ops_off_provider']).toBe('FusedMatMul×8');
    expect(report.environment?.browser?.offProvider).toEqual(off);
  });
});
