/**
 * `dantinox/profiling`: analytical FLOPs, parameter and memory counts of a {@link dantinox!ModelConfig}, and
 * wall-clock timing — an injectable nanosecond clock with calibrated overhead, a rolling-window
 * {@link LatencyTracker} with interpolated percentiles and distribution-free confidence intervals, and
 * {@link profileFn}. Pure TypeScript: this entry point never loads a runtime.
 *
 * @example
 * ```ts
 * import { countFlops, LatencyTracker } from 'dantinox/profiling';
 * console.log(String(countFlops(config, { seqLen: 512, batchSize: 4 })));
 * const tracker = new LatencyTracker();
 * await tracker.measure(512, () => model.forward(ids));
 * console.log(String(tracker.result()));
 * ```
 *
 * @packageDocumentation
 * @module dantinox/profiling
 */
export { countAttendedKeys } from './attended-keys.js';
export { buildChromeTrace, type ChromeTrace, type ChromeTraceInput, ENGINE_PID } from './chrome-trace.js';
export {
  type Clock,
  createManualClock,
  hrtimeClock,
  type ManualClock,
  type ManualClockOptions,
} from './clock.js';
export {
  bootstrapClusters,
  clusterBootstrapMethod,
  type TotalsStatistic,
} from './cluster-bootstrap.js';
export { type DepthCost, type DepthCostOptions, depthCost } from './depth-cost.js';
export {
  logGamma,
  normalQuantile,
  regularizedIncompleteBeta,
  studentTQuantile,
  studentTSf,
} from './distributions.js';
export {
  arithmeticIntensity,
  bytesPerCall,
  type Ceilings,
  fp32FlopsPerCycle,
  modelBandwidthUtilisation,
  modelFlopsUtilisation,
  rooflineGflops,
  type TheoreticalPeakInput,
  theoreticalCeilings,
  type Utilisation,
} from './efficiency.js';
export {
  type CountDecodeFlopsOptions,
  type CountFlopsOptions,
  type CountTrainingFlopsOptions,
  countDecodeFlops,
  countFlops,
  countTrainingFlops,
} from './flops.js';
export {
  FlopsBreakdown,
  type FlopsBreakdownInit,
  type FlopsFormula,
  type FlopsPass,
  type MoeCounting,
} from './flops-breakdown.js';
export { formatFlops } from './format-flops.js';
export {
  EXPLAINED_GOAL,
  formatLatencyParts,
  isRemainderOp,
  LATENCY_PART_LABELS,
  LATENCY_PARTS,
  type LatencyCallKind,
  type LatencyPart,
  type LatencyPartNeeds,
  type LatencyPartShare,
  type LatencyParts,
  type LatencyPartsInput,
  latencyPartNeeds,
  latencyParts,
  splitRemainder,
  UNEXPLAINED_OP,
} from './latency-parts.js';
export {
  type Barrier,
  type LatencyResultOptions,
  type LatencySpan,
  LatencyTracker,
  type LatencyTrackerOptions,
} from './latency-tracker.js';
export { fitLine, type LinearFit } from './linear-fit.js';
export { MCNEMAR_EXACT_BELOW, MCNEMAR_METHOD, type McNemarResult, mcnemarTest } from './mcnemar.js';
export {
  type MemoryFootprint,
  type MemoryFootprintOptions,
  memoryFootprint,
} from './memory.js';
export {
  formatTimeBreakdown,
  OP_CATEGORIES,
  OP_CATEGORY_TABLE,
  type OpCategory,
  type OrtRunProfile,
  opCategory,
  parseOrtProfile,
  type TimeBreakdown,
  timeBreakdown,
} from './op-time-breakdown.js';
export {
  engineCallPhase,
  type KernelEvent,
  kernelEventsOf,
  type NodeCost,
  type OperatorCall,
  type OperatorPhase,
  type OperatorReconciliation,
  type OperatorRow,
  type OperatorTable,
  type OperatorTableInput,
  type OperatorTableOfTraceOptions,
  operatorCategoryMs,
  operatorTable,
  operatorTableOfTrace,
  REMAINDER_OP,
  type RooflineCeilings,
  type TraceEventLike,
  timedCallsOf,
} from './operator-table.js';
export { countParameters, type ParameterCount } from './parameters.js';
export {
  measureResources,
  parseProcStatus,
  type RssSample,
  readRss,
  resetPeakRss,
} from './process-memory.js';
export { type ProfileFnOptions, profileFn } from './profile-fn.js';
export { type ProfilingFields, ProfilingResult, type ProfilingResultInit } from './profiling-result.js';
export {
  noiseFloorOf,
  type RunLevelMethod,
  type RunLevelTest,
  type RunLevelTested,
  type RunLevelTestOptions,
  type RunLevelUntestable,
  type RunSpread,
  type RunsNeededInput,
  relativeChange,
  runLevelTest,
  runSpreadOf,
  runsPerSideNeeded,
  spreadOfNoiseFloor,
} from './run-level-tests.js';
export {
  type Interval,
  minSamplesForQuantileCi,
  type OrderStatisticRanks,
  quantileCiSorted,
  quantileRanks,
  quantileSorted,
  type SampleSummary,
  summarize,
} from './statistics.js';
export { type CalibrateTimerOptions, calibrateTimer, type TimerDiagnostics } from './timer-diagnostics.js';
export {
  DANTINOX_TRACK,
  ENGINE_RUN_CAT,
  type EngineCallShape,
  type EngineCallSpan,
  type TraceEvent,
  type TracePhase,
  TraceRecorder,
} from './trace-recorder.js';
export {
  type BootstrapOptions,
  bootstrapRatio,
  bootstrapRelativeChange,
  erfc,
  MANN_WHITNEY_METHOD,
  type MannWhitneyResult,
  mannWhitneyU,
  normalSf,
  percentileInterval,
  type SortedStatistic,
  sortedMean,
  sortedQuantile,
} from './two-sample-tests.js';
