/**
 * What the metrics of a measurement cell mean for a comparison: their unit and direction, and the statistic of
 * the raw per-call samples (milliseconds) each one is, so that its change can be bootstrapped. Metrics with their
 * own per-call list in `CellRecord.metricSamples` (TTFT, TPOT, E2E) are the mean of that list.
 *
 * @packageDocumentation
 */
import { type SortedStatistic, sortedMean, sortedQuantile } from '../../profiling/index.js';
import type { MetricDescriptor } from '../task.js';

/** Descriptors of the scalar metrics every completed cell carries (see `runCell`). */
export const CELL_METRICS: readonly MetricDescriptor[] = [
  { key: 'mean_ms', unit: 'ms', description: 'Mean wall time of one timed call.', higherIsBetter: false },
  { key: 'p50_ms', unit: 'ms', description: 'Median wall time of one timed call.', higherIsBetter: false },
  {
    key: 'p90_ms',
    unit: 'ms',
    description: '90th percentile of the per-call wall time.',
    higherIsBetter: false,
  },
  {
    key: 'p99_ms',
    unit: 'ms',
    description: '99th percentile of the per-call wall time.',
    higherIsBetter: false,
  },
  // The fastest and slowest calls are single extreme observations: too noisy to gate on, so no direction.
  { key: 'min_ms', unit: 'ms', description: 'Fastest timed call (one extreme observation).' },
  { key: 'max_ms', unit: 'ms', description: 'Slowest timed call (one extreme observation).' },
  { key: 'std_ms', unit: 'ms', description: 'Sample standard deviation of the per-call wall time.' },
  {
    key: 'first_ms',
    unit: 'ms',
    // One observation of a noisy event (allocation, first-touch page faults): no direction, so no verdict.
    description: 'Wall time of the first (cold) call, a single observation.',
  },
  {
    key: 'tps',
    unit: 'tok/s',
    description: 'Σ tokens / Σ seconds over the timed calls.',
    higherIsBetter: true,
  },
  {
    key: 'gflops_per_s',
    unit: 'GFLOP/s',
    description: 'Analytical FLOPs of one call / mean call time.',
    higherIsBetter: true,
  },
  { key: 'n', unit: 'calls', description: 'Number of timed calls.' },
  // The generation cell of the latency task: means of per-generation values kept in `metricSamples`.
  {
    key: 'ttft_ms',
    unit: 'ms',
    description: 'Time to first token, mean over the timed generations.',
    higherIsBetter: false,
  },
  {
    key: 'tpot_ms',
    unit: 'ms',
    description: 'Time per output token after the first, mean over the timed generations.',
    higherIsBetter: false,
  },
  {
    key: 'e2e_ms',
    unit: 'ms',
    description: 'End-to-end generation latency, mean over the timed generations.',
    higherIsBetter: false,
  },
];

const inverseMean: SortedStatistic = (s) => 1 / sortedMean(s);

/**
 * The statistic of a cell's per-call samples that a cell metric equals up to a constant factor (`tps` and
 * `gflops_per_s` are a constant over the mean time), or `undefined` when the metric is not a function of the
 * timed samples alone (`first_ms`, `std_ms`, `n`).
 */
export function cellSampleStatistic(metric: string): SortedStatistic | undefined {
  switch (metric) {
    case 'mean_ms':
      return sortedMean;
    case 'p50_ms':
      return sortedQuantile(0.5);
    case 'p90_ms':
      return sortedQuantile(0.9);
    case 'p99_ms':
      return sortedQuantile(0.99);
    case 'min_ms':
      return sortedQuantile(0);
    case 'max_ms':
      return sortedQuantile(1);
    case 'tps':
    case 'gflops_per_s':
      return inverseMean;
    default:
      return undefined;
  }
}
