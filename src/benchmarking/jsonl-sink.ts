/**
 * The crash-safe result stream: one JSON object per line, appended synchronously (`appendFileSync`) the moment a
 * measurement exists, so a crash, an engine abort or Ctrl-C keeps everything already measured.
 * {@link SuiteReport.load} reads such a file back into a report.
 *
 * @packageDocumentation
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import type { Environment } from './environment.js';
import type { BenchmarkResult, CellRecord, MetaValue, MetricDescriptor } from './task.js';

/** First line of a run's stream. */
export interface JsonlRunRecord {
  readonly type: 'run';
  readonly runId: string;
  readonly tasks: readonly string[];
  readonly modelMeta: Readonly<Record<string, MetaValue>>;
  readonly environment: Environment;
  readonly descriptors: readonly MetricDescriptor[];
}
/** One finished cell, with the wall time since the run started. */
export interface JsonlCellRecord extends CellRecord {
  readonly type: 'cell';
  readonly elapsedS: number;
}
/**
 * One finished task: its row without `cells` when they are the cells streamed before it (the reader attaches
 * those), so raw samples are written once.
 */
export interface JsonlTaskRecord {
  readonly type: 'task';
  readonly result: BenchmarkResult;
}
/** Last line of a run that ended (normally or by abort). */
export interface JsonlEndRecord {
  readonly type: 'end';
  readonly totalTimeS: number;
  readonly aborted: boolean;
}
/** Any line of a run's stream. */
export type JsonlRecord = JsonlRunRecord | JsonlCellRecord | JsonlTaskRecord | JsonlEndRecord;

/** NaN and ±Infinity are not JSON: write them as null (the reader turns null metrics back into NaN). */
const replacer = (_key: string, value: unknown): unknown =>
  typeof value === 'number' && !Number.isFinite(value) ? null : value;

/** Appends {@link JsonlRecord}s to a file, one per line, synchronously. */
export class JsonlSink {
  /** Path of the file. */
  readonly path: string;

  /**
   * Creates (truncates) the file and its directory.
   *
   * @throws {@link DantinoxError} with code `IO` when it cannot be created.
   */
  constructor(path: string) {
    this.path = path;
    try {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, '');
    } catch (cause) {
      throw new DantinoxError('IO', messages.benchWriteFailed(path, 'the JSONL result stream'), { cause });
    }
  }

  /**
   * Appends one record as a line.
   *
   * @throws {@link DantinoxError} with code `IO` when the write fails.
   */
  append(record: JsonlRecord): void {
    try {
      appendFileSync(this.path, `${JSON.stringify(record, replacer)}\n`);
    } catch (cause) {
      throw new DantinoxError('IO', messages.benchWriteFailed(this.path, 'the JSONL result stream'), {
        cause,
      });
    }
  }
}
