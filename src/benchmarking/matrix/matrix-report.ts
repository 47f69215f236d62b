/**
 * `MatrixReport`: the results of the variants of a matrix together — one row per (variant, task), a `variant`
 * column first — read from and written to a matrix folder (`<id>/results.*` per variant, combined
 * `results.csv` / `results.json` at the top).
 *
 * @packageDocumentation
 */
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DantinoxError } from '../../errors.js';
import { makeDirectory } from '../../make-directory.js';
import { messages } from '../../messages.js';
import { type CsvValue, formatCsv } from '../csv.js';
import { SuiteReport } from '../report.js';
import { type ReadRun, RUN_FILES, RunDirectory } from '../run-directory.js';
import type { MatrixAxisName } from './matrix-axes.js';

/** One variant's results. */
export interface MatrixReportVariant {
  /** The variant id (also its sub-folder). */
  readonly id: string;
  /** Its axis values. */
  readonly axes: Readonly<Partial<Record<MatrixAxisName, string>>>;
  /** Its suite report. */
  readonly report: SuiteReport;
}

/**
 * How far a variant's folder got: every task completed, some failed, stopped midway (only its stream, or a task
 * cut short by Ctrl-C, SIGTERM or the end of the process: its row carries `meta.interrupted`), or never started.
 */
export type VariantState = 'completed' | 'failed' | 'unfinished' | 'missing';

/** The results files of a variant folder that {@link readVariantRun} reads: the full JSON, else the stream. */
const VARIANT_FILES = [RUN_FILES.json, RUN_FILES.jsonl] as const;

/** The folder of variant `id` in matrix folder `dir`. */
export function variantDir(dir: string, id: string): string {
  return join(dir, id);
}

/** The state of variant `id` in matrix folder `dir` (see {@link VariantState}). */
export function variantState(dir: string, id: string): VariantState {
  return runState(variantDir(dir, id));
}

/** The state of the run whose results.* files are in `folder` (see {@link VariantState}). */
export function runState(folder: string): VariantState {
  if (existsSync(join(folder, RUN_FILES.json))) {
    try {
      const report = SuiteReport.load(join(folder, RUN_FILES.json));
      // A row rebuilt from part of its cells is not a result to keep: its numbers rest on part of the work.
      if (report.results.some((r) => r.meta?.['interrupted'] !== undefined)) return 'unfinished';
      return report.results.every((r) => r.status === 'completed') ? 'completed' : 'failed';
    } catch {
      return 'unfinished';
    }
  }
  return existsSync(join(folder, RUN_FILES.jsonl)) ? 'unfinished' : 'missing';
}

/**
 * Variant `id`'s run from its folder, if any: its `results.json`, else the stream of an unfinished run; a
 * `results.json` that cannot be read (empty, torn) next to the stream gives the stream's run with a note saying so
 * (see `RunDirectory.read`).
 */
export function readVariantRun(dir: string, id: string): ReadRun | undefined {
  const folder = variantDir(dir, id);
  return VARIANT_FILES.some((f) => existsSync(join(folder, f))) ? RunDirectory.read(folder) : undefined;
}

/** One variant as the HTML report takes it. */
export interface MatrixRun {
  /** The variant id. */
  readonly name: string;
  /** Its rows, each with the `variant` column first. */
  readonly rows: Record<string, CsvValue>[];
  /** Its environment block, when recorded. */
  readonly environment?: Record<string, unknown>;
}

/**
 * The combined results of a matrix's variants.
 *
 * @example
 * ```ts
 * const combined = new MatrixReport(variants.map((v) => ({ id: v.id, axes: v.axes, report: reports[v.id] })));
 * combined.save('results/study');            // results.csv + results.json, one row per (variant, task)
 * ```
 */
export class MatrixReport {
  /** The variants, in canonical order. */
  readonly variants: readonly MatrixReportVariant[];

  constructor(variants: readonly MatrixReportVariant[]) {
    this.variants = variants;
  }

  /**
   * One row per (variant, task): `variant` first, then the variant's report row (its run id is the variant id); a
   * task metric named `variant` does not replace the id.
   */
  toRows(): Record<string, CsvValue>[] {
    return this.toRuns().flatMap((run) => run.rows);
  }

  /** `variant`, then the union of the variants' report columns in first-seen order. */
  columns(): string[] {
    const seen = new Set<string>(['variant']);
    for (const v of this.variants) for (const c of v.report.columns()) seen.add(c);
    return [...seen];
  }

  /** One run per variant (its id, its rows with the `variant` column, its environment), as the HTML report takes them. */
  toRuns(): MatrixRun[] {
    return this.variants.map((v) => ({
      name: v.id,
      // `variant` first, and the variant's id even where a task reports a metric of that name.
      rows: v.report.toRows().map((row) => Object.assign({ variant: v.id }, row, { variant: v.id })),
      ...(v.report.environment === undefined ? {} : { environment: { ...v.report.environment } }),
    }));
  }

  /** The combined rows as CSV (RFC 4180). */
  toCsv(): string {
    return formatCsv(this.columns(), this.toRows());
  }

  /** Everything: each variant's id, axes and full report (environment included). */
  toJSON(): Record<string, unknown> {
    return {
      format: 'dantinox-matrix-report',
      version: 1,
      variants: this.variants.map((v) => ({ id: v.id, axes: v.axes, report: v.report.toJSON() })),
    };
  }

  /**
   * Writes `dir/results.csv` and `dir/results.json`; returns their names.
   *
   * @throws {@link dantinox!DantinoxError} `IO` when a file cannot be written.
   */
  save(dir: string): string[] {
    const files: [string, string][] = [
      [RUN_FILES.csv, this.toCsv()],
      [RUN_FILES.json, `${JSON.stringify(this.toJSON(), null, 2)}\n`],
    ];
    for (const [name, text] of files) {
      const path = join(dir, name);
      try {
        makeDirectory(dirname(path));
        writeFileSync(path, text);
      } catch (cause) {
        throw new DantinoxError('IO', messages.benchWriteFailed(path, 'the combined matrix results', cause), {
          cause,
        });
      }
    }
    return files.map(([name]) => name);
  }

  /**
   * Reads the variants listed in `variants` from matrix folder `dir` (their own folders: `results.json`, else the
   * stream of an unfinished variant); absent ones are left out. A variant read from its stream because its
   * `results.json` is empty or torn (see `RunDirectory.read`) is passed to `note` as one line saying so.
   */
  static fromDirectory(
    dir: string,
    variants: readonly { readonly id: string; readonly axes: MatrixReportVariant['axes'] }[],
    note: (line: string) => void = () => {},
  ): MatrixReport {
    return new MatrixReport(
      variants.flatMap((v) => {
        const run = readVariantRun(dir, v.id);
        if (run?.note !== undefined) note(run.note);
        return run === undefined ? [] : [{ id: v.id, axes: v.axes, report: run.report }];
      }),
    );
  }
}
