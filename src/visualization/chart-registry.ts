/**
 * Chart registries: instances (never a module-global map) that start with the built-in charts. Built-ins
 * are a literal map, so importing dantinox registers nothing by side effect.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../errors.js';
import { messages } from '../messages.js';
import { type RegisterOptions, Registry } from '../registry.js';
import { Chart, type ChartAccepts, type ChartClass, type ChartParam } from './chart.js';
import { CompareChart } from './charts/compare-chart.js';
import { DepthChart } from './charts/depth-chart.js';
import { KldParetoChart } from './charts/kld-pareto-chart.js';
import { LatencyChart } from './charts/latency-chart.js';
import { OperatorRooflineChart } from './charts/operator-roofline-chart.js';
import { ParetoChart } from './charts/pareto-chart.js';
import { ParityChart } from './charts/parity-chart.js';
import { RadarChart } from './charts/radar-chart.js';
import { RooflineChart } from './charts/roofline-chart.js';
import { ServingDistributionChart } from './charts/serving-distribution-chart.js';
import { ServingLatencyChart } from './charts/serving-latency-chart.js';
import { ServingThroughputChart } from './charts/serving-throughput-chart.js';
import { ServingTimelineChart } from './charts/serving-timeline-chart.js';
import { ThroughputBatchChart } from './charts/throughput-batch-chart.js';
import { ThroughputChart } from './charts/throughput-chart.js';
import { TimeBreakdownChart } from './charts/time-breakdown-chart.js';
import { TrainingCurveChart } from './charts/training-curve-chart.js';
import { TrendChart } from './charts/trend-chart.js';

/** The built-in charts by name, in the seed's registration order. */
export const builtinCharts = {
  /** Loss vs step or epoch, validation dashed ({@link TrainingCurveChart}). */
  training_curve: TrainingCurveChart,
  /** Tokens/s vs sequence length, one line per model ({@link ThroughputChart}). */
  throughput: ThroughputChart,
  /** Tokens/s vs batch size ({@link ThroughputBatchChart}). */
  throughput_batch: ThroughputBatchChart,
  /** Mean latency vs throughput with the p50–p99 range and the Pareto frontier ({@link LatencyChart}). */
  latency: LatencyChart,
  /** Peak tokens/s vs perplexity, one labelled point per model, with the frontier ({@link ParetoChart}). */
  pareto: ParetoChart,
  /** KL divergence from the fp32 reference vs decode tokens/s, one point per variant (`KldParetoChart`). */
  pareto_kld: KldParetoChart,
  /** Several metrics per model, each spoke min-max normalised ({@link RadarChart}). */
  radar: RadarChart,
  /** Browser ÷ Node speed of each variant run in the browser (`ParityChart`). */
  parity: ParityChart,
  /** Achieved GFLOP/s vs arithmetic intensity under the calibrated roofs ({@link RooflineChart}). */
  roofline: RooflineChart,
  /** Share of ONNX Runtime kernel time per operator category (`TimeBreakdownChart`). */
  time_breakdown: TimeBreakdownChart,
  /** Achieved GFLOP/s vs operational intensity per operator group, sized by time share ({@link OperatorRooflineChart}). */
  operator_roofline: OperatorRooflineChart,
  /** Prefill and decode tokens/s vs context depth, fitted line and roofline bound ({@link DepthChart}). */
  depth: DepthChart,
  /** Relative change per metric with its interval, coloured by verdict ({@link CompareChart}). */
  compare: CompareChart,
  /** A metric over runs, with its interval band ({@link TrendChart}). */
  trend: TrendChart,
  /** TTFT and ITL p50/p90/p99 vs offered load of a `dantinox load` sweep ({@link ServingLatencyChart}). */
  serving_latency: ServingLatencyChart,
  /** Output tokens/s, requests/s and goodput vs offered load ({@link ServingThroughputChart}). */
  serving_throughput: ServingThroughputChart,
  /** Per-request TTFT and per-token ITL box plots per sweep point ({@link ServingDistributionChart}). */
  serving_distribution: ServingDistributionChart,
  /** One bar per request: queue, TTFT and decode chunks coloured by ITL, per sweep point ({@link ServingTimelineChart}). */
  serving_timeline: ServingTimelineChart,
} as const satisfies Record<string, ChartClass>;

/** Name of a built-in chart. */
export type BuiltinChartName = keyof typeof builtinCharts;

/** Options of each built-in chart, by name. */
export interface BuiltinChartOptionsMap {
  /** {@link TrainingCurveChart} options. */
  training_curve: NonNullable<ConstructorParameters<typeof TrainingCurveChart>[0]>;
  /** {@link ThroughputChart} options. */
  throughput: NonNullable<ConstructorParameters<typeof ThroughputChart>[0]>;
  /** {@link ThroughputBatchChart} options. */
  throughput_batch: NonNullable<ConstructorParameters<typeof ThroughputBatchChart>[0]>;
  /** {@link LatencyChart} options. */
  latency: NonNullable<ConstructorParameters<typeof LatencyChart>[0]>;
  /** {@link ParetoChart} options. */
  pareto: NonNullable<ConstructorParameters<typeof ParetoChart>[0]>;
  /** Options of the `pareto_kld` chart (`KldParetoChart`). */
  pareto_kld: NonNullable<ConstructorParameters<typeof KldParetoChart>[0]>;
  /** {@link RadarChart} options. */
  radar: NonNullable<ConstructorParameters<typeof RadarChart>[0]>;
  /** Options of the `parity` chart (`ParityChart`): none. */
  parity: Record<string, never>;
  /** {@link RooflineChart} options. */
  roofline: NonNullable<ConstructorParameters<typeof RooflineChart>[0]>;
  /** Options of the `time_breakdown` chart (`TimeBreakdownChart`). */
  time_breakdown: NonNullable<ConstructorParameters<typeof TimeBreakdownChart>[0]>;
  /** {@link DepthChart} options. */
  depth: NonNullable<ConstructorParameters<typeof DepthChart>[0]>;
  /** {@link CompareChart} options. */
  compare: NonNullable<ConstructorParameters<typeof CompareChart>[0]>;
  /** {@link TrendChart} options. */
  trend: NonNullable<ConstructorParameters<typeof TrendChart>[0]>;
  /** {@link ServingLatencyChart} options. */
  serving_latency: NonNullable<ConstructorParameters<typeof ServingLatencyChart>[0]>;
  /** {@link ServingThroughputChart} options. */
  serving_throughput: NonNullable<ConstructorParameters<typeof ServingThroughputChart>[0]>;
  /** {@link ServingDistributionChart} options. */
  serving_distribution: NonNullable<ConstructorParameters<typeof ServingDistributionChart>[0]>;
  /** {@link ServingTimelineChart} options. */
  serving_timeline: NonNullable<ConstructorParameters<typeof ServingTimelineChart>[0]>;
}

/** Metadata of a registered chart, as listed by {@link ChartRegistry.list}. */
export interface ChartInfo {
  /** Registry name. */
  readonly name: string;
  /** What the chart shows. */
  readonly description: string;
  /** What data it needs. */
  readonly accepts: ChartAccepts;
  /** Its options. */
  readonly params: readonly ChartParam[];
}

/** Options of {@link ChartRegistry.register}. */
export type RegisterChartOptions = RegisterOptions;

/** A chart class of any options type, as stored in a registry. */
export type AnyChartClass = ChartClass;

/**
 * A set of chart classes by name. Create one with {@link createChartRegistry}; registries are independent, so
 * tests and applications can register charts without affecting each other.
 */
export class ChartRegistry extends Registry<AnyChartClass> {
  constructor() {
    super('chart');
  }

  /**
   * Registers `chart` under its static `name`.
   *
   * @throws {@link dantinox!DantinoxError} `DUPLICATE_PLUGIN` when the name is taken and `override` is not set;
   * `INVALID_OPTION` when `chart` is not a {@link Chart} subclass with a non-empty static `name`.
   */
  register(chart: AnyChartClass, options: RegisterChartOptions = {}): void {
    if (typeof chart !== 'function' || !(chart.prototype instanceof Chart)) {
      throw new DantinoxError(
        'INVALID_OPTION',
        messages.notAChart(String((chart as { name?: unknown })?.name ?? chart)),
      );
    }
    const name = chart.name;
    // A static class field defines an enumerable own `name`; the built-in Function.name is not enumerable, so a
    // subclass that forgot `static name = '…'` is refused instead of registering under its JS class name.
    const own = Object.getOwnPropertyDescriptor(chart, 'name');
    if (typeof name !== 'string' || name.trim() === '' || own?.enumerable !== true) {
      throw new DantinoxError('INVALID_OPTION', messages.notAChart(`class ${String(name)}`));
    }
    this.add(name, chart, options);
  }

  /** Metadata of every registered chart, in registration order. */
  list(): ChartInfo[] {
    return this.values().map((c) => ({
      name: c.name,
      description: c.description,
      accepts: c.accepts,
      params: c.params,
    }));
  }
}

/** Options of {@link createChartRegistry}. */
export interface CreateChartRegistryOptions {
  /** Start with the built-in charts of `builtinCharts`. @default true */
  readonly builtins?: boolean;
}

/** A new, independent registry holding the built-in charts (unless `builtins: false`). */
export function createChartRegistry(options: CreateChartRegistryOptions = {}): ChartRegistry {
  const registry = new ChartRegistry();
  if (options.builtins !== false) for (const chart of Object.values(builtinCharts)) registry.register(chart);
  return registry;
}
