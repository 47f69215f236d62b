import { describe, expect, it } from 'vitest';
import {
  COMPARISON_GROUPS,
  comparisonTableHtml,
  formatComparisonValue,
} from '../../src/visualization/comparison-table.js';
import { collapseByModel } from '../../src/visualization/series.js';
import { matrixRows } from './matrix-rows.js';

describe('formatComparisonValue', () => {
  it('writes 3–4 significant digits, whole numbers from 1,000 on, exponents below 0.001, fractions as %', () => {
    const cases: [unknown, 'number' | 'percent' | 'text', string][] = [
      [15881.064721170069, 'number', '15,881'],
      [8.059913, 'number', '8.06'],
      [267.22753569536343, 'number', '267.2'],
      [0.12345, 'number', '0.1235'],
      [41120, 'number', '41,120'],
      [0, 'number', '0'],
      [6.123e-4, 'number', '6.123e-4'],
      [-0.5, 'number', '-0.5'],
      ['373.87626929838103', 'number', '373.9'],
      [0.98345, 'percent', '98.3%'],
      [1, 'percent', '100%'],
      ['fp32', 'text', 'fp32'],
      [null, 'number', ''],
      ['n/a', 'number', 'n/a'],
    ];
    expect(cases.map(([v, f]) => formatComparisonValue(v, f))).toEqual(cases.map(([, , want]) => want));
  });
});

describe('comparisonTableHtml', () => {
  it('one header per present column, grouped; setup shared by every row said once; best per metric', () => {
    const html = comparisonTableHtml(collapseByModel(matrixRows()));
    const keys = [...html.matchAll(/<th(?: class="first")? title="([a-z0-9_]+):/g)].map((m) => m[1]);
    const known = COMPARISON_GROUPS.flatMap((g) => g.columns.map((c) => c.key));
    // Present in the data and varying: every metric column, dtype and engine; threads, params, paradigm are shared.
    // No variant ran in the browser: no target column, no browser ÷ Node ratios.
    // No choice task either: no multiple-choice accuracy column.
    const absent = ['paradigm', 'threads', 'params', 'target', 'parity_prefill', 'parity_decode', 'accuracy'];
    expect(keys).toEqual(known.filter((k) => !absent.includes(k)));
    expect(html).toMatch(
      /Same for every variant: paradigm <strong>ar<\/strong> · threads <strong>2<\/strong>/,
    );
    // The best KLD is the reference itself (0), the best decode speed is a q4 variant's.
    expect(html.match(/<td class="best"[^>]*>/g)?.length).toBeGreaterThan(8);
    expect(html).toMatch(/<td class="first best" title="0 \(best\)">0<\/td>/);
  });

  it("the choice task's accuracy under Quality, as a percentage, higher the better", () => {
    const records = collapseByModel(matrixRows()).map((r, i) => ({
      ...r,
      values: { ...r.values, accuracy: [0.4, 0.425, 0.3, 0.41][i % 4] },
    }));
    const html = comparisonTableHtml(records);
    expect(html).toMatch(/<th[^>]* title="accuracy: Multiple-choice accuracy">choice ↑<\/th>/);
    expect(html).toMatch(/<td class="best" title="0.425 \(best\)">42.5%<\/td>/);
    expect(html).not.toMatch(/title="0.3 \(best\)"/);
  });

  it('one model: no best values, nothing to compare with', () => {
    const html = comparisonTableHtml(collapseByModel(matrixRows().slice(0, 4)));
    expect(html).not.toContain('best');
    expect(html).toContain('<th scope="row">gpt2-small-ort-fp32-t2</th>');
  });
});
