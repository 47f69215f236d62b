/**
 * A few counters, gauges and histograms written in the Prometheus text exposition format (version 0.0.4): one
 * `# HELP` and one `# TYPE` line per metric, then one sample line per label set; histograms as cumulative
 * `_bucket{le="…"}` lines ending with `le="+Inf"`, plus `_sum` and `_count`.
 *
 * @packageDocumentation
 */

/** Label values of one sample, by label name. */
export type Labels = Readonly<Record<string, string>>;

/** The content type of the text exposition format. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** `{a="x",b="y"}` with `\`, `"` and newlines escaped; empty for no labels. */
function labelText(labels: Labels, extra?: string): string {
  const parts = Object.entries(labels).map(
    ([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`,
  );
  if (extra !== undefined) parts.push(extra);
  return parts.length === 0 ? '' : `{${parts.join(',')}}`;
}

/** A number as Prometheus writes it (`+Inf`, `-Inf`, `NaN`). */
function valueText(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Number.POSITIVE_INFINITY) return '+Inf';
  if (v === Number.NEGATIVE_INFINITY) return '-Inf';
  return String(v);
}

/** One metric of a {@link PrometheusRegistry}: its name, help line and how it writes itself. */
export interface PrometheusMetric {
  /** Metric name. */
  readonly name: string;
  /** One line saying what it measures. */
  readonly help: string;
  /** Its `# HELP`, `# TYPE` and sample lines. */
  render(): string[];
}

/** A monotonically increasing count per label set. */
export class Counter implements PrometheusMetric {
  readonly #values = new Map<string, { labels: Labels; value: number }>();
  constructor(
    /** Metric name, e.g. `dantinox_requests_total`. */
    readonly name: string,
    /** One line saying what it counts. */
    readonly help: string,
  ) {}

  /** Adds `amount` (≥ 0) to the sample of `labels`. */
  inc(labels: Labels = {}, amount = 1): void {
    const key = labelText(labels);
    const entry = this.#values.get(key) ?? { labels, value: 0 };
    entry.value += amount;
    this.#values.set(key, entry);
  }

  /** The `# HELP`, `# TYPE` and sample lines. */
  render(): string[] {
    const samples = [...this.#values.values()].map(
      (e) => `${this.name}${labelText(e.labels)} ${valueText(e.value)}`,
    );
    return [
      `# HELP ${this.name} ${this.help}`,
      `# TYPE ${this.name} counter`,
      ...(samples.length > 0 ? samples : [`${this.name} 0`]),
    ];
  }
}

/** A value read when the metrics are written (queue depth, running requests). */
export class Gauge implements PrometheusMetric {
  constructor(
    /** Metric name. */
    readonly name: string,
    /** One line saying what it measures. */
    readonly help: string,
    /** Reads the current value. */
    readonly read: () => number,
  ) {}

  /** The `# HELP`, `# TYPE` and sample lines. */
  render(): string[] {
    return [
      `# HELP ${this.name} ${this.help}`,
      `# TYPE ${this.name} gauge`,
      `${this.name} ${valueText(this.read())}`,
    ];
  }
}

/** Observations counted into fixed buckets (upper bounds, inclusive), with their sum and count. */
export class Histogram implements PrometheusMetric {
  readonly #counts: number[];
  #sum = 0;
  #count = 0;
  constructor(
    /** Metric name, e.g. `dantinox_time_to_first_token_seconds`. */
    readonly name: string,
    /** One line saying what it measures, with the unit. */
    readonly help: string,
    /** Upper bounds of the buckets, increasing (`+Inf` is added). */
    readonly buckets: readonly number[],
  ) {
    this.#counts = buckets.map(() => 0);
  }

  /** Records one observation. */
  observe(value: number): void {
    this.#sum += value;
    this.#count += 1;
    this.buckets.forEach((le, i) => {
      if (value <= le) this.#counts[i] = (this.#counts[i] as number) + 1;
    });
  }

  /** The `# HELP`, `# TYPE`, cumulative bucket, `_sum` and `_count` lines. */
  render(): string[] {
    return [
      `# HELP ${this.name} ${this.help}`,
      `# TYPE ${this.name} histogram`,
      ...this.buckets.map((le, i) => `${this.name}_bucket{le="${valueText(le)}"} ${this.#counts[i]}`),
      `${this.name}_bucket{le="+Inf"} ${this.#count}`,
      `${this.name}_sum ${valueText(this.#sum)}`,
      `${this.name}_count ${this.#count}`,
    ];
  }
}

/** The metrics of one server, written in registration order by {@link PrometheusRegistry.render}. */
export class PrometheusRegistry {
  readonly #metrics: PrometheusMetric[] = [];

  /** Registers and returns a counter. */
  counter(name: string, help: string): Counter {
    return this.#add(new Counter(name, help));
  }

  /** Registers and returns a gauge read by `read`. */
  gauge(name: string, help: string, read: () => number): Gauge {
    return this.#add(new Gauge(name, help, read));
  }

  /** Registers and returns a histogram with `buckets`. */
  histogram(name: string, help: string, buckets: readonly number[]): Histogram {
    return this.#add(new Histogram(name, help, buckets));
  }

  /** Every metric in the text exposition format, ending with a newline. */
  render(): string {
    return `${this.#metrics.flatMap((m) => m.render()).join('\n')}\n`;
  }

  #add<M extends PrometheusMetric>(metric: M): M {
    this.#metrics.push(metric);
    return metric;
  }
}
