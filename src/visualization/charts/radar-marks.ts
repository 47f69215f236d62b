/**
 * The marks of the radar chart's Vega spec: grid rings, spokes, ring labels, one closed polygon (and points)
 * per model, and spoke labels. Coordinates are polar: each datum carries its spoke `angle` (radians, 0 = right,
 * clockwise because y points down) and the `radial` scale maps a normalised value to a radius.
 *
 * @packageDocumentation
 */
import type { Mark } from 'vega';
import { FONT_FAMILY } from '../theme.js';

/** Colours and fill of the radar marks. */
export interface RadarMarkStyle {
  /** Grid ring and spoke colour. */
  readonly grid: string;
  /** Spoke label colour. */
  readonly text: string;
  /** Ring label colour. */
  readonly subtle: string;
  /** Polygon fill opacity (0–1). */
  readonly fillOpacity: number;
}

const point = (r: string): string => `${r} * cos(datum.angle)`;
const pointY = (r: string): string => `${r} * sin(datum.angle)`;

/** The radar's marks, drawn inside a group centred on the chart (data sets `rings`, `ring-labels`, `spokes`, `present`). */
export function radarMarks(style: RadarMarkStyle): Mark[] {
  return [
    {
      type: 'group',
      from: { facet: { data: 'rings', name: 'ring', groupby: ['level'] } },
      marks: [
        {
          type: 'line',
          from: { data: 'ring' },
          encode: {
            enter: {
              interpolate: { value: 'linear-closed' },
              x: { signal: point("scale('radial', datum.level)") },
              y: { signal: pointY("scale('radial', datum.level)") },
              stroke: { value: style.grid },
              strokeWidth: { value: 1 },
            },
          },
        },
      ],
    },
    {
      type: 'rule',
      from: { data: 'spokes' },
      encode: {
        enter: {
          x: { value: 0 },
          y: { value: 0 },
          x2: { signal: point('radius') },
          y2: { signal: pointY('radius') },
          stroke: { value: style.grid },
          strokeWidth: { value: 1 },
        },
      },
    },
    {
      type: 'text',
      from: { data: 'ring-labels' },
      encode: {
        enter: {
          x: { signal: point("scale('radial', datum.level)") },
          y: { signal: pointY("scale('radial', datum.level)") },
          text: { signal: "format(datum.level, '.2')" },
          align: { value: 'center' },
          font: { value: FONT_FAMILY },
          fontSize: { value: 10 },
          fill: { value: style.subtle },
          baseline: { value: 'middle' },
        },
      },
    },
    {
      type: 'group',
      from: { facet: { data: 'present', name: 'model', groupby: ['series'] } },
      marks: [
        {
          type: 'line',
          from: { data: 'model' },
          encode: {
            enter: {
              interpolate: { value: 'linear-closed' },
              x: { signal: point("scale('radial', datum.norm)") },
              y: { signal: pointY("scale('radial', datum.norm)") },
              stroke: { scale: 'color', field: 'series' },
              strokeWidth: { value: 2 },
              fill: { scale: 'color', field: 'series' },
              fillOpacity: { value: style.fillOpacity },
            },
          },
        },
        {
          type: 'symbol',
          from: { data: 'model' },
          encode: {
            enter: {
              x: { signal: point("scale('radial', datum.norm)") },
              y: { signal: pointY("scale('radial', datum.norm)") },
              fill: { scale: 'color', field: 'series' },
              size: { value: 36 },
              tooltip: {
                signal:
                  "{'Model': datum.series, 'Metric': datum.metric, 'Value': format(datum.value, ',.4~f'), 'Normalised (1 = best)': format(datum.norm, '.2f')}",
              },
            },
          },
        },
      ],
    },
    {
      type: 'text',
      from: { data: 'spokes' },
      encode: {
        enter: {
          x: { signal: point('(radius + 10)') },
          y: { signal: pointY('(radius + 10)') },
          text: { field: 'label' },
          font: { value: FONT_FAMILY },
          fontSize: { value: 12 },
          fontWeight: { value: 'bold' },
          fill: { value: style.text },
          align: [
            { test: 'abs(cos(datum.angle)) < 0.2', value: 'center' },
            { test: 'cos(datum.angle) > 0', value: 'left' },
            { value: 'right' },
          ],
          baseline: [
            { test: 'abs(sin(datum.angle)) < 0.2', value: 'middle' },
            { test: 'sin(datum.angle) > 0', value: 'top' },
            { value: 'bottom' },
          ],
        },
      },
    },
  ];
}
