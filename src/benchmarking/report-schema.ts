/**
 * The schemas of the result files dantinox writes (the full JSON report and the lines of a run's JSONL stream),
 * one per record shape, whose parsed output is the library's own type: {@link BenchmarkResult}, {@link CellRecord},
 * {@link MetricDescriptor}, {@link ProfilingResult} and {@link FlopsBreakdown} instances, {@link SuiteReportData}
 * and the JSONL records. Reading revives what JSON lost: `null` stood for NaN in numeric maps and statistics (and
 * for "absent" in optional fields), and the class instances are rebuilt. Unknown extra fields are kept as written
 * (files of older and newer versions load); the environment block is taken as written. {@link reportProblem} turns
 * a refusal into the one line `malformedReport` prints, e.g. `result 2 has "cells" a string, not an array`.
 *
 * @packageDocumentation
 */
import { z } from 'zod';
import { messages } from '../messages.js';
import { FlopsBreakdown, type Interval, ProfilingResult } from '../profiling/index.js';
import type { Environment } from './environment.js';
import type { JsonlCellRecord, JsonlEndRecord, JsonlRunRecord, JsonlTaskRecord } from './jsonl-sink.js';
import type { SuiteReportData } from './report.js';
import type {
  BenchmarkResult,
  BenchmarkStatus,
  CellRecord,
  CompletedResult,
  MetaValue,
  MetricDescriptor,
} from './task.js';

/**
 * What a custom issue of these schemas means, in its `params.problem`; {@link reportProblem} words each one.
 * `kind` is a field of the wrong kind checked by a predicate (its `params.wanted` lists the kind names allowed).
 */
type ProblemCode =
  | 'not-a-report'
  | 'no-task-name'
  | 'cell-without-task'
  | 'no-string'
  | 'kind'
  | 'status-without-error'
  | 'completed-with-error';

/** The `params` of a custom issue: its {@link ProblemCode} and what it needs to be worded. */
const problem = (code: ProblemCode, more: Record<string, unknown> = {}) => ({
  params: { problem: code, ...more },
});

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === 'string';
const isNull = (v: unknown): boolean => v === null;
const always = (): boolean => true;

/** JSON wrote NaN (and ±Infinity) as `null`: `null` and a missing value read as NaN, anything else as `Number(v)`. */
const toNumber = (v: unknown): number => (v === null || v === undefined ? Number.NaN : Number(v));

/**
 * A preprocess step for a record: drops the keys whose value `absent[key]` says stands for "not there" (JSON
 * writes a missing optional value as `null`; a field of the wrong kind may also be ignored, as before schemas).
 * Anything but a plain object passes through, for the object schema to refuse.
 */
function dropAbsent(absent: Readonly<Record<string, (value: unknown) => boolean>>) {
  return (value: unknown): unknown => {
    if (!isPlainObject(value)) return value;
    // fromEntries defines own properties: a "__proto__" key cannot reach the prototype.
    return Object.fromEntries(
      Object.entries(value).filter(([k, v]) => !(Object.hasOwn(absent, k) && absent[k]?.(v) === true)),
    );
  };
}

/** A number: NaN for `null` or a missing value, else `Number(v)` (never refused). */
const revivedNumber = z.unknown().transform(toNumber).default(Number.NaN);

/** Any JavaScript number (NaN and ±Infinity too: JSON's `1e999` parses to Infinity). */
const anyNumber = z.custom<number>((v) => typeof v === 'number', problem('kind', { wanted: ['number'] }));

/** A numeric map (metrics): `null` values are NaN, others `Number(v)`; anything but an object reads as `{}`. */
const numericMap = z.preprocess(
  (v) => (v !== null && typeof v === 'object' ? { ...v } : {}),
  z.record(z.string(), revivedNumber),
);

/** A scalar metadata value. */
const metaValue = z.custom<MetaValue>(
  (v) => v === null || ['string', 'number', 'boolean'].includes(typeof v),
  problem('kind', { wanted: ['string', 'number', 'boolean', 'null'] }),
);
/** Free-form scalar metadata (`meta`, `modelMeta`). */
const metaRecord = z.record(z.string(), metaValue);

/** A task name: a string, else "has no task name". */
const taskName = z.custom<string>(isString, problem('no-task-name'));

/** The three outcomes of a task or cell. */
const STATUSES = ['completed', 'failed', 'skipped'] as const satisfies readonly BenchmarkStatus[];

/** A 95 % confidence interval in ms, from its JSON pair (`null` bounds are NaN; anything else reads as NaN, NaN). */
const interval = z
  .unknown()
  .transform(
    (v): Interval => (Array.isArray(v) ? [toNumber(v[0]), toNumber(v[1])] : [Number.NaN, Number.NaN]),
  )
  .default((): Interval => [Number.NaN, Number.NaN]);

/** `profiling` and `flops` that are not objects were ignored before schemas, and still are. */
const notAnObject = (v: unknown): boolean => !isPlainObject(v);

/**
 * A {@link FlopsBreakdown} from its JSON form: its counts are numbers (`null` or missing → NaN), its formula, MoE
 * counting and pass one of their names; the derived sums it was written with are recomputed.
 */
export const flopsBreakdownSchema: z.ZodType<FlopsBreakdown> = z
  .object({
    attentionProjections: revivedNumber,
    attentionScores: revivedNumber,
    ffn: revivedNumber,
    router: revivedNumber,
    lmHead: revivedNumber,
    seqLen: revivedNumber,
    batchSize: revivedNumber,
    pastLength: revivedNumber,
    // Absent in reports written before prefill cells counted the LM head over fewer positions: every position.
    logitPositions: z
      .unknown()
      .transform((v) => (v === undefined || v === null ? undefined : toNumber(v)))
      .optional(),
    formula: z.enum(['exact', 'seed']),
    moe: z.enum(['active', 'dense']),
    pass: z.enum(['forward', 'training']),
  })
  .transform((init) => new FlopsBreakdown(init));

/**
 * A {@link ProfilingResult} from its JSON form: every statistic is a number (`null` or missing → NaN, in ms where
 * the field says so), the confidence intervals pairs of numbers; extra numeric fields (a newer version's) are kept.
 * An attached `flops` that is not an object is ignored.
 */
export const profilingResultSchema: z.ZodType<ProfilingResult> = z
  .preprocess(
    dropAbsent({ flops: notAnObject }),
    z
      .object({
        nSamples: revivedNumber,
        totalTokens: revivedNumber,
        totalMs: revivedNumber,
        meanMs: revivedNumber,
        p50Ms: revivedNumber,
        p90Ms: revivedNumber,
        p95Ms: revivedNumber,
        p99Ms: revivedNumber,
        stdMs: revivedNumber,
        minMs: revivedNumber,
        maxMs: revivedNumber,
        madMs: revivedNumber,
        p50CiMs: interval,
        p99CiMs: interval,
        throughputTps: revivedNumber,
        firstMs: revivedNumber,
        nRecorded: revivedNumber,
        flops: z.exactOptional(flopsBreakdownSchema),
      })
      .catchall(z.unknown().transform(toNumber)),
  )
  .transform((init) => new ProfilingResult(init));

/**
 * The optional fields of a result that `null` stands for as "absent" (JSON has no `undefined`); `profiling` and
 * `flops` also when they are not objects (ignored before schemas, and still).
 */
const RESULT_ABSENT = {
  status: isNull,
  error: isNull,
  profiling: notAnObject,
  flops: notAnObject,
  meta: isNull,
  cells: isNull,
  durationMs: isNull,
};

/** The optional fields of a cell that `null` stands for as "absent", as {@link RESULT_ABSENT}. */
const CELL_ABSENT = {
  batch: isNull,
  seqLen: isNull,
  error: isNull,
  profiling: notAnObject,
  samplesMs: isNull,
  metricSamples: isNull,
  flops: notAnObject,
  validation: isNull,
};

/** The fields of a {@link CellRecord}, in the order they are checked. */
const cellShape = {
  task: taskName,
  cell: z.string(),
  phase: z.string(),
  batch: z.exactOptional(anyNumber),
  seqLen: z.exactOptional(anyNumber),
  status: z.enum(STATUSES),
  error: z.exactOptional(z.string()),
  metrics: numericMap,
  profiling: z.exactOptional(profilingResultSchema),
  samplesMs: z.exactOptional(z.array(z.unknown().transform((v) => Number(v)))),
  metricSamples: z.exactOptional(z.record(z.string(), z.array(z.unknown().transform((v) => Number(v))))),
  flops: z.exactOptional(flopsBreakdownSchema),
  validation: z.exactOptional(
    z.array(
      z.looseObject({
        name: z.string(),
        ok: z.boolean(),
        value: revivedNumber,
        limit: revivedNumber,
        message: z.string(),
      }),
    ),
  ),
};

/**
 * A {@link CellRecord} from its JSON form: NaN metrics and statistics revived, raw samples as numbers, the
 * JSONL-only `type` and `elapsedS` dropped, unknown fields kept.
 */
export const cellRecordSchema: z.ZodType<CellRecord> = z.preprocess(
  dropAbsent({ ...CELL_ABSENT, type: always, elapsedS: always }),
  z.looseObject(cellShape),
);

/** The fields of a {@link BenchmarkResult}, before its status and error are checked together. */
const resultFields = z.looseObject({
  task: taskName,
  status: z.exactOptional(z.enum(STATUSES)),
  error: z.exactOptional(z.string()),
  metrics: numericMap,
  profiling: z.exactOptional(profilingResultSchema),
  flops: z.exactOptional(flopsBreakdownSchema),
  meta: z.exactOptional(metaRecord),
  cells: z.exactOptional(z.array(cellRecordSchema)),
  durationMs: z.exactOptional(z.unknown().transform(toNumber)),
});

/**
 * A {@link BenchmarkResult} from its JSON form: NaN metrics revived, class instances rebuilt, its cells read with
 * {@link cellRecordSchema}, `durationMs` (ms) a number, unknown fields kept. A failed or skipped result must say
 * why (`error`) and a completed one must not.
 */
export const benchmarkResultSchema: z.ZodType<BenchmarkResult> = z
  .preprocess(dropAbsent(RESULT_ABSENT), resultFields)
  .transform(({ status, error, ...rest }, ctx): BenchmarkResult => {
    if (status === 'failed' || status === 'skipped') {
      if (error !== undefined) return { ...rest, status, error };
      ctx.addIssue({ code: 'custom', input: status, ...problem('status-without-error', { status }) });
      return z.NEVER;
    }
    if (error !== undefined) {
      ctx.addIssue({ code: 'custom', input: error, ...problem('completed-with-error') });
      return z.NEVER;
    }
    const completed: CompletedResult = status === undefined ? rest : { ...rest, status };
    return completed;
  });

/** A string field of a metric descriptor: a string, else "has no string". */
const descriptorText = z.custom<string>(isString, problem('no-string'));

/** A {@link MetricDescriptor} from its JSON form (a `null` `higherIsBetter` reads as absent; unknown fields kept). */
export const metricDescriptorSchema: z.ZodType<MetricDescriptor> = z.preprocess(
  dropAbsent({ higherIsBetter: isNull }),
  z.looseObject({
    key: descriptorText,
    unit: descriptorText,
    description: descriptorText,
    higherIsBetter: z.exactOptional(z.boolean()),
  }),
);

/** An environment block: an object, taken as written (older and newer versions record different fields). */
const environment = z.custom<Environment>(isPlainObject, problem('kind', { wanted: ['object'] }));

/** A JSON document with `"format": "dantinox-report"` and a `results` array (what makes it a report at all). */
const reportEnvelope = z.custom<unknown>(
  (v) => isPlainObject(v) && v['format'] === 'dantinox-report' && Array.isArray(v['results']),
  problem('not-a-report'),
);

/**
 * The full JSON form of a report ({@link SuiteReport.toJSON}) as {@link SuiteReportData}: its results read with
 * {@link benchmarkResultSchema}, its descriptors with {@link metricDescriptorSchema}; `totalTimeS` (seconds) a
 * number (missing → 0), a `runId` that is not a string ignored, `null` blocks absent.
 */
export const suiteReportDataSchema: z.ZodType<SuiteReportData> = reportEnvelope.pipe(
  z
    .preprocess(
      dropAbsent({ modelMeta: isNull, environment: isNull, descriptors: isNull }),
      z.looseObject({
        modelMeta: z.exactOptional(metaRecord),
        environment: z.exactOptional(environment),
        results: z.array(benchmarkResultSchema),
        descriptors: z.exactOptional(z.array(metricDescriptorSchema)),
        totalTimeS: z
          .unknown()
          .transform((v) => Number(v ?? 0))
          .default(0),
        runId: z.exactOptional(z.unknown()),
      }),
    )
    .transform(
      (r): SuiteReportData => ({
        results: r.results,
        modelMeta: r.modelMeta ?? {},
        totalTimeS: r.totalTimeS,
        ...(r.environment === undefined ? {} : { environment: r.environment }),
        ...(typeof r.runId === 'string' ? { runId: r.runId } : {}),
        descriptors: r.descriptors ?? [],
      }),
    ),
);

/**
 * A `run` line as read back: a {@link JsonlRunRecord} whose run id and environment may be missing (a hand-made
 * or damaged stream still loads, as before schemas).
 */
export type JsonlRunLine = Omit<JsonlRunRecord, 'runId' | 'environment'> & {
  /** Id of the run, when the line has one. */
  readonly runId?: string;
  /** Where and how it was measured, when the line says. */
  readonly environment?: Environment;
};

/** Any line of a run's JSONL stream as read back (see {@link jsonlLineSchema}). */
export type JsonlLine = JsonlRunLine | JsonlCellRecord | JsonlTaskRecord | JsonlEndRecord;

/** The `run` line: `null` blocks read as empty (no tasks, no model identity, no descriptors) or absent. */
const runLine: z.ZodType<JsonlRunLine> = z
  .preprocess(
    dropAbsent({ modelMeta: isNull, environment: isNull, descriptors: isNull, tasks: isNull, runId: isNull }),
    z.looseObject({
      type: z.literal('run'),
      runId: z.exactOptional(z.string()),
      tasks: z.exactOptional(z.array(z.string())),
      modelMeta: z.exactOptional(metaRecord),
      environment: z.exactOptional(environment),
      descriptors: z.exactOptional(z.array(metricDescriptorSchema)),
    }),
  )
  .transform(
    ({ tasks, modelMeta, descriptors, ...rest }): JsonlRunLine => ({
      ...rest,
      tasks: tasks ?? [],
      modelMeta: modelMeta ?? {},
      descriptors: descriptors ?? [],
    }),
  );

/** A `cell` line: a {@link CellRecord} with its `type` and `elapsedS` (seconds; `null` or missing → NaN). */
const cellLine: z.ZodType<JsonlCellRecord> = z.preprocess(
  dropAbsent(CELL_ABSENT),
  z.looseObject({
    ...cellShape,
    task: z.custom<string>(isString, problem('cell-without-task')),
    type: z.literal('cell'),
    elapsedS: revivedNumber,
  }),
);

/** A `task` line: its result read with {@link benchmarkResultSchema}. */
const taskLine: z.ZodType<JsonlTaskRecord> = z.looseObject({
  type: z.literal('task'),
  result: benchmarkResultSchema,
});

/** An `end` line: `totalTimeS` (seconds) a number (`null` → NaN) and whether the run was aborted. */
const endLine: z.ZodType<JsonlEndRecord> = z.looseObject({
  type: z.literal('end'),
  totalTimeS: revivedNumber,
  aborted: z.boolean(),
  loadAverageEnd: z.exactOptional(z.array(z.number())),
  cpuMhzEnd: z.exactOptional(z.array(z.number())),
  othersCpus: z.exactOptional(z.number()),
});

/** What every JSONL line is: an object (its `type` picks its schema, see {@link jsonlLineSchema}). */
export const jsonlLineHeadSchema = z.looseObject({ type: z.exactOptional(z.unknown()) });

/**
 * The schema of a JSONL line whose `type` is `type` (`run`, `cell`, `task`, `end`), or `undefined` for a line of
 * another type, which readers skip (a newer version may write more kinds of line).
 */
export function jsonlLineSchema(type: unknown): z.ZodType<JsonlLine> | undefined {
  switch (type) {
    case 'run':
      return runLine;
    case 'cell':
      return cellLine;
    case 'task':
      return taskLine;
    case 'end':
      return endLine;
    default:
      return undefined;
  }
}

/** The lists of a report file whose elements are named by position: `result 2`, `cell 3 of …`, `descriptor 1 of …`. */
const ELEMENTS: Readonly<Record<string, string>> = {
  results: 'result',
  cells: 'cell',
  descriptors: 'descriptor',
};

/**
 * Where issue path `path` points, from `root` (`the report`, `line 3`): the innermost named place (a result, a
 * cell, a descriptor, a JSONL line's result) and the field below it as a dotted key (`flops.formula`,
 * `tasks[2]`), empty when the place itself is at fault.
 */
function placeOf(path: readonly PropertyKey[], root: string): { where: string; key: string } {
  let where = root;
  let key = '';
  for (let i = 0; i < path.length; i++) {
    const segment = path[i];
    const next = path[i + 1];
    const element = typeof segment === 'string' && key === '' ? ELEMENTS[segment] : undefined;
    if (element !== undefined && typeof next === 'number') {
      where = messages.reportElement(element, next + 1, segment === 'results' ? undefined : where);
      i++;
    } else if (segment === 'result' && key === '') where = messages.reportResultOf(where);
    else if (typeof segment === 'number') key += `[${segment}]`;
    else key += key === '' ? String(segment) : `.${String(segment)}`;
  }
  return { where, key };
}

/** The kind names a failed union or custom check wanted, when they can be told. */
function wantedKinds(issue: z.core.$ZodIssue): string[] {
  if (issue.code === 'invalid_type') return [issue.expected];
  if (issue.code === 'custom') {
    const wanted = issue.params?.['wanted'];
    return Array.isArray(wanted) ? wanted.map(String) : [];
  }
  if (issue.code === 'invalid_union') return issue.errors.flatMap((branch) => branch.flatMap(wantedKinds));
  return [];
}

/**
 * The one-line problem `malformedReport` prints for a refused record, from its first zod issue: where it is (from
 * `root`, e.g. `the report` or `line 3`, through `result 2`, `cell 1 of result 2`, `descriptor 1 of the report`,
 * `the result of line 5`) and what is wrong, e.g. `result 2 has "cells" a string, not an array` or `line 3 is a
 * cell without a "task" name`. Parse with `reportInput: true` so the values found can be named.
 */
export function reportProblem(error: z.ZodError, root: string): string {
  const issue = error.issues[0];
  if (issue === undefined) return messages.reportFieldInvalid(root, '', error.message);
  const { where, key } = placeOf(issue.path, root);
  const input: unknown = issue.input;
  if (issue.code === 'custom') {
    const code: unknown = issue.params?.['problem'];
    switch (code) {
      case 'not-a-report':
        return messages.reportNotDantinox();
      case 'no-task-name':
        return messages.reportNoTaskName(where);
      case 'cell-without-task':
        return messages.reportCellWithoutTask(where);
      case 'no-string':
        return messages.reportNoString(where, key);
      case 'status-without-error':
        return messages.reportStatusWithoutError(where, String(issue.params?.['status']));
      case 'completed-with-error':
        return messages.reportCompletedWithError(where);
      case 'kind':
        return messages.reportFieldKind(where, key, input, wantedKinds(issue));
      default:
        return messages.reportFieldInvalid(where, key, issue.message);
    }
  }
  if (key === '' && issue.code === 'invalid_type') return messages.reportNotObject(where, input);
  if (key !== '' && input === undefined) return messages.reportFieldMissing(where, key);
  if (issue.code === 'invalid_type' || issue.code === 'invalid_union') {
    const wanted = wantedKinds(issue);
    if (wanted.length > 0) return messages.reportFieldKind(where, key, input, wanted);
  }
  if (issue.code === 'invalid_value') return messages.reportFieldValue(where, key, input, issue.values);
  return messages.reportFieldInvalid(where, key, issue.message);
}
