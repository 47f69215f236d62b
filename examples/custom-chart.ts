/**
 * Register your own chart and render it with the built-in ones. A chart is a class with a static `name`,
 * `accepts` (the columns it needs) and `description`, and a `build(rows)` that returns a Vega-Lite spec;
 * `@Visualizer.register` adds it to the default registry, so `dantinox`'s Visualizer can draw it by name.
 *
 * In your own project import from the package instead: `dantinox/visualization`.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Chart,
  type ChartAccepts,
  type ChartRow,
  type ChartSpec,
  VEGA_LITE_SCHEMA,
  Visualizer,
} from '../src/visualization/index.js';

/** Peak tokens per second per million parameters, one bar per model. */
@Visualizer.register
export class TokensPerParamChart extends Chart {
  static override readonly name = 'tokens_per_param';
  static override readonly description = 'Peak tokens/s per million parameters, one bar per model.';
  static override readonly accepts: ChartAccepts = {
    required: [
      { anyOf: ['peak_tps'], label: 'peak_tps' },
      { anyOf: ['params'], label: 'params' },
    ],
    optional: [],
  };

  protected build(rows: readonly ChartRow[]): ChartSpec {
    const values = rows
      .filter((r) => typeof r['peak_tps'] === 'number' && typeof r['params'] === 'number')
      .map((r) => ({
        model: String(r['model']),
        value: (r['peak_tps'] as number) / ((r['params'] as number) / 1e6),
      }));
    return {
      $schema: VEGA_LITE_SCHEMA,
      title: 'Peak throughput per million parameters',
      data: { values },
      mark: 'bar',
      encoding: {
        x: { field: 'model', type: 'nominal', title: 'Model' },
        y: { field: 'value', type: 'quantitative', title: 'tokens/s per M params' },
      },
    };
  }
}

/** Renders the custom chart and a built-in one from two report-like rows; prints the files written. */
export async function main(log: (line: string) => void = console.log): Promise<string[]> {
  const rows = [
    {
      task: 'throughput',
      model: 'tiny',
      params: 41_120,
      peak_tps: 131_000,
      tps_seq16: 48_700,
      tps_seq32: 90_000,
    },
    {
      task: 'throughput',
      model: 'small',
      params: 76_076_032,
      peak_tps: 2_400,
      tps_seq16: 1_900,
      tps_seq32: 2_300,
    },
  ];
  const outDir = mkdtempSync(join(tmpdir(), 'dantinox-custom-chart-')); // e.g. 'plots'
  const results = await new Visualizer().render(rows, {
    charts: ['tokens_per_param', 'throughput'],
    outDir,
    formats: ['svg'],
    runName: 'example',
  });
  const written: string[] = [];
  for (const [chart, result] of Object.entries(results)) {
    if (result.status === 'rendered') written.push(...Object.values(result.paths));
    log(`${chart}: ${result.status === 'rendered' ? Object.values(result.paths).join(', ') : result.reason}`);
  }
  return written;
}
