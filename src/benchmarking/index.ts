/**
 * `dantinox/benchmarking`: the {@link BenchmarkTask} plugin contract, {@link BenchmarkSuite} (ordered tasks,
 * failed rows instead of lost ones, a crash-safe JSONL stream, progress), {@link BenchmarkConfig}, the built-in
 * {@link ThroughputTask}, {@link LatencyTask} and {@link PerplexityTask}, and {@link SuiteReport} (seed CSV
 * layout, JSON, long format, environment block, round trips).
 *
 * @example
 * ```ts
 * import { BenchmarkSuite } from 'dantinox/benchmarking';
 * const report = await BenchmarkSuite.default({ seqLens: [128, 256] }).run(paradigm, model, { writer: process.stderr });
 * console.log(report.summary());
 * report.save('results.csv');
 * ```
 *
 * @packageDocumentation
 * @module dantinox/benchmarking
 */

export {
  type NgramBaselineOptions,
  type NgramBaselineResult,
  type NgramBaselineRow,
  type NgramBaselineText,
  ngramBaseline,
} from './baselines/ngram-baseline.js';
export {
  busyCalibration,
  type CalibrateOptions,
  type Calibration,
  type CalibrationOutcome,
  cacheDirectory,
  calibrationKey,
  calibrationPath,
  cpuGhz,
  loadOrCalibrate,
  type MachineFingerprint,
  machineFingerprint,
  parseCpuGhz,
  readCalibration,
  type TheoreticalPeak,
  theoreticalPeak,
  writeCalibration,
} from './calibration.js';
export {
  type CallPhase,
  type CellBudget,
  type CellEnvironment,
  type CellSpec,
  runCell,
} from './cell-runner.js';
export { CELL_METRICS, cellSampleStatistic } from './compare/cell-metrics.js';
export {
  BOOTSTRAP_METHOD,
  type CallEvidence,
  type ComparedRun,
  type CompareOptions,
  type ComparisonMethod,
  compareReports,
  type DecidedComparison,
  type DecidedJudgement,
  INTERVAL_METHOD,
  type InconclusiveComparison,
  type InconclusiveJudgement,
  type JudgeInput,
  type Judgement,
  type JudgeSettings,
  judgeMetric,
  METHOD_DESCRIPTIONS,
  METHOD_LABELS,
  type MetricComparison,
  type ReportComparison,
  type UnmatchedEntry,
  VERDICTS,
  type Verdict,
} from './compare/compare-reports.js';
export {
  COMPARISON_FORMATS,
  type ComparisonFormat,
  comparisonRows,
  type FormatComparisonOptions,
  formatComparisons,
} from './compare/format-comparison.js';
export { BenchmarkConfig, type BenchmarkConfigInput, MIN_TIMED_CALLS } from './config.js';
export { type CsvValue, formatCsv, parseCsv } from './csv.js';
export {
  BROWN_HELD_OUT_EVERY,
  type BrownSplit,
  brownCorpusText,
  brownDocuments,
  brownSentences,
  brownSplitName,
  inBrownSplit,
  untagBrownDocument,
  untagBrownSentence,
} from './data/brown-corpus.js';
export {
  ceilingDtype,
  EFFICIENCY_COLUMNS,
  type EfficiencyInputs,
  efficiencyIdentity,
  withEfficiency,
} from './efficiency-columns.js';
export {
  BUSY_LOAD_PER_CPU,
  busyMachine,
  type CpuMhz,
  type CpuTimes,
  collectEnvironment,
  type Environment,
  type EnvironmentOptions,
  type GitState,
  type LoadAverage,
  othersCpus,
  othersLoad,
  readCpuInfo,
  readCpuMhz,
  readCpuTimes,
} from './environment.js';
export {
  HISTORY_MIGRATIONS,
  HISTORY_SCHEMA_VERSION,
  type HistoryMigration,
} from './history/history-schema.js';
export {
  type HistoryAddResult,
  type HistoryFilter,
  type HistoryOpenOptions,
  type HistoryRun,
  type HistoryRunSource,
  ResultsHistory,
  type TrendPoint,
} from './history/results-history.js';
export {
  type JsonlCellRecord,
  type JsonlEndRecord,
  type JsonlRecord,
  type JsonlRunRecord,
  JsonlSink,
  type JsonlTaskRecord,
} from './jsonl-sink.js';
export { createWriterLogger, type Logger, type LogLevel, silentLogger, type TextWriter } from './logger.js';
export {
  expandMatrix,
  type MatrixAxisValues,
  type MatrixExclude,
  type MatrixSpec,
  type MatrixVariant,
} from './matrix/expand-matrix.js';
export { MATRIX_AXIS_NAMES, type MatrixAxisName } from './matrix/matrix-axes.js';
export { type MatrixDefinition, type MatrixManifest, readMatrixManifest } from './matrix/matrix-manifest.js';
export {
  MatrixReport,
  type MatrixReportVariant,
  type MatrixRun,
  type VariantState,
} from './matrix/matrix-report.js';
export {
  parseShard,
  type ResolveShardOptions,
  resolveShard,
  type ShardSpec,
  shardFolderName,
} from './matrix/shard.js';
export { describeMetric, matchesMetricKey, STANDARD_COLUMNS } from './metric-schema.js';
export {
  CLOCK_DROP_LIMIT,
  formatNoiseWarnings,
  type NoiseSource,
  type NoiseWarning,
  noiseWarningLines,
  noiseWarnings,
  SIBLING_GAP_LIMIT,
  SIBLING_SE_LIMIT,
  TAIL_RATIO_LIMIT,
} from './noise-warnings.js';
export {
  createProgress,
  describeCell,
  liveProgress,
  type ProgressDisplay,
  type ProgressMode,
  plainProgress,
  silentProgress,
} from './progress.js';
export { type DataFrame, SuiteReport, type SuiteReportData } from './report.js';
export { ReportFileSink } from './report-file-sink.js';
export type { Awaitable, ResultSink, RunEnd, RunStart } from './result-sink.js';
export { type ReadRun, RUN_FILES, RunDirectory } from './run-directory.js';
export { BenchmarkSuite, type BenchmarkSuiteOptions, modelIdentity, type SuiteRunOptions } from './suite.js';
export {
  formatSummary,
  GLANCE_METRICS,
  type GlanceMetric,
  glanceLine,
  SUMMARY_FORMATS,
  type SummaryFormat,
  type SummaryOptions,
  type SummaryRow,
  type SummarySource,
  summaryRows,
} from './summary-table.js';
export type {
  BenchmarkContext,
  BenchmarkResult,
  BenchmarkStatus,
  BenchmarkTask,
  CellRecord,
  CompletedResult,
  FailedResult,
  MetaValue,
  MetricDescriptor,
  SkippedResult,
  ValidationCheck,
} from './task.js';
export { SERVING_PHASE } from './task.js';
export {
  type BuiltinTaskName,
  builtinTasks,
  type CreateTaskRegistryOptions,
  createTaskRegistry,
  DEFAULT_TASKS,
  type RegisterTaskOptions,
  type TaskFactory,
  type TaskFactoryInput,
  TaskRegistry,
} from './task-registry.js';
export {
  buildChoiceItems,
  CHOICE_LENGTH_TOLERANCE,
  CHOICE_MAX_WORDS,
  CHOICE_MIN_WORDS,
  type ChoiceItem,
  type ChoiceItemOptions,
  splitSentences,
} from './tasks/choice-items.js';
export {
  CHOICE_METRICS,
  type ChoiceAnswers,
  ChoiceTask,
  type ChoiceTaskOptions,
  choiceLogLikelihoods,
  choiceMetrics,
  choiceVerdicts,
  mcnemarMetrics,
} from './tasks/choice-task.js';
export {
  type EvalTextOptions,
  type PerplexityData,
  slidingBatches,
} from './tasks/eval-windows.js';
export { intervalKeys } from './tasks/interval-columns.js';
export {
  KLD_METRICS,
  KldTask,
  type KldTaskOptions,
  kldDistribution,
} from './tasks/kld-task.js';
export { LATENCY_METRICS, LatencyTask, type LatencyTaskOptions } from './tasks/latency-task.js';
export {
  type LikelihoodTotals,
  MAX_LOG_PERPLEXITY,
  PERPLEXITY_METRICS,
  PerplexityTask,
  type PerplexityTaskOptions,
  perplexityMetrics,
  scoredBytes,
} from './tasks/perplexity-task.js';
export {
  type OpProfiler,
  PROFILE_METRICS,
  type ProfiledCallsInput,
  type ProfilerUnavailable,
  ProfileTask,
  type ProfileTaskOptions,
} from './tasks/profile-task.js';
export { THROUGHPUT_METRICS, ThroughputTask, type ThroughputTaskOptions } from './tasks/throughput-task.js';
export type { KldReference } from './tasks/with-reference.js';
export {
  formatDifferences,
  type IdentifiedReport,
  type IdentityDifference,
  type IdentityField,
  identityDifferences,
  machineLabel,
  type NearestRun,
  VARIANT_IDENTITY_KEYS,
  type VariantIdentity,
  variantIdentity,
  variantLabel,
} from './variant-identity.js';
