/**
 * The attention masks the built-in graph is fed: one broadcast over the batch, and one per row for rows of
 * different lengths sharing right-aligned cache columns (known answers, holes included).
 */
import { describe, expect, it } from 'vitest';
import { ModelConfig } from '../../../src/models/model-config.js';
import { buildAttentionMask, buildRowMasks, maskLayout } from '../../../src/models/onnx/attention-mask.js';
import { BASE } from './variants.js';

/** The mask as text: one line per query row, `.` visible and `x` hidden, `|` between past and new columns. */
function render(mask: Float32Array, pastRows: number, keys: number): string[] {
  const lines: string[] = [];
  for (let r = 0; r < mask.length / keys; r++) {
    const cells = Array.from(mask.subarray(r * keys, (r + 1) * keys), (x) => {
      if (x === 0) return '.';
      if (x === Number.NEGATIVE_INFINITY) return 'x';
      throw new Error(`mask value ${x}`);
    });
    lines.push(`${cells.slice(0, pastRows).join('')}|${cells.slice(pastRows).join('')}`);
  }
  return lines;
}

// Group 2: every query row is repeated for the two query heads of a KV head.
const GQA = ModelConfig.parse({ ...BASE, kvHeads: 2 });

describe('buildRowMasks', () => {
  it('hides the columns before a row’s first position (a decode step over 4 columns)', () => {
    const layout = maskLayout(GQA, 1, 4);
    const mask = buildRowMasks(GQA, layout, [0, 2, 3]);
    expect(render(mask, 4, 5)).toEqual([
      // row 0: 4 positions
      '....|.',
      '....|.',
      // row 1: 2 positions, columns 0 and 1 are holes
      'xx..|.',
      'xx..|.',
      // row 2: 1 position
      'xxx.|.',
      'xxx.|.',
    ]);
  });

  it('keeps causality among several new tokens of a row with holes', () => {
    const config = ModelConfig.parse(BASE);
    const mask = buildRowMasks(config, maskLayout(config, 3, 2), [1]);
    expect(render(mask, 2, 5)).toEqual(['x.|.xx', 'x.|..x', 'x.|...']);
  });

  it('applies the sliding window to each row’s own positions', () => {
    // Window 2 after 5 columns: the graph is fed columns 3 and 4 only.
    const config = ModelConfig.parse({ ...BASE, slidingWindow: true, contextWindow: 2 });
    const layout = maskLayout(config, 2, 5);
    expect([layout.pastStart, layout.pastRows]).toEqual([3, 2]);
    // Row 0 holds 5 positions, row 1 one (column 4): its column 3 is a hole.
    const mask = buildRowMasks(config, layout, [0, 4]);
    expect(render(mask, 2, 4)).toEqual([
      // row 0: position 6 no longer sees position 3 (column 3)
      '..|.x',
      'x.|..',
      // row 1: positions 1 and 2 see position 0 (column 4)
      'x.|.x',
      'x.|..',
    ]);
  });

  it('equals the broadcast mask for every row when every row starts at column 0', () => {
    for (const [seq, past] of [
      [1, 6],
      [3, 0],
      [2, 4],
    ] as const) {
      const layout = maskLayout(GQA, seq, past);
      const one = buildAttentionMask(GQA, layout);
      const rows = buildRowMasks(GQA, layout, [0, 0, 0]);
      expect(rows).toEqual(Float32Array.from([...one, ...one, ...one]));
    }
  });
});
