/**
 * Reading saved results back for `plot` and `report`: a results file (`.csv`, `.json`, `.jsonl`) or a run
 * directory written by `dantinox bench`.
 *
 * @packageDocumentation
 */
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, extname, isAbsolute, join, resolve } from 'node:path';
import { SuiteReport } from '../benchmarking/index.js';
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import { type ChartRow, readChartData } from '../visualization/index.js';

/** One run read from disk. */
export interface LoadedRun {
  /** Run name: the report's run id, else the directory or file name. */
  readonly name: string;
  /** Flat rows (one per task for a dantinox report). */
  readonly rows: readonly ChartRow[];
  /** The environment block, when the file has one (JSON and JSONL reports). */
  readonly environment?: Readonly<Record<string, unknown>>;
  /** The file the run was read from. */
  readonly path: string;
}

/** Files of a run directory, in order of preference (JSON keeps everything; JSONL survives a crash). */
const RUN_FILES = ['results.json', 'results.jsonl', 'results.csv'] as const;

/**
 * Finds the results file for `path`: the path itself when it is a file, else the first of `results.json`,
 * `results.jsonl`, `results.csv` in the directory.
 *
 * @throws {@link DantinoxError} `IO` when nothing is there.
 */
export function findResultsFile(path: string, cwd: string): string {
  const full = isAbsolute(path) ? path : resolve(cwd, path);
  if (!existsSync(full)) throw new DantinoxError('IO', messages.resultsFileMissing(path));
  if (!statSync(full).isDirectory()) return full;
  for (const file of RUN_FILES) if (existsSync(join(full, file))) return join(full, file);
  throw new DantinoxError('IO', messages.resultsDirEmpty(path));
}

/**
 * Reads one run. A dantinox report (CSV, JSON or the JSONL stream) is read with `SuiteReport.load`; any other
 * CSV/JSON/JSONL table (e.g. a seed CSV) is read as plain rows.
 *
 * @throws {@link DantinoxError} `IO` for a missing or unreadable file, `INVALID_INPUT` for a malformed one.
 */
export async function loadRun(path: string, cwd: string): Promise<LoadedRun> {
  const file = findResultsFile(path, cwd);
  const fallbackName = RUN_FILES.includes(basename(file) as (typeof RUN_FILES)[number])
    ? basename(dirname(file))
    : basename(file, extname(file));
  let report: SuiteReport | undefined;
  try {
    report = SuiteReport.load(file);
  } catch (error) {
    // Not a dantinox report: still a table charts can read (unknown extensions fail there, clearly).
    if (!(error instanceof DantinoxError)) throw error;
  }
  if (report === undefined) return { name: fallbackName, rows: await readChartData(file), path: file };
  return {
    name: report.runId ?? fallbackName,
    rows: report.toRows(),
    ...(report.environment === undefined ? {} : { environment: { ...report.environment } }),
    path: file,
  };
}
