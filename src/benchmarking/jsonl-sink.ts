/**
 * The crash-safe result stream: one JSON object per line, appended synchronously (`appendFileSync`) the moment a
 * measurement exists, so a crash, an engine abort or Ctrl-C keeps everything already measured.
 * {@link SuiteReport.load} reads such a file back into a report.
 *
 * @packageDocumentation
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { DantinoxError } from '../errors.js';
import { makeDirectory } from '../make-directory.js';
import { messages } from '../messages.js';
import { removePartial } from '../text-file.js';
import type { SuiteReport } from './report.js';
import type { ResultSink, RunEnd, RunStart } from './result-sink.js';
import type { BenchmarkResult, CellRecord } from './task.js';

/** First line of a run's stream. */
export interface JsonlRunRecord extends RunStart {
  /** Always `run`. */
  readonly type: 'run';
}
/** One finished cell, with the wall time since the run started. */
export interface JsonlCellRecord extends CellRecord {
  /** Always `cell`. */
  readonly type: 'cell';
  /** Wall time from the start of the run to the end of this cell, in seconds. */
  readonly elapsedS: number;
}
/**
 * One finished task: its row without `cells` when they are the cells streamed before it (the reader attaches
 * those), so raw samples are written once.
 */
export interface JsonlTaskRecord {
  /** Always `task`. */
  readonly type: 'task';
  /** The task's row. */
  readonly result: BenchmarkResult;
}
/** Last line of a run that ended (normally or by abort). */
export interface JsonlEndRecord {
  /** Always `end`. */
  readonly type: 'end';
  /** Wall time of the whole run, in seconds. */
  readonly totalTimeS: number;
  /** Whether the run was stopped by its abort signal before every task finished. */
  readonly aborted: boolean;
  /** Load average (1, 5, 15 min) when the run ended (the start's is in the run line's environment). */
  readonly loadAverageEnd?: readonly number[];
  /** Clock of each logical CPU in MHz when the run ended, where readable (the start's is in the environment). */
  readonly cpuMhzEnd?: readonly number[];
  /** CPUs kept busy by other processes during the run (see the environment's `othersCpus`), where measured. */
  readonly othersCpus?: number;
}
/** Any line of a run's stream. */
export type JsonlRecord = JsonlRunRecord | JsonlCellRecord | JsonlTaskRecord | JsonlEndRecord;

/** NaN and ±Infinity are not JSON: write them as null (the reader turns null metrics back into NaN). */
const replacer = (_key: string, value: unknown): unknown =>
  typeof value === 'number' && !Number.isFinite(value) ? null : value;

/**
 * A {@link ResultSink} that appends {@link JsonlRecord}s to a file, one per line, synchronously: a `run` line at
 * the start, a `cell` line per finished cell, a `task` line per finished task, an `end` line at the end.
 */
export class JsonlSink implements ResultSink {
  /** Path of the file. */
  readonly path: string;
  /** The sink's name in failure reports: its path. */
  readonly name: string;
  /** Cells streamed for the running task, so its `task` line need not repeat them. */
  #streamed: CellRecord[] = [];
  /** A write failed: the file is removed and nothing more is written (a cut line would make it unreadable). */
  #failed = false;

  /**
   * Creates (truncates) the file and its directory, so an unwritable path fails before anything is measured.
   *
   * @throws {@link dantinox!DantinoxError} with code `IO` when it cannot be created.
   */
  constructor(path: string) {
    this.path = path;
    this.name = path;
    try {
      makeDirectory(dirname(path));
      writeFileSync(path, '');
    } catch (cause) {
      throw new DantinoxError('IO', messages.benchWriteFailed(path, 'the JSONL result stream', cause), {
        cause,
      });
    }
  }

  /** Writes the `run` line. @throws {@link dantinox!DantinoxError} `IO` when the write fails. */
  onStart(run: RunStart): void {
    this.#append({ type: 'run', ...run });
  }

  /** Writes a `cell` line. @throws {@link dantinox!DantinoxError} `IO` when the write fails. */
  onCell(cell: CellRecord, elapsedS: number): void {
    this.#streamed.push(cell);
    this.#append({ ...cell, type: 'cell', elapsedS });
  }

  /** Writes the `task` line. @throws {@link dantinox!DantinoxError} `IO` when the write fails. */
  onTask(result: BenchmarkResult): void {
    const streamed = this.#streamed;
    this.#streamed = [];
    const cells = result.cells ?? [];
    const same = cells.length === streamed.length && cells.every((c, i) => c === streamed[i]);
    const { cells: _cells, ...row } = result;
    this.#append({ type: 'task', result: same ? row : result });
  }

  /** Writes the `end` line. @throws {@link dantinox!DantinoxError} `IO` when the write fails. */
  onEnd(report: SuiteReport, end: RunEnd): void {
    const loadAverageEnd = report.environment?.loadAverage?.end;
    const cpuMhzEnd = report.environment?.cpuMhz?.end;
    const othersCpus = report.environment?.othersCpus;
    this.#append({
      type: 'end',
      totalTimeS: report.totalTimeS,
      aborted: end.aborted,
      ...(loadAverageEnd === undefined ? {} : { loadAverageEnd }),
      ...(cpuMhzEnd === undefined ? {} : { cpuMhzEnd }),
      ...(othersCpus === undefined ? {} : { othersCpus }),
    });
  }

  #append(record: JsonlRecord): void {
    if (this.#failed) return;
    try {
      appendFileSync(this.path, `${JSON.stringify(record, replacer)}\n`);
    } catch (cause) {
      this.#failed = true;
      removePartial(this.path);
      throw new DantinoxError('IO', messages.benchWriteFailed(this.path, 'the JSONL result stream', cause), {
        cause,
      });
    }
  }
}
