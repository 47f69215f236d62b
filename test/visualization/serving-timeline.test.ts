/**
 * The request timeline from known rows: the golden spec (one panel per sweep point, a bar per segment, decode
 * coloured by its ITL on one scale, a cross per failure, the thinning of each point in the subtitle), the segments it
 * holds, and a render with one bar mark per segment.
 */
import { describe, expect, it } from 'vitest';
import { DantinoxError } from '../../src/errors.js';
import { ServingTimelineChart, thinningText } from '../../src/visualization/charts/serving-timeline-chart.js';
import { renderSvg } from '../../src/visualization/render.js';
import { expectGoldenJson } from './golden.js';
import { SERVING_TIMELINE } from './serving-rows.js';

interface TimelineSpec {
  title: { text: string; subtitle: string[] };
  data: { values: Record<string, unknown>[] };
  vconcat: { title: { text: string } }[];
}

describe('serving_timeline', () => {
  it('matches its golden spec: a panel per point, a bar per segment, the thinning in the subtitle', async () => {
    const spec = new ServingTimelineChart().spec(SERVING_TIMELINE);
    expectGoldenJson('serving-timeline.vl.json', spec);
    const s = spec as unknown as TimelineSpec;
    expect(s.vconcat.map((p) => p.title.text)).toEqual(['concurrency=1,rate=inf', 'concurrency=4,rate=inf']);
    expect(s.title.subtitle.slice(2)).toEqual([
      'concurrency=1,rate=inf: all 2 requests',
      'concurrency=4,rate=inf: every 2nd of 4 requests (2 shown)',
    ]);
    expect(s.data.values.map((v) => [v['part'], v['start_ms'], v['end_ms'], v['itl_ms']])).toEqual(
      SERVING_TIMELINE.map((r) => [r['part'], r['start_ms'], r['end_ms'], r['itl_ms']]),
    );
    const svg = await renderSvg(spec);
    expect(svg.match(/aria-roledescription="bar"/g)?.length).toBe(SERVING_TIMELINE.length);
    expect(svg.match(/aria-roledescription="point"/g)?.length).toBe(1);
  });

  it('labels each panel with its run when several runs are drawn', () => {
    const spec = new ServingTimelineChart().spec([
      ...SERVING_TIMELINE.map((r) => ({ ...r, run: 'a' })),
      ...SERVING_TIMELINE.slice(0, 2).map((r) => ({ ...r, run: 'b' })),
    ]) as unknown as TimelineSpec;
    expect(spec.vconcat.map((p) => p.title.text)).toEqual([
      'mock (a) · concurrency=1,rate=inf',
      'mock (a) · concurrency=4,rate=inf',
      'mock (b) · concurrency=1,rate=inf',
    ]);
  });

  it('says how a point was thinned; refuses rows without segments', () => {
    expect(thinningText(12, 12, 1)).toBe('all 12 requests');
    expect(thinningText(240, 60, 4)).toBe('every 4th of 240 requests (60 shown)');
    expect(thinningText(700, 59, 12)).toBe('every 12th of 700 requests (59 shown)');
    expect(thinningText(63, 21, 3)).toBe('every 3rd of 63 requests (21 shown)');
    expect(thinningText(2100, 100, 21)).toBe('every 21st of 2100 requests (100 shown)');
    expect(() => new ServingTimelineChart().spec([{ task: 'serving_point', concurrency: 1 }])).toThrow(
      DantinoxError,
    );
  });
});
