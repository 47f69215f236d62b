/**
 * The quantization trade-off: KL divergence from the full-precision model against decode speed, per variant.
 *
 * @packageDocumentation
 */
import type { ChartAccepts, ChartParam } from '../chart.js';
import { ParetoChart, type ParetoChartOptions } from './pareto-chart.js';

/**
 * A {@link ParetoChart} of `kld_mean` (nats, lower is better) against `decode_tps` (decode tokens/s, higher is
 * better) with the Pareto frontier: which dtype × engine variants lose the least quality for their speed. Drawn
 * when a run has the `kld` and `latency` tasks; its options are the Pareto chart's.
 */
export class KldParetoChart extends ParetoChart {
  static override readonly name: string = 'pareto_kld';
  static override readonly description: string =
    'KL divergence from the fp32 reference ↓ vs decode tokens/s ↑ per variant, with the Pareto frontier.';
  static override readonly accepts: ChartAccepts = {
    required: [
      { anyOf: ['decode_tps'], label: 'decode_tps (x)' },
      { anyOf: ['kld_mean'], label: 'kld_mean (y)' },
    ],
    optional: [{ anyOf: ['model', 'run', 'type'], label: 'model | run | type' }],
  };
  static override readonly params: readonly ChartParam[] = ParetoChart.params.map((p) =>
    p.name === 'x' ? { ...p, default: 'decode_tps' } : p.name === 'y' ? { ...p, default: 'kld_mean' } : p,
  );

  constructor(options?: ParetoChartOptions) {
    super({ x: 'decode_tps', y: 'kld_mean', ...options });
  }
}
