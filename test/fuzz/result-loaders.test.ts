/**
 * Fuzz of the result loaders: a real run's results.csv, results.json and results.jsonl (a fake-model suite run),
 * truncated and corrupted at seeded random offsets, read by `SuiteReport.load` and by the plot/report loader
 * (`loadRun`). Each read either loads (a JSONL cut short keeps every complete record: a partial load) or throws
 * a `DantinoxError`; nothing else escapes.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { compareReports } from '../../src/benchmarking/compare/compare-reports.js';
import { formatComparisons } from '../../src/benchmarking/compare/format-comparison.js';
import { BenchmarkConfig } from '../../src/benchmarking/config.js';
import { SuiteReport } from '../../src/benchmarking/report.js';
import { BenchmarkSuite } from '../../src/benchmarking/suite.js';
import { LatencyTask } from '../../src/benchmarking/tasks/latency-task.js';
import { PerplexityTask } from '../../src/benchmarking/tasks/perplexity-task.js';
import { ThroughputTask } from '../../src/benchmarking/tasks/throughput-task.js';
import { DantinoxError } from '../../src/errors.js';
import { ARParadigm } from '../../src/models/paradigms/ar-paradigm.js';
import { loadRun } from '../../src/runs/load-runs.js';
import { FakeModel } from '../benchmarking/fake-model.js';

const FORMATS = ['csv', 'json', 'jsonl'] as const;
type Format = (typeof FORMATS)[number];

let dir: string;
const originals = {} as Record<Format, Buffer>;
let complete: SuiteReport;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dx-fuzz-load-'));
  const model = new FakeModel({ config: { vocabSize: 256, maxContext: 64 } });
  const config = BenchmarkConfig.parse({
    seqLens: [8, 16],
    batchSizes: [1, 2],
    nWarmup: 1,
    nMeasure: 3,
    minWarmupMs: 0,
    genTokens: 3,
    evalSeqLen: 16,
    evalBatches: 2,
    evalBatchSize: 2,
  });
  const text = 'The quick brown fox jumps over the lazy dog. '.repeat(20);
  const suite = new BenchmarkSuite({
    tasks: [
      new ThroughputTask(),
      new LatencyTask(),
      new PerplexityTask({ dataSource: { text, name: 'fox' } }),
    ],
    config,
  });
  complete = await suite.run(new ARParadigm(model.config), model, {
    clock: model.clock,
    jsonl: join(dir, 'run.jsonl'),
    runId: 'fuzz',
  });
  complete.save(join(dir, 'run.csv'));
  complete.save(join(dir, 'run.json'));
  for (const f of FORMATS) originals[f] = readFileSync(join(dir, `run.${f}`));
});

/** A mutation of a file: cut at an offset, overwrite bytes, insert bytes, or delete a range. */
const mutation = fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), at: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({
    kind: fc.constant('overwrite' as const),
    at: fc.double({ min: 0, max: 1, noNaN: true }),
    bytes: fc.uint8Array({ minLength: 1, maxLength: 8 }),
  }),
  fc.record({
    kind: fc.constant('insert' as const),
    at: fc.double({ min: 0, max: 1, noNaN: true }),
    bytes: fc.oneof(
      fc.uint8Array({ minLength: 1, maxLength: 8 }),
      fc
        .constantFrom(',', '"', '\n', '{', '}', ']', 'null', '-1e999', '"x"', '\r\n')
        .map((s) => Uint8Array.from(Buffer.from(s))),
    ),
  }),
  fc.record({
    kind: fc.constant('delete' as const),
    at: fc.double({ min: 0, max: 1, noNaN: true }),
    length: fc.integer({ min: 1, max: 40 }),
  }),
);

type Mutation = typeof mutation extends fc.Arbitrary<infer T> ? T : never;

function apply(bytes: Buffer, m: Mutation): Buffer {
  const at = Math.floor(m.at * bytes.length);
  switch (m.kind) {
    case 'truncate':
      return bytes.subarray(0, at);
    case 'overwrite': {
      const out = Buffer.from(bytes);
      Buffer.from(m.bytes).copy(out, Math.min(at, Math.max(0, out.length - m.bytes.length)));
      return out;
    }
    case 'insert':
      return Buffer.concat([bytes.subarray(0, at), Buffer.from(m.bytes), bytes.subarray(at)]);
    case 'delete':
      return Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + m.length)]);
  }
}

let counter = 0;
function writeMutated(format: Format, mutations: readonly Mutation[]): string {
  let bytes = originals[format];
  for (const m of mutations) bytes = apply(bytes, m);
  const path = join(dir, `case-${counter++}.${format}`);
  writeFileSync(path, bytes);
  return path;
}

/** Runs `read`; passes when it returns or throws a DantinoxError, fails on any other exception. */
async function onlyDantinoxErrors<T>(read: () => T | Promise<T>, what: string): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof DantinoxError) return undefined;
    throw new Error(`${what} threw a ${(error as Error)?.constructor?.name}: ${String(error)}`, {
      cause: error,
    });
  }
}

/**
 * A structural corruption of a JSON document: the node reached by following `picks` (a key or index chosen at
 * each level) is replaced by `value`, or deleted when `value` is undefined.
 */
const jsonEdit = fc.record({
  picks: fc.array(fc.nat(), { minLength: 0, maxLength: 6 }),
  value: fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined }),
});
type JsonEdit = typeof jsonEdit extends fc.Arbitrary<infer T> ? T : never;

function editJson(doc: unknown, edit: JsonEdit): unknown {
  if (edit.picks.length === 0 || doc === null || typeof doc !== 'object') return edit.value ?? null;
  const root = structuredClone(doc) as Record<string, unknown>;
  let parent: Record<string, unknown> = root;
  let key = '';
  for (const pick of edit.picks) {
    const keys = Object.keys(parent);
    if (keys.length === 0) break;
    key = keys[pick % keys.length] as string;
    const child = parent[key];
    if (child === null || typeof child !== 'object' || pick % 3 === 0) break;
    parent = child as Record<string, unknown>;
  }
  if (key === '') return root;
  if (edit.value === undefined) {
    if (Array.isArray(parent)) parent.splice(Number(key), 1);
    else delete parent[key];
  } else parent[key] = edit.value;
  return root;
}

/** The JSON form (one document) or the JSONL stream (one line chosen by the first pick) with `edit` applied. */
function writeEdited(format: 'json' | 'jsonl', edit: JsonEdit, line: number): string {
  const text = originals[format].toString('utf8');
  let out: string;
  if (format === 'json') out = JSON.stringify(editJson(JSON.parse(text), edit));
  else {
    const lines = text.split('\n').filter((l) => l !== '');
    const at = line % lines.length;
    lines[at] = JSON.stringify(editJson(JSON.parse(lines[at] as string), edit)) ?? 'null';
    out = `${lines.join('\n')}\n`;
  }
  const path = join(dir, `case-${counter++}.${format}`);
  writeFileSync(path, out);
  return path;
}

/** Each property stops at its run count or its time limit, so the file stays under 30 s on a loaded machine. */
const OPTIONS = { numRuns: 150, interruptAfterTimeLimit: 2_500, markInterruptAsFailure: false };

describe.each(FORMATS)('a corrupted results.%s', (format) => {
  it('SuiteReport.load: a report or a DantinoxError', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 3 }), async (mutations) => {
        const path = writeMutated(format, mutations);
        await onlyDantinoxErrors(
          () => SuiteReport.load(path),
          `SuiteReport.load(${JSON.stringify(mutations)})`,
        );
      }),
      OPTIONS,
    );
  });

  it('the plot/report loader: rows or a DantinoxError', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 3 }), async (mutations) => {
        const path = writeMutated(format, mutations);
        await onlyDantinoxErrors(() => loadRun(path, dir), `loadRun(${JSON.stringify(mutations)})`);
      }),
      OPTIONS,
    );
  });
});

describe.each(['json', 'jsonl'] as const)('a results.%s with a field replaced or deleted', (format) => {
  it('SuiteReport.load and the plot/report loader: a report or a DantinoxError', async () => {
    await fc.assert(
      fc.asyncProperty(jsonEdit, fc.nat(), async (edit, line) => {
        const path = writeEdited(format, edit, line);
        const what = `${format} ${JSON.stringify(edit)} line ${line}`;
        const report = await onlyDantinoxErrors(() => SuiteReport.load(path), `SuiteReport.load: ${what}`);
        await onlyDantinoxErrors(() => loadRun(path, dir), `loadRun: ${what}`);
        if (report === undefined) return;
        // What the CLI does next with a loaded report: rows, the CSV and JSON forms, a comparison.
        await onlyDantinoxErrors(() => {
          report.toRows();
          report.toCsv();
          JSON.stringify(report.toJSON());
          formatComparisons([compareReports(complete, report, { allowDifferent: true })], 'text');
          formatComparisons([compareReports(report, report, { allowDifferent: true })], 'json');
        }, `using the report: ${what}`);
      }),
      { numRuns: 300, interruptAfterTimeLimit: 3_500, markInterruptAsFailure: false },
    );
  });
});

describe('a results.jsonl cut at any offset is a correct partial load', () => {
  it('every task whose line survived is loaded as written; the rest are partial, failed or never ran', async () => {
    const lines = originals.jsonl.toString('utf8');
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: lines.length }), async (cut) => {
        const path = join(dir, `cut-${cut}.jsonl`);
        writeFileSync(path, lines.slice(0, cut));
        const report = await onlyDantinoxErrors(() => SuiteReport.load(path), `cut at ${cut}`);
        const firstLine = lines.indexOf('\n');
        if (cut <= firstLine) return; // the run record itself is torn: an error is the right answer
        expect(report, `cut at ${cut}`).toBeDefined();
        const kept = lines
          .slice(0, cut)
          .split('\n')
          .slice(0, -1)
          .map((l) => JSON.parse(l) as { type: string; result?: { task: string } })
          .filter((r) => r.type === 'task')
          .map((r) => r.result?.task);
        for (const task of kept) {
          const loaded = report?.results.find((r) => r.task === task);
          const original = complete.results.find((r) => r.task === task);
          expect(loaded?.metrics, `${task} cut at ${cut}`).toEqual(original?.metrics);
        }
        expect(report?.results.map((r) => r.task).sort()).toEqual(['latency', 'perplexity', 'throughput']);
      }),
      { numRuns: 120, interruptAfterTimeLimit: 2_500, markInterruptAsFailure: false },
    );
  });
});
