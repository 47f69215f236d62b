/**
 * `ReportFileSink`: writes the run's report to a file when the run ends (CSV, or JSON for a `.json` path).
 *
 * @packageDocumentation
 */
import type { SuiteReport } from './report.js';
import type { ResultSink } from './result-sink.js';

/**
 * A {@link ResultSink} that saves the report with {@link SuiteReport.save} when the run ends: `.json` → the full
 * JSON form (with every cell's raw samples), anything else → the CSV table.
 *
 * @example
 * ```ts
 * await suite.run(paradigm, model, { sinks: [new ReportFileSink('out/results.csv')] });
 * ```
 */
export class ReportFileSink implements ResultSink {
  /** Path of the file. */
  readonly path: string;
  /** The sink's name in failure reports: its path. */
  readonly name: string;

  constructor(path: string) {
    this.path = path;
    this.name = path;
  }

  /** @throws {@link dantinox!DantinoxError} `IO` when the file cannot be written (the suite logs it and goes on). */
  onEnd(report: SuiteReport): void {
    report.save(this.path);
  }
}
