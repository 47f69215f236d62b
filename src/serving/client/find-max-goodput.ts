/**
 * `findMaxGoodput`: the highest concurrency (or rate) at which a server still meets its SLOs for a target share
 * of requests — where goodput peaks, since beyond it requests miss their objectives faster than throughput
 * grows. Probes double from a start value until one fails, then bisect between the last passing and the first
 * failing value; every probe reports its SLO attainment with a 95% Wilson interval. A probe stops early, and
 * fails, once its outcome is decided: when the upper end of the Wilson interval of the requests finished so far
 * (at least `minRequests`) falls below the target, whatever the rest would do — in a closed loop, where queueing
 * cannot grow past the concurrency, this is what over-saturation looks like; and open-loop probes also stop once
 * requests go out later than planned by more than `maxLagMs` (the queue grows without bound).
 *
 * @packageDocumentation
 */
import type { LoadPointResult, StopRule } from './load-generator.js';
import {
  meetsSlo,
  type ServingMetrics,
  type Slo,
  servingMetrics,
  wilsonInterval,
} from './serving-metrics.js';

/** One probe of the search. */
export interface GoodputProbe {
  /** The concurrency or rate probed. */
  readonly value: number;
  /** What the point measured. */
  readonly result: LoadPointResult;
  /** Its metrics. */
  readonly metrics: ServingMetrics;
  /** Share of measured requests meeting every SLO. */
  readonly attainment: number;
  /** 95% Wilson interval of the attainment. */
  readonly interval: readonly [number, number];
  /** Requests meeting every SLO per second. */
  readonly goodputRps: number;
  /** Whether the attainment reached the target (and the probe was not stopped early). */
  readonly passed: boolean;
}

/** Options of {@link findMaxGoodput}. */
export interface GoodputSearchOptions {
  /** What is searched: integers for `concurrency`, reals for `rate`. */
  readonly axis: 'concurrency' | 'rate';
  /**
   * Runs one probe at `value`, handing `stopWhen` (a fresh rule per probe) to the load
   * (`LoadPointOptions.stopWhen`) so that a probe whose failure is already certain stops sending.
   */
  readonly probe: (value: number, stopWhen: StopRule) => Promise<LoadPointResult>;
  /** The objectives. */
  readonly slo: Slo;
  /** Share of requests that must meet the SLOs, in (0, 1]. @default 0.9 */
  readonly target?: number;
  /** First value probed. @default 1 */
  readonly start?: number;
  /** Largest value probed. @default 1024 */
  readonly max?: number;
  /** Bisection stops when the bracket is this narrow relative to its lower end (rate axis). @default 0.1 */
  readonly tolerance?: number;
  /** Most probes. @default 24 */
  readonly maxProbes?: number;
  /** Measured requests a probe finishes before it may stop as decided. @default 8 */
  readonly minRequests?: number;
}

/** What {@link findMaxGoodput} found. */
export interface GoodputSearchResult {
  /** The passing probe with the highest goodput, or `undefined` when none passed. */
  readonly best: GoodputProbe | undefined;
  /** Every probe, in probe order. */
  readonly probes: readonly GoodputProbe[];
  /** Requests sent over all probes. */
  readonly requests: number;
}

/** Runs the search (see the module's description). */
export async function findMaxGoodput(options: GoodputSearchOptions): Promise<GoodputSearchResult> {
  const target = options.target ?? 0.9;
  const max = options.max ?? 1024;
  const maxProbes = options.maxProbes ?? 24;
  const minRequests = options.minRequests ?? 8;
  const probes: GoodputProbe[] = [];
  const seen = new Map<number, GoodputProbe>();
  // Counts the probe's measured requests as they finish: failure is certain once even the Wilson upper bound of the
  // attainment is below the target.
  const failureCertain = (): StopRule => {
    let measured = 0;
    let good = 0;
    return (record) => {
      if (!record.measured) return false;
      measured++;
      if (record.status === 'ok' && meetsSlo(record, options.slo)) good++;
      return measured >= minRequests && wilsonInterval(good, measured)[1] < target;
    };
  };
  const probe = async (value: number): Promise<GoodputProbe> => {
    const known = seen.get(value);
    if (known !== undefined) return known;
    const result = await options.probe(value, failureCertain());
    const metrics = servingMetrics(result.records, { slo: options.slo });
    const n = metrics.metrics['requests'] ?? 0;
    const attainment = metrics.metrics['slo_attainment'] ?? Number.NaN;
    const good = Math.round(attainment * n);
    const p: GoodputProbe = {
      value,
      result,
      metrics,
      attainment,
      interval: wilsonInterval(Number.isFinite(good) ? good : 0, n),
      goodputRps: metrics.metrics['goodput_rps'] ?? Number.NaN,
      passed: attainment >= target && result.stoppedEarly === undefined,
    };
    probes.push(p);
    seen.set(value, p);
    return p;
  };
  let lo: number | undefined;
  let hi: number | undefined;
  for (let v = options.start ?? 1; v <= max && probes.length < maxProbes; v *= 2) {
    if ((await probe(v)).passed) lo = v;
    else {
      hi = v;
      break;
    }
  }
  const narrow = (a: number, b: number): boolean =>
    options.axis === 'concurrency' ? b - a <= 1 : b - a <= (options.tolerance ?? 0.1) * a;
  while (lo !== undefined && hi !== undefined && !narrow(lo, hi) && probes.length < maxProbes) {
    const mid = options.axis === 'concurrency' ? Math.floor((lo + hi) / 2) : (lo + hi) / 2;
    if ((await probe(mid)).passed) lo = mid;
    else hi = mid;
  }
  const passing = probes.filter((p) => p.passed);
  const best = passing.reduce<GoodputProbe | undefined>(
    (b, p) => (b === undefined || p.goodputRps > b.goodputRps ? p : b),
    undefined,
  );
  return { best, probes, requests: probes.reduce((s, p) => s + p.result.records.length, 0) };
}
