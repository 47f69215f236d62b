/**
 * Node vs browser: for each variant run in the browser, its prefill and decode speed ÷ the same variant's on Node.
 *
 * @packageDocumentation
 */
import { DantinoxError } from '../../errors.js';
import { messages } from '../../messages.js';
import { Chart, type ChartAccepts, type ChartSpec } from '../chart.js';
import type { ChartRow } from '../chart-data.js';
import type { ResolvedRenderConfig } from '../render-config.js';
import { collapseByModel } from '../series.js';
import { vegaLiteFrame } from '../spec-frame.js';
import { withTargetParity } from '../target-parity.js';
import { themeSubtle } from '../theme.js';

/**
 * The parity ratio of every browser variant that has a Node twin (same model, dtype, head dtype, Node threads =
 * the browser's threads asked): one bar for prefill and one for decode, browser speed ÷ Node speed, with a rule at
 * 1 (parity). Drawn when the rows have a `target` column (runs of `--target node,browser`).
 */
export class ParityChart extends Chart {
  static override readonly name: string = 'parity';
  static override readonly description =
    'Browser ÷ Node speed (prefill, decode) of each variant run in the browser, against its Node twin.';
  static override readonly accepts: ChartAccepts = {
    required: [{ anyOf: ['target'], label: 'target' }],
    optional: [
      { anyOf: ['peak_tps', 'prefill_mean_ms'], label: 'peak_tps | prefill_mean_ms' },
      { anyOf: ['decode_tps'], label: 'decode_tps' },
    ],
  };

  protected build(rows: readonly ChartRow[], config: ResolvedRenderConfig): ChartSpec {
    const bars = withTargetParity(collapseByModel(rows)).flatMap((r) =>
      (
        [
          ['prefill', r.values['parity_prefill']],
          ['decode', r.values['parity_decode']],
        ] as const
      ).flatMap(([phase, ratio]) =>
        typeof ratio === 'number'
          ? [{ variant: r.series, phase, ratio, baseline: String(r.values['parity_baseline'] ?? '') }]
          : [],
      ),
    );
    if (bars.length === 0)
      throw new DantinoxError(
        'INVALID_INPUT',
        messages.chartNothingToDraw(
          ParityChart.name,
          'no browser variant has a Node twin (same model, dtype and threads) with prefill or decode speed',
        ),
      );
    const y = { field: 'ratio', type: 'quantitative' as const, title: 'Browser speed ÷ Node speed' };
    return {
      ...vegaLiteFrame(config, 'Browser vs Node', 'speed of the browser run ÷ its Node twin; 1 = parity'),
      layer: [
        {
          data: { values: bars },
          mark: { type: 'bar' as const },
          encoding: {
            x: { field: 'variant', type: 'nominal' as const, title: null },
            xOffset: { field: 'phase', type: 'nominal' as const },
            color: { field: 'phase', type: 'nominal' as const, title: 'phase' },
            y,
            tooltip: [
              { field: 'variant', type: 'nominal' as const },
              { field: 'baseline', type: 'nominal' as const, title: 'Node twin' },
              { field: 'phase', type: 'nominal' as const },
              { field: 'ratio', type: 'quantitative' as const, format: '.3f' },
            ],
          },
        },
        {
          data: { values: [{ ratio: 1 }] },
          mark: { type: 'rule' as const, color: themeSubtle(config.theme), strokeDash: [4, 3] },
          encoding: { y },
        },
      ],
    };
  }
}
