/**
 * The metric schema: descriptors (unit, definition, direction) of every column a report can hold, and the lookup
 * that maps a concrete key such as `tps_seq512` to its pattern `tps_seq{L}`.
 *
 * @packageDocumentation
 */
import { EFFICIENCY_COLUMNS } from './efficiency-columns.js';
import type { MetricDescriptor } from './task.js';

/** Descriptors of the columns every row may carry besides its task metrics (the seed's profiling/FLOPs columns). */
export const STANDARD_COLUMNS: readonly MetricDescriptor[] = [
  {
    key: 'latency_mean_ms',
    unit: 'ms',
    description: 'Mean wall time of one timed call of the cell named in `profiling_cell`.',
    higherIsBetter: false,
  },
  {
    key: 'latency_p99_ms',
    unit: 'ms',
    description:
      '99th percentile (linear interpolation) of the per-call wall time of the cell named in `profiling_cell`; with n < 100 samples it lies between the two largest.',
    higherIsBetter: false,
  },
  {
    key: 'throughput_tps',
    unit: 'tok/s',
    description: 'Σ tokens / Σ seconds over the timed calls of the cell named in `profiling_cell`.',
    higherIsBetter: true,
  },
  {
    key: 'flops_total_g',
    unit: 'GFLOP',
    description:
      'Analytical FLOPs (1 multiply-add = 2 FLOPs, matrix products only) of one forward call at the shape named in `flops_shape`.',
  },
  {
    key: 'flops_attn_g',
    unit: 'GFLOP',
    description: 'Attention part of `flops_total_g` (Q/K/V/O projections, QKᵀ and AV).',
  },
  {
    key: 'flops_ffn_g',
    unit: 'GFLOP',
    description: 'Feed-forward part of `flops_total_g` (MLP or MoE, router).',
  },
  ...EFFICIENCY_COLUMNS,
];

const patternCache = new Map<string, RegExp>();

function toRegExp(pattern: string): RegExp {
  let re = patternCache.get(pattern);
  if (re === undefined) {
    const escaped = pattern.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
    re = new RegExp(`^${escaped.replace(/\{[A-Za-z]+\}/g, '\\d+')}$`);
    patternCache.set(pattern, re);
  }
  return re;
}

/** Whether the concrete metric `key` matches `pattern` (`{X}` placeholders stand for digits). */
export function matchesMetricKey(pattern: string, key: string): boolean {
  return pattern === key || toRegExp(pattern).test(key);
}

/**
 * The descriptor of `key` among `descriptors` (exact keys first, then patterns), then among
 * {@link STANDARD_COLUMNS}; `undefined` when nobody declared it.
 */
export function describeMetric(
  key: string,
  descriptors: readonly MetricDescriptor[] = [],
): MetricDescriptor | undefined {
  const all = [...descriptors, ...STANDARD_COLUMNS];
  return all.find((d) => d.key === key) ?? all.find((d) => matchesMetricKey(d.key, key));
}
