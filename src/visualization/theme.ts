/**
 * The one shared look of every dantinox chart: DejaVu Sans text (the font the PNG rasteriser is given, so SVG,
 * PNG and HTML agree), a colour-blind-aware categorical palette, light grids and readable axis defaults. A
 * Vega-Lite `config` for the Vega-Lite charts and the equivalent Vega `config` for the radar chart.
 *
 * @packageDocumentation
 */
import type { Config as VegaConfig } from 'vega';
import type { Config as VegaLiteConfig } from 'vega-lite';

/** Names of the built-in themes (the seed's three styles). */
export type ThemeName = 'publication' | 'dark' | 'minimal';

/** Every theme name, in documentation order. */
export const THEME_NAMES: readonly ThemeName[] = ['publication', 'dark', 'minimal'];

/**
 * The font family written into every spec: DejaVu Sans first (shipped by `dejavu-fonts-ttf` and loaded by the
 * PNG renderer), then common sans-serif fallbacks for browsers without it.
 */
export const FONT_FAMILY = 'DejaVu Sans, Verdana, Arial, sans-serif';

/** Categorical palettes (hex colours), one per theme; series take colours in this order. */
export const PALETTES: Readonly<Record<ThemeName, readonly string[]>> = {
  // The seed's publication palette, reordered so neighbours differ (its #FB5607 sat next to #FF6B35) and its
  // pale #FFBE0B darkened to #E0A100 for contrast on white, extended with distinct hues for larger comparisons.
  publication: [
    '#3A86FF',
    '#FF6B35',
    '#2DC653',
    '#8338EC',
    '#06A5A5',
    '#D62872',
    '#E0A100',
    '#6B4226',
    '#5C677D',
    '#FB5607',
  ],
  dark: ['#00B4D8', '#EF233C', '#80ED99', '#F72585', '#F9C74F', '#F8961E', '#B5179E', '#4CC9F0'],
  minimal: ['#222222', '#6E6E6E', '#A0A0A0', '#3A86FF', '#FF6B35', '#2DC653'],
};

interface ThemeColors {
  readonly background: string;
  readonly text: string;
  readonly subtle: string;
  readonly grid: string;
  readonly domain: string;
  readonly showGrid: boolean;
}

const COLORS: Readonly<Record<ThemeName, ThemeColors>> = {
  publication: {
    background: '#FFFFFF',
    text: '#1F1F1F',
    subtle: '#555555',
    grid: '#E6E6E6',
    domain: '#8C8C8C',
    showGrid: true,
  },
  dark: {
    background: '#1A1A2E',
    text: '#E0E0E0',
    subtle: '#B0B0C0',
    grid: '#2E3A5C',
    domain: '#8C8CA0',
    showGrid: true,
  },
  minimal: {
    background: '#FFFFFF',
    text: '#222222',
    subtle: '#555555',
    grid: '#EEEEEE',
    domain: '#222222',
    showGrid: false,
  },
};

/** The background colour (hex) of a theme, used by the PNG rasteriser and the HTML report. */
export function themeBackground(theme: ThemeName): string {
  return COLORS[theme].background;
}

/** The colour (hex) of secondary marks (frontier lines, range rules) in a theme. */
export function themeSubtle(theme: ThemeName): string {
  return COLORS[theme].subtle;
}

/**
 * The Vega-Lite `config` object of a theme: fonts (13 px labels, 14 px axis titles, 16 px bold title), palette,
 * grid and axis defaults. Axis labels are never clipped (`labelLimit: 0`, `labelOverlap` resolved by Vega).
 */
export function vegaLiteTheme(theme: ThemeName): VegaLiteConfig {
  const c = COLORS[theme];
  return {
    background: c.background,
    font: FONT_FAMILY,
    padding: 12,
    view: { stroke: null },
    range: { category: [...PALETTES[theme]] },
    title: {
      fontSize: 16,
      fontWeight: 'bold',
      color: c.text,
      anchor: 'start',
      subtitleFontSize: 12,
      subtitleColor: c.subtle,
      offset: 12,
    },
    axis: {
      labelFontSize: 12,
      titleFontSize: 13,
      titleFontWeight: 'normal',
      labelColor: c.text,
      titleColor: c.text,
      labelLimit: 0,
      titlePadding: 10,
      grid: c.showGrid,
      gridColor: c.grid,
      domainColor: c.domain,
      tickColor: c.domain,
    },
    legend: {
      labelFontSize: 12,
      titleFontSize: 12,
      titleFontWeight: 'bold',
      labelColor: c.text,
      titleColor: c.text,
      labelLimit: 0,
      symbolSize: 90,
    },
    text: { fontSize: 11, color: c.text },
    line: { strokeWidth: 2 },
    point: { size: 70, filled: true },
  };
}

/** The Vega `config` of a theme, for charts written directly in Vega (the radar chart). */
export function vegaTheme(theme: ThemeName): VegaConfig {
  const c = COLORS[theme];
  return {
    background: c.background,
    range: { category: [...PALETTES[theme]] },
    title: {
      font: FONT_FAMILY,
      fontSize: 16,
      fontWeight: 'bold',
      color: c.text,
      anchor: 'start',
      offset: 12,
    },
    legend: {
      labelFont: FONT_FAMILY,
      titleFont: FONT_FAMILY,
      labelFontSize: 12,
      titleFontSize: 12,
      titleFontWeight: 'bold',
      labelColor: c.text,
      titleColor: c.text,
      labelLimit: 0,
    },
    text: { font: FONT_FAMILY, fill: c.text },
  };
}

/** Grid / spoke colour of a theme (used by the radar's hand-built axes). */
export function themeGrid(theme: ThemeName): string {
  return theme === 'minimal' ? '#CCCCCC' : COLORS[theme].grid === '#E6E6E6' ? '#CFCFCF' : COLORS[theme].grid;
}

/** Text colour of a theme. */
export function themeText(theme: ThemeName): string {
  return COLORS[theme].text;
}
