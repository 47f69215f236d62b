/**
 * Greedy placement of point labels so they do not overlap each other, fixed obstacles (other labels, point
 * markers) or the plot's edges: each label tries its candidate positions around its point in order and takes the
 * first whose estimated box is free. The text mark of each position ({@link labelTextMark}) is the one the box
 * model assumes, so what is placed is what is drawn.
 *
 * @packageDocumentation
 */

/** Where a label sits relative to its point: a corner (`ne`…) or straight east / west (`e`, `w`). */
export type LabelCorner = 'ne' | 'se' | 'nw' | 'sw' | 'e' | 'w';

/** The corners tried by default, in order (upper-right first). */
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

/** A rectangle in pixel coordinates of the plot (y down). */
export interface LabelBox {
  /** Left edge. */
  readonly x0: number;
  /** Top edge. */
  readonly y0: number;
  /** Right edge. */
  readonly x1: number;
  /** Bottom edge. */
  readonly y1: number;
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
  /** Positions to try, in order. @default {@link LABEL_CORNERS} */
  readonly corners?: readonly LabelCorner[];
  /** Boxes no label may cover (e.g. labels placed before). @default [] */
  readonly obstacles?: readonly LabelBox[];
}

/** Estimated width of `text` in CSS pixels: 0.62 em per character (DejaVu Sans averages ≈ 0.6 em). */
export function estimateTextWidth(text: string, fontSize: number): number {
  return text.length * fontSize * 0.62;
}

/**
 * Top and bottom of a text's glyphs relative to its anchor, in em, for each Vega baseline: Vega puts the
 * alphabetic baseline 0.79 em below the anchor for `top`, 0.30 em for `middle`, 0.21 em above for `bottom`
 * (vega-scenegraph's `offset`), and DejaVu Sans reaches 0.93 em above and 0.24 em below its baseline.
 */
const GLYPH_EXTENT = { top: [-0.14, 1.03], middle: [-0.63, 0.54], bottom: [-1.14, 0.03] } as const;

/** True when two boxes share some area (touching edges do not count). */
export function boxesOverlap(a: LabelBox, b: LabelBox): boolean {
  return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
}

/** The estimated box of `point`'s label at `corner` (see {@link labelTextMark} for the matching text mark). */
export function labelBox(point: LabelledPoint, corner: LabelCorner, fontSize = 11, offset = 6): LabelBox {
  const mark = labelTextMark(corner, offset);
  const w = estimateTextWidth(point.text, fontSize);
  const x0 = mark.align === 'left' ? point.px + mark.dx : point.px + mark.dx - w;
  const [top, bottom] = GLYPH_EXTENT[mark.baseline];
  const y = point.py + mark.dy;
  return { x0, y0: y + top * fontSize, x1: x0 + w, y1: y + bottom * fontSize };
}

/** Vega text mark properties of a placed label. */
export interface LabelTextMark {
  /** Horizontal alignment: `left` for a label east of its point. */
  readonly align: 'left' | 'right';
  /** Vertical anchor: `bottom` for a label north of its point, `middle` beside it. */
  readonly baseline: 'top' | 'middle' | 'bottom';
  /** Horizontal offset from the point in CSS pixels. */
  readonly dx: number;
  /** Vertical offset from the point in CSS pixels (down). */
  readonly dy: number;
}

/** The Vega text mark properties that draw a label where {@link labelBox} put it. */
export function labelTextMark(corner: LabelCorner, offset = 6): LabelTextMark {
  const right = corner.endsWith('e');
  const side = corner === 'e' || corner === 'w' ? 0 : corner.startsWith('n') ? -1 : 1;
  return {
    align: right ? 'left' : 'right',
    baseline: side === 0 ? 'middle' : side < 0 ? 'bottom' : 'top',
    dx: right ? offset : -offset,
    dy: side * offset,
  };
}

/** The placement shared by {@link placeLabels} and {@link placeLabelsWithoutOverlap}. */
function place(
  points: readonly LabelledPoint[],
  options: PlaceLabelsOptions,
  omitBlocked: boolean,
): (LabelCorner | undefined)[] {
  const size = options.fontSize ?? 11;
  const gap = options.offset ?? 6;
  const corners = options.corners ?? LABEL_CORNERS;
  const markers: LabelBox[] = points.map((p) => ({ x0: p.px - 5, y0: p.py - 5, x1: p.px + 5, y1: p.py + 5 }));
  const placed: LabelBox[] = [...(options.obstacles ?? [])];
  const cost = (b: LabelBox): number => {
    let c = 0;
    if (b.x0 < 0 || b.x1 > options.width || b.y0 < 0 || b.y1 > options.height) c += 1;
    for (const o of placed) if (boxesOverlap(b, o)) c += 2;
    for (const m of markers) if (boxesOverlap(b, m)) c += 1;
    return c;
  };
  return points.map((p) => {
    let best: LabelCorner = corners[0] ?? 'ne';
    let bestCost = Number.POSITIVE_INFINITY;
    for (const corner of corners) {
      const c = cost(labelBox(p, corner, size, gap));
      if (c < bestCost) {
        best = corner;
        bestCost = c;
      }
      if (c === 0) break;
    }
    if (omitBlocked && bestCost > 0) return undefined;
    placed.push(labelBox(p, best, size, gap));
    return best;
  });
}

/**
 * The corner of each label (same order as `points`): the first of `corners` (default north-east, south-east,
 * north-west, south-west) whose box stays inside the plot and overlaps no earlier label, obstacle nor point
 * marker; if none is free, the one with the least overlap (every label is drawn).
 */
export function placeLabels(points: readonly LabelledPoint[], options: PlaceLabelsOptions): LabelCorner[] {
  return place(points, options, false) as LabelCorner[];
}

/**
 * As {@link placeLabels}, but a label with no free position is left out (`undefined`) instead of drawn over
 * another: no two placed boxes overlap and every placed box is inside the plot.
 */
export function placeLabelsWithoutOverlap(
  points: readonly LabelledPoint[],
  options: PlaceLabelsOptions,
): (LabelCorner | undefined)[] {
  return place(points, options, true);
}
