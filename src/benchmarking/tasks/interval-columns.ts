/**
 * The columns of a metric's confidence interval: `<metric>_lo` and `<metric>_hi`, one naming for every task that
 * reports intervals (kld, choice), with descriptors derived from the metric's own.
 *
 * @packageDocumentation
 */
import type { Interval } from '../../profiling/index.js';
import type { MetricDescriptor } from '../task.js';

/** The keys of the lower and upper ends of `metric`'s interval: `[<metric>_lo, <metric>_hi]`. */
export function intervalKeys(metric: string): readonly [string, string] {
  return [`${metric}_lo`, `${metric}_hi`];
}

/** `descriptor` followed by the descriptors of its interval's ends (same unit and direction). */
export function withIntervalColumns(descriptor: MetricDescriptor): MetricDescriptor[] {
  const [lo, hi] = intervalKeys(descriptor.key);
  const end = (key: string, which: string): MetricDescriptor => ({
    key,
    unit: descriptor.unit,
    description: `${which} end of the bootstrap confidence interval of ${descriptor.key} (level and resamples in meta ci_method).`,
    ...(descriptor.higherIsBetter === undefined ? {} : { higherIsBetter: descriptor.higherIsBetter }),
  });
  return [descriptor, end(lo, 'Lower'), end(hi, 'Upper')];
}

/** `{ <metric>_lo, <metric>_hi }` of an interval. */
export function intervalMetrics(metric: string, interval: Interval): Record<string, number> {
  const [lo, hi] = intervalKeys(metric);
  return { [lo]: interval[0], [hi]: interval[1] };
}
