import { describe, expect, it } from 'vitest';
import {
  type ComparedRun,
  compareReports,
  comparisonRows,
  formatComparisons,
  METHOD_DESCRIPTIONS,
  type MetricComparison,
  type ReportComparison,
  VERDICTS,
  type Verdict,
} from '../../../src/benchmarking/index.js';
import { expectGolden } from '../../golden.js';
import { fakeRun, fakeRuns } from './fake-runs.js';

/** A 10% slowdown measured 5 times on each side (drift 3% per run). */
const comparison = () =>
  compareReports(
    fakeRuns(5, 'main', { seed: 1, drift: 0.03, generation: true }),
    fakeRuns(5, 'pr-42', { seed: 11, drift: 0.03, generation: true, slowdown: 1.1, perplexity: 12.4 }),
    { baselineLabel: 'main', candidateLabel: 'pr-42' },
  );

describe('formatComparisons', () => {
  it('writes the markdown of a 10% slowdown as in the golden file (UPDATE_GOLDEN=1 to regenerate)', () => {
    expectGolden('benchmarking/compare.md', formatComparisons([comparison()], 'markdown'));
  });

  it('says which method decided each row, and how many runs an inconclusive row needs', () => {
    const text = formatComparisons([comparison()], 'text');
    const header = text.split('\n')[2] ?? '';
    expect(header.split(/\s{2,}/)).toEqual([
      'task',
      'cell',
      'metric',
      'baseline',
      'candidate',
      'change',
      '95% CI',
      'p',
      'runs',
      'method',
      'verdict',
    ]);
    expect(text).toMatch(/ 5\+5 +welch +regressed/);
    expect(text).toContain('Runs per side: 5 baseline, 5 candidate; threshold 5%, α = 0.05');
    expect(text).toContain("welch: Welch's t-test on per-run values");
    const one = formatComparisons(
      [compareReports(fakeRun({ seed: 1 }), fakeRun({ seed: 2, slowdown: 1.1 }))],
      'text',
    );
    expect(one).toMatch(/inconclusive: \d+ runs per side needed/);
    expect(one).toMatch(
      /\d+ metrics inconclusive: one run per side cannot tell a change from run-to-run drift without a noise floor; up to \d+ runs per side needed\./,
    );
    expect(one).toContain(
      '—: not tested: no better direction (counts, spreads, single observations), or one run per side without a noise floor.',
    );
  });

  it('colours regressed rows on request only', () => {
    const c = comparison();
    const plain = formatComparisons([c], 'text');
    expect(plain).not.toContain('\x1b[');
    expect(plain).toContain('pr-42 vs main (baseline):');
    const coloured = formatComparisons([c], 'text', { color: true });
    const red = coloured.split('\n').filter((l) => l.startsWith('\x1b[31m'));
    expect(red.length).toBeGreaterThan(0);
    expect(red.every((l) => l.includes(' regressed') && l.endsWith('\x1b[0m'))).toBe(true);
  });

  it('writes JSON with null for unavailable numbers and one entry per candidate', () => {
    const c = compareReports(fakeRun({ seed: 1 }), fakeRun({ seed: 2, perplexity: 12.4 }));
    const parsed = JSON.parse(formatComparisons([c, c], 'json'));
    expect(parsed.format).toBe('dantinox-comparison');
    expect(parsed.comparisons).toHaveLength(2);
    const ppl = parsed.comparisons[0].rows.find((r: { metric: string }) => r.metric === 'perplexity');
    expect(ppl.changeCi).toEqual([null, null]);
    expect(ppl.pValue).toBeNull();
    expect(ppl).toMatchObject({ verdict: 'inconclusive', method: 'none', runs: [1, 1] });
    expect(ppl.runsNeeded).toBeGreaterThanOrEqual(2);
  });

  it('gives chart rows the method, the runs and the runs needed', () => {
    const rows = comparisonRows([comparison()]);
    const ttft = rows.find((r) => r['metric'] === 'ttft_ms' && r['cell'] === null);
    expect(ttft).toMatchObject({
      method: 'welch',
      runs_baseline: 5,
      runs_candidate: 5,
      runs_needed: null,
      noise_floor: null,
    });
  });
});

/** A row with every field set; tests override what they look at. */
const ROW: MetricComparison = {
  task: 'latency',
  cell: null,
  metric: 'ttft_ms',
  unit: 'ms',
  higherIsBetter: false,
  baseline: 12.5,
  candidate: 13.75,
  change: 0.1,
  changeCi: [0.04, 0.16],
  pValue: 0.0123,
  method: 'welch',
  runs: [3, 3],
  noiseFloor: null,
  samples: null,
  samplesFrom: null,
  verdict: 'regressed',
  runsNeeded: null,
};

const rowOf = (over: Partial<MetricComparison>): MetricComparison =>
  ({ ...ROW, ...over }) as MetricComparison;

const side = (label: string, runs: number): ComparedRun => ({
  label,
  runId: null,
  runIds: [],
  runs,
  modelMeta: {},
});

/** A comparison built by hand (plain data, as `formatComparisons` reads it), counts taken from its rows. */
function comparisonOf(
  rows: readonly MetricComparison[],
  over: Partial<ReportComparison> = {},
): ReportComparison {
  const counts = Object.fromEntries(
    VERDICTS.map((v) => [v, rows.filter((r) => r.verdict === v).length]),
  ) as Record<Verdict, number>;
  return {
    baseline: side('main (3 runs)', 3),
    candidate: side('pr (3 runs)', 3),
    threshold: 0.05,
    alpha: 0.05,
    confidence: 0.95,
    power: 0.8,
    noiseFloor: null,
    earlierRuns: 0,
    resamples: 2000,
    seed: 0,
    test: '',
    interval: '',
    methods: [...new Set(rows.map((r) => r.method))],
    variantDifferences: [],
    rows,
    unmatched: [],
    counts,
    ...over,
  };
}

/** The cells of the text table's data row `k` (columns are at least two spaces apart, cells never hold two). */
const textCells = (c: ReportComparison, k: number): string[] =>
  (formatComparisons([c], 'text').split('\n')[3 + k] ?? '').split(/\s{2,}/);

describe('formatComparisons: known answers at the edges', () => {
  it('prints a small comparison exactly: header, table, what was not compared, settings, methods', () => {
    const c = comparisonOf(
      [
        ROW,
        rowOf({
          cell: 'decode@32',
          metric: 'n',
          unit: 'calls',
          higherIsBetter: null,
          baseline: 30,
          candidate: 30,
          change: 0,
          changeCi: [Number.NaN, Number.NaN],
          pValue: Number.NaN,
          method: 'none',
          verdict: 'not judged',
        }),
      ],
      {
        unmatched: [
          {
            side: 'both',
            task: 'perplexity',
            cell: null,
            metric: null,
            reason: 'failed: no tokenizer in both runs',
          },
        ],
      },
    );
    // Widths by hand: the longest of header and cells per column (task 7, cell 9, metric 12, baseline 8,
    // candidate 9, change 6, CI 15, p 5, runs 4, method 6, verdict 10); numbers right-aligned, two spaces apart.
    expect(formatComparisons([c], 'text')).toBe(
      [
        'pr (3 runs) vs main (3 runs) (baseline): 1 regressed, 1 not judged',
        '',
        'task     cell       metric        baseline  candidate  change  95% CI               p  runs  method  verdict',
        'latency  —          ttft_ms (ms)      12.5      13.75  +10.0%  [+4.0%, +16.0%]  0.012   3+3  welch   regressed',
        'latency  decode@32  n (calls)           30         30   +0.0%  n/a                n/a   3+3  —       not judged',
        '',
        'neither: perplexity (failed: no tokenizer in both runs)',
        '',
        'Runs per side: 3 baseline, 3 candidate; threshold 5%, α = 0.05, 95% intervals, no noise floor, power 80% for runs-needed estimates.',
        `welch: ${METHOD_DESCRIPTIONS.welch}.`,
        `—: ${METHOD_DESCRIPTIONS.none}.`,
        '',
      ].join('\n'),
    );
  });

  it('with nothing in common: the counts say so, and there is no table and no blank line for unmatched rows', () => {
    const c = comparisonOf([], { methods: [] });
    expect(formatComparisons([c], 'text')).toBe(
      'pr (3 runs) vs main (3 runs) (baseline): no metric in common\n\nRuns per side: 3 baseline, 3 candidate; threshold 5%, α = 0.05, 95% intervals, no noise floor, power 80% for runs-needed estimates.\n',
    );
    const md = formatComparisons([c], 'markdown');
    expect(md).toContain('**no metric in common**');
    expect(md).not.toContain('| task |');
    expect(md).not.toContain('<details>');
    expect(md).not.toContain('Not compared:');
  });

  it('values: 4 significant digits below 10⁴, rounded to an integer from 10⁴ up, — when not a number', () => {
    const values: [number, string][] = [
      [12345.6, '12346'], // ≥ 10⁴: Math.round, not 4 significant digits (12350)
      [-12345.6, '-12346'],
      [10000, '10000'],
      [9999.6, '10000'], // 4 significant digits round up to 1.000e4
      [1234.56, '1235'],
      [0.000123456, '0.0001235'],
      [Number.NaN, '—'],
      [Number.POSITIVE_INFINITY, '—'],
    ];
    for (const [v, text] of values)
      expect(textCells(comparisonOf([rowOf({ baseline: v })]), 0)[3], String(v)).toBe(text);
  });

  it('changes: signed percentages with one decimal, ±∞ from a zero baseline, — when not a number', () => {
    const changes: [number, string][] = [
      [0.05249, '+5.2%'], // 5.249 rounds down, not a half
      [-0.0926, '−9.3%'],
      [0, '+0.0%'],
      [1.23456, '+123.5%'],
      [Number.POSITIVE_INFINITY, '+∞'],
      [Number.NEGATIVE_INFINITY, '−∞'],
      [Number.NaN, '—'],
    ];
    for (const [v, text] of changes)
      expect(textCells(comparisonOf([rowOf({ change: v })]), 0)[5], String(v)).toBe(text);
  });

  it('intervals: n/a when either end is not a number', () => {
    const cis: [readonly [number, number], string][] = [
      [[-0.012, 0.034], '[−1.2%, +3.4%]'],
      [[Number.NaN, 0.1], 'n/a'],
      [[0.1, Number.NaN], 'n/a'],
      [[Number.NaN, Number.NaN], 'n/a'],
    ];
    for (const [ci, text] of cis) expect(textCells(comparisonOf([rowOf({ changeCi: ci })]), 0)[6]).toBe(text);
  });

  it('p-values: three decimals, <0.001 strictly below 0.001, n/a when untested', () => {
    const ps: [number, string][] = [
      [0.001, '0.001'],
      [0.000999, '<0.001'],
      [0.0126, '0.013'],
      [1, '1.000'],
      [Number.NaN, 'n/a'],
    ];
    for (const [p, text] of ps)
      expect(textCells(comparisonOf([rowOf({ pValue: p })]), 0)[7], String(p)).toBe(text);
  });

  it('metric labels: the unit in brackets, none for unitless (`1`) or undescribed metrics', () => {
    expect(textCells(comparisonOf([rowOf({ unit: 'ms' })]), 0)[2]).toBe('ttft_ms (ms)');
    expect(textCells(comparisonOf([rowOf({ unit: '1' })]), 0)[2]).toBe('ttft_ms');
    expect(textCells(comparisonOf([rowOf({ unit: null })]), 0)[2]).toBe('ttft_ms');
  });

  it('aligns numbers right and text left, with no trailing spaces', () => {
    const c = comparisonOf([
      rowOf({ baseline: 7, metric: 'a', verdict: 'no significant change' }),
      rowOf({ baseline: 12345.6, metric: 'a_much_longer_metric' }),
    ]);
    const lines = formatComparisons([c], 'text').split('\n').slice(2, 5);
    // The baseline column (right-aligned) ends where its header ends; the metric column (left) starts where its header starts.
    const end = (line: string, text: string) => line.indexOf(text) + text.length;
    const [head, first, second] = lines as [string, string, string];
    expect(end(first, ' 7 ')).toBe(end(head, 'baseline') + 1);
    expect(end(second, '12346')).toBe(end(head, 'baseline'));
    expect(first.indexOf(' a ') + 1).toBe(head.indexOf('metric'));
    expect(second.indexOf('a_much')).toBe(head.indexOf('metric'));
    for (const line of lines) expect(line).toBe(line.trimEnd());
    expect(first.endsWith('no significant change')).toBe(true);
  });

  it('inconclusive rows: the runs each needs, the most of them, and why, by the runs per side', () => {
    const inconclusive = (runsNeeded: number | null) =>
      rowOf({ verdict: 'inconclusive', runsNeeded, method: 'none', pValue: Number.NaN });
    const advice = (c: ReportComparison) =>
      formatComparisons([c], 'text')
        .split('\n')
        .find((l) => /inconclusive:/.test(l) && !l.includes('  '));
    const one = { baseline: side('a', 1), candidate: side('b', 1) };
    expect(advice(comparisonOf([inconclusive(7)], one))).toBe(
      '1 metric inconclusive: one run per side cannot tell a change from run-to-run drift without a noise floor; up to 7 runs per side needed.',
    );
    expect(advice(comparisonOf([inconclusive(6), inconclusive(9), ROW]))).toBe(
      '2 metrics inconclusive: the runs cannot yet tell a change beyond the threshold from run-to-run drift; up to 9 runs per side needed.',
    );
    expect(advice(comparisonOf([inconclusive(null), inconclusive(null)]))).toBe(
      '2 metrics inconclusive: the runs cannot yet tell a change beyond the threshold from run-to-run drift; more runs per side needed.',
    );
    // One run on one side only is not one run per side.
    for (const sides of [
      { baseline: side('a', 1), candidate: side('b', 5) },
      { baseline: side('a', 5), candidate: side('b', 1) },
    ])
      expect(advice(comparisonOf([inconclusive(7)], sides))).toContain('the runs cannot yet tell');
    expect(textCells(comparisonOf([inconclusive(7)]), 0)[10]).toBe('inconclusive: 7 runs per side needed');
    expect(textCells(comparisonOf([inconclusive(null)]), 0)[10]).toBe('inconclusive');
    // No inconclusive row, no advice.
    expect(formatComparisons([comparisonOf([ROW])], 'text')).not.toContain('inconclusive');
  });

  it('settings: a given noise floor with the bootstrap behind it, or the earlier runs the floor was learned from', () => {
    const floor = comparisonOf([rowOf({ method: 'noise-floor', runs: [1, 1] })], {
      baseline: side('a', 1),
      candidate: side('b', 1),
      noiseFloor: 0.0333333,
      threshold: 0.025,
      confidence: 0.899,
      power: 0.95,
      resamples: 300,
      seed: 9,
    });
    // 0.0333333 → 3.33333% → 4 significant digits; 0.899 → 89.9% → rounded to 90.
    expect(formatComparisons([floor], 'text')).toContain(
      'Runs per side: 1 baseline, 1 candidate; threshold 2.5%, α = 0.05, 90% intervals, noise floor 3.333% (given), power 95% for runs-needed estimates; per-call interval: 300 bootstrap resamples, seed 9.',
    );
    expect(formatComparisons([floor], 'text').split('\n')[2]).toContain('90% CI');
    const learned = comparisonOf([rowOf({ method: 'earlier-runs', runs: [1, 1] })], { earlierRuns: 6 });
    const text = formatComparisons([learned], 'text');
    expect(text).toContain(
      '95% intervals, noise floor learned from 6 earlier runs, power 80% for runs-needed estimates.',
    );
    expect(text).not.toContain('bootstrap');
    expect(text).toContain(`earlier runs: ${METHOD_DESCRIPTIONS['earlier-runs']}.`);
  });

  it('lists what was not compared, by side, in text and in markdown (pipes escaped)', () => {
    const c = comparisonOf([ROW], {
      unmatched: [
        {
          side: 'baseline',
          task: 'throughput',
          cell: null,
          metric: 'tps_seq32',
          reason: 'not in the candidate',
        },
        { side: 'candidate', task: 't', cell: 'a|b', metric: null, reason: 'cell not in the baseline' },
      ],
    });
    const text = formatComparisons([c], 'text').split('\n');
    const at = text.indexOf('baseline only: throughput / tps_seq32 (not in the candidate)');
    expect(text.slice(at - 1, at + 3)).toEqual([
      '',
      'baseline only: throughput / tps_seq32 (not in the candidate)',
      'candidate only: t / a|b (cell not in the baseline)',
      '',
    ]);
    const md = formatComparisons([c], 'markdown');
    expect(md).toContain(
      'Not compared:\n\n- baseline only: throughput / tps_seq32 (not in the candidate)\n- candidate only: t / a\\|b (cell not in the baseline)\n\n',
    );
  });

  it('names the variant differences let through, in text and in markdown', () => {
    const c = comparisonOf([ROW], {
      variantDifferences: [
        { field: 'model', baseline: 'tiny', candidate: 'gpt2' },
        { field: 'dim', baseline: 64, candidate: 768 },
      ],
    });
    const line = 'Different variants (--allow-different): model tiny → gpt2, dim 64 → 768.';
    expect(formatComparisons([c], 'text').split('\n')[1]).toBe(line);
    expect(formatComparisons([c], 'markdown')).toContain(`\n${line}\n`);
    expect(formatComparisons([comparisonOf([ROW])], 'markdown')).not.toContain('Different variants');
  });

  it('markdown: a table of task rows only when there are some, per-cell rows folded, labels and marks', () => {
    const cellOnly = comparisonOf([rowOf({ cell: 'seq=8,batch=4', verdict: 'improved' })], {
      candidate: side('pr|2', 3),
    });
    const md = formatComparisons([cellOnly], 'markdown');
    expect(md.startsWith('### `pr\\|2` vs `main (3 runs)` (baseline)\n')).toBe(true);
    expect(md).not.toContain('| task | metric |');
    expect(md).toContain('<details><summary>Per-cell metrics (1)</summary>');
    expect(md).toContain(
      '| latency | seq=8,batch=4 | ttft_ms (ms) | 12.5 | 13.75 | +10.0% | [+4.0%, +16.0%] | 0.012 | 3+3 | welch | 🟢 improved |',
    );
    const taskOnly = formatComparisons([comparisonOf([ROW])], 'markdown');
    expect(taskOnly).toContain(
      '| latency | ttft_ms (ms) | 12.5 | 13.75 | +10.0% | [+4.0%, +16.0%] | 0.012 | 3+3 | welch | 🔴 regressed |',
    );
    expect(taskOnly).not.toContain('<details>');
    const advice = formatComparisons(
      [comparisonOf([rowOf({ verdict: 'inconclusive', runsNeeded: 4 })])],
      'markdown',
    );
    expect(advice).toContain('| inconclusive: 4 runs per side needed |');
    expect(advice).toContain('\n**1 metric inconclusive: the runs cannot yet tell');
  });

  it('colours improved rows green and regressed rows red, nothing else', () => {
    const c = comparisonOf([
      rowOf({ verdict: 'improved', metric: 'a' }),
      rowOf({ verdict: 'regressed', metric: 'b' }),
      rowOf({ verdict: 'within noise', metric: 'c' }),
    ]);
    const lines = formatComparisons([c], 'text', { color: true }).split('\n');
    expect(lines[3]?.startsWith('\x1b[32mlatency')).toBe(true);
    expect(lines[4]?.startsWith('\x1b[31mlatency')).toBe(true);
    expect(lines[5]?.startsWith('latency')).toBe(true);
    expect(lines.filter((l) => l.includes('\x1b['))).toHaveLength(2);
  });

  it('several comparisons: one blank line between them, one newline at the end', () => {
    const a = comparisonOf([], { methods: [], candidate: side('a', 3) });
    const b = comparisonOf([], { methods: [], candidate: side('b', 3) });
    const text = formatComparisons([a, b], 'text');
    expect(text).toBe(`${formatComparisons([a], 'text')}\n${formatComparisons([b], 'text')}`);
    expect(text.endsWith('estimates.\n')).toBe(true);
  });

  it('chart rows: every field of a row, and null for numbers that are not finite', () => {
    const c = comparisonOf([
      rowOf({ change: Number.POSITIVE_INFINITY, changeCi: [Number.NaN, Number.NaN], pValue: Number.NaN }),
      rowOf({ cell: 'c', verdict: 'inconclusive', runsNeeded: 8, noiseFloor: 0.03, method: 'noise-floor' }),
    ]);
    expect(comparisonRows([c])).toEqual([
      {
        baseline_run: 'main (3 runs)',
        candidate: 'pr (3 runs)',
        task: 'latency',
        cell: null,
        metric: 'ttft_ms',
        unit: 'ms',
        baseline: 12.5,
        candidate_value: 13.75,
        change: null,
        change_ci_low: null,
        change_ci_high: null,
        p_value: null,
        verdict: 'regressed',
        method: 'welch',
        runs_baseline: 3,
        runs_candidate: 3,
        runs_needed: null,
        noise_floor: null,
        threshold: 0.05,
      },
      {
        baseline_run: 'main (3 runs)',
        candidate: 'pr (3 runs)',
        task: 'latency',
        cell: 'c',
        metric: 'ttft_ms',
        unit: 'ms',
        baseline: 12.5,
        candidate_value: 13.75,
        change: 0.1,
        change_ci_low: 0.04,
        change_ci_high: 0.16,
        p_value: 0.0123,
        verdict: 'inconclusive',
        method: 'noise-floor',
        runs_baseline: 3,
        runs_candidate: 3,
        runs_needed: 8,
        noise_floor: 0.03,
        threshold: 0.05,
      },
    ]);
  });

  it('JSON: ±∞ become null like NaN, strings are kept', () => {
    const c = comparisonOf([rowOf({ change: Number.NEGATIVE_INFINITY })]);
    const parsed = JSON.parse(formatComparisons([c], 'json'));
    expect(parsed.version).toBe(1);
    expect(parsed.comparisons[0].rows[0]).toMatchObject({
      change: null,
      metric: 'ttft_ms',
      verdict: 'regressed',
    });
  });
});
