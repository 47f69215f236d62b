import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readChartData, toRows } from '../../src/visualization/chart-data.js';
import {
  boxesOverlap,
  labelBox,
  labelTextMark,
  placeLabels,
  placeLabelsWithoutOverlap,
} from '../../src/visualization/label-placement.js';
import { collapseByModel, seriesLabeler } from '../../src/visualization/series.js';
import { fixture } from './golden.js';

describe('seriesLabeler', () => {
  it('uses model, qualified by run only when a model appears in several runs', () => {
    const rows = [
      { model: 'a', run: 'r1' },
      { model: 'a', run: 'r2' },
      { model: 'b', run: 'r2' },
    ];
    expect(rows.map(seriesLabeler(rows))).toEqual(['a (r1)', 'a (r2)', 'b (r2)']);
    const one = [
      { model: 'a', run: 'r1' },
      { model: 'b', run: 'r1' },
    ];
    expect(one.map(seriesLabeler(one))).toEqual(['a', 'b']);
    expect([{ run_id: 'x' }].map(seriesLabeler([{ run_id: 'x' }]))).toEqual(['x']);
    expect([{ v: 1 }].map(seriesLabeler([{ v: 1 }]))).toEqual(['all rows']);
    expect(() => seriesLabeler(rows, 'modle')).toThrow(/Did you mean "model"\?/);
  });
});

describe('collapseByModel', () => {
  it('merges task rows into one record per model and flags conflicting columns', async () => {
    const rows = await readChartData(fixture('bench-single.csv'));
    const [record, ...rest] = collapseByModel(rows);
    expect(rest).toEqual([]);
    expect(record!.series).toBe('tiny');
    expect(record!.rowCount).toBe(3);
    expect(record!.tasks).toEqual(['throughput', 'latency', 'perplexity']);
    expect(record!.values['peak_tps']).toBe('25200.0');
    expect(record!.values['prefill_mean_ms']).toBe('7.619');
    expect(record!.values['perplexity']).toBe('412.700');
    // throughput_tps / latency_* / flops_* mean different things in the throughput and latency rows.
    expect([...record!.conflicts].sort()).toEqual(
      [
        'duration_ms',
        'flops_attn_g',
        'flops_ffn_g',
        'flops_total_g',
        'latency_mean_ms',
        'latency_p99_ms',
        'throughput_tps',
      ].sort(),
    );
    expect(record!.values).not.toHaveProperty('throughput_tps');
    expect(record!.values).not.toHaveProperty('task');
  });
});

describe('readChartData', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dantinox-data-'));
  it('reads JSON arrays, { rows } objects and JSONL', async () => {
    writeFileSync(join(dir, 'a.json'), JSON.stringify([{ model: 'x', peak_tps: 1 }]));
    writeFileSync(join(dir, 'b.json'), JSON.stringify({ rows: [{ model: 'y' }] }));
    writeFileSync(join(dir, 'c.jsonl'), '{"model":"z"}\n\n{"model":"w"}\n');
    expect(await readChartData(join(dir, 'a.json'))).toEqual([{ model: 'x', peak_tps: 1 }]);
    expect(await readChartData(join(dir, 'b.json'))).toEqual([{ model: 'y' }]);
    expect(await readChartData(join(dir, 'c.jsonl'))).toEqual([{ model: 'z' }, { model: 'w' }]);
  });

  it('keeps CSV cells as text (a date-like run name stays as written)', async () => {
    const rows = await readChartData(fixture('bench-runs.csv'));
    expect(rows[0]!['run']).toBe('2025-01-10');
  });

  it('fails clearly on bad input', async () => {
    writeFileSync(join(dir, 'bad.json'), '{"nope": 1}');
    await expect(readChartData(join(dir, 'bad.json'))).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('bad.json'),
    });
    await expect(readChartData(join(dir, 'missing.csv'))).rejects.toMatchObject({ code: 'IO' });
    await expect(readChartData(join(dir, 'x.xlsx'))).rejects.toThrow(/use a \.csv/);
    expect(() => toRows([1] as never)).toThrow(/row 0 is number/);
    expect(() => toRows(42 as never)).toThrow(/received number/);
  });
});

describe('placeLabels', () => {
  it('moves a label off a neighbour and off the plot edge', () => {
    const corners = placeLabels(
      [
        { px: 100, py: 100, text: 'first label' },
        { px: 102, py: 100, text: 'second label' },
        { px: 395, py: 100, text: 'right edge' },
      ],
      { width: 400, height: 300 },
    );
    expect(corners[0]).toBe('ne');
    expect(corners[1]).not.toBe('ne');
    expect(corners[2]?.endsWith('w')).toBe(true);
  });
});

describe('placeLabelsWithoutOverlap', () => {
  it('places what fits, leaves the rest out: placed boxes are disjoint, inside the plot, clear of obstacles', () => {
    const points = Array.from({ length: 9 }, (_, i) => ({ px: 100 + (i % 3), py: 100, text: `label ${i}` }));
    const obstacle = { x0: 0, y0: 0, x1: 400, y1: 80 };
    const options = { width: 400, height: 300, corners: ['e', 'ne', 'se', 'w', 'nw', 'sw'] as const };
    const corners = placeLabelsWithoutOverlap(points, { ...options, obstacles: [obstacle] });
    const boxes = points.flatMap((p, i) => {
      const corner = corners[i];
      return corner === undefined ? [] : [labelBox(p, corner)];
    });
    expect(boxes.length).toBeGreaterThanOrEqual(3);
    expect(boxes.length).toBeLessThan(points.length);
    for (const [i, a] of boxes.entries()) {
      expect(a.x0 >= 0 && a.y0 >= 0 && a.x1 <= 400 && a.y1 <= 300).toBe(true);
      expect(boxesOverlap(a, obstacle)).toBe(false);
      for (const b of boxes.slice(i + 1)) expect(boxesOverlap(a, b)).toBe(false);
    }
    // placeLabels draws every label, overlapping where it must.
    expect(placeLabels(points, options).every((c) => c !== undefined)).toBe(true);
  });

  it('the text mark of a position is the one its box assumes', () => {
    const p = { px: 50, py: 50, text: 'abc' };
    for (const corner of ['ne', 'se', 'nw', 'sw', 'e', 'w'] as const) {
      const box = labelBox(p, corner, 10, 6);
      const mark = labelTextMark(corner, 6);
      expect(mark.align === 'left' ? box.x0 : box.x1).toBeCloseTo(p.px + mark.dx, 9);
      const middle = (box.y0 + box.y1) / 2;
      if (mark.baseline === 'bottom') expect(box.y1).toBeLessThanOrEqual(p.py);
      if (mark.baseline === 'top') expect(box.y0).toBeGreaterThanOrEqual(p.py - 2);
      if (mark.baseline === 'middle') expect(Math.abs(middle - p.py)).toBeLessThan(1);
    }
  });
});
