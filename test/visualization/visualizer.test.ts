import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromCSV } from 'arquero';
import { describe, expect, it } from 'vitest';
import { DantinoxError } from '../../src/errors.js';
import { messages } from '../../src/messages.js';
import { Chart, type ChartAccepts, type ChartSpec, VEGA_LITE_SCHEMA } from '../../src/visualization/chart.js';
import { type ChartRow, numericCell } from '../../src/visualization/chart-data.js';
import { builtinCharts, ChartRegistry, createChartRegistry } from '../../src/visualization/chart-registry.js';
import type { ResolvedRenderConfig } from '../../src/visualization/render-config.js';
import { defaultRunName, Visualizer } from '../../src/visualization/visualizer.js';
import { fixture } from './golden.js';

const tmp = (): string => mkdtempSync(join(tmpdir(), 'dantinox-viz-'));
const BUILTINS = [
  'training_curve',
  'throughput',
  'throughput_batch',
  'latency',
  'pareto',
  'pareto_kld',
  'radar',
  'parity',
  'roofline',
  'time_breakdown',
  'operator_roofline',
  'depth',
  'compare',
  'trend',
  'serving_latency',
  'serving_throughput',
  'serving_distribution',
  'serving_timeline',
];

/** A minimal custom chart, registered with the standard decorator syntax (lowered by tsc in vitest). */
@Visualizer.register
class PeakBarChart extends Chart {
  static override readonly name: string = 'peak_bar_test';
  static override readonly description = 'Peak tokens/s per model, as bars.';
  static override readonly accepts: ChartAccepts = {
    required: [{ anyOf: ['peak_tps'], label: 'peak_tps' }],
    optional: [],
  };
  protected build(rows: readonly ChartRow[], config: ResolvedRenderConfig): ChartSpec {
    const values = rows
      .filter((r) => numericCell(r, 'peak_tps') !== undefined)
      .map((r) => ({ model: String(r['model']), peak: numericCell(r, 'peak_tps') }));
    return {
      $schema: VEGA_LITE_SCHEMA,
      width: config.width,
      height: config.height,
      data: { values },
      mark: 'bar',
      encoding: {
        x: { field: 'model', type: 'nominal', title: 'Model' },
        y: { field: 'peak', type: 'quantitative', title: 'Peak throughput (tokens/s)' },
      },
    };
  }
}

describe('Chart static name', () => {
  it('overrides Function.name on subclasses', () => {
    expect(PeakBarChart.name).toBe('peak_bar_test');
    expect(builtinCharts.pareto.name).toBe('pareto');
    expect(new builtinCharts.radar().chartName).toBe('radar');
    expect(Object.keys(builtinCharts)).toEqual(BUILTINS);
    for (const [key, cls] of Object.entries(builtinCharts)) expect(cls.name).toBe(key);
  });
});

describe('@Visualizer.register and registries', () => {
  it('registers a decorated class in the default registry, after its static name is set', () => {
    expect(Visualizer.defaultRegistry.get('peak_bar_test')).toBe(PeakBarChart);
    expect(new Visualizer().availableCharts()).toEqual([...BUILTINS, 'peak_bar_test']);
  });

  it('rejects a duplicate name, unless overriding', () => {
    const declare = () => {
      @Visualizer.register
      class Again extends PeakBarChart {
        static override readonly name: string = 'peak_bar_test';
      }
      return Again;
    };
    expect(declare).toThrow(
      new DantinoxError('DUPLICATE_PLUGIN', messages.duplicatePlugin('chart', 'peak_bar_test')),
    );
    const replace = () => {
      @Visualizer.register({ override: true })
      class Replacement extends PeakBarChart {
        static override readonly name: string = 'peak_bar_test';
      }
      return Replacement;
    };
    const Replacement = replace();
    expect(Visualizer.defaultRegistry.get('peak_bar_test')).toBe(Replacement);
    Visualizer.defaultRegistry.register(PeakBarChart, { override: true });
  });

  it('gives independent registries that start with the built-ins', () => {
    const a = createChartRegistry();
    const b = createChartRegistry();
    expect(a.names()).toEqual(BUILTINS);
    class Mine extends PeakBarChart {
      static override readonly name: string = 'mine';
    }
    a.register(Mine);
    expect(a.has('mine')).toBe(true);
    expect(b.has('mine')).toBe(false);
    expect(Visualizer.defaultRegistry.has('mine')).toBe(false);
    expect(createChartRegistry({ builtins: false }).names()).toEqual([]);
    expect(() => a.register(builtinCharts.pareto)).toThrow(/already registered/);
    expect(
      a
        .list()
        .find((c) => c.name === 'pareto')
        ?.params.map((p) => p.name),
    ).toContain('xDirection');
  });

  it('rejects things that are not charts, and classes without their own static name', () => {
    const r = new ChartRegistry();
    expect(() => r.register(class NotAChart {} as never)).toThrow(/extending Chart/);
    class Unnamed extends PeakBarChart {}
    // Inherits 'peak_bar_test' from its parent instead of declaring its own name.
    expect(() => r.register(Unnamed)).toThrow(/non-empty static `name`/);
  });

  it('lists available charts when a name is unknown, with a suggestion', async () => {
    const v = new Visualizer({ registry: createChartRegistry() });
    expect(() => v.resolveCharts(['paretto'])).toThrow(
      new DantinoxError('UNKNOWN_PLUGIN', messages.unknownName('chart', 'paretto', BUILTINS)),
    );
    await expect(v.render([], { outDir: tmp(), charts: ['nope'] })).rejects.toThrow(
      /Available: training_curve, throughput/,
    );
  });
});

describe('Visualizer.render', () => {
  it('renders every chart that fits the data and reports the others with a reason', async () => {
    const outDir = tmp();
    const v = new Visualizer({ registry: createChartRegistry() });
    const results = await v.render(fixture('bench-multi.csv'), {
      outDir,
      formats: ['svg', 'png', 'json'],
      runName: 'multi',
    });
    expect(Object.keys(results)).toEqual(BUILTINS);
    expect(results['training_curve']).toMatchObject({
      status: 'skipped',
      reason: expect.stringContaining('loss | train_loss'),
    });
    // A run without the kld task has no quality-vs-speed trade-off of quantization to draw.
    expect(results['pareto_kld']).toMatchObject({
      status: 'skipped',
      reason: expect.stringContaining('kld_mean'),
    });
    // Results of an uncalibrated run have no ceilings to draw a roofline under.
    expect(results['roofline']).toMatchObject({
      status: 'skipped',
      reason: expect.stringContaining('ceiling_gflops_{dtype} | ceiling_bandwidth_gbs'),
    });
    // Nor a profile without --profile.
    expect(results['time_breakdown']).toMatchObject({
      status: 'skipped',
      reason: expect.stringContaining('profile_{phase}_kernels_ms'),
    });
    // Nor a per-operator table without --trace.
    expect(results['operator_roofline']).toMatchObject({
      status: 'skipped',
      reason: expect.stringContaining('intensity'),
    });
    expect(results['compare']).toMatchObject({
      status: 'skipped',
      reason: expect.stringContaining('change'),
    });
    expect(results['trend']).toMatchObject({ status: 'skipped', reason: expect.stringContaining('time') });
    // A run without --target browser has no browser variant to set against Node.
    expect(results['parity']).toMatchObject({ status: 'skipped', reason: expect.stringContaining('target') });
    // A benchmark run has no load sweep: the serving charts are left out.
    for (const name of [
      'serving_latency',
      'serving_throughput',
      'serving_distribution',
      'serving_timeline',
    ]) {
      expect(results[name], name).toMatchObject({ status: 'skipped' });
    }
    // Nor a depth sweep without --depths.
    expect(results['depth']).toMatchObject({
      status: 'skipped',
      reason: expect.stringContaining('{phase}_tps_d{D}'),
    });
    for (const name of BUILTINS.slice(1, -10).filter((n) => n !== 'pareto_kld' && n !== 'parity')) {
      const r = results[name]!;
      expect(r.status, name).toBe('rendered');
      if (r.status !== 'rendered') continue;
      expect(r.paths.svg).toBe(join(outDir, `multi-${name}.svg`));
      expect(r.paths.png).toBe(join(outDir, `multi-${name}.png`));
      expect(r.warnings).toEqual([]);
      for (const p of Object.values(r.paths)) expect(statSync(p).size).toBeGreaterThan(1000);
      expect(JSON.parse(readFileSync(r.paths.json!, 'utf8')).$schema).toMatch(/vega/);
    }
  });

  it('accepts rows and arquero tables, and chart entries with options or instances', async () => {
    const text = readFileSync(fixture('bench-multi.csv'), 'utf8');
    const v = new Visualizer({ registry: createChartRegistry(), config: { theme: 'minimal' } });
    const fromTable = await v.render(fromCSV(text), {
      outDir: tmp(),
      formats: ['svg'],
      charts: [['latency', { phase: 'decode' }], new builtinCharts.pareto({ x: 'decode_tps' })],
    });
    expect(Object.keys(fromTable)).toEqual(['latency', 'pareto']);
    expect(Object.values(fromTable).map((r) => r.status)).toEqual(['rendered', 'rendered']);
    const svg = readFileSync((fromTable['latency'] as { paths: { svg: string } }).paths.svg, 'utf8');
    expect(svg).toContain('Decode step latency vs decode throughput');
  });

  it('never overwrites existing files unless asked, and names files after the run', async () => {
    const outDir = tmp();
    const v = new Visualizer({ registry: createChartRegistry() });
    const opts = { outDir, formats: ['svg'] as const, charts: ['throughput'] };
    const first = await v.render(fixture('bench-multi.csv'), opts);
    const name = defaultRunName(
      fromCSV(readFileSync(fixture('bench-multi.csv'), 'utf8'), { autoType: false }).objects() as ChartRow[],
    );
    expect(name).toMatch(/^run-[0-9a-f]{8}$/);
    expect(first['throughput']).toMatchObject({ paths: { svg: join(outDir, `${name}-throughput.svg`) } });
    await expect(v.render(fixture('bench-multi.csv'), opts)).rejects.toMatchObject({
      code: 'IO',
      message: expect.stringContaining('overwrite: true'),
    });
    await expect(v.render(fixture('bench-multi.csv'), { ...opts, overwrite: true })).resolves.toMatchObject({
      throughput: { status: 'rendered' },
    });
    // A different run does not collide.
    await v.render(fixture('bench-single.csv'), opts);
    expect(existsSync(join(outDir, `${name}-throughput.svg`))).toBe(true);
    // The runs fixture has a `run` column with several values → hash; a single run value → that value.
    expect(defaultRunName([{ run: '2025-02-03', x: 1 }])).toBe('2025-02-03');
    await expect(v.render([], { ...opts, runName: '../escape' })).rejects.toMatchObject({
      code: 'INVALID_OPTION',
    });
    await expect(v.render([], { outDir, formats: ['gif' as never] })).rejects.toThrow(
      /Unknown chart output format "gif"/,
    );
  });

  it('marks a chart that throws as failed and goes on', async () => {
    class Broken extends PeakBarChart {
      static override readonly name: string = 'broken';
      protected override build(): ChartSpec {
        throw new Error('boom');
      }
    }
    const registry = createChartRegistry();
    registry.register(Broken);
    const results = await new Visualizer({ registry }).render(fixture('bench-single.csv'), {
      outDir: tmp(),
      formats: ['svg'],
      charts: ['broken', 'throughput'],
    });
    expect(results['broken']).toMatchObject({ status: 'failed', reason: 'boom' });
    expect(results['throughput']).toMatchObject({ status: 'rendered' });
  });

  it('renders a custom decorated chart through the default registry', async () => {
    const results = await new Visualizer().render(fixture('bench-multi.csv'), {
      outDir: tmp(),
      formats: ['svg'],
      charts: ['peak_bar_test'],
    });
    expect(results['peak_bar_test']).toMatchObject({ status: 'rendered' });
  });
});
