/**
 * Greedy placement of point labels so they do not overlap each other or leave the plot: each label tries the
 * four corners around its point (upper-right first) and takes the first whose estimated box is free.
 *
 * @packageDocumentation
 */

/** Where a label sits relative to its point. */
export type LabelCorner = 'ne' | 'se' | 'nw' | 'sw';

/** Every corner, in the order they are tried. */
export const LABEL_CORNERS: readonly LabelCorner[] = ['ne', 'se', 'nw', 'sw'];

/** A point to label, in pixel coordinates of the plot (origin top-left, y down). */
export interface LabelledPoint {
  /** x position in CSS pixels. */
  readonly px: number;
  /** y position in CSS pixels (down). */
  readonly py: number;
  /** Label text. */
  readonly text: string;
}

/** Options of {@link placeLabels}. */
export interface PlaceLabelsOptions {
  /** Plot width in CSS pixels. */
  readonly width: number;
  /** Plot height in CSS pixels. */
  readonly height: number;
  /** Label font size in CSS pixels. @default 11 */
  readonly fontSize?: number;
  /** Gap between a point and its label in CSS pixels. @default 6 */
  readonly offset?: number;
}

interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** Estimated width of `text` in CSS pixels: 0.62 em per character (DejaVu Sans averages ≈ 0.6 em). */
export function estimateTextWidth(text: string, fontSize: number): number {
  return text.length * fontSize * 0.62;
}

const overlaps = (a: Box, b: Box): boolean => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;

/**
 * The corner of each label (same order as `points`): the first corner, in the order
 * north-east, south-east, north-west, south-west (`LABEL_CORNERS`), whose box stays inside
 * the plot and overlaps no earlier label nor any point marker; if none is free, the one with the least overlap.
 */
export function placeLabels(points: readonly LabelledPoint[], options: PlaceLabelsOptions): LabelCorner[] {
  const size = options.fontSize ?? 11;
  const gap = options.offset ?? 6;
  const markers: Box[] = points.map((p) => ({ x0: p.px - 5, y0: p.py - 5, x1: p.px + 5, y1: p.py + 5 }));
  const placed: Box[] = [];
  const boxAt = (p: LabelledPoint, corner: LabelCorner): Box => {
    const w = estimateTextWidth(p.text, size);
    const h = size * 1.2;
    const right = corner === 'ne' || corner === 'se';
    const up = corner === 'ne' || corner === 'nw';
    const x0 = right ? p.px + gap : p.px - gap - w;
    const y0 = up ? p.py - gap - h : p.py + gap;
    return { x0, y0, x1: x0 + w, y1: y0 + h };
  };
  const cost = (b: Box): number => {
    let c = 0;
    if (b.x0 < 0 || b.x1 > options.width || b.y0 < 0 || b.y1 > options.height) c += 1;
    for (const o of placed) if (overlaps(b, o)) c += 2;
    for (const m of markers) if (overlaps(b, m)) c += 1;
    return c;
  };
  return points.map((p) => {
    let best: LabelCorner = 'ne';
    let bestCost = Number.POSITIVE_INFINITY;
    for (const corner of LABEL_CORNERS) {
      const c = cost(boxAt(p, corner));
      if (c < bestCost) {
        best = corner;
        bestCost = c;
      }
      if (c === 0) break;
    }
    placed.push(boxAt(p, best));
    return best;
  });
}
