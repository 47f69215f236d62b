/**
 * `RunDirectory`: the names and layout of one run's files, in one place. A run directory holds
 * `results.csv` (the table), `results.json` (everything, with raw samples), `results.jsonl` (the crash-safe
 * stream), `charts/` and `report.html`; a load's also `requests.csv` and `requests.jsonl` (one request a row). Writing a run (its sinks) and reading one back (a folder or any of its
 * results files) both go through it.
 *
 * @packageDocumentation
 */
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import { JsonlSink } from './jsonl-sink.js';
import { SuiteReport } from './report.js';
import { ReportFileSink } from './report-file-sink.js';
import type { ResultSink } from './result-sink.js';

/** File names of a run directory. */
export const RUN_FILES = Object.freeze({
  /** The report table (seed CSV layout + status, error and model identity columns). */
  csv: 'results.csv',
  /** The full report: environment, descriptors, every cell with its raw samples. */
  json: 'results.json',
  /** The crash-safe stream: one line per run start, cell, task and end. */
  jsonl: 'results.jsonl',
  /** Folder of the rendered charts. */
  charts: 'charts',
  /** The self-contained HTML report. */
  report: 'report.html',
  /** A load's requests, one row each (see `dantinox/serving`'s `REQUEST_COLUMNS`). */
  requests: 'requests.csv',
  /** A load's requests, one whole record a line: what a merge of client processes recomputes a point from. */
  requestsJsonl: 'requests.jsonl',
});

/** A run read back by {@link RunDirectory.read}. */
export interface ReadRun {
  /** The run's report. */
  readonly report: SuiteReport;
  /** The results file it was read from (absolute). */
  readonly path: string;
  /** Set when `results.json` could not be read and the stream stood in: one line saying so, for stderr. */
  readonly note?: string;
}

/** Results files in the order a folder is read: JSON keeps everything, JSONL survives a crash, CSV is the table. */
const READ_ORDER = [RUN_FILES.json, RUN_FILES.jsonl, RUN_FILES.csv] as const;
/** Results files in the order they are listed. */
const LIST_ORDER = [RUN_FILES.csv, RUN_FILES.json, RUN_FILES.jsonl] as const;

/**
 * One run's directory: where each of its files goes, the sinks that write them, and reading a run back.
 *
 * @example
 * ```ts
 * const dir = new RunDirectory('results/laptop');
 * await suite.run(paradigm, model, { jsonl: false, sinks: dir.sinks() });
 * const again = RunDirectory.load('results/laptop'); // results.json, else .jsonl, else .csv
 * ```
 */
export class RunDirectory {
  /** The directory (absolute). */
  readonly path: string;

  /**
   * @param path - The directory, relative to `cwd` unless absolute.
   * @param cwd - Base of a relative `path`. @default process.cwd()
   */
  constructor(path: string, cwd: string = process.cwd()) {
    this.path = resolve(cwd, path);
  }

  /** Path of `results.csv`. */
  get csvPath(): string {
    return join(this.path, RUN_FILES.csv);
  }

  /** Path of `results.json`. */
  get jsonPath(): string {
    return join(this.path, RUN_FILES.json);
  }

  /** Path of `results.jsonl`. */
  get jsonlPath(): string {
    return join(this.path, RUN_FILES.jsonl);
  }

  /** Path of the `charts/` folder. */
  get chartsDir(): string {
    return join(this.path, RUN_FILES.charts);
  }

  /** Path of a load's `requests.csv`. */
  get requestsCsvPath(): string {
    return join(this.path, RUN_FILES.requests);
  }

  /** Path of a load's `requests.jsonl`. */
  get requestsJsonlPath(): string {
    return join(this.path, RUN_FILES.requestsJsonl);
  }

  /** Path of `report.html`. */
  get reportPath(): string {
    return join(this.path, RUN_FILES.report);
  }

  /**
   * The sinks that write the run's results: the JSONL stream (created now, so an unwritable directory fails
   * before anything is measured), then results.csv and results.json at the end. A file whose write fails is
   * removed, never left empty or cut short ({@link RunDirectory.missingResultFiles} lists it); a full disk (ENOSPC,
   * EDQUOT) is reported by the first sink it stops, the others fail silently, since their files share the disk.
   *
   * @throws {@link dantinox!DantinoxError} `IO` when results.jsonl cannot be created.
   */
  sinks(): ResultSink[] {
    const disk = { full: false };
    return [
      new JsonlSink(this.jsonlPath),
      new ReportFileSink(this.csvPath),
      new ReportFileSink(this.jsonPath),
    ].map((sink) => reportingDiskFullOnce(sink, disk));
  }

  /**
   * The results files present (`results.csv`, `results.json`, `results.jsonl`, then a load's `requests.csv` and
   * `requests.jsonl`), relative, in that order.
   */
  resultFiles(): string[] {
    return [...LIST_ORDER, RUN_FILES.requests, RUN_FILES.requestsJsonl].filter((f) =>
      existsSync(join(this.path, f)),
    );
  }

  /** The results files missing (those {@link RunDirectory.sinks} should have written, and removed when a write failed), relative. */
  missingResultFiles(): string[] {
    return LIST_ORDER.filter((f) => !existsSync(join(this.path, f)));
  }

  /**
   * The results file of `path`: the path itself when it is a file, else the first of `results.json`,
   * `results.jsonl`, `results.csv` in the directory. Returns an absolute path.
   *
   * @throws {@link dantinox!DantinoxError} `IO` when the path does not exist or the directory holds no results file.
   */
  static locate(path: string, cwd: string = process.cwd()): string {
    const full = resolve(cwd, path);
    if (!existsSync(full)) throw new DantinoxError('IO', messages.resultsFileMissing(path));
    if (!statSync(full).isDirectory()) return full;
    for (const file of READ_ORDER) if (existsSync(join(full, file))) return join(full, file);
    throw new DantinoxError('IO', messages.resultsDirEmpty(path));
  }

  /**
   * Reads a run like {@link RunDirectory.load}, but a run directory whose `results.json` cannot be read (empty, cut
   * short by a crash or a full disk, not a report) is read from its `results.jsonl` stream instead, with a
   * {@link ReadRun.note} saying so. When the stream cannot be read either, the error of `results.json` stands.
   *
   * @throws {@link dantinox!DantinoxError} as {@link RunDirectory.load}.
   */
  static read(path: string, cwd: string = process.cwd()): ReadRun {
    const file = RunDirectory.locate(path, cwd);
    try {
      return { report: SuiteReport.load(file), path: file };
    } catch (error) {
      const stream = join(dirname(file), RUN_FILES.jsonl);
      const fromFolder = statSync(resolve(cwd, path)).isDirectory() && basename(file) === RUN_FILES.json;
      if (!(error instanceof DantinoxError) || !fromFolder || !existsSync(stream)) throw error;
      let report: SuiteReport;
      try {
        report = SuiteReport.load(stream);
      } catch {
        throw error;
      }
      return { report, path: stream, note: messages.resultsJsonUnreadable(file, stream) };
    }
  }

  /** A run's name from its results file: the directory's name for a run directory's file, else the file's stem. */
  static nameOf(file: string): string {
    return (READ_ORDER as readonly string[]).includes(basename(file))
      ? basename(dirname(resolve(file)))
      : basename(file, extname(file));
  }

  /**
   * Loads a run: a run directory, or a `.csv`, `.json` or `.jsonl` results file (see {@link SuiteReport.load}).
   *
   * @throws {@link dantinox!DantinoxError} `IO` when nothing is there, the file cannot be read or is not a report.
   */
  static load(path: string, cwd: string = process.cwd()): SuiteReport {
    return SuiteReport.load(RunDirectory.locate(path, cwd));
  }
}

/** Whether `error` (or its cause) is a full disk or an exceeded quota. */
function isDiskFull(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (code === 'ENOSPC' || code === 'EDQUOT') return true;
  }
  return false;
}

/** `sink`, but a full disk already reported by another sink of the same directory (`disk`) is not reported again. */
function reportingDiskFullOnce(sink: JsonlSink | ReportFileSink, disk: { full: boolean }): ResultSink {
  const guard =
    <A extends unknown[]>(hook: (...args: A) => void) =>
    (...args: A): void => {
      try {
        hook.apply(sink, args);
      } catch (error) {
        if (!isDiskFull(error)) throw error;
        if (disk.full) return;
        disk.full = true;
        throw error;
      }
    };
  return {
    name: sink.name,
    ...(sink instanceof JsonlSink
      ? {
          onStart: guard(sink.onStart),
          onCell: guard(sink.onCell),
          onTask: guard(sink.onTask),
          onEnd: guard(sink.onEnd),
        }
      : { onEnd: guard(sink.onEnd) }),
  };
}
