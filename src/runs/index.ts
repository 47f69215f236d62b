/**
 * `dantinox/runs`: what a benchmark run is made of, between the command line and the library — planning a matrix
 * (axes, bench config files, excludes, shards, resume), opening a model from a selection, running the variants
 * one model at a time, writing results, charts and report.html, calibrating the machine's ceilings and recording
 * the history. Everything `dantinox bench` does, callable from TypeScript.
 *
 * @example
 * ```ts
 * import { planRun, runMatrix } from 'dantinox/runs';
 *
 * const plan = planRun({ dir: 'results/study', axes: { config: ['tiny'], dtype: ['fp32', 'q8'] } });
 * const result = await runMatrix(plan);
 * console.log(result.status, result.files);
 * ```
 *
 * @packageDocumentation
 * @module dantinox/runs
 */
export {
  type AxisFlags,
  type BenchConfigFile,
  type BenchMatrix,
  type BenchMatrixInput,
  buildBenchMatrix,
  checkVariants,
  type MatrixSection,
  parseMatrixSection,
  readBenchConfigFile,
  type SharedSelection,
  variantConfig,
  variantSelection,
} from './bench-matrix.js';
export {
  type CalibrationStepOptions,
  DEFAULT_CALIBRATION_MS,
  defaultThreads,
  runCalibration,
} from './calibration-step.js';
export { type CompareRunsOptions, compareRuns, type RunsComparison } from './compare-runs.js';
export { type ExportModelInput, exportModel, type ModelExport } from './export-model.js';
export { gitInfo } from './git-info.js';
export { type TrendRow, trendRows, type WrittenTrend, writeTrendChart } from './history-trend.js';
export { type MeasureLatencyPartsOptions, measureLatencyParts } from './latency-parts-step.js';
export {
  type ClientPoint,
  clientFolderName,
  isLoadClientFolder,
  type LoadClientManifest,
  readLoadClientManifest,
} from './load-client-manifest.js';
export { DEFAULT_PLUGIN_TIMEOUT_MS, type LoadPluginsOptions, loadPlugins } from './load-plugins.js';
export { type LoadedReport, loadReport, loadRunGroup } from './load-report.js';
export { type LoadedRun, loadRun, loadRuns } from './load-runs.js';
export { type LoadTarget, type LoadTargetInput, resolveLoadTarget } from './load-target.js';
export { type LoadWorkloadInput, loadWorkload } from './load-workload.js';
export type { ClientMergePlan, ClientSource } from './merge-clients.js';
export {
  type MergedVariant,
  type MergeHooks,
  type MergeParts,
  type MergePlan,
  type MergeRunInput,
  type MergeRunPlan,
  type MergeRunsOptions,
  type MergeRunsResult,
  type MergeSource,
  mergeRuns,
  planMergeRun,
} from './merge-runs.js';
export {
  type OpenedModel,
  openModel,
  openReference,
  opProfiler,
} from './open-model.js';
export {
  type CallCosts,
  LATENCY_PART_KEYS,
  OPERATOR_CELL_SEPARATOR,
  OPERATOR_METRICS,
  OPERATORS_TASK,
  type OperatorResult,
  type OperatorResultInput,
  operatorChartRows,
  operatorCsv,
  operatorResult,
  writeOperatorCsv,
} from './operator-result.js';
export {
  type ClaimedModelFolder,
  claimModelFolder,
  claimOutFile,
  claimRunDir,
  claimTokenizerFolder,
  LOAD_CLIENT_FILE,
  OPERATORS_FILE,
  prepareOutputDir,
  RUN_ARTIFACTS,
  roundFolderName,
  roundFolders,
  TRACE_FILE,
  TRAINED_MODEL_FOLDER,
  TRAINING_RECORD_FILE,
  timestampName,
} from './output-dir.js';
export { planRun, type RunPlanInput } from './plan-run.js';
export {
  measureProfilerOverhead,
  type ProfilerOverhead,
  type ProfilerOverheadOptions,
} from './profiler-overhead.js';
export {
  type AddedRun,
  type AddedRuns,
  addRunsToHistory,
  EARLIER_RUNS,
  type HistoryCompared,
  type HistoryNotRecorded,
  type HistoryOptions,
  type HistoryRecord,
  type HistoryRecorded,
  recordHistory,
  variantHistoryRun,
} from './record-history.js';
export {
  buildWorkload,
  type ConversationsWorkloadSpec,
  type GoodputSearchInput,
  type LoadHooks,
  type LoadRunInput,
  type LoadRunResult,
  type PromptsWorkloadSpec,
  pointCell,
  pointId,
  runLoad,
  SERVING_TASK,
  servingResult,
  servingTokenizer,
  sweepPoints,
  type TokenAccounting,
  type TokenWorkloadSpec,
  type TraceWorkloadSpec,
  type WorkloadSpec,
} from './run-load.js';
export { acquireRunLock, RUN_LOCK_FILE, type RunLock } from './run-lock.js';
export {
  type CalibrationPlan,
  isFlatLayout,
  type RoundStart,
  type RunHooks,
  type RunMatrixOptions,
  type RunPlan,
  type RunResult,
  runMatrix,
  type VariantStart,
} from './run-matrix.js';
export {
  type ChartsInput,
  type RunOutputOptions,
  type RunOutputs,
  safeRunName,
  writeChartsAndReport,
  writeMatrixCharts,
  writeRepeatCharts,
  writeRunOutputs,
} from './run-outputs.js';
export {
  DEFAULT_TRAINING_CONFIG,
  runTraining,
  type TrainingHooks,
  type TrainingRunInput,
  type TrainingRunResult,
  type TrainingStart,
} from './run-training.js';
export { runVariant, type VariantOutcome, type VariantRunOptions } from './run-variant.js';
export { eosTokenId, type ServeModelOptions, type ServingModel, serveModel } from './serve-model.js';
export {
  MAX_CHART_SAMPLES,
  servingChartRows,
  thinSamples,
} from './serving-chart-rows.js';
export {
  MAX_TIMELINE_REQUESTS,
  MAX_TIMELINE_SEGMENTS,
  requestSegments,
  servingTimelineRows,
  type TimelineSegmentRow,
  timelineStep,
} from './serving-timeline-rows.js';
export type { TrainingSourceInput } from './training-source.js';
export { type WrittenComparison, writeComparison } from './write-comparison.js';
