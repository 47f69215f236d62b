import { compile } from 'vega-lite';
import { beforeAll, describe, expect, it } from 'vitest';
import { DantinoxError } from '../../src/errors.js';
import { messages } from '../../src/messages.js';
import type { Chart, ChartSpec } from '../../src/visualization/chart.js';
import { isVegaLiteSpec } from '../../src/visualization/chart.js';
import { type ChartRow, readChartData } from '../../src/visualization/chart-data.js';
import { KldParetoChart } from '../../src/visualization/charts/kld-pareto-chart.js';
import { LatencyChart } from '../../src/visualization/charts/latency-chart.js';
import { ParetoChart } from '../../src/visualization/charts/pareto-chart.js';
import { RadarChart } from '../../src/visualization/charts/radar-chart.js';
import { RooflineChart } from '../../src/visualization/charts/roofline-chart.js';
import { ThroughputBatchChart } from '../../src/visualization/charts/throughput-batch-chart.js';
import { ThroughputChart } from '../../src/visualization/charts/throughput-chart.js';
import { TimeBreakdownChart } from '../../src/visualization/charts/time-breakdown-chart.js';
import { TrainingCurveChart } from '../../src/visualization/charts/training-curve-chart.js';
import { renderSvg } from '../../src/visualization/render.js';
import { expectGoldenJson, fixture } from './golden.js';

const data: Record<string, readonly ChartRow[]> = {};
beforeAll(async () => {
  for (const f of [
    'bench-single',
    'bench-multi',
    'bench-runs',
    'bench-roofline',
    'bench-profile',
    'bench-engines',
    'training-log-epochs',
    'training-log-runs',
  ]) {
    data[f] = await readChartData(fixture(`${f}.csv`));
  }
});

/** Every (chart, fixture) case with a golden spec and the title its SVG must show. */
const cases: {
  golden: string;
  chart: () => Chart<object>;
  fixture: string;
  title: string;
  texts: string[];
}[] = [
  {
    golden: 'training-curve-epochs',
    chart: () => new TrainingCurveChart(),
    fixture: 'training-log-epochs',
    title: 'Training and validation loss vs epoch',
    texts: ['Epoch', 'Loss', 'Training', 'Validation'],
  },
  {
    golden: 'training-curve-runs',
    chart: () => new TrainingCurveChart(),
    fixture: 'training-log-runs',
    title: 'Training and validation loss vs step',
    texts: ['Step', 'baseline', 'swiglu'],
  },
  {
    golden: 'throughput-multi',
    chart: () => new ThroughputChart(),
    fixture: 'bench-multi',
    title: 'Throughput vs sequence length',
    texts: ['Sequence length (tokens)', 'Throughput (tokens/s)', 'tiny-gqa', '512'],
  },
  {
    golden: 'throughput-runs',
    chart: () => new ThroughputChart(),
    fixture: 'bench-runs',
    title: 'Throughput vs sequence length',
    texts: ['small (2025-01-10)', 'small (2025-02-03)'],
  },
  {
    golden: 'throughput-batch-multi',
    chart: () => new ThroughputBatchChart(),
    fixture: 'bench-multi',
    title: 'Throughput vs batch size',
    texts: ['Batch size (sequences, log₂ scale)', '>2<', '>8<', '>32<', '>128<'],
  },
  {
    golden: 'latency-multi',
    chart: () => new LatencyChart(),
    fixture: 'bench-multi',
    title: 'Prefill latency vs prefill throughput',
    texts: ['Prefill latency per forward pass (ms): mean, p50–p99', 'Prefill throughput (tokens/s)'],
  },
  {
    golden: 'latency-decode-multi',
    chart: () => new LatencyChart({ phase: 'decode' }),
    fixture: 'bench-multi',
    title: 'Decode step latency vs decode throughput',
    texts: ['Decode throughput (tokens/s)'],
  },
  {
    golden: 'pareto-multi',
    chart: () => new ParetoChart(),
    fixture: 'bench-multi',
    title: 'Perplexity vs peak throughput',
    texts: ['Pareto-optimal', 'Dominated', 'tiny-moe', 'Perplexity, lower is better'],
  },
  {
    golden: 'pareto-size-runs',
    chart: () => new ParetoChart({ size: 'params' }),
    fixture: 'bench-runs',
    title: 'Perplexity vs peak throughput',
    texts: ['Parameters', 'small (2025-01-10)'],
  },
  {
    golden: 'pareto-kld-engines',
    chart: () => new KldParetoChart(),
    fixture: 'bench-engines',
    title: 'KLD, mean vs decode throughput',
    texts: ['tiny-llama.cpp-q4-t2', 'tiny-ort-q8-t2', 'KLD, mean (nats), lower is better'],
  },
  {
    golden: 'radar-multi',
    chart: () => new RadarChart(),
    fixture: 'bench-multi',
    title: 'Multi-metric comparison',
    texts: ['Peak tok/s', 'Perplexity ↓', 'TTFT ms ↓', 'gpt2-small'],
  },
  {
    golden: 'roofline-variants',
    chart: () => new RooflineChart(),
    fixture: 'bench-roofline',
    title: 'Roofline',
    texts: ['Arithmetic intensity (FLOPs / byte moved)', 'Achieved GFLOP/s', 'small-q8', 'seq 512', 'decode'],
  },
  {
    golden: 'time-breakdown-variants',
    chart: () => new TimeBreakdownChart(),
    fixture: 'bench-profile',
    title: 'Where the time goes',
    texts: ['Share of kernel time', 'small · prefill', 'small-q8 · decode', 'matmul', 'softmax', '100%'],
  },
];

const escapeXml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

describe('built-in charts: golden specs and SVG', () => {
  for (const c of cases) {
    it(`${c.golden}: spec matches the golden file, compiles without warnings, SVG shows the titles`, async () => {
      const spec = c.chart().spec(data[c.fixture]!);
      expectGoldenJson(`${c.golden}.${isVegaLiteSpec(spec) ? 'vl' : 'vg'}.json`, spec);
      if (isVegaLiteSpec(spec)) {
        const warnings: string[] = [];
        const logger = {
          level: () => logger,
          error: (m: string) => warnings.push(`error: ${m}`),
          warn: (m: string) => warnings.push(m),
          info: () => logger,
          debug: () => logger,
        };
        compile(spec, { logger: logger as never });
        expect(warnings).toEqual([]);
      }
      const warnings: string[] = [];
      const svg = await renderSvg(spec, { onWarning: (w) => warnings.push(w) });
      expect(warnings).toEqual([]);
      expect(svg.startsWith('<svg')).toBe(true);
      expect(svg.length).toBeGreaterThan(5_000);
      for (const text of [c.title, ...c.texts]) {
        expect(svg, text).toContain(text.startsWith('>') ? text : escapeXml(text));
      }
      // Marks were drawn: paths for lines/points/rules.
      expect((svg.match(/<path/g) ?? []).length).toBeGreaterThan(5);
    });
  }
});

describe('chart input checks', () => {
  it('names the chart and the missing columns', () => {
    const rows = [{ model: 'a', peak_tps: 10 }];
    const err = (() => {
      try {
        new TrainingCurveChart().spec(rows);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(DantinoxError);
    expect((err as DantinoxError).code).toBe('INVALID_INPUT');
    expect((err as DantinoxError).message).toBe(
      messages.chartMissingColumns('training_curve', ['loss | train_loss'], [], ['model', 'peak_tps'], 1),
    );
    expect(() => new ThroughputChart().spec(rows)).toThrow(
      /Chart "throughput" cannot be drawn.*missing column tps_seq\{L\}/,
    );
    expect(() => new ParetoChart({ y: 'accuracy' }).spec(rows)).toThrow(/missing column accuracy \(y\)/);
  });

  it('reports columns that exist but hold no value', () => {
    expect(() =>
      new ThroughputChart().spec([
        { model: 'a', tps_seq64: null },
        { model: 'b', tps_seq64: '' },
      ]),
    ).toThrow(/no values in tps_seq\{L\}/);
  });

  it('reads the seed trainer’s train_loss and uses the row number when there is no step/epoch', () => {
    const spec = new TrainingCurveChart().spec([
      { train_loss: 3 },
      { train_loss: 2 },
      { train_loss: 1.5 },
    ]) as {
      data: { values: { x: number; loss: number }[] };
    };
    expect(spec.data.values.map((v) => [v.x, v.loss])).toEqual([
      [1, 3],
      [2, 2],
      [3, 1.5],
    ]);
  });

  it('latency chart never mixes rows of different tasks', () => {
    // bench-single and a copy under another name: two models, each with one latency row among its task rows.
    const rows = [...data['bench-single']!, ...data['bench-single']!.map((r) => ({ ...r, model: 'twin' }))];
    const spec = new LatencyChart().spec(rows) as {
      layer: { data?: { values: unknown[] } }[];
    };
    const pointLayer = spec.layer.find((l) =>
      l.data?.values.some((v) => (v as { series?: string }).series !== undefined),
    );
    // One point per model, from its latency row's prefill_mean_ms and throughput_tps.
    const point = { x: 7.619, y: 16800, lo: 7.39, hi: 9.524, p50: 7.39, p99: 9.524 };
    expect(pointLayer?.data?.values).toEqual([
      { series: 'tiny', ...point },
      { series: 'twin', ...point },
    ]);
  });

  it('pareto and radar say why they are trivial with one model instead of drawing one dot', () => {
    const radar = new RadarChart({ metrics: ['peak_tps', 'prefill_mean_ms', 'perplexity'] });
    expect(() => radar.spec(data['bench-single']!)).toThrow(
      new DantinoxError(
        'INVALID_INPUT',
        messages.chartSingleSeries('radar', 'tiny', 'a radar of normalised metrics'),
      ),
    );
    expect(() => new ParetoChart().spec(data['bench-single']!)).toThrow(
      new DantinoxError('INVALID_INPUT', messages.chartSingleSeries('pareto', 'tiny', 'a Pareto front')),
    );
  });

  it('pareto chart reports a column whose values conflict between task rows', () => {
    expect(() => new ParetoChart({ x: 'throughput_tps' }).spec(data['bench-single']!)).toThrow(
      /different values in different rows/,
    );
  });

  it('rejects bad options with INVALID_OPTION', () => {
    expect(() => new ParetoChart({ xDirection: 'up' as never })).toThrow(/option `xDirection`/);
    expect(() => new LatencyChart({ phase: 'warmup' as never })).toThrow(/option `phase`/);
    expect(() => new RadarChart({ metrics: ['a', 'b'] })).toThrow(/at least 3/);
    expect(() => new ThroughputChart().spec(data['bench-multi']!, { width: -1 })).toThrow(/`width`/);
    expect(() => new ThroughputChart().spec(data['bench-multi']!, { theme: 'neon' as never })).toThrow(
      /Unknown theme "neon"/,
    );
  });

  it('honours the render config (size, theme, title)', () => {
    const spec = new ThroughputChart().spec(data['bench-multi']!, {
      width: 300,
      height: 200,
      theme: 'dark',
      title: 'Custom',
    }) as ChartSpec & {
      width: number;
      height: number;
      title: { text: string };
      config: { background: string };
    };
    expect([spec.width, spec.height, spec.title.text, spec.config.background]).toEqual([
      300,
      200,
      'Custom',
      '#1A1A2E',
    ]);
  });
});

describe('time_breakdown chart', () => {
  it('one bar per row and phase, segments are shares of the kernel time in category order', () => {
    const spec = new TimeBreakdownChart().spec(data['bench-profile']!) as {
      data: { values: { bar: string; category: string; ms: number; share: number }[] };
    };
    const bars = [...new Set(spec.data.values.map((v) => v.bar))];
    expect(bars).toEqual(['small · prefill', 'small · decode', 'small-q8 · prefill', 'small-q8 · decode']);
    for (const bar of bars) {
      const segs = spec.data.values.filter((v) => v.bar === bar);
      expect(segs.map((s) => s.category)).toEqual(['matmul', 'attention', 'norm', 'softmax', 'other']);
      expect(segs.reduce((a, s) => a + s.share, 0)).toBeCloseTo(1, 9);
    }
    const matmul = spec.data.values.find((v) => v.bar === 'small · prefill' && v.category === 'matmul');
    expect(matmul).toMatchObject({ ms: 61.2, share: 61.2 / 81 });
  });

  it('says why when no row was profiled', () => {
    expect(() => new TimeBreakdownChart().spec(data['bench-profile']!.slice(3))).toThrow(
      /Chart "time_breakdown" cannot be drawn/,
    );
  });
});
