/**
 * Node vs browser side by side: the parity ratio of a browser variant against its Node twin (same model, dtype,
 * head dtype, Node threads = browser threads asked), in the records, the comparison table and the parity chart.
 */
import { describe, expect, it } from 'vitest';
import { ParityChart } from '../../src/visualization/charts/parity-chart.js';
import { comparisonTableHtml } from '../../src/visualization/comparison-table.js';
import { collapseByModel } from '../../src/visualization/series.js';
import { withTargetParity } from '../../src/visualization/target-parity.js';
import { parityRows } from './parity-rows.js';

describe('withTargetParity', () => {
  it('gives browser ÷ Node speed for prefill (peak tok/s) and decode, against the twin at the threads asked', () => {
    const records = withTargetParity(collapseByModel(parityRows()));
    const by = Object.fromEntries(records.map((r) => [r.series, r.values]));
    expect(by['tiny-browser']?.['parity_prefill']).toBeCloseTo(0.5, 12);
    expect(by['tiny-browser']?.['parity_decode']).toBeCloseTo(0.4, 12);
    expect(by['tiny-browser']?.['parity_baseline']).toBe('tiny-node');
    // No Node run at 1 thread: no ratio rather than one against the wrong thread count.
    expect(by['tiny-browser-t1']?.['parity_decode']).toBeUndefined();
    expect(by['tiny-node']?.['target']).toBe('node');
    expect(by['tiny-node']?.['parity_decode']).toBeUndefined();
  });

  it('falls back to 1 / mean prefill time when there is no throughput task', () => {
    const rows = parityRows().filter((r) => r['task'] === 'latency');
    const by = Object.fromEntries(withTargetParity(collapseByModel(rows)).map((r) => [r.series, r.values]));
    expect(by['tiny-browser']?.['parity_prefill']).toBeCloseTo(4 / 9, 12);
  });

  it('leaves runs without a browser variant untouched', () => {
    const rows = parityRows().filter((r) => r['target'] === undefined);
    const records = collapseByModel(rows);
    expect(withTargetParity(records)).toEqual(records);
  });

  it('puts the ratios and the target in the comparison table', () => {
    const html = comparisonTableHtml(collapseByModel(parityRows()));
    expect(html).toContain('Browser ÷ Node (speed)');
    expect(html).toContain('title="0.5">0.5');
    expect(html).toContain('title="0.4">0.4');
    expect(html).toContain('>browser<');
  });

  it('draws one bar per phase and browser variant with a twin', () => {
    const spec = new ParityChart().spec(parityRows()) as unknown as {
      layer: [{ data: { values: { variant: string; phase: string; ratio: number }[] } }];
    };
    expect(spec.layer[0].data.values.map((v) => [v.variant, v.phase, v.ratio])).toEqual([
      ['tiny-browser', 'prefill', 0.5],
      ['tiny-browser', 'decode', 0.4],
    ]);
    expect(() => new ParityChart().spec(parityRows().filter((r) => r['variant'] !== 'tiny-node'))).toThrow(
      /no browser variant has a Node twin/,
    );
  });
});
